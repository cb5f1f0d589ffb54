package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/engine"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/workload"
)

// TestStopAtTheDeadline: a run whose duration timer is served late (a
// slow Tick hook holds the engine's loop past the deadline, as a busy host
// delays the timer's goroutine) began its end at the duration's deadline,
// which the workers kept, not when the loop got to the timer: Result.Stop
// is the measurement start plus the duration (and the setup's few
// microseconds), and the time after it is the end's wait.
func TestStopAtTheDeadline(t *testing.T) {
	const duration, slow = 200 * time.Millisecond, 300 * time.Millisecond
	// Worker 1 thinks for a minute after each operation: it waits for
	// the end (halt) past the deadline, as a rate's worker waits for its
	// next start, so the run's end is the loop's.
	load := fakeLoad(2, []string{"op"}, func(w int, _ int64) workload.Result {
		if w == 1 {
			return workload.Result{Wait: time.Minute}
		}
		time.Sleep(time.Millisecond)
		return workload.Result{}
	})
	cfg := engine.Config{Duration: duration, DisplayEvery: 100 * time.Millisecond}
	reg := stats.NewRegistry(engine.Series{Ops: load.Ops}.Names(), stats.ShardsFor(len(load.Workers), 2), time.Now())
	ticks := 0
	res := engine.Run(context.Background(), cfg, load, reg, engine.Hooks{Tick: func(_ stats.Tick, last bool) {
		if ticks++; ticks == 1 && !last {
			time.Sleep(slow) // from 100 ms to 400 ms: past the 200 ms deadline
		}
	}})
	if res.Stop.IsZero() {
		t.Fatal("no Stop: the run did not end by its duration")
	}
	if d := res.Stop.Sub(res.RampEnd); d < duration || d > duration+20*time.Millisecond {
		t.Errorf("the end began %s after the measurement's start, want the %s duration", d, duration)
	}
	if w := res.End.Sub(res.Stop); w < slow/2 {
		t.Errorf("the end waited %s after the deadline, want about the %s the loop was held past it", w, slow)
	}
}
