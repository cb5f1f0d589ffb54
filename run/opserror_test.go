package run_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
	_ "github.com/stampede-bench/stampede/workload/all" // register the workloads
)

// shortLoad is the sql workload whose Ops, after the real one has taken a
// connection of the pool for each worker, returns one worker too few: an
// error found after Ops, inside the run's opening of its database.
type shortLoad struct{ workload.Generator }

func (s shortLoad) Ops(ctx context.Context, db *sqlx.DB, oc workload.OpsConfig) (workload.QueryLoad, error) {
	ql, err := s.Generator.(workload.Opser).Ops(ctx, db, oc)
	if err == nil {
		ql.Workers = ql.Workers[1:]
	}
	return ql, err
}

// TestErrorAfterOpsReleasesConnections: a run whose opening fails after the
// sql workload's Ops took every connection of the pool returns its error;
// it used to wait in the pool's Close for the connections the load kept.
func TestErrorAfterOpsReleasesConnections(t *testing.T) {
	db := testdb.Fresh(t, "opserror", sqlx.Options{MaxConns: 1})
	script := filepath.Join(t.TempDir(), "one.sql")
	if err := os.WriteFile(script, []byte("SELECT 1;\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	meta, _ := workload.Get("sql")
	gen, err := workload.FromFlags(meta, "-f", script)
	if err != nil {
		t.Fatal(err)
	}
	if vs, ok := gen.(workload.VerbSetter); ok {
		vs.SetVerb("run")
	}
	for _, workers := range []int{1, 3} {
		done := make(chan error, 1)
		go func() {
			r, err := run.Start(context.Background(), run.Spec{
				Workload:    shortLoad{gen},
				Conn:        run.Conn{URLs: []string{testdb.URL(t)}, Database: db.Database()},
				Concurrency: workers,
				Duration:    time.Second,
				Telemetry:   run.Telemetry{Off: true},
				ResultsDir:  t.TempDir(),
			})
			if err == nil {
				_, err = r.Wait()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "returned") {
				t.Errorf("%d workers: got %v, want the error about the workers the load returned", workers, err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("%d workers: the run's error path still waits after 30 s (the load's connections were not released)", workers)
		}
	}
}
