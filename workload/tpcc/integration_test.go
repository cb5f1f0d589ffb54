package tpcc

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// freshDB creates a database with a random name on the server of
// STAMPEDE_TEST_DATABASE (skipping the test when it is unset), opens it
// for the given number of workers, and drops it when the test ends.
func freshDB(t testing.TB, workers int) *sqlx.DB {
	t.Helper()
	return testdb.Fresh(t, "stampede_tpcc_test", sqlx.Options{MaxConns: workers + 8, Workers: workers})
}

// lines is a Reporter that keeps the lines.
type lines []string

func (l *lines) Printf(format string, args ...any) { *l = append(*l, fmt.Sprintf(format, args...)) }

// countingRecorder counts tolerated errors per op; shared by all workers.
type countingRecorder struct {
	errors [5]atomic.Int64
}

func (r *countingRecorder) Record(int, time.Duration)   {}
func (r *countingRecorder) RecordError(op int, _ error) { r.errors[op].Add(1) }

// mustPass runs CheckConsistency and fails the test unless every condition
// passes.
func mustPass(t *testing.T, ctx context.Context, g *tpcc, db *sqlx.DB, when string) {
	t.Helper()
	var out lines
	if err := g.Hooks().CheckConsistency(ctx, db, &out); err != nil {
		t.Fatalf("CheckConsistency %s: %v\n%s", when, err, strings.Join(out, "\n"))
	}
	if len(out) != len(checks) {
		t.Errorf("CheckConsistency %s printed %q", when, out)
	}
}

// runOps runs perWorker transactions on each worker of ql, closes ql and
// returns the number of each op.
func runOps(t *testing.T, ctx context.Context, ql workload.QueryLoad, perWorker int, rec workload.Recorder) []int64 {
	t.Helper()
	counts := make([]atomic.Int64, len(ql.Ops))
	runWorkers(t, ctx, ql, perWorker, rec, func(res workload.Result, _ time.Duration) { counts[res.Op].Add(1) })
	out := make([]int64, len(counts))
	for i := range counts {
		out[i] = counts[i].Load()
	}
	return out
}

