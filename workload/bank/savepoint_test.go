package bank

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// TestSavepointRetryPostgres runs transfers for a second on the test
// server with the Cockroach dialect forced, so that they use CockroachDB's
// savepoint retry protocol (which PostgreSQL accepts), and checks that the
// total balance is kept. Unlike CockroachDB, PostgreSQL keeps a
// SERIALIZABLE transaction's snapshot across ROLLBACK TO SAVEPOINT, so a
// transfer that lost a write conflict loses it again on every retry
// inside the transaction, until the run ends or it gives up after
// MaxConflictRetries: both are tolerated here, as the protocol is
// CockroachDB's.
func TestSavepointRetryPostgres(t *testing.T) {
	const workers = 4
	db := testdb.Fresh(t, "stampede_bank_savepoint_test", sqlx.Options{
		MaxConns: workers + 4, Workers: workers, Dialect: dialect.Cockroach{},
	})
	if !db.Dialect().Capabilities().SavepointRetry {
		t.Fatalf("dialect %s: no savepoint retries", db.Dialect().Name())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	g := newGen(t, "--rows", "1000", "--payload-bytes", "10", "--initial-balance", "500")
	g.SetSeed(5)
	if err := workload.Setup(ctx, db, g, workload.LoadOptions{Concurrency: 2}); err != nil {
		t.Fatal(err)
	}
	ql, err := g.Ops(ctx, db, workload.OpsConfig{Concurrency: workers, Seed: 13})
	if err != nil {
		t.Fatal(err)
	}
	rec := &countingRecorder{}
	runCtx, stop := context.WithTimeout(ctx, time.Second)
	defer stop()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var done, gaveUp, cut int
	var failed error
	for i, w := range ql.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ql.Attach(i, rec)
			for runCtx.Err() == nil {
				res := w(runCtx)
				mu.Lock()
				switch {
				case res.Err == nil:
					done++
				case runCtx.Err() != nil:
					cut++
				case strings.Contains(res.Err.Error(), "giving up"):
					gaveUp++
				default:
					failed = res.Err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := ql.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if failed != nil {
		t.Fatal(failed)
	}
	t.Logf("%d transfers, %d retried conflicts, %d gave up, %d cut short by the end of the run",
		done, rec.errors.Load(), gaveUp, cut)
	if done == 0 {
		t.Fatal("no transfer succeeded")
	}
	var out lines
	if err := g.Hooks().CheckConsistency(ctx, db, &out); err != nil {
		t.Fatalf("CheckConsistency after the run: %v (%q)", err, out)
	}
	t.Log(strings.Join(out, "\n"))
}
