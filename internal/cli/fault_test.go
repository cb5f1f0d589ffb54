package cli_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/localpg"
	"github.com/stampede-bench/stampede/runlog"
)

// ownServer starts a throwaway PostgreSQL of the test's own (skipping
// under -short or without the server binaries) and stops it at the end.
func ownServer(t *testing.T) *localpg.Server {
	t.Helper()
	if testing.Short() {
		t.Skip("starts its own PostgreSQL")
	}
	if _, err := localpg.FindBinDir(); err != nil {
		t.Skipf("no PostgreSQL server binaries: %v", err)
	}
	srv, err := localpg.Start(context.Background(), localpg.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Stop() })
	return srv
}

// TestBankSurvivesCrash crashes PostgreSQL (an immediate shutdown, as
// `pg_ctl restart -m immediate`) in the middle of `run bank
// --tolerate-errors`: the run finishes and prints its summary, errors and
// reconnects are counted, and `check bank` passes.
func TestBankSurvivesCrash(t *testing.T) {
	ctx := context.Background()
	srv := ownServer(t)
	url := srv.URL("bank")
	if r := stampede(t, "init", "bank", "--rows", "1000", url); r.code != 0 {
		t.Fatalf("init: %s", r.stderr)
	}
	dir := t.TempDir()
	done := make(chan result, 1)
	go func() {
		done <- stampede(t, "run", "bank", "--rows", "1000", "--duration", "8s", "--concurrency", "4",
			"--tolerate-errors", "--display-every", "500ms", "--results-dir", dir, url)
	}()
	// Crash 3 s in, and only once the workers have done transfers: on a
	// loaded machine the run may start late, and a worker that never had
	// a connection does not reconnect, it connects.
	time.Sleep(3 * time.Second)
	waitForTransfers(t, dir, 30*time.Second)
	crash := time.Now()
	if err := srv.Restart(ctx, true); err != nil {
		t.Fatalf("restart: %v", err)
	}
	r := <-done
	if r.code != 0 {
		t.Fatalf("run through a crash: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	m := regexp.MustCompile(`reconnects: (\d+)`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no summary:\n%s", r.stdout)
	}
	reconnects, _ := strconv.Atoi(m[1])
	runs, err := runlog.List(dir)
	if err != nil || len(runs) != 1 {
		t.Fatal(err)
	}
	run, err := runlog.Open(filepath.Join(dir, runs[0].ID))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Total struct {
			Errors int64 `json:"errors"`
			Count  int64 `json:"count"`
		} `json:"total"`
	}
	_ = json.Unmarshal(run.Summary, &sum)
	ivs, _ := run.Intervals()
	recovered := time.Duration(-1)
	for _, iv := range ivs {
		if iv.Start.After(crash) && iv.Series["transfer"] != nil && iv.Series["transfer"].Count > 0 {
			recovered = iv.End.Sub(crash)
			break
		}
	}
	t.Logf("crash at 3s: %d transfers, %d errors, %d reconnects, throughput back within %v", sum.Total.Count, sum.Total.Errors, reconnects, recovered)
	if reconnects == 0 || sum.Total.Errors == 0 || recovered < 0 {
		t.Errorf("reconnects %d, errors %d, recovered %v", reconnects, sum.Total.Errors, recovered)
	}
	if r := stampede(t, "check", "bank", "--rows", "1000", url); r.code != 0 {
		t.Errorf("check bank after a crash: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// waitForTransfers waits until the one run in dir has saved an interval
// with transfers in it.
func waitForTransfers(t *testing.T, dir string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if runs, err := runlog.List(dir); err == nil && len(runs) == 1 {
			if run, err := runlog.Open(filepath.Join(dir, runs[0].ID)); err == nil {
				ivs, _ := run.Intervals()
				for _, iv := range ivs {
					if s := iv.Series["transfer"]; s != nil && s.Count > 0 {
						return
					}
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no transfers saved in %s within %v", dir, limit)
}
