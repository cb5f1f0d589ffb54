package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/engine"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/workload"
)

// TestIntervalRatesAreReal checks that every interval's bounds are the
// times its operations were counted between, so that no interval's rate
// exceeds what the workers can do: with an operation that takes at least
// opTime, a worker completes at most d/opTime+1 of them in d. It covers a
// Tick hook as slow as a printer writing to a terminal (the ticks then
// come late), a ramp that ends on a tick (cockroach's --ramp=1s with the
// default --display-every=1s printed an interval of 595 ns holding 1,155
// reads), and the shortest --display-every. Every interval but the last
// lasts at least engine.MinDisplayEvery/2.
func TestIntervalRatesAreReal(t *testing.T) {
	const (
		workers = 4
		opTime  = 200 * time.Microsecond
		// slack is the most the engine may take between reading the
		// clock and counting an interval's operations.
		slack = 5 * time.Millisecond
	)
	for _, tc := range []struct {
		name      string
		ramp      time.Duration
		every     time.Duration
		hookDelay time.Duration
	}{
		{"slow hook", 0, 40 * time.Millisecond, 30 * time.Millisecond},
		{"slow hook, ramp on a tick", 120 * time.Millisecond, 40 * time.Millisecond, 30 * time.Millisecond},
		{"slow hook, ramp just after a tick", 121 * time.Millisecond, 40 * time.Millisecond, 15 * time.Millisecond},
		{"ramp on a tick", 100 * time.Millisecond, 50 * time.Millisecond, 0},
		{"shortest interval", 30 * time.Millisecond, engine.MinDisplayEvery, 3 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			load := fakeLoad(workers, []string{"op"}, func(int, int64) workload.Result {
				time.Sleep(opTime)
				return workload.Result{}
			})
			cfg := engine.Config{Ramp: tc.ramp, Duration: 300 * time.Millisecond, DisplayEvery: tc.every}
			if err := cfg.Validate(workers); err != nil {
				t.Fatal(err)
			}
			reg := stats.NewRegistry(engine.Series{Ops: load.Ops}.Names(), workers, time.Now())
			type iv struct {
				start, end time.Time
				n          int64
				final      bool
			}
			var ivs []iv
			engine.Run(context.Background(), cfg, load, reg, engine.Hooks{Tick: func(tk stats.Tick, final bool) {
				ivs = append(ivs, iv{tk.Start, tk.End, tk.Series[0].Interval.TotalCount(), final})
				time.Sleep(tc.hookDelay)
			}})
			for i, v := range ivs {
				d := v.end.Sub(v.start)
				if d <= 0 {
					t.Errorf("interval %d runs from %v to %v", i, v.start, v.end)
					continue
				}
				if most := int64(workers) * (int64((d+slack)/opTime) + 1); v.n > most {
					t.Errorf("interval %d of %s holds %d operations (%.0f/s): %d workers complete at most %d of %s in it",
						i, d, v.n, float64(v.n)/d.Seconds(), workers, most, opTime)
				}
				if !v.final && d < engine.MinDisplayEvery/2 {
					t.Errorf("interval %d lasts %s, less than %s", i, d, engine.MinDisplayEvery/2)
				}
			}
		})
	}
}

// TestSetupIsInNoInterval gives the engine a registry made 200 ms before
// the run (a run's setup: telemetry, limits, its directory): the first
// interval and the measured period start when the workers do, so a rated
// run's throughput is its rate, not the rate diluted by the setup.
func TestSetupIsInNoInterval(t *testing.T) {
	const rate, dur = 2000.0, 300 * time.Millisecond
	load := fakeLoad(2, []string{"op"}, func(int, int64) workload.Result { return workload.Result{} })
	cfg := engine.Config{MaxRate: rate, Duration: dur, Pacer: engine.PacerCoarse, DisplayEvery: time.Second}
	made := time.Now()
	reg := stats.NewRegistry(engine.Series{Ops: load.Ops, Rated: true}.Names(), 2, made)
	time.Sleep(200 * time.Millisecond)
	var first, last stats.Tick
	n := 0
	res := engine.Run(context.Background(), cfg, load, reg, engine.Hooks{Tick: func(tk stats.Tick, final bool) {
		if n == 0 {
			first = tk
		}
		n++
		last = tk
	}})
	if first.Start.Before(res.Start) || last.CumStart.Before(res.Start) {
		t.Errorf("the first interval starts %v and the measured period %v after the registry was made, the workers %v after",
			first.Start.Sub(made), last.CumStart.Sub(made), res.Start.Sub(made))
	}
	elapsed := last.End.Sub(last.CumStart)
	count := last.Series[0].Cumulative.TotalCount()
	if elapsed > dur+50*time.Millisecond {
		t.Errorf("measured %v for a %v run", elapsed, dur)
	}
	// Setup counted in the period would read 0.6 of the rate (its 200
	// ms beside the run's 300); a loaded CI's coarse pacer fell behind
	// to 0.85 of it in the run's 300 ms.
	if got := float64(count) / elapsed.Seconds(); got < 0.75*rate || got > 1.1*rate {
		t.Errorf("%d operations in %v: %.0f ops/s, want about %.0f", count, elapsed, got, rate)
	}
}
