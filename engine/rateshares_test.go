package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/engine"
	"github.com/stampede-bench/stampede/workload"
)

// TestRateShares runs three workers whose shares of a 400/s schedule are
// 1, 1 and 2 for 1 s: each must run about its share of the operations
// (100, 100 and 200), and a worker slower than its own schedule must show
// its lateness in its own operation's lag, not in the others'.
func TestRateShares(t *testing.T) {
	load := fakeLoad(3, []string{"a", "b", "slow"}, func(w int, _ int64) workload.Result {
		if w == 2 {
			time.Sleep(10 * time.Millisecond) // 100/s at most, for a share of 200/s
		}
		return workload.Result{Op: w}
	})
	load.RateShares = []float64{1, 1, 2}
	cfg := engine.Config{MaxRate: 400, Duration: time.Second}
	if err := cfg.ValidateLoad(load); err != nil {
		t.Fatal(err)
	}
	res, final := run(t, context.Background(), cfg, load)
	counts := make([]int64, 3)
	for w, ws := range res.Workers {
		counts[w] = ws.Ops
	}
	for w, want := range []int64{100, 100} {
		if c := counts[w]; c < want*8/10 || c > want*11/10+1 {
			t.Errorf("worker %d ran %d operations in 1 s at its share of 100/s", w, c)
		}
	}
	if c := counts[2]; c > 110 {
		t.Errorf("the slow worker ran %d operations, more than its 10 ms each allow", c)
	}
	n := len(load.Ops)
	lag := func(op int) time.Duration { return time.Duration(final.Series[2*n+op].Cumulative.Max()) }
	if lag(2) < 300*time.Millisecond {
		t.Errorf("the slow worker's lag is %s, want about 0.5 s (half its schedule's operations behind)", lag(2))
	}
	// The others' lag is their pacer's lateness only: far below the slow
	// worker's (a busy machine, or the race detector, makes it tens of
	// milliseconds, never the slow worker's half second).
	for op := range 2 {
		if lag(op) > lag(2)/2 {
			t.Errorf("operation %d's lag is %s beside the slow worker's %s: the slow worker's lateness leaked into it", op, lag(op), lag(2))
		}
	}
}

// TestValidateLoad checks the configurations rate shares cannot run
// under, each refused in one line.
func TestValidateLoad(t *testing.T) {
	load := fakeLoad(2, []string{"op"}, func(int, int64) workload.Result { return workload.Result{} })
	for _, tc := range []struct {
		name   string
		cfg    engine.Config
		shares []float64
		want   string
	}{
		{"fine", engine.Config{MaxRate: 10}, []float64{1, 3}, ""},
		{"none", engine.Config{}, nil, ""},
		{"count", engine.Config{MaxRate: 10}, []float64{1}, "1 rate shares for 2 workers"},
		{"no rate", engine.Config{}, []float64{1, 1}, "needs a rate schedule"},
		{"queue", engine.Config{QueueRate: 10}, []float64{1, 1}, "sysbench's event queue (--rate) cannot run it"},
		{"groups", engine.Config{MaxRate: 10, ScheduleGroups: 1}, []float64{1, 1}, "--schedule-groups would share them"},
		{"zero share", engine.Config{MaxRate: 10}, []float64{1, 0}, "worker 1's rate share is 0: each must be a positive number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := load
			l.RateShares = tc.shares
			err := tc.cfg.ValidateLoad(l)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n")):
				t.Errorf("error %v, want one line with %q", err, tc.want)
			}
		})
	}
}
