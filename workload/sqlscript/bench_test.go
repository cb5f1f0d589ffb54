package sqlscript_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// nopRecorder takes the latencies and drops them: the benchmark measures
// the workload's own path, not the engine's histograms.
type nopRecorder struct{ n int }

func (r *nopRecorder) Record(int, time.Duration) { r.n++ }
func (r *nopRecorder) RecordError(int, error)    {}
func (r *nopRecorder) RecordPartError(int)       {}

// cpuTime is the process's CPU time so far, user and system.
func cpuTime() (user, sys time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}

// BenchmarkSelectOnlyPostgres runs pgbench's select-only transaction
// (`stampede pgbench -b select-only -M prepared`: run sql -b select-only
// --max-tries 1) through the sql workload's worker against the server of
// STAMPEDE_TEST_DATABASE, one worker on its own connection, and reports
// the client's allocations and CPU time (user and system, from getrusage)
// per transaction beside the wall time, and the user part alone.
func BenchmarkSelectOnlyPostgres(b *testing.B) {
	for _, proto := range []string{"prepared", "extended", "simple"} {
		b.Run(proto, func(b *testing.B) { benchSelectOnly(b, proto) })
	}
}

func benchSelectOnly(b *testing.B, proto string) {
	ctx, w, rec := selectOnlyWorker(b, "--protocol", proto)
	b.ReportAllocs()
	before := rec.n
	user0, sys0 := cpuTime()
	for b.Loop() {
		if res := w(ctx); res.Err != nil {
			b.Fatal(res.Err)
		}
	}
	user, sys := cpuTime()
	user, sys = user-user0, sys-sys0
	if got := rec.n - before; got != b.N {
		b.Fatalf("%d statement latencies recorded for %d transactions", got, b.N)
	}
	b.ReportMetric(float64((user+sys).Microseconds())/float64(b.N), "cpu-us/op")
	// User space alone: the client's own code, which system calls and a
	// loaded machine's scheduling move less.
	b.ReportMetric(float64(user.Microseconds())/float64(b.N), "user-us/op")
}

// selectOnlyWorker loads pgbench's tables (scale 1) into a new database
// of the test server and returns the first worker of the sql workload's
// -b select-only --max-tries 1 with flags, on its own connection, with
// the statement prepared (one script run), and the context and recorder
// it runs with.
func selectOnlyWorker(tb testing.TB, flags ...string) (context.Context, workload.Worker, *nopRecorder) {
	tb.Helper()
	ctx := context.Background()
	name, u, _ := freshDB(tb, "bench_selectonly")
	pgbench(tb, tb.TempDir(), name, "-i", "-q", "-s", "1")
	meta, ok := workload.Get("sql")
	if !ok {
		tb.Fatal("no sql workload")
	}
	g, err := workload.FromFlags(meta, append([]string{"-b", "select-only", "--max-tries", "1"}, flags...)...)
	if err != nil {
		tb.Fatal(err)
	}
	if vs, ok := g.(workload.VerbSetter); ok {
		vs.SetVerb("run")
	}
	if err := g.(workload.Hookser).Hooks().Validate(); err != nil {
		tb.Fatal(err)
	}
	db, err := sqlx.Open(ctx, sqlx.Options{URLs: []string{u}, MaxConns: 1, Workers: 1})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(db.Close)
	ql, err := g.(workload.Opser).Ops(ctx, db, workload.OpsConfig{Concurrency: 1, Seed: 1, Warn: func(string, ...any) {}})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = ql.Close(ctx) })
	// The engine's workers run under a context that is never cancelled
	// (context.WithoutCancel of the run's: engine.RunSplit), as this one.
	ctx, cancel := context.WithCancel(ctx)
	tb.Cleanup(cancel)
	ctx = context.WithoutCancel(ctx)
	rec := &nopRecorder{}
	ql.Attach(0, rec)
	w := ql.Workers[0]
	if res := w(ctx); res.Err != nil { // prepares the statement
		tb.Fatal(res.Err)
	}
	return ctx, w, rec
}
