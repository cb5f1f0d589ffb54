package run

import (
	"context"
	"io"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// gcCycles reads the number of garbage collections the process has run.
func gcCycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestSetUpCollectsOnce: a run's set-up (its connections, histograms, run
// directory) runs no garbage collection before the one the run's pacing
// makes (gcpace.Apply), that one runs on the processors the process had
// before the run added its workers' (thread I/O: one per worker), the
// run then gets its workers' processors back, and the GOGC recorded is
// the run's pacing from the GOGC before the run, which comes back after
// it. Before gcpace.Hold, a run of 8 workers collected four or five times
// while it set up, each collection waiting for goroutines in blocking
// reads on connections being opened; its forced collection ran on 8
// processors, where the runtime's sweeper spun: half of a short run's CPU.
func TestSetUpCollectsOnce(t *testing.T) {
	t.Setenv("GOGC", "") // the user's GOGC would leave the pacing alone
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	db := testdb.Fresh(t, "stampede_setupgc", sqlx.Options{MaxConns: 1})
	meta, _ := workload.Get("ycsb")
	gen, err := workload.FromFlags(meta, "--workload=c", "-p", "recordcount=100")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	conn := Conn{URLs: []string{testdb.URL(t)}, Database: db.Database()}
	if err := Load(ctx, LoadSpec{Workload: gen, Conn: conn}); err != nil {
		t.Fatal(err)
	}
	const workers = 8
	var during uint64
	procsAtGC := -1
	defer func() { beforeStartGC = nil }()
	runtime.GC()
	before := gcCycles()
	beforeStartGC = func() {
		during = gcCycles() - before
		procsAtGC = runtime.GOMAXPROCS(0)
	}
	r, err := Start(ctx, Spec{
		Workload: gen, Conn: conn, Concurrency: workers, Duration: 300 * time.Millisecond, MaxRate: 100,
		Telemetry: Telemetry{Off: true}, ResultsDir: t.TempDir(), Log: io.Discard, IOMode: IOThread,
		// More than YCSB's histograms for 8 workers (some 160 MiB, most
		// never touched), which the default 64 MiB would collect.
		GCHeadroom: 1 << 30,
	})
	if err != nil {
		t.Fatal(err)
	}
	procsRunning := runtime.GOMAXPROCS(0)
	pctRunning := debug.SetGCPercent(-1)
	debug.SetGCPercent(pctRunning)
	res, err := r.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if during != 0 {
		t.Errorf("%d garbage collections while the run set up, before its pacing's: want none", during)
	}
	if procsAtGC != 2 {
		t.Errorf("the run's collection ran with GOMAXPROCS %d, want the process's 2", procsAtGC)
	}
	if !res.Info.ThreadIO || procsRunning < workers {
		t.Errorf("during the run: thread I/O %v, GOMAXPROCS %d: want thread I/O and at least %d processors", res.Info.ThreadIO, procsRunning, workers)
	}
	saved, err := runlog.Open(res.Info.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := saved.Info.Flags["gc-percent"]; got != strconv.Itoa(pctRunning) || pctRunning <= 100 {
		t.Errorf("gc-percent recorded %q, GOGC during the run %d: want them equal and above the default 100 (the run's headroom)", got, pctRunning)
	}
	if after := debug.SetGCPercent(100); after != 100 {
		t.Errorf("GOGC after the run %d, want 100 as before it", after)
	}
	if n := runtime.GOMAXPROCS(0); n != 2 {
		t.Errorf("GOMAXPROCS after the run %d, want 2 as before it", n)
	}
}
