package churn_test

import (
	"context"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/google/pprof/profile"

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
	hz := 250
	if s := os.Getenv("STAMPEDE_BENCH_CHURN_HZ"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 10000 {
			t.Fatalf("STAMPEDE_BENCH_CHURN_HZ=%q: give samples a second, 1 to 10000", s)
		}
		hz = n
	}
	// From the run's start: the pool of fake values is made there. The
	// rate is set first, so that StartCPUProfile keeps it (it sets 100
	// Hz only when none is set, and says so on stderr): a 60-second run
	// takes about 2.5-3 s of the client's CPU, 300 samples at 100 Hz,
	// where a share's sampling error is about 2 points. Faster than the
	// kernel's tick, samples are lost: a CPU-bound loop on this machine
	// at load 25 kept 98% of its 100 Hz samples, 77% at 250 Hz, 50% at
	// 500 and 27% at 1,000; a 60-second churn run at 1,000 Hz held 413
	// samples of 1 ms for 2.45 s of CPU.
	runtime.SetCPUProfileRate(hz)
	before := cpuTime(t)
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
	used := cpuTime(t) - before
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	// The profile's samples against the process's own CPU time
	// (getrusage), the independent truth of the rate.
	n, period := profileSamples(t, path)
	t.Logf("profile: %d samples of %v (%v), %v of CPU by getrusage", n, period, time.Duration(n)*period, used.Round(time.Millisecond))
	if got := time.Duration(n) * period; got < used/2 || got > used*5/4 {
		t.Errorf("the profile holds %d samples of %v, %v, where getrusage counts %v of CPU: not 50%% to 125%% of it (lower STAMPEDE_BENCH_CHURN_HZ)", n, period, got, used)
	}
	if res.Summary.Total.Errors != 0 || res.Summary.Figures["rows_inserted"] == 0 {
		t.Fatalf("%d errors, %v rows inserted: the profile is not of a working run", res.Summary.Total.Errors, res.Summary.Figures["rows_inserted"])
	}
	t.Logf("%.0f rows/s, %.2f MB/s of values", res.Summary.Figures["rows_per_s"], res.Summary.Figures["bytes_per_s"]/1e6)
}

// cpuTime returns the CPU time (user and system) of this process so far.
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// profileSamples returns the number of samples in the CPU profile at
// path and the CPU time each stands for.
func profileSamples(t *testing.T, path string) (int64, time.Duration) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, s := range p.Sample {
		n += s.Value[0] // samples/count
	}
	return n, time.Duration(p.Period)
}
