package bank

import (
	"context"
	"fmt"
	"math"
	"math/big"
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

// TestPostgresExtremeAmounts runs transfers with the largest amounts and
// total balance the flags allow, on two accounts so that every transfer
// moves the same two balances, and then check passes: the total and the
// column's type survive. A balance pushed to BIGINT's top by hand (as an
// older stampede's wrapping transfers left them) gets its transfers
// refused, not wrapped, and check reports the total rather than failing
// on it.
func TestPostgresExtremeAmounts(t *testing.T) {
	const workers = 4
	db := freshDB(t, workers)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	g := newGen(t, "--rows", "2", "--initial-balance", fmt.Sprint(int64(maxTotalBalance/2)), "--max-transfer", fmt.Sprint(int64(maxMaxTransfer)))
	if err := workload.Setup(ctx, db, g, workload.LoadOptions{Concurrency: 1}); err != nil {
		t.Fatal(err)
	}
	run := func(perWorker int) []error {
		ql, err := g.Ops(ctx, db, workload.OpsConfig{Concurrency: workers, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var errs []error
		var wg sync.WaitGroup
		for i, w := range ql.Workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ql.Attach(i, &countingRecorder{})
				for range perWorker {
					if res := w(ctx); res.Err != nil {
						mu.Lock()
						errs = append(errs, res.Err)
						mu.Unlock()
					}
				}
			}()
		}
		wg.Wait()
		if err := ql.Close(ctx); err != nil {
			t.Fatal(err)
		}
		return errs
	}
	if errs := run(300); len(errs) > 0 {
		t.Fatalf("%d transfers failed, the first: %v", len(errs), errs[0])
	}
	var out lines
	if err := g.Hooks().CheckConsistency(ctx, db, &out); err != nil {
		t.Fatalf("check after the run: %v (%q)", err, out)
	}
	want := fmt.Sprintf("bank: 2 rows, total balance %d (expected %d) PASS", int64(maxTotalBalance), int64(maxTotalBalance))
	if len(out) != 1 || out[0] != want {
		t.Errorf("check printed %q, want %q", out, want)
	}

	// Account 0 at BIGINT's top: every transfer into it is refused, and
	// the balances stay as they were.
	if _, err := db.Exec(ctx, "UPDATE bank SET balance = 9223372036854775807 WHERE id = 0"); err != nil {
		t.Fatal(err)
	}
	var before int64
	if err := db.QueryRow(ctx, "SELECT balance FROM bank WHERE id = 1").Scan(&before); err != nil {
		t.Fatal(err)
	}
	errs := run(20)
	if len(errs) == 0 {
		t.Fatal("no transfer into the account at BIGINT's top was refused")
	}
	for _, err := range errs {
		if !strings.Contains(err.Error(), "would take a balance out of BIGINT's range: refused") {
			t.Fatalf("transfer error %v", err)
		}
	}
	out = nil
	err := g.Hooks().CheckConsistency(ctx, db, &out)
	var b0, b1 int64
	if err := db.QueryRow(ctx, "SELECT (SELECT balance FROM bank WHERE id = 0), (SELECT balance FROM bank WHERE id = 1)").Scan(&b0, &b1); err != nil {
		t.Fatal(err)
	}
	// What the accepted transfers (out of account 0) moved.
	moved := int64(math.MaxInt64) - b0
	if b1 != before+moved {
		t.Errorf("balances %d and %d after the refused transfers: account 1 moved by %d, account 0 by %d", b0, b1, b1-before, -moved)
	}
	total := new(big.Int).Add(big.NewInt(b0), big.NewInt(b1))
	wantFail := fmt.Sprintf("bank: 2 rows, total balance %s (expected %d) FAIL", total, int64(maxTotalBalance))
	if err == nil || strings.Contains(err.Error(), "out of range") || len(out) != 2 || out[0] != wantFail {
		t.Errorf("check of a total past BIGINT: %v (%q), want %q", err, out, wantFail)
	}
}
