package churn_test

import (
	"context"
	"os"
	"runtime/pprof"
	"strconv"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/sqlx"
)

// TestChurnProfile is scripts/bench churn's measurement, skipped unless
// STAMPEDE_BENCH_CHURN_PROFILE names the file to write: a CPU profile
// (pprof) of this process, the client, through a churn run with the
// defaults (20 loops) for STAMPEDE_BENCH_CHURN_SECONDS (20) on the test
// server, from its start (the pool of fake values is made there). The
// stage reads from it with go tool pprof the share of the fake values'
// generation (gofakeit, the pool's draws) and of the rows' whole making
// (worker.nextInsert, as a run calls it: the values and their SQL text).
func TestChurnProfile(t *testing.T) {
	path := os.Getenv("STAMPEDE_BENCH_CHURN_PROFILE")
	if path == "" {
		t.Skip("STAMPEDE_BENCH_CHURN_PROFILE not set: scripts/bench churn sets it")
	}
	secs := 20
	if s := os.Getenv("STAMPEDE_BENCH_CHURN_SECONDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("STAMPEDE_BENCH_CHURN_SECONDS=%q: give whole seconds, 1 or more", s)
		}
		secs = n
	}
	db := testdb.Fresh(t, "churn32_bench", sqlx.Options{MaxConns: 2})
	ctx := context.Background()
	if err := run.Load(ctx, run.LoadSpec{Workload: gen(t), Conn: conn(t, db)}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// From the run's start: the pool of fake values is made there.
	if err := pprof.StartCPUProfile(f); err != nil {
		t.Fatal(err)
	}
	r, err := run.Start(ctx, run.Spec{Workload: gen(t), Conn: conn(t, db), Duration: time.Duration(secs) * time.Second, Seed: 1,
		Telemetry: run.Telemetry{Off: true}, ResultsDir: t.TempDir()})
	if err != nil {
		pprof.StopCPUProfile()
		t.Fatal(err)
	}
	res, err := r.Wait()
	pprof.StopCPUProfile()
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary.Total.Errors != 0 || res.Summary.Figures["rows_inserted"] == 0 {
		t.Fatalf("%d errors, %v rows inserted: the profile is not of a working run", res.Summary.Total.Errors, res.Summary.Figures["rows_inserted"])
	}
	t.Logf("%.0f rows/s, %.2f MB/s of values", res.Summary.Figures["rows_per_s"], res.Summary.Figures["bytes_per_s"]/1e6)
}
