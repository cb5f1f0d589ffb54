package run_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// TestAbandonedWorkersConnections: a run whose workers are stuck in a
// statement past the grace ends within a few seconds, without a panic,
// its results saved, and the stuck backends leave the server soon after:
// the run closes the abandoned workers' connections from under them and
// cancels their statements, then releases the rest once they returned.
// Releasing a connection under its worker made pgx panic ("slow write
// timer already active"); waiting for the worker instead hung the run.
// Each way a worker holds its connection: its own (poller and thread
// I/O; the sql workload in pg_sleep(30)), or one borrowed from a pool it
// shares per call (--conns below the workers; bank's transfers waiting
// for the rows the test locks, the second worker for the first's
// connection).
func TestAbandonedWorkersConnections(t *testing.T) {
	script := filepath.Join(t.TempDir(), "sleep.sql")
	if err := os.WriteFile(script, []byte("SELECT pg_sleep(30);\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sleep := func(t *testing.T, db *sqlx.DB) workload.Generator {
		return generator(t, "sql", "-f", script)
	}
	for _, tc := range []struct {
		name           string
		io             string
		workers, conns int
		stuck          func(t *testing.T, db *sqlx.DB) workload.Generator
	}{
		{"own connection, poller", run.IOPoller, 1, 0, sleep},
		{"own connection, thread I/O", run.IOThread, 1, 0, sleep},
		{"shared connections", run.IOPoller, 2, 1, lockedBank},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := testdb.Fresh(t, "abandon", sqlx.Options{MaxConns: 2})
			gen := tc.stuck(t, db)
			type outcome struct {
				res  *run.Result
				info run.Info
				err  error
			}
			done := make(chan outcome, 1)
			begin := time.Now()
			var log bytes.Buffer
			go func() {
				r, err := run.Start(context.Background(), run.Spec{
					Log:         &log,
					Workload:    gen,
					Conn:        run.Conn{URLs: []string{testdb.URL(t)}, Database: db.Database(), Conns: tc.conns},
					Concurrency: tc.workers,
					IOMode:      tc.io,
					Duration:    300 * time.Millisecond,
					Grace:       200 * time.Millisecond,
					SkipChecks:  true,
					Telemetry:   run.Telemetry{Off: true},
					ResultsDir:  t.TempDir(),
				})
				if err != nil {
					done <- outcome{err: err}
					return
				}
				res, err := r.Wait()
				done <- outcome{res, r.Info(), err}
			}()
			var o outcome
			select {
			case o = <-done:
			case <-time.After(60 * time.Second):
				t.Fatal("the run still has not returned 60 s after its start (its end waits for a stuck worker)")
			}
			took := time.Since(begin)
			if o.err != nil {
				t.Fatalf("run: %v", o.err)
			}
			if took > 10*time.Second {
				t.Errorf("the run took %s: want its 0.3 s, the 0.2 s grace and the closing of the stuck connections", took.Round(time.Millisecond))
			}
			if e := o.res.Engine; e.Unfinished != tc.workers || len(e.Abandoned) != tc.workers {
				t.Errorf("%d unfinished, abandoned %v: want all %d workers, stuck", e.Unfinished, e.Abandoned, tc.workers)
			}
			// Said on the log too, where a report (pgbench's) has no
			// line for it (chkx: the pgbench form said nothing).
			if want := fmt.Sprintf(`(?m)^warning: %d operations still running [0-9.]+ s after the run's end were abandoned with their connections, not counted$`, tc.workers); !regexp.MustCompile(want).MatchString(log.String()) {
				t.Errorf("the run's log does not match %q:\n%s", want, log.String())
			}
			b, err := os.ReadFile(filepath.Join(o.info.Dir, "summary.json"))
			if err != nil {
				t.Fatalf("the run's results were not saved: %v", err)
			}
			var sum struct {
				Unfinished *int `json:"unfinished"`
			}
			if err := json.Unmarshal(b, &sum); err != nil || sum.Unfinished == nil || *sum.Unfinished != tc.workers {
				t.Errorf("summary.json's unfinished: want %d (err %v)\n%s", tc.workers, err, b)
			}
			// The stuck backends are gone: their statements cancelled and
			// their connections closed (a closed socket alone leaves
			// pg_sleep or the lock wait running; a cancel alone leaves
			// the backend idle).
			if left := runBackends(t, db, 10*time.Second); left != 0 {
				t.Errorf("%d of the run's backends still there 10 s after its end", left)
			}
		})
	}
}

// generator returns workload name's generator with args, set to run.
func generator(t *testing.T, name string, args ...string) workload.Generator {
	t.Helper()
	meta, ok := workload.Get(name)
	if !ok {
		t.Fatalf("no workload %s", name)
	}
	gen, err := workload.FromFlags(meta, args...)
	if err != nil {
		t.Fatal(err)
	}
	if vs, ok := gen.(workload.VerbSetter); ok {
		vs.SetVerb("run")
	}
	return gen
}

// lockedBank loads bank's 10 accounts into db and locks them until the
// test ends: every transfer waits.
func lockedBank(t *testing.T, db *sqlx.DB) workload.Generator {
	t.Helper()
	ctx := context.Background()
	gen := generator(t, "bank", "--rows", "10")
	if err := run.Load(ctx, run.LoadSpec{Workload: gen, Conn: run.Conn{URLs: []string{testdb.URL(t)}, Database: db.Database()}}); err != nil {
		t.Fatal(err)
	}
	tx, err := db.Begin(ctx, sqlx.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tx.Rollback(ctx) }) // before db's Close
	if _, err := tx.Exec(ctx, "SELECT id FROM bank FOR UPDATE"); err != nil {
		t.Fatal(err)
	}
	return gen
}

// runBackends waits up to wait for the backends of stampede's runs
// (application_name stampede) in db's database to be gone, and returns
// how many are left.
func runBackends(t *testing.T, db *sqlx.DB, wait time.Duration) int {
	t.Helper()
	var left int
	for deadline := time.Now().Add(wait); ; time.Sleep(100 * time.Millisecond) {
		err := db.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND application_name = 'stampede'`).Scan(&left)
		if err != nil {
			t.Fatal(err)
		}
		if left == 0 || time.Now().After(deadline) {
			return left
		}
	}
}
