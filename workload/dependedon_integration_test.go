package workload_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// TestDependedOn: a refusal over a user's objects that depend on tables
// stampede would drop named every table of the drop ("a view v depends
// on tables bank, stampede_load") although the view reads bank alone.
// DependedOn names each object's own tables: all objects on the same
// ones name them once; objects on different ones each name theirs.
func TestDependedOn(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db := testdb.Fresh(t, "fix28ah_depon", sqlx.Options{MaxConns: 2, Workers: 1})
	for _, s := range []string{"CREATE TABLE a (id int)", "CREATE TABLE b (id int)", "CREATE TABLE c (id int)",
		"CREATE VIEW va AS SELECT id FROM a", "CREATE VIEW vab AS SELECT a.id FROM a JOIN b USING (id)", "CREATE VIEW vb AS SELECT id FROM b"} {
		if _, err := db.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	tables := []string{"a", "b", "c"}
	for _, c := range []struct {
		name     string
		deps     []string
		wantWhat string
		wantObjs []string
	}{
		{"one view on one table", []string{"view public.va"}, "table a in here", []string{"view public.va"}},
		{"one view on two tables", []string{"view public.vab"}, "tables a, b in here", []string{"view public.vab"}},
		{"views on different tables", []string{"view public.va", "view public.vb"}, "tables a, b in here",
			[]string{"view public.va on table a", "view public.vb on table b"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			what, objs, err := workload.DependedOn(ctx, db, tables, tables, "here", c.deps)
			if err != nil || what != c.wantWhat || !slices.Equal(objs, c.wantObjs) {
				t.Errorf("DependedOn = %q, %q (%v), want %q, %q", what, objs, err, c.wantWhat, c.wantObjs)
			}
		})
	}
}
