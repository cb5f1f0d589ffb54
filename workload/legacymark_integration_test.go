package workload_test

import (
	"context"
	"testing"

	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// TestLegacyMarks: a mark of the older form, without "; oid N", counted
// as stampede's on any object wherever a table named stampede_load was in
// the database, so a user's object carrying a copy of one (in another
// schema, or naming data the record does not hold) was listed as
// stampede's, and a schema or database drop took it. Now it counts only
// where init's record in the object's own schema names the mark's data,
// or on the schema that holds the record.
func TestLegacyMarks(t *testing.T) {
	ctx := context.Background()
	db := testdb.Fresh(t, "fix28t_legacy", sqlx.Options{MaxConns: 2})
	record := func(schema string) []string {
		t := schema + ".stampede_load"
		return []string{"CREATE TABLE " + t + " (data TEXT PRIMARY KEY, workload TEXT NOT NULL, version TEXT NOT NULL, settings TEXT NOT NULL, loaded_at TIMESTAMPTZ NOT NULL DEFAULT now())",
			"INSERT INTO " + t + " (data, workload, version, settings) VALUES ('bank', 'bank', '1.0.0', '{}')"}
	}
	stmts := append(record("public"),
		"CREATE TABLE public.bank (id int)", "COMMENT ON TABLE public.bank IS 'made by stampede init of bank (data bank)'",
		"CREATE TABLE public.notes (id int)", "COMMENT ON TABLE public.notes IS 'made by stampede init of ycsb (data ycsb)'",
		"CREATE TABLE public.runs (id int)", "COMMENT ON TABLE public.runs IS 'made by stampede run of bulk_insert'",
		"CREATE SCHEMA app", "COMMENT ON SCHEMA app IS 'made by stampede fleet tenant of bank'",
		"CREATE TABLE app.mine (id int)", "COMMENT ON TABLE app.mine IS 'made by stampede init of bank (data bank)'",
		"CREATE FUNCTION app.f() RETURNS int LANGUAGE sql AS 'SELECT 1'", "COMMENT ON FUNCTION app.f() IS 'made by stampede init of bank (data bank)'",
		"CREATE SCHEMA old", "COMMENT ON SCHEMA old IS 'made by stampede fleet tenant of bank'")
	stmts = append(stmts, record("old")...)
	for _, s := range stmts {
		if _, err := db.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	objs, err := workload.Objects(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	marked := map[string]bool{}
	for _, o := range objs {
		marked[o.String()] = o.Marked
	}
	for _, tc := range []struct {
		object string
		want   bool
	}{
		{"table public.bank", true},   // the record beside it names its data
		{"table public.notes", false}, // data the record does not hold
		{"table public.runs", false},  // a workload the record does not name
		{"table app.mine", false},     // no record in its schema: a copy
		{"function app.f", false},     // likewise
		{"schema app", false},         // holds no record
		{"schema old", true},          // the record's own schema
		{"table old.stampede_load", false},
	} {
		got, ok := marked[tc.object]
		if !ok {
			t.Errorf("%s: not listed (%v)", tc.object, objs)
			continue
		}
		if got != tc.want {
			t.Errorf("%s: marked %v, want %v", tc.object, got, tc.want)
		}
	}
	for _, tc := range []struct{ table, want string }{
		{"bank", "made by stampede init of bank (data bank)"},
		{"notes", ""},
		{"runs", ""},
	} {
		if got, err := workload.TableComment(ctx, db, tc.table); err != nil || got != tc.want {
			t.Errorf("TableComment(%s) = %q (%v), want %q", tc.table, got, err, tc.want)
		}
	}
}
