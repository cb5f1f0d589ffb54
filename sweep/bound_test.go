package sweep

import (
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/limit"
	"github.com/stampede-bench/stampede/stats"
)

// TestLimitNeverBound: a step whose CPU limit never bound (not throttled,
// the server under 90% of it) says so, one that was throttled does not;
// a value run several times takes its runs' medians; and an answer that
// lies on such steps is said to be the machine's, not the limit's.
func TestLimitNeverBound(t *testing.T) {
	unbound := func(cpus, used float64) *limit.CPUBound {
		return &limit.CPUBound{CPUs: cpus, UsedCores: used, Periods: 40}
	}
	throttled := func(cpus, used float64) *limit.CPUBound {
		return &limit.CPUBound{CPUs: cpus, UsedCores: used, Periods: 40, Throttled: 30, ThrottledSec: 1.2}
	}
	step := func(n int, v, p99 float64, b *limit.CPUBound) Step {
		return Step{N: n, Value: v, Rep: 1, Status: "completed", Total: stats.Summary{Count: 100, Rate: 50, P99: p99}, CPULimit: b}
	}
	p99, _ := ParseSLO("p99<=5ms")
	for _, tc := range []struct {
		name    string
		steps   []Step
		notes   []string // each step's LimitNote
		machine string   // in the conclusion ("" for no such line)
	}{
		{"0.5 throttled, 4 never bound: the answer is 4's",
			[]Step{step(1, 4, 3, unbound(4, 1.31)), step(2, 0.5, 9, throttled(0.5, 0.5))},
			[]string{"limit never bound: server used 1.31 of 4 CPUs, not throttled", ""},
			"the CPU limit never bound where the answer lies: at --cpus 4 (step 1) the server used 1.31 of 4 CPUs, not throttled; the answer is limited by the machine, not the limit"},
		{"a busy host: 1 CPU gave a quarter, so did 2",
			[]Step{step(1, 2, 3, unbound(2, 0.3)), step(2, 1, 9, unbound(1, 0.24))},
			[]string{"limit never bound: server used 0.30 of 2 CPUs, not throttled", "limit never bound: server used 0.24 of 1 CPU, not throttled"},
			"at --cpus 2 (step 1) the server used 0.30 of 2 CPUs, not throttled; at --cpus 1 (step 2) the server used 0.24 of 1 CPU, not throttled; the answer is limited by the machine"},
		{"the answer throttled: the limit's",
			[]Step{step(1, 4, 3, unbound(4, 1.2)), step(2, 1, 4, throttled(1, 0.98))},
			[]string{"limit never bound: server used 1.20 of 4 CPUs, not throttled", ""}, ""},
		{"no CPU limit", []Step{step(1, 4, 3, nil)}, []string{""}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := &Result{ID: "S", Param: "cpus", SLO: p99, Steps: tc.steps}
			res.Judge()
			for i, st := range res.Steps {
				if got := st.LimitNote(); got != tc.notes[i] {
					t.Errorf("step %d: note %q, want %q", st.N, got, tc.notes[i])
				}
			}
			c := res.Conclusion()
			if tc.machine == "" && strings.Contains(c, "never bound") || !strings.Contains(c, tc.machine) {
				t.Errorf("conclusion:\n%s\nwant %q", c, tc.machine)
			}
		})
	}

	// --repeat 3 at --cpus 1: two runs never bound, one throttled; the
	// value's median never bound, and its answer says which steps.
	res := &Result{ID: "S", Param: "cpus", SLO: p99, Steps: []Step{
		step(1, 1, 3, unbound(1, 0.2)), step(2, 1, 3, throttled(1, 0.6)), step(3, 1, 3, unbound(1, 0.3)),
	}}
	res.Judge()
	if b := res.Points[0].Median.CPULimit; b == nil || b.UsedCores != 0.3 || b.Throttled != 0 || res.Points[0].Median.LimitNote() == "" {
		t.Errorf("the median of the runs' limits: %+v, note %q", b, res.Points[0].Median.LimitNote())
	}
	if c := res.Conclusion(); !strings.Contains(c, "at --cpus 1 (steps 1, 2, 3: met in 3 of 3, judged on their median) the server used 0.30 of 1 CPU, not throttled") {
		t.Errorf("conclusion:\n%s", c)
	}
	// One run without the limit's figures (an older stampede's): the
	// median says nothing.
	res.Steps[1].CPULimit = nil
	res.Judge()
	if b := res.Points[0].Median.CPULimit; b != nil {
		t.Errorf("a median over a run without the figures: %+v", b)
	}
}
