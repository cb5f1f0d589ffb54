package dialect_test

import (
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/dialect"
)

// TestSnapshotSQL checks how each dialect shares an instant.
func TestSnapshotSQL(t *testing.T) {
	pg, crdb := dialect.Postgres{}, dialect.Cockroach{}
	if s := pg.Snapshot(); s.Export != "SELECT pg_export_snapshot()" || !s.ExportInTx || s.Isolation != "repeatable read" {
		t.Errorf("postgres snapshot %+v", s)
	}
	if s := crdb.Snapshot(); s.Export != "SELECT CAST(cluster_logical_timestamp() AS STRING)" || s.ExportInTx || s.Isolation != "" {
		t.Errorf("cockroach snapshot %+v", s)
	}
	for _, tc := range []struct {
		d     dialect.Differ
		token string
		want  string // "" for an error
	}{
		{pg, "00000003-0000001B-1", "SET TRANSACTION SNAPSHOT '00000003-0000001B-1'"},
		{pg, "0000-1'; DROP TABLE x; --", ""},
		{pg, "", ""},
		{crdb, "1700000000000000000.0000000001", "SET TRANSACTION AS OF SYSTEM TIME 1700000000000000000.0000000001"},
		{crdb, "1700000000000000000", "SET TRANSACTION AS OF SYSTEM TIME 1700000000000000000"},
		{crdb, "now()", ""},
		{crdb, "1.5; SELECT 1", ""},
	} {
		got, err := tc.d.ImportSnapshot(tc.token)
		if tc.want == "" {
			if err == nil {
				t.Errorf("%T ImportSnapshot(%q) = %q, want an error", tc.d, tc.token, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%T ImportSnapshot(%q) = %q, %v; want %q", tc.d, tc.token, got, err, tc.want)
		}
	}
}

// TestCanonicalText checks the canonical text of every type family the
// workloads use; PostgreSQL and CockroachDB share it.
func TestCanonicalText(t *testing.T) {
	for _, tc := range []struct {
		base, full, want string
	}{
		{"integer", "integer", `CAST("c" AS TEXT)`},
		{"bigint", "bigint", `CAST("c" AS TEXT)`},
		{"text", "text", `CAST("c" AS TEXT)`},
		{"character varying", "character varying(24)", `CAST("c" AS TEXT)`},
		{"character", "character(24)", `rtrim(CAST("c" AS TEXT))`},
		{"numeric", "numeric(6,2)", `CASE WHEN strpos(CAST("c" AS TEXT), '.') > 0 THEN rtrim(rtrim(CAST("c" AS TEXT), '0'), '.') ELSE CAST("c" AS TEXT) END`},
		{"timestamp with time zone", "timestamp with time zone", `CAST(("c") AT TIME ZONE 'UTC' AS TEXT)`},
		{"timestamp without time zone", "timestamp without time zone", `CAST("c" AS TEXT)`},
		{"bytea", "bytea", `encode("c", 'hex')`},
		{"boolean", "boolean", `CAST("c" AS TEXT)`},
	} {
		typ := dialect.Type{Base: tc.base, Full: tc.full}
		for _, d := range []dialect.Differ{dialect.Postgres{}, dialect.Cockroach{}} {
			if got := d.CanonicalText(`"c"`, typ); got != tc.want {
				t.Errorf("%T CanonicalText(%s) = %s, want %s", d, tc.full, got, tc.want)
			}
		}
	}
	want := `CAST(CAST('x' || substr(md5(COALESCE(CAST(length(a) AS TEXT) || ':' || a, '-') || COALESCE(CAST(length(b) AS TEXT) || ':' || b, '-')), 1, 16) AS BIT(64)) AS BIGINT)`
	for _, d := range []dialect.Differ{dialect.Postgres{}, dialect.Cockroach{}} {
		if got := d.CanonicalRowHash([]string{"a", "b"}); got != want {
			t.Errorf("%T CanonicalRowHash = %s\nwant %s", d, got, want)
		}
	}
}

// TestTypeFamily checks how types group, on both servers' spellings.
func TestTypeFamily(t *testing.T) {
	for _, tc := range []struct{ base, family string }{
		{"smallint", "int"}, {"integer", "int"}, {"bigint", "int"}, {"INT8", "int"},
		{"numeric", "numeric"}, {"character", "char"}, {"character varying", "text"}, {"text", "text"},
		{"timestamp without time zone", "timestamp"}, {"timestamp with time zone", "timestamptz"},
		{"bytea", "bytes"}, {"boolean", "bool"}, {"double precision", "float"}, {"point", "point"},
	} {
		if got := (dialect.Type{Base: tc.base}).Family(); got != tc.family {
			t.Errorf("Family(%s) = %s, want %s", tc.base, got, tc.family)
		}
	}
	for full, scale := range map[string]int{"numeric(6,2)": 2, "numeric(4, 4)": 4, "DECIMAL(12,2)": 2, "numeric": -1, "integer": -1} {
		if got := (dialect.Type{Full: full}).Scale(); got != scale {
			t.Errorf("Scale(%s) = %d, want %d", full, got, scale)
		}
	}
}

// TestNativeRowHash: PostgreSQL hashes rows of hashable types natively,
// CockroachDB never (no hash shared with another server).
func TestNativeRowHash(t *testing.T) {
	ints := []dialect.Type{{Base: "integer", Full: "integer"}, {Base: "numeric", Full: "numeric(6,2)"}}
	expr, tag, ok := (dialect.Postgres{}).NativeRowHash([]string{`"a"`, `"b"`}, ints)
	if !ok || expr != `(COALESCE(hashint4extended("a", 1), 0) # COALESCE(hash_numeric_extended("b", 2), 0))` || tag == "" {
		t.Errorf("postgres: %q %q %v", expr, tag, ok)
	}
	expr, _, ok = (dialect.Postgres{}).NativeRowHash([]string{`"d"`}, []dialect.Type{{Base: "date", Full: "date"}})
	if !ok || expr != `(hash_record_extended(ROW("d"), 1))` {
		t.Errorf("postgres date: %q %v", expr, ok)
	}
	if _, _, ok := (dialect.Postgres{}).NativeRowHash([]string{`"p"`}, []dialect.Type{{Base: "point", Full: "point"}}); ok {
		t.Error("postgres: a native hash of point, which has no hash function")
	}
	if _, _, ok := (dialect.Cockroach{}).NativeRowHash([]string{`"a"`}, ints[:1]); ok {
		t.Error("cockroach: a native hash")
	}
}

// TestKeySample checks the sampling statements.
func TestKeySample(t *testing.T) {
	keys := []string{`"w"`, `"d"`}
	q, stride := (dialect.Postgres{}).KeySample(`"t"`, keys, nil, 10000)
	want := `SELECT CAST("w" AS TEXT) AS stampede_k1, CAST("d" AS TEXT) AS stampede_k2 FROM "t" TABLESAMPLE BERNOULLI (0.32) ORDER BY "w", "d"`
	if q != want || stride != 32 {
		t.Errorf("postgres: %s, %d\nwant %s, 32", q, stride, want)
	}
	q, stride = (dialect.Cockroach{}).KeySample(`"t"`, keys, nil, 10000)
	want = `SELECT CAST("w" AS TEXT) AS stampede_k1, CAST("d" AS TEXT) AS stampede_k2 FROM (SELECT "w", "d", row_number() OVER (ORDER BY "w", "d") AS rn FROM "t") s WHERE rn % 10000 = 0 ORDER BY "w", "d"`
	if q != want || stride != 1 {
		t.Errorf("cockroach: %s, %d\nwant %s, 1", q, stride, want)
	}
}

// TestCatalogQueries: each takes the table's schema and name as its two
// parameters;
// CockroachDB's leave out hidden columns (the rowid of a table without
// primary key).
func TestCatalogQueries(t *testing.T) {
	for _, d := range []dialect.Differ{dialect.Postgres{}, dialect.Cockroach{}} {
		for _, q := range []string{d.ColumnsQuery(), d.PrimaryKeyQuery()} {
			if !strings.Contains(q, "$1") || !strings.Contains(q, "$2") || strings.Contains(q, "$3") {
				t.Errorf("%T: %s", d, q)
			}
		}
	}
	for _, q := range []string{(dialect.Cockroach{}).ColumnsQuery(), (dialect.Cockroach{}).PrimaryKeyQuery()} {
		if !strings.Contains(q, "is_hidden = 'NO'") {
			t.Errorf("cockroach: hidden columns not left out: %s", q)
		}
	}
	if !strings.Contains((dialect.Cockroach{}).ColumnsQuery(), "crdb_sql_type") {
		t.Error("cockroach: no castable type")
	}
	if got := (dialect.Postgres{}).FloorDiv(`"o"`, 1000); got != `(CASE WHEN "o" >= 0 THEN "o" / 1000 ELSE -((-("o" + 1)) / 1000) - 1 END)` {
		t.Errorf("postgres FloorDiv: %s", got)
	}
	if got := (dialect.Cockroach{}).FloorDiv(`"o"`, 1000); got != `("o" // 1000)` {
		t.Errorf("cockroach FloorDiv: %s", got)
	}
	if got := (dialect.Postgres{}).TxSetup(); len(got) != 3 || got[1] != "SET LOCAL enable_sort = off" || (dialect.Cockroach{}).TxSetup() != nil {
		t.Errorf("TxSetup: %q", got)
	}
	for _, d := range []dialect.Differ{dialect.Postgres{}, dialect.Cockroach{}} {
		if q := d.IdentityQuery(); !strings.Contains(q, "current_database()") {
			t.Errorf("%T IdentityQuery: %s", d, q)
		}
	}
}
