package fleet_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// TestSchemaDropRestrict: the census of tenant schemas (their own objects,
// and what depends on them from outside) ran before the drop, which was
// DROP SCHEMA ... CASCADE: an object a user made between the two went
// with the tenants, without a word. The drop now removes stampede's tables
// by name and the schema with RESTRICT, one transaction per schema, so an
// object made in that window fails it: one line, exit 2's error, and every
// user's row and object survives.
func TestSchemaDropRestrict(t *testing.T) {
	url := testdb.URL(t)
	for _, tc := range []struct {
		name  string
		user  []string // made between the census and the drop
		check map[string]int64
		want  string
	}{
		{"table in a tenant schema", []string{"CREATE TABLE bank_1.mine (a INT)", "INSERT INTO bank_1.mine VALUES (42)"},
			map[string]int64{"SELECT count(*) FROM bank_1.mine WHERE a = 42": 1}, `schema "bank_1"`},
		{"view over a tenant's table", []string{"CREATE VIEW public.myview AS SELECT * FROM bank_2.bank"},
			map[string]int64{"SELECT count(*) FROM public.myview": 10}, `schema "bank_2"`},
		{"typed column outside", []string{"CREATE TABLE public.mytyped (b bank_1.bank)", "INSERT INTO public.mytyped SELECT bank FROM bank_1.bank LIMIT 1"},
			map[string]int64{"SELECT count(*) FROM public.mytyped WHERE b IS NOT NULL": 1}, `schema "bank_1"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			db := testdb.Fresh(t, "stampede_fleet_drop", sqlx.Options{MaxConns: 4})
			target := fleet.Target{
				Spec:        fleet.Spec{Tenants: 2, Mode: fleet.ModeSchema, Pattern: "bank_%d"},
				Base:        sqlx.Options{URLs: []string{url}, Database: db.Database(), MaxConns: 4},
				Concurrency: 2,
				Workload:    "bank",
			}
			gen := bankGen(t, "--rows=10")
			if _, err := fleet.Create(ctx, fleet.CreateOptions{Target: target, NewGenerator: func() (workload.Generator, error) { return gen(1) },
				Flags: "--rows=10", Seed: 1, LoadConcurrency: 1}); err != nil {
				t.Fatal(err)
			}
			defer fleet.SetBeforeDrop(func() {
				for _, sql := range tc.user {
					if _, err := db.Exec(ctx, sql); err != nil {
						t.Fatalf("%s: %v", sql, err)
					}
				}
			})()
			_, _, err := fleet.Drop(ctx, fleet.DropOptions{Target: target, Tables: []string{"bank"}})
			if err == nil {
				t.Fatal("Drop succeeded over an object made after its census")
			}
			msg := err.Error()
			if !errors.Is(err, workload.ErrForeign) || strings.Contains(msg, "\n") ||
				!strings.Contains(msg, tc.want+" in database") || !strings.Contains(msg, "gained objects that stampede did not make since cleanup checked it") ||
				!strings.HasSuffix(msg, "to drop them too, add --force-drop") {
				t.Errorf("Drop: %v (ErrForeign %v)", err, errors.Is(err, workload.ErrForeign))
			}
			for sql, want := range tc.check {
				var n int64
				if err := db.QueryRow(ctx, sql).Scan(&n); err != nil || n != want {
					t.Errorf("%s: %d (%v), want %d", sql, n, err, want)
				}
			}
		})
	}
}
