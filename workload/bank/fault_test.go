package bank

import (
	"context"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/localpg"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// testLog sends localpg's progress messages to the test log.
type testLog struct{ t *testing.T }

func (w testLog) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// TestCrashRestart runs transfers against a private PostgreSQL server,
// crashes it (immediate shutdown) and restarts it in the middle of the
// run, and checks that the workers carry on and that no transfer was
// half-applied.
func TestCrashRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the crash test in short mode")
	}
	if _, err := localpg.FindBinDir(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// The postgres OS user (when we are root) must be able to traverse
	// the parent directory.
	parent, err := os.MkdirTemp("", "stampede-bank-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(parent) })
	if err := os.Chmod(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	srv, err := localpg.Start(ctx, localpg.Options{Dir: parent, Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})

	const workers = 4
	db, err := sqlx.Open(ctx, sqlx.Options{URLs: []string{srv.URL("postgres")}, MaxConns: workers + 4, Workers: workers,
		ConnectTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	g := newGen(t, "--rows", "500", "--payload-bytes", "20")
	g.SetSeed(5)
	if err := workload.Setup(ctx, db, g, workload.LoadOptions{Concurrency: 2}); err != nil {
		t.Fatal(err)
	}
	ql, err := g.Ops(ctx, db, workload.OpsConfig{Concurrency: workers, Seed: 6})
	if err != nil {
		t.Fatal(err)
	}

	const (
		runFor       = 8 * time.Second
		restartAfter = 3 * time.Second
	)
	rec := &countingRecorder{}
	var (
		before, after atomic.Int64 // successful transfers before the crash and after the restart
		failed        atomic.Int64 // transfers that returned an error
		restarted     atomic.Bool
		errMu         sync.Mutex
		firstErrs     []string
	)
	runCtx, stop := context.WithTimeout(ctx, runFor)
	defer stop()
	var wg sync.WaitGroup
	for i, w := range ql.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ql.Attach(i, rec)
			for runCtx.Err() == nil {
				done := restarted.Load()
				res := w(runCtx)
				switch {
				case res.Err == nil && done:
					after.Add(1)
				case res.Err == nil:
					before.Add(1)
				case runCtx.Err() == nil:
					failed.Add(1)
					errMu.Lock()
					if len(firstErrs) < 5 {
						firstErrs = append(firstErrs, res.Err.Error())
					}
					errMu.Unlock()
					time.Sleep(10 * time.Millisecond) // as an engine tolerating errors would go on
				}
			}
		}()
	}
	restartErr := make(chan error, 1)
	go func() {
		select {
		case <-time.After(restartAfter):
		case <-runCtx.Done():
			restartErr <- runCtx.Err()
			return
		}
		err := srv.Restart(ctx, true)
		restarted.Store(true)
		restartErr <- err
	}()
	wg.Wait()
	if err := <-restartErr; err != nil {
		t.Fatalf("Restart: %v", err)
	}
	if err := ql.Close(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("transfers: %d before the crash, %d after the restart; %d failed (%q), %d retried; %d reconnects",
		before.Load(), after.Load(), failed.Load(), firstErrs, rec.errors.Load(), db.Reconnects())

	if before.Load() == 0 {
		t.Error("no transfer succeeded before the crash")
	}
	if after.Load() == 0 {
		t.Error("no transfer succeeded after the restart: the workers did not recover")
	}
	if failed.Load()+rec.errors.Load() == 0 {
		t.Error("the crash caused no error, failed or retried")
	}
	if db.Reconnects() == 0 {
		t.Error("no worker reconnected after the crash")
	}

	// The invariant survived the crash. The pool's idle connections may
	// have died with the server: retry a lost connection a few times.
	var out lines
	for attempt := 1; ; attempt++ {
		out = nil
		err = g.Hooks().CheckConsistency(ctx, db, &out)
		if err == nil || !sqlx.IsConnectionError(err) || attempt == 5 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("CheckConsistency after the crash: %v (%q)", err, out)
	}
	t.Log(strings.Join(out, "\n"))
}
