package engine_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/engine"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/workload"
)

// TestSharedOpsOneBudget checks sysbench's --events: one budget for all
// workers, so a worker held up does its one operation while the others
// spend the rest, and the total is exact.
func TestSharedOpsOneBudget(t *testing.T) {
	const workers, budget = 4, 1001
	var others atomic.Int64
	gate, entered := make(chan struct{}), make(chan struct{})
	var once sync.Once
	load := fakeLoad(workers, []string{"op"}, func(w int, c int64) workload.Result {
		if w == 0 {
			close(entered)
			<-gate // held until the others have spent all but its one
			return workload.Result{}
		}
		<-entered // worker 0 has taken its one
		if others.Add(1) == budget-1 {
			once.Do(func() { close(gate) })
		}
		return workload.Result{}
	})
	res, final := run(t, context.Background(), engine.Config{MaxOps: budget, SharedOps: true}, load)
	if n := final.Series[0].Cumulative.TotalCount(); n != budget {
		t.Errorf("recorded %d operations, want %d", n, budget)
	}
	if got := res.Workers[0].Ops; got != 1 {
		t.Errorf("the held worker did %d operations, want 1 (the shared budget was spent by the others)", got)
	}
	var sum int64
	for _, w := range res.Workers {
		sum += w.Ops
	}
	if sum != budget {
		t.Errorf("workers did %d operations in all, want %d", sum, budget)
	}
}

// TestQueueRateSeries runs sysbench's --rate with a shared budget: every
// event is executed once, and each operation's latency (from its entry
// into the queue) is its wait in the queue plus its service time.
func TestQueueRateSeries(t *testing.T) {
	const workers, events = 3, 400
	ops := []string{"op"}
	load := fakeLoad(workers, ops, func(int, int64) workload.Result {
		time.Sleep(20 * time.Microsecond)
		return workload.Result{}
	})
	cfg := engine.Config{MaxOps: events, SharedOps: true, QueueRate: 20000, QueueSeed: 7, Pacer: engine.PacerCoarse,
		DisplayEvery: 20 * time.Millisecond}
	if !cfg.Rated() {
		t.Fatal("Rated() is false under QueueRate")
	}
	names := engine.Series{Ops: ops, Rated: true}.Names()
	reg := stats.NewRegistry(names, 2, time.Now())
	var final stats.Tick
	var states []engine.QueueState
	res := engine.Run(context.Background(), cfg, load, reg, engine.Hooks{
		Tick:  func(tk stats.Tick, last bool) { final = tk },
		Queue: func(s engine.QueueState) { states = append(states, s) },
	})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if len(states) == 0 {
		t.Error("the Queue hook was never called")
	}
	for _, s := range states {
		if s.Length < 0 || s.Concurrency < 0 || s.Concurrency > workers {
			t.Errorf("queue state %+v: out of range for %d workers", s, workers)
		}
	}
	counts := map[string]int64{}
	for i, name := range names {
		counts[name] = final.Series[i].Cumulative.TotalCount()
	}
	for _, name := range []string{"op", "op.service", "op.lag", engine.PacerSeries} {
		if counts[name] != events {
			t.Errorf("%s: %d values, want %d (one per event)", name, counts[name], events)
		}
	}
	lat, svc, lag := final.Series[0].Cumulative, final.Series[1].Cumulative, final.Series[2].Cumulative
	// OP = OP.lag + OP.service event by event, so the sums agree (within
	// the histograms' precision) and OP is never below its service time.
	sum := func(h interface {
		Mean() float64
		TotalCount() int64
	}) float64 {
		return h.Mean() * float64(h.TotalCount())
	}
	if d := sum(lat) - sum(svc) - sum(lag); d > 0.002*sum(lat) || d < -0.002*sum(lat) {
		t.Errorf("latency sum %.0f != queue wait %.0f + service %.0f", sum(lat), sum(lag), sum(svc))
	}
	if lat.Min() < svc.Min() {
		t.Errorf("latency min %d below service min %d", lat.Min(), svc.Min())
	}
}

// TestQueueRateStopsOnDuration checks that workers waiting on an empty
// queue stop when the run's time is up.
func TestQueueRateStopsOnDuration(t *testing.T) {
	load := fakeLoad(4, []string{"op"}, func(int, int64) workload.Result { return workload.Result{} })
	res, _ := run(t, context.Background(), engine.Config{Duration: 50 * time.Millisecond, QueueRate: 1, Pacer: engine.PacerCoarse}, load)
	if res.Err != nil || res.Interrupted {
		t.Fatalf("run ended with %v, interrupted %v", res.Err, res.Interrupted)
	}
}

// TestDetachCountsInFinal checks that what a worker records in Detach,
// after its last call, is in the final tick.
func TestDetachCountsInFinal(t *testing.T) {
	const workers = 3
	recs := make([]workload.Recorder, workers)
	load := fakeLoad(workers, []string{"event", "flush"}, func(int, int64) workload.Result { return workload.Result{} })
	load.Attach = func(w int, rec workload.Recorder) { recs[w] = rec }
	var detached atomic.Int64
	load.Detach = func(w int) {
		recs[w].Record(1, time.Millisecond)
		detached.Add(1)
	}
	_, final := run(t, context.Background(), engine.Config{MaxOps: 30}, load)
	if n := detached.Load(); n != workers {
		t.Errorf("Detach called %d times, want %d", n, workers)
	}
	if n := final.Series[1].Cumulative.TotalCount(); n != workers {
		t.Errorf("final tick holds %d values recorded in Detach, want %d", n, workers)
	}
}

func TestValidateQueueRate(t *testing.T) {
	for _, cfg := range []engine.Config{
		{QueueRate: -1, DisplayEvery: time.Second},
		{QueueRate: 10, MaxRate: 10, DisplayEvery: time.Second},
	} {
		if err := cfg.Validate(1); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
}
