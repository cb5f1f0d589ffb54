package bank

import (
	"context"
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
	return testdb.Fresh(t, "stampede_bank_test", sqlx.Options{MaxConns: workers + 4, Workers: workers})
}

// lines is a Reporter that keeps the lines.
type lines []string

func (l *lines) Printf(format string, args ...any) { *l = append(*l, fmt.Sprintf(format, args...)) }

// countingRecorder is a Recorder that counts tolerated errors; one is
// shared by all workers of a test, hence the atomics.
type countingRecorder struct {
	records, errors atomic.Int64
}

func (r *countingRecorder) Record(int, time.Duration) { r.records.Add(1) }
func (r *countingRecorder) RecordError(int, error)    { r.errors.Add(1) }

func TestPostgres(t *testing.T) {
	const workers = 4
	db := freshDB(t, workers)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Few accounts, so that transfers conflict.
	g := newGen(t, "--rows", "20", "--payload-bytes", "10", "--initial-balance", "500")
	g.SetSeed(3)

	var out lines
	want := "table bank does not exist in database " + db.Database() + ": run `stampede init bank` first"
	if err := g.Hooks().PreRun(ctx, db); err == nil || err.Error() != want {
		t.Errorf("PreRun before init: %v, want %s", err, want)
	}
	if err := g.Hooks().CheckConsistency(ctx, db, &out); err == nil || err.Error() != want {
		t.Errorf("CheckConsistency before init: %v, want %s", err, want)
	}

	if err := workload.Setup(ctx, db, g, workload.LoadOptions{Concurrency: 2}); err != nil {
		t.Fatal(err)
	}
	if err := g.Hooks().PreRun(ctx, db); err != nil {
		t.Fatalf("PreRun: %v", err)
	}
	// A run with more --rows than loaded is refused.
	if err := newGen(t, "--rows", "21").Hooks().PreRun(ctx, db); err == nil || !strings.Contains(err.Error(), "has no account 20") {
		t.Errorf("PreRun with --rows 21: %v", err)
	}
	out = nil
	if err := g.Hooks().CheckConsistency(ctx, db, &out); err != nil {
		t.Fatalf("CheckConsistency after init: %v (%q)", err, out)
	}
	if want := []string{"bank: 20 rows, total balance 10000 (expected 10000) PASS"}; strings.Join(out, "\n") != strings.Join(want, "\n") {
		t.Errorf("check output %q, want %q", out, want)
	}

	ql, err := g.Ops(ctx, db, workload.OpsConfig{Concurrency: workers, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	const perWorker = 500
	rec := &countingRecorder{}
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for i, w := range ql.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ql.Attach(i, rec)
			for n := 0; n < perWorker; n++ {
				if res := w(ctx); res.Err != nil {
					errs[i] = fmt.Errorf("worker %d, transfer %d: %w", i, n, res.Err)
					return
				}
			}
		}()
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
	t.Logf("%d transfers, %d retried conflicts", workers*perWorker, rec.errors.Load())

	out = nil
	if err := g.Hooks().CheckConsistency(ctx, db, &out); err != nil {
		t.Fatalf("CheckConsistency after the run: %v (%q)", err, out)
	}
	var moved int64
	if err := db.QueryRow(ctx, "SELECT count(*) FROM bank WHERE balance <> 500").Scan(&moved); err != nil {
		t.Fatal(err)
	}
	if moved == 0 {
		t.Error("no balance changed during the run")
	}

	// A corrupted balance fails the check with an error.
	if _, err := db.Exec(ctx, "UPDATE bank SET balance = balance + 7 WHERE id = 3"); err != nil {
		t.Fatal(err)
	}
	out = nil
	err = g.Hooks().CheckConsistency(ctx, db, &out)
	if err == nil || !strings.Contains(err.Error(), "difference +7") || strings.Contains(err.Error(), "\n") {
		t.Errorf("CheckConsistency after corruption: %v", err)
	}
	if len(out) != 2 || out[0] != "bank: 20 rows, total balance 10007 (expected 10000) FAIL" ||
		out[1] != "bank: difference: +0 rows (expected 20), +7 total balance" {
		t.Errorf("check output after corruption %q", out)
	}
	// So does a missing account.
	if _, err := db.Exec(ctx, "UPDATE bank SET balance = balance - 7 WHERE id = 3"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, "DELETE FROM bank WHERE id = 5"); err != nil {
		t.Fatal(err)
	}
	out = nil
	if err := g.Hooks().CheckConsistency(ctx, db, &out); err == nil || len(out) != 2 || !strings.HasPrefix(out[1], "bank: difference: -1 rows") {
		t.Errorf("CheckConsistency after a delete: %v (%q)", err, out)
	}
}
