package sweep

import (
	"slices"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/stats"
)

// TestInterruptedRunNotCounted: a run interrupted by Ctrl-C is no
// completed run: a value's figures, its count of runs and of runs met,
// and the conclusion's citation are over its completed runs, and the
// value names the interrupted one apart. Before, a value with one
// completed run and one interrupted counted 2 runs ("met in 1 of 2,
// judged on their median") while its median was the one run's.
func TestInterruptedRunNotCounted(t *testing.T) {
	slo, err := ParseSLO("p99<=50ms")
	if err != nil {
		t.Fatal(err)
	}
	step := func(n int, v float64, status string, p99 float64) Step {
		return Step{N: n, Value: v, Status: status, Total: stats.Summary{Count: 1000 * int64(n), Rate: 100 * float64(n), P99: p99}}
	}
	type want struct {
		completed   int
		interrupted []int
		metRuns     int
		rate        float64 // the median's
	}
	for _, tc := range []struct {
		name    string
		search  bool
		steps   []Step
		points  map[float64]want
		says    []string
		notSays []string
	}{
		{
			name: "a list's second round interrupted",
			steps: []Step{step(1, 1, "completed", 10), step(2, 2, "completed", 20), step(3, 1, "completed", 12),
				step(4, 2, "interrupted", 90)},
			points:  map[float64]want{1: {completed: 2, metRuns: 2, rate: 200}, 2: {completed: 1, interrupted: []int{4}, metRuns: 1, rate: 200}},
			says:    []string{"highest --concurrency meeting the SLO p99<=50ms: 2 (step 2; step 4 interrupted, not counted)"},
			notSays: []string{"of 2, judged", "steps 2, 4"},
		},
		{
			name:   "a search's confirmation interrupted",
			search: true,
			steps: []Step{step(1, 1, "completed", 10), step(2, 4, "completed", 80), step(3, 2, "completed", 30),
				step(4, 4, "completed", 85), step(5, 2, "interrupted", 90)},
			points: map[float64]want{1: {completed: 1, metRuns: 1, rate: 100}, 2: {completed: 1, interrupted: []int{5}, metRuns: 1, rate: 300},
				4: {completed: 2, metRuns: 0, rate: 300}},
			says: []string{"highest --concurrency meeting the SLO p99<=50ms: 2 (step 3; step 5 interrupted, not counted)",
				"--concurrency 4 (steps 2, 4: met in 0 of 2, judged on their median) missed: median of 2 runs"},
			notSays: []string{"met in 1 of 2"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := &Result{ID: "x", Param: Concurrency, SLO: slo, Search: tc.search, Steps: tc.steps,
				Stopped: "interrupted at step 4: the sweep did not finish"}
			res.Judge()
			for _, p := range res.Points {
				w, ok := tc.points[p.Value]
				if !ok {
					t.Fatalf("a point at %g", p.Value)
				}
				if p.Completed != w.completed || !slices.Equal(p.Interrupted, w.interrupted) || p.MetRuns != w.metRuns || p.Median.Total.Rate != w.rate {
					t.Errorf("value %g: completed %d, interrupted %v, met %d, median rate %g; want %+v", p.Value, p.Completed, p.Interrupted, p.MetRuns, p.Median.Total.Rate, w)
				}
			}
			c := res.Conclusion()
			for _, s := range tc.says {
				if !strings.Contains(c, s) {
					t.Errorf("conclusion lacks %q:\n%s", s, c)
				}
			}
			for _, s := range tc.notSays {
				if strings.Contains(c, s) {
					t.Errorf("conclusion says %q:\n%s", s, c)
				}
			}
		})
	}
}
