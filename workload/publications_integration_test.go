package workload_test

import (
	"context"
	"slices"
	"testing"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// TestDependentsNamePublications: a publication of every table or of a
// whole schema publishes a table without naming it (no pg_depend row to
// follow), so dropping the table or the schema changed the user's
// replication without a word. Dependents names each, as what drops them
// refuses the other dependents; a publication of neither is not named;
// and the query of a server before PostgreSQL 15 (no
// pg_publication_namespace) runs and names the FOR ALL TABLES one alone.
func TestDependentsNamePublications(t *testing.T) {
	ctx := context.Background()
	db := testdb.Fresh(t, "stampede_pubs", sqlx.Options{MaxConns: 2})
	for _, sql := range []string{
		"CREATE SCHEMA tenant_1", "CREATE TABLE tenant_1.bank (id int PRIMARY KEY)",
		"CREATE SCHEMA other", "CREATE TABLE other.mine (id int PRIMARY KEY)",
		"CREATE TABLE bank (id int PRIMARY KEY)",
		"CREATE PUBLICATION allpub FOR ALL TABLES",
		"CREATE PUBLICATION tenantpub FOR TABLES IN SCHEMA tenant_1",
		"CREATE PUBLICATION otherpub FOR TABLES IN SCHEMA other",
	} {
		if _, err := db.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	for _, tc := range []struct {
		name            string
		schemas, tables []string
		want            []string
	}{
		{"tenant schema", []string{"tenant_1"}, nil, []string{"publication allpub (FOR ALL TABLES)", "publication tenantpub (FOR TABLES IN SCHEMA tenant_1)"}},
		{"table in public", nil, []string{"bank"}, []string{"publication allpub (FOR ALL TABLES)"}},
		{"no such table", nil, []string{"nothing"}, nil},
	} {
		got, err := workload.Dependents(ctx, db, tc.schemas, tc.tables)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: Dependents = %q, want %q", tc.name, got, tc.want)
		}
	}
	// Before PostgreSQL 15 the query leaves pg_publication_namespace out.
	rows, err := db.Query(ctx, dialect.PublicationsQuery(db.Dialect(), false), []string{"tenant_1"}, []string{})
	if err != nil {
		t.Fatalf("the query of a server without publications of schemas: %v", err)
	}
	var got []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"publication allpub (FOR ALL TABLES)"}; !slices.Equal(got, want) {
		t.Errorf("the query without publications of schemas: %q, want %q", got, want)
	}
}

// TestDependentsNameUsersOwnedSequence: a sequence reached by an
// automatic dependency counted as the table's own, so a user's sequence
// OWNED BY a column of stampede's table went with it unnamed (fix28d F1).
// The sequence of a SERIAL or identity column (the column's default uses
// it, or the column is its identity) stays the table's own; any other
// sequence owned by a column is named.
func TestDependentsNameUsersOwnedSequence(t *testing.T) {
	ctx := context.Background()
	db := testdb.Fresh(t, "stampede_ownedseq", sqlx.Options{MaxConns: 2})
	for _, sql := range []string{
		"CREATE TABLE sbtest1 (id SERIAL PRIMARY KEY, k int GENERATED ALWAYS AS IDENTITY, c text)",
		"CREATE TABLE plain (id int PRIMARY KEY)",
		"CREATE SEQUENCE myseq OWNED BY plain.id",
	} {
		if _, err := db.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	for _, tc := range []struct {
		table string
		want  []string
	}{
		{"sbtest1", nil},
		{"plain", []string{"sequence public.myseq"}},
	} {
		got, err := workload.Dependents(ctx, db, nil, []string{tc.table})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Dependents(%s) = %q, want %q", tc.table, got, tc.want)
		}
	}
	// A user's sequence owned by a column of a SERIAL table is named too.
	if _, err := db.Exec(ctx, "CREATE SEQUENCE theirs OWNED BY sbtest1.id"); err != nil {
		t.Fatal(err)
	}
	got, err := workload.Dependents(ctx, db, nil, []string{"sbtest1"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"sequence public.theirs"}; !slices.Equal(got, want) {
		t.Errorf("Dependents(sbtest1) = %q, want %q", got, want)
	}
}

// TestDependentsLeaveOutStampedesPublications (fix28al F4): a
// publication an init file made (init sql marks it, bound to its OID) is
// stampede's, so a FOR ALL TABLES one was named as a user's object that
// depends on stampede_load: cleanup sql and init sql --drop refused
// forever, and --force-drop said it kept it, then dropped it. Dependents
// leaves it out; one whose mark is bound to another OID (a copy) is
// still named.
func TestDependentsLeaveOutStampedesPublications(t *testing.T) {
	ctx := context.Background()
	db := testdb.Fresh(t, "stampede_ourpubs", sqlx.Options{MaxConns: 2})
	for _, sql := range []string{
		"CREATE TABLE stampede_load (id int PRIMARY KEY)",
		"CREATE PUBLICATION ourpub FOR ALL TABLES",
		"CREATE PUBLICATION copypub FOR ALL TABLES",
		`DO $$BEGIN EXECUTE format('COMMENT ON PUBLICATION ourpub IS %L', 'made by stampede init of sql (file x.sql); oid ' || (SELECT oid FROM pg_publication WHERE pubname = 'ourpub'));
		EXECUTE format('COMMENT ON PUBLICATION copypub IS %L', 'made by stampede init of sql (file x.sql); oid ' || (SELECT oid FROM pg_publication WHERE pubname = 'ourpub')); END$$`,
	} {
		if _, err := db.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	got, err := workload.Dependents(ctx, db, nil, []string{"stampede_load"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"publication copypub (FOR ALL TABLES)"}; !slices.Equal(got, want) {
		t.Errorf("Dependents(stampede_load) = %q, want %q", got, want)
	}
}
