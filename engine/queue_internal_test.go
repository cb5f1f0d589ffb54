package engine

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/workload"
)

// TestExpGap checks the generator's gaps: exponential, so their mean and
// their standard deviation are both the mean asked for.
func TestExpGap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, queueStream))
	const n, mean = 200000, 1e6 // 1 ms
	var sum, sq float64
	for range n {
		g := float64(expGap(rng, mean))
		if g < 0 {
			t.Fatalf("negative gap %g", g)
		}
		sum += g
		sq += g * g
	}
	m := sum / n
	sd := math.Sqrt(sq/n - m*m)
	if math.Abs(m-mean)/mean > 0.01 || math.Abs(sd-mean)/mean > 0.02 {
		t.Errorf("gaps: mean %.0f sd %.0f, want both %.0f", m, sd, mean)
	}
}

// TestQueueFullFails checks that a run whose workers fall a whole queue
// behind fails with ErrQueueFull, as sysbench's does.
func TestQueueFullFails(t *testing.T) {
	defer func(c int) { queueCapacity = c }(queueCapacity)
	queueCapacity = 16
	release := make(chan struct{})
	load := workload.QueryLoad{Ops: []string{"op"}, Workers: []workload.Worker{func(context.Context) workload.Result {
		<-release // stuck until the test ends
		return workload.Result{}
	}}}
	defer close(release)
	names := Series{Ops: load.Ops, Rated: true}.Names()
	reg := stats.NewRegistry(names, 1, time.Now())
	res := Run(context.Background(), Config{QueueRate: 1e6, Pacer: PacerCoarse, DisplayEvery: time.Second, Grace: time.Millisecond},
		load, reg, Hooks{})
	if res.Err == nil || !errors.Is(res.Err, ErrQueueFull) {
		t.Fatalf("run ended with %v, want ErrQueueFull", res.Err)
	}
	if res.Err.Error() != ErrQueueFull.Error() {
		t.Errorf("error %q: want the queue's message alone", res.Err)
	}
}

// TestNegativeGraceWaits checks that a negative Grace waits for an
// operation in flight when the run's budget has ended it: the operation
// ends only on the engine's tenth tick after the others stopped, however
// long that takes.
func TestNegativeGraceWaits(t *testing.T) {
	finish, entered := make(chan struct{}), make(chan struct{})
	var othersDone atomic.Bool
	calls := 0
	load := workload.QueryLoad{Ops: []string{"op"}, Workers: []workload.Worker{
		func(context.Context) workload.Result {
			calls++
			if calls == 1 {
				close(entered)
				<-finish
			}
			return workload.Result{}
		},
		func(context.Context) workload.Result {
			<-entered // the slow worker has its operation
			return workload.Result{}
		},
	}}
	load.Detach = func(w int) {
		if w == 1 {
			othersDone.Store(true)
		}
	}
	reg := stats.NewRegistry([]string{"op"}, 1, time.Now())
	ticks := 0
	res := Run(context.Background(), Config{MaxOps: 50, SharedOps: true, DisplayEvery: time.Millisecond, Grace: -1}, load, reg,
		Hooks{Tick: func(_ stats.Tick, final bool) {
			if othersDone.Load() && !final {
				if ticks++; ticks == 10 {
					close(finish)
				}
			}
		}})
	if res.Workers[0].Ops != 1 {
		t.Errorf("the slow worker's operation was abandoned (%d ops)", res.Workers[0].Ops)
	}
	if n := res.Workers[0].Ops + res.Workers[1].Ops; n != 50 {
		t.Errorf("%d operations, want 50", n)
	}
}
