package workload_test

import (
	"context"
	"slices"
	"testing"

	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// TestDependentsFollowViewChains: a view on a view on stampede's table
// depends on the first view's relation, not on the rule pg_depend links
// to the table, so the census named the first view alone and
// --force-drop's CASCADE took the rest, a materialized view's rows
// included, unnamed (chk28e F2). Dependents follows a reached rule to the
// view it is part of, as DROP ... CASCADE does, and names every view of
// the chain; a view of the user's on a table of the user's is not named,
// and a view stampede made (ours) with the views on it is left out.
func TestDependentsFollowViewChains(t *testing.T) {
	ctx := context.Background()
	db := testdb.Fresh(t, "stampede_viewchain", sqlx.Options{MaxConns: 2})
	for _, sql := range []string{
		"CREATE TABLE bank (id int PRIMARY KEY, balance int)",
		"CREATE TABLE mine (id int PRIMARY KEY)",
		"CREATE VIEW v1 AS SELECT id, balance FROM bank",
		"CREATE VIEW v2 AS SELECT * FROM v1",
		"CREATE MATERIALIZED VIEW mv3 AS SELECT count(*) FROM v2",
		"CREATE VIEW v4 AS SELECT m.id FROM mv3, mine m",
		"CREATE VIEW apart AS SELECT * FROM mine",
	} {
		if _, err := db.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	got, err := workload.Dependents(ctx, db, nil, []string{"bank"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"materialized view public.mv3", "view public.v1", "view public.v2", "view public.v4"}
	if !slices.Equal(got, want) {
		t.Errorf("Dependents(bank) = %q, want %q", got, want)
	}
	var v1 uint32
	if err := db.QueryRow(ctx, "SELECT 'v1'::regclass::oid").Scan(&v1); err != nil {
		t.Fatal(err)
	}
	got, err = workload.DependentsBeyond(ctx, db, workload.Targets{Relations: []string{"bank"}},
		[]workload.ObjectRef{{Catalog: "pg_class", OID: v1}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"materialized view public.mv3", "view public.v2", "view public.v4"}; !slices.Equal(got, want) {
		t.Errorf("DependentsBeyond(bank, ours v1) = %q, want %q", got, want)
	}
}
