package dialect_test

import (
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/dialect"
)

func TestPostgres(t *testing.T) {
	d := dialect.Postgres{}
	for _, tc := range []struct{ got, want string }{
		{d.Placeholder(1), "$1"},
		{d.Placeholder(12), "$12"},
		{dialect.Placeholders(d, 3, 3), "$3, $4, $5"},
		{d.QuoteIdent(`order`), `"order"`},
		{d.QuoteIdent(`we"ird`), `"we""ird"`},
		{d.CreateDatabase("ycsb"), `CREATE DATABASE "ycsb"`},
		{d.DropDatabase("ycsb"), `DROP DATABASE IF EXISTS "ycsb"`},
		{d.CreateTable("t", "(k INT PRIMARY KEY)"), `CREATE TABLE "t" (k INT PRIMARY KEY)`},
		{d.DropTable("order"), `DROP TABLE IF EXISTS "order"`},
		{d.AnalyzeTable("order"), `ANALYZE "order"`},
		{d.ShareIndexBuild(1), ""},
		{d.ShareIndexBuild(4), "SELECT set_config('max_parallel_maintenance_workers', " +
			"(current_setting('max_parallel_maintenance_workers')::int / 4)::text, true)"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	if q, arg := dialect.TableExistsQuery(d, "order"); q != "SELECT to_regclass($1) IS NOT NULL" || arg != `"order"` {
		t.Errorf("TableExistsQuery: %q %q", q, arg)
	}
	if c := d.Capabilities(); !c.Copy || !c.CreateDatabaseTemplate {
		t.Errorf("capabilities %+v", c)
	}
}

// TestCapabilities checks each dialect's capabilities: only CockroachDB
// retries with its savepoint protocol.
func TestCapabilities(t *testing.T) {
	for _, tc := range []struct {
		d    dialect.Dialect
		name string
		want dialect.Capabilities
	}{
		{dialect.Postgres{}, "postgres", dialect.Capabilities{Copy: true, CreateDatabaseTemplate: true}},
		{dialect.Cockroach{}, "cockroach", dialect.Capabilities{Copy: true, SavepointRetry: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.d.Name(); got != tc.name {
				t.Errorf("Name() = %q", got)
			}
			if got := tc.d.Capabilities(); got != tc.want {
				t.Errorf("Capabilities() = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestCockroach checks that CockroachDB's statements are PostgreSQL's.
func TestCockroach(t *testing.T) {
	d := dialect.Cockroach{}
	for _, tc := range []struct{ got, want string }{
		{d.Placeholder(2), "$2"},
		{d.QuoteIdent(`order`), `"order"`},
		{d.CreateDatabase("bank"), `CREATE DATABASE "bank"`},
		{d.DropTable("order"), `DROP TABLE IF EXISTS "order"`},
		{d.AnalyzeTable("order"), `ANALYZE "order"`},
		{d.ShareIndexBuild(4), ""},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	if q, arg := dialect.TableExistsQuery(d, "order"); q != "SELECT to_regclass($1) IS NOT NULL" || arg != `"order"` {
		t.Errorf("TableExistsQuery: %q %q", q, arg)
	}
}

// TestPublicationsQuery: the query of a server before PostgreSQL 15 never
// names pg_publication_namespace, which it has not (the server would
// refuse the whole query); PostgreSQL 15's does; the other dialects have
// none.
func TestPublicationsQuery(t *testing.T) {
	for _, tc := range []struct {
		d        dialect.Dialect
		bySchema bool
		want     bool // names pg_publication_namespace
		empty    bool
	}{
		{dialect.Postgres{}, false, false, false},
		{dialect.Postgres{}, true, true, false},
		{dialect.Cockroach{}, true, false, true},
	} {
		q := dialect.PublicationsQuery(tc.d, tc.bySchema)
		if (q == "") != tc.empty || strings.Contains(q, "pg_publication_namespace") != tc.want {
			t.Errorf("%s, bySchema %v: %q", tc.d.Name(), tc.bySchema, q)
		}
		if (dialect.SchemaPublicationsQuery(tc.d) == "") != tc.empty {
			t.Errorf("%s: SchemaPublicationsQuery %q", tc.d.Name(), dialect.SchemaPublicationsQuery(tc.d))
		}
	}
}
