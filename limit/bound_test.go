package limit_test

import (
	"testing"
	"time"

	"github.com/stampede-bench/stampede/limit"
)

// TestBound reads a CPU limit's bearing from a group's counters at an
// interval's ends: the counters' growth, the server's CPU (the watched
// processes', or the group's own without them), and whether it never
// bound (nothing throttled, under 90% of the limit).
func TestBound(t *testing.T) {
	from := limit.Stats{CPUUsage: 10 * time.Second, Periods: 100, ThrottledPeriods: 7, ThrottledTime: time.Second}
	for _, tc := range []struct {
		name      string
		cpus      float64
		to        limit.Stats
		used      float64
		wantUsed  float64
		throttled uint64
		never     bool
		text      string
	}{
		{"busy host: a quarter of the limit, never throttled", 1, limit.Stats{CPUUsage: 11 * time.Second, Periods: 140, ThrottledPeriods: 7, ThrottledTime: time.Second}, 0.24, 0.24, 0, true,
			"used 0.24 of 1 CPU, not throttled"},
		{"above what the server uses", 4, limit.Stats{CPUUsage: 15 * time.Second, Periods: 140, ThrottledPeriods: 7, ThrottledTime: time.Second}, 1.3, 1.3, 0, true,
			"used 1.30 of 4 CPUs, not throttled"},
		{"3 of 101 periods throttled at 0.57 of 1 CPU: negligible, did not bind", 1, limit.Stats{CPUUsage: 12 * time.Second, Periods: 201, ThrottledPeriods: 10, ThrottledTime: time.Second}, 0.57, 0.57, 3, true,
			"used 0.57 of 1 CPU, throttled in 3 of 101 periods"},
		{"6 of 101 periods throttled: bound", 1, limit.Stats{CPUUsage: 12 * time.Second, Periods: 201, ThrottledPeriods: 13, ThrottledTime: time.Second}, 0.57, 0.57, 6, false,
			"used 0.57 of 1 CPU, throttled in 6 of 101 periods"},
		{"throttled: bound, whatever it used", 0.5, limit.Stats{CPUUsage: 11 * time.Second, Periods: 140, ThrottledPeriods: 10, ThrottledTime: 2 * time.Second}, 0.26, 0.26, 3, false,
			"used 0.26 of 0.5 CPU, throttled in 3 of 40 periods"},
		{"at 90% of the limit without throttling: bound", 1, limit.Stats{CPUUsage: 14 * time.Second, Periods: 140, ThrottledPeriods: 7, ThrottledTime: time.Second}, 0.9, 0.9, 0, false,
			"used 0.90 of 1 CPU, not throttled"},
		{"no watched processes: the group's own CPU time", 2, limit.Stats{CPUUsage: 12 * time.Second, Periods: 140, ThrottledPeriods: 7, ThrottledTime: time.Second}, -1, 0.5, 0, true,
			"used 0.50 of 2 CPUs, not throttled"},
		{"counters of a group made again: grown by 0", 1, limit.Stats{Periods: 3}, -1, 0, 0, true,
			"used 0.00 of 1 CPU, not throttled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := limit.Bound(tc.cpus, from, tc.to, 4*time.Second, tc.used)
			if b.UsedCores != tc.wantUsed || b.Throttled != tc.throttled || b.DidNotBind() != tc.never || b.Used() != tc.text {
				t.Errorf("%+v: used %g, throttled %d, did not bind %v, %q; want %g, %d, %v, %q", b, b.UsedCores, b.Throttled, b.DidNotBind(), b.Used(), tc.wantUsed, tc.throttled, tc.never, tc.text)
			}
			if b.ThrottledSec < 0 || b.Periods > tc.to.Periods {
				t.Errorf("%+v: a counter's growth out of range", b)
			}
		})
	}
	if (limit.CPUBound{}).DidNotBind() {
		t.Error("no CPU limit said never to bind")
	}
}