// runWorkers runs perWorker transactions on each worker of ql, attached
// to rec, passing each successful one with its duration to done (from the
// workers' goroutines), closes ql and fails the test on the first error.
func runWorkers(t *testing.T, ctx context.Context, ql workload.QueryLoad, perWorker int, rec workload.Recorder,
	done func(res workload.Result, d time.Duration),
) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make([]error, len(ql.Workers))
	for i, w := range ql.Workers {
		wg.Go(func() {
			ql.Attach(i, rec)
			for n := range perWorker {
				start := time.Now()
				res := w(ctx)
				if res.Err != nil {
					errs[i] = fmt.Errorf("worker %d, call %d: %w", i, n, res.Err)
					return
				}
				done(res, time.Since(start))
			}
		})
	}
	wg.Wait()
	if err := ql.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestPostgres(t *testing.T) {
	const workers = 8
	db := freshDB(t, workers)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	g := newGen(t, "--fks")
	g.SetSeed(42)

	want := "table tpcc_meta does not exist in database " + db.Database() + ": run `stampede init tpcc` first"
	if err := g.Hooks().PreRun(ctx, db); err == nil || err.Error() != want {
		t.Errorf("PreRun before init: %v, want %s", err, want)
	}

	start := time.Now()
	if err := workload.Setup(ctx, db, g, workload.LoadOptions{Concurrency: 8}); err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	var total int64
	for _, tab := range g.Tables() {
		total += tab.InitialRows.NumRows
	}
	t.Logf("loaded 1 warehouse (about %d rows) in %v: %.0f rows/s", total, elapsed.Round(time.Millisecond), float64(total)/elapsed.Seconds())

	// The loaded counts.
	for table, n := range map[string]int64{orderTable: 30000, newOrderTable: 9000, customerTable: 30000, stockTable: 100000, itemTable: 100000} {
		var got int64
		if err := db.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != n {
			t.Errorf("%s: %d rows, want %d", table, got, n)
		}
	}
	var loadC int64
	if err := db.QueryRow(ctx, "SELECT c_last_load_c FROM tpcc_meta").Scan(&loadC); err != nil || loadC != loadCLast(42) {
		t.Errorf("tpcc_meta C: %d, %v", loadC, err)
	}

	if err := g.Hooks().PreRun(ctx, db); err != nil {
		t.Fatalf("PreRun: %v", err)
	}
	if err := newGen(t, "--warehouses", "2").Hooks().PreRun(ctx, db); err == nil || !strings.Contains(err.Error(), "holds 1 warehouse, not --warehouses 2") {
		t.Errorf("PreRun with --warehouses 2: %v", err)
	}
	mustPass(t, ctx, g, db, "after loading")

	// Each transaction type alone, then the standard mix.
	for _, mix := range []string{"newOrder=1", "payment=1", "orderStatus=1", "delivery=1", "stockLevel=1", defaultMix} {
		rg := newGen(t, "--wait=false", "--mix", mix, "--isolation", "serializable")
		n := workers
		if mix == "delivery=1" {
			// Every Delivery of one warehouse updates the same ten
			// districts' oldest orders: with 8 workers under SERIALIZABLE
			// a transaction can lose 100 conflicts in a row on a busy
			// machine. Fewer workers still exercise the retries.
			n = 3
		}
		ql, err := rg.Ops(ctx, db, workload.OpsConfig{Concurrency: n, Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		rec := &countingRecorder{}
		counts := runOps(t, ctx, ql, 60, rec)
		var retried int64
		for i := range rec.errors {
			retried += rec.errors[i].Load()
		}
		t.Logf("mix %s: %v, %d retried conflicts", mix, counts, retried)
		mustPass(t, ctx, g, db, "after mix "+mix)
	}

	// New-Orders added orders and Deliveries delivered some of the loaded
	// new orders.
	var maxO, delivered int64
	if err := db.QueryRow(ctx, `SELECT max(o_id) FROM "order"`).Scan(&maxO); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(ctx, `SELECT count(*) FROM "order" WHERE o_id >= 2101 AND o_carrier_id IS NOT NULL`).Scan(&delivered); err != nil {
		t.Fatal(err)
	}
	if maxO <= 3000 || delivered == 0 {
		t.Errorf("max(o_id) %d, %d new orders delivered", maxO, delivered)
	}

	// Corruption is detected.
	if _, err := db.Exec(ctx, "UPDATE warehouse SET w_ytd = w_ytd + 1 WHERE w_id = 1"); err != nil {
		t.Fatal(err)
	}
	var out lines
	err := g.Hooks().CheckConsistency(ctx, db, &out)
	if err == nil || !strings.Contains(err.Error(), "3.3.2.1 (1 rows)") {
		t.Errorf("CheckConsistency after corruption: %v", err)
	}
	if !strings.Contains(strings.Join(out, "\n"), "tpcc: 3.3.2.1 W_YTD = sum(D_YTD): FAIL (1 offending rows)") {
		t.Errorf("check output %q", out)
	}

	// A New-Order whose item has no stock row fails as a whole, although
	// its COMMIT travels with its last statement: the statement's guard
	// fails it, and the order id it took is given back.
	// TRUNCATE takes order_line too, which refers to stock with --fks.
	if _, err := db.Exec(ctx, "TRUNCATE stock CASCADE"); err != nil {
		t.Fatal(err)
	}
	var ordersBefore, nextBefore, ordersAfter, nextAfter int64
	counts := func(orders, next *int64) {
		t.Helper()
		if err := db.QueryRow(ctx, `SELECT (SELECT count(*) FROM "order"), (SELECT sum(d_next_o_id) FROM district)`).
			Scan(orders, next); err != nil {
			t.Fatal(err)
		}
	}
	counts(&ordersBefore, &nextBefore)
	ng := newGen(t, "--wait=false", "--mix", "newOrder=1")
	ql, err := ng.Ops(ctx, db, workload.OpsConfig{Concurrency: 1, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	ql.Attach(0, &countingRecorder{})
	res := ql.Workers[0](ctx)
	if err := ql.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if res.Err == nil || !strings.Contains(res.Err.Error(), "has no stock row") {
		t.Errorf("New-Order without stock: %v, want an error about a missing stock row", res.Err)
	}
	counts(&ordersAfter, &nextAfter)
	if ordersAfter != ordersBefore || nextAfter != nextBefore {
		t.Errorf("the failed New-Order left orders %d -> %d, sum(d_next_o_id) %d -> %d", ordersBefore, ordersAfter, nextBefore, nextAfter)
	}
}

// TestPostgresTwoWarehouses loads 2 warehouses, so that Payment and
// New-Order have remote warehouses, and runs the mix under REPEATABLE
// READ and under the default READ COMMITTED, checking consistency after
// each, the costly conditions included (3.3.2.10 and 3.3.2.12 are what
// one-statement Payment and Delivery must keep).
func TestPostgresTwoWarehouses(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 2 warehouses")
	}
	const workers = 6
	db := freshDB(t, workers)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	g := newGen(t, "--warehouses", "2", "--expensive-checks")
	g.SetSeed(3)
	if err := workload.Setup(ctx, db, g, workload.LoadOptions{Concurrency: 8}); err != nil {
		t.Fatal(err)
	}
	mustPass(t, ctx, g, db, "after loading")
	// check given no --warehouses checks the 2 loaded and says so; given
	// another --warehouses, it refuses as run does.
	var out lines
	if err := newGen(t).Hooks().CheckConsistency(ctx, db, &out); err != nil {
		t.Fatalf("check without --warehouses: %v\n%s", err, strings.Join(out, "\n"))
	}
	if note := "tpcc: checking the 2 warehouses that init loaded into database " + db.Database() + " (tpcc_meta)"; len(out) != len(checks)+1 || out[0] != note {
		t.Errorf("check without --warehouses printed %q, want %q first, then the %d conditions", out, note, len(checks))
	}
	for _, w := range []string{"1", "3"} {
		out = nil
		err := newGen(t, "--warehouses", w).Hooks().CheckConsistency(ctx, db, &out)
		want := "database " + db.Database() + " holds 2 warehouses, not --warehouses " + w + ": run `stampede check tpcc --warehouses 2`, or leave --warehouses out to check the warehouses init loaded"
		if err == nil || err.Error() != want || !errors.Is(err, workload.ErrLoadMismatch) || len(out) != 0 {
			t.Errorf("check --warehouses %s: %v, printed %q; want %q", w, err, out, want)
		}
	}
	for i, iso := range []string{"repeatable-read", "read-committed"} {
		rg := newGen(t, "--warehouses", "2", "--wait=false", "--isolation", iso)
		ql, err := rg.Ops(ctx, db, workload.OpsConfig{Concurrency: workers, Seed: uint64(8 + i)})
		if err != nil {
			t.Fatal(err)
		}
		counts := runOps(t, ctx, ql, 150, &countingRecorder{})
		t.Logf("%s mix: %v", iso, counts)
		mustPass(t, ctx, g, db, "after the run under "+iso)
	}
	var remote int64
	if err := db.QueryRow(ctx, "SELECT count(*) FROM history WHERE h_c_w_id <> h_w_id").Scan(&remote); err != nil {
		t.Fatal(err)
	}
	if remote == 0 {
		t.Error("no remote payment")
	}
}
