package fleet_test

import (
	"context"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/engine"
	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/workload"
)

// pgSleepGen is a workload whose workers each wait in pg_sleep(30) on a
// connection of their own.
type pgSleepGen struct{}

func (pgSleepGen) Meta() workload.Meta      { return workload.Meta{Name: "pgsleep"} }
func (pgSleepGen) Tables() []workload.Table { return nil }
func (pgSleepGen) Ops(_ context.Context, db *sqlx.DB, oc workload.OpsConfig) (workload.QueryLoad, error) {
	ql := workload.QueryLoad{Ops: []string{"sleep"}}
	conns := make([]sqlx.Conn, oc.Concurrency)
	for i := range conns {
		c := db.Conn(i, true)
		conns[i] = c
		ql.Workers = append(ql.Workers, func(ctx context.Context) workload.Result {
			_, err := c.Exec(ctx, "SELECT pg_sleep(30)")
			return workload.Result{Err: err}
		})
	}
	ql.Close = func(context.Context) error {
		for _, c := range conns {
			c.Release()
		}
		return nil
	}
	return ql, nil
}

// TestAbandon checks, against the real server, that Abandon closes the
// connections of a fleet's workers that the engine abandoned in
// pg_sleep(30): they return at once, their backends go, and the tenants'
// loads and pools then close without waiting for them.
func TestAbandon(t *testing.T) {
	db := testdb.Fresh(t, "fleetabandon", sqlx.Options{MaxConns: 1})
	ctx := context.Background()
	r, err := fleet.Open(ctx, fleet.RunConfig{
		Spec:             fleet.Spec{Tenants: 2, Mode: fleet.ModeSchema, Pattern: "t_%d"},
		Base:             sqlx.Options{URLs: []string{testdb.URL(t)}, Database: db.Database(), AppName: "fleet_abandon"},
		Active:           2,
		ConnsPerTenant:   2,
		WorkersPerTenant: 2,
		Seed:             1,
		NewGen:           func(int) (workload.Generator, error) { return pgSleepGen{}, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	load := r.Load()
	reg := stats.NewRegistry(load.Ops, 1, time.Now())
	res := engine.Run(ctx, engine.Config{Duration: 200 * time.Millisecond, Grace: 200 * time.Millisecond, DisplayEvery: 100 * time.Millisecond},
		load, reg, engine.Hooks{})
	if len(res.Abandoned) != 4 {
		t.Fatalf("abandoned %v, want the 4 workers in pg_sleep", res.Abandoned)
	}
	if n := sleeping(t, db, 4); n != 4 {
		t.Fatalf("%d backends in pg_sleep, want the 4 workers'", n)
	}
	r.Abandon(res.Abandoned)
	select {
	case <-res.WorkersDone:
	case <-time.After(10 * time.Second):
		t.Fatal("the abandoned workers have not returned 10 s after Abandon")
	}
	if n := sleeping(t, db, 0); n != 0 {
		t.Errorf("%d backends still in pg_sleep 10 s after Abandon", n)
	}
	done := make(chan struct{})
	go func() {
		_ = load.Close(ctx)
		r.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the fleet's Close still waits 10 s after Abandon")
	}
}

// sleeping waits up to 10 s for want of the fleet's backends to be in
// pg_sleep, and returns the last count.
func sleeping(t *testing.T, db *sqlx.DB, want int) int {
	t.Helper()
	var n int
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		err := db.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE application_name = 'fleet_abandon' AND query LIKE '%pg_sleep%'`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n == want || time.Now().After(deadline) {
			return n
		}
	}
}
