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
			"the CPU limit did not bind where the answer lies: at --cpus 4 (step 1) the server used 1.31 of 4 CPUs, not throttled; the answer is limited by the machine, not the limit"},
		{"a busy host: 1 CPU gave a quarter, so did 2",
			[]Step{step(1, 2, 3, unbound(2, 0.3)), step(2, 1, 9, unbound(1, 0.24))},
			[]string{"limit never bound: server used 0.30 of 2 CPUs, not throttled", "limit never bound: server used 0.24 of 1 CPU, not throttled"},
			"at --cpus 2 (step 1) the server used 0.30 of 2 CPUs, not throttled; at --cpus 1 (step 2) the server used 0.24 of 1 CPU, not throttled; the answer is limited by the machine"},
		{"the answer throttled: the limit's",
			[]Step{step(1, 4, 3, unbound(4, 1.2)), step(2, 1, 4, throttled(1, 0.98))},
			[]string{"limit never bound: server used 1.20 of 4 CPUs, not throttled", ""}, ""},
		{"a burst throttled 3 of 101 periods at 0.57 of 1 CPU: did not bind",
			[]Step{step(1, 1, 3, &limit.CPUBound{CPUs: 1, UsedCores: 0.57, Periods: 101, Throttled: 3, ThrottledSec: 0.01})},
			[]string{"limit did not bind: server used 0.57 of 1 CPU, throttled in 3 of 101 periods; the host's CPU or the load capped it"},
			"the CPU limit did not bind where the answer lies: at --cpus 1 (step 1) the server used 0.57 of 1 CPU, throttled in 3 of 101 periods"},
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
			if tc.machine == "" && strings.Contains(c, "did not bind") || !strings.Contains(c, tc.machine) {
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

// TestLimitNoteNothingLimited: a step whose limits held no process says
// so in its note, before anything about its CPU limit.
func TestLimitNoteNothingLimited(t *testing.T) {
	const none = "no process matched --limit-process x: nothing was limited"
	for _, tc := range []struct {
		name string
		st   Step
		want string
	}{
		{"nothing limited", Step{NotLimited: none}, none},
		{"nothing limited, CPU idle", Step{NotLimited: none, CPULimit: &limit.CPUBound{CPUs: 0.5, Periods: 100}}, none},
		{"no limit", Step{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.st.LimitNote(); got != tc.want {
				t.Errorf("LimitNote() = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestConclusionNothingLimited: a sweep with an SLO whose steps limited
// no process (a --limit-process pattern that matched nothing) concludes
// that the answer is not the limit's, for a memory sweep (no CPU limit's
// figures: the conclusion dereferenced them and panicked) and for a
// --cpus sweep (which blamed the machine).
func TestConclusionNothingLimited(t *testing.T) {
	const none = "no process matched --limit-cmdline zz: nothing was limited"
	p99, _ := ParseSLO("p99<=200ms")
	step := func(n int, v float64, b *limit.CPUBound) Step {
		return Step{N: n, Value: v, Rep: 1, Status: "completed", Total: stats.Summary{Count: 100, Rate: 50, P99: 3}, CPULimit: b, NotLimited: none}
	}
	for _, tc := range []struct {
		param string
		steps []Step
	}{
		{"memory", []Step{step(1, 128<<20, nil), step(2, 64<<20, nil)}},
		{"cpus", []Step{step(1, 1, &limit.CPUBound{CPUs: 1, Periods: 10}), step(2, 0.5, &limit.CPUBound{CPUs: 0.5, Periods: 10})}},
	} {
		t.Run(tc.param, func(t *testing.T) {
			res := &Result{ID: "S", Param: Param(tc.param), SLO: p99, Steps: tc.steps}
			res.Judge()
			c := res.Conclusion()
			if !strings.Contains(c, "nothing was limited where the answer lies") || !strings.Contains(c, none) || strings.Contains(c, "limited by the machine") {
				t.Errorf("conclusion:\n%s", c)
			}
			// Every step missed: the misses are not the limit's either
			// (the conclusion said nothing of it: chk34g F2).
			for i := range tc.steps {
				tc.steps[i].Total.P99 = 900
			}
			res = &Result{ID: "S", Param: Param(tc.param), SLO: p99, Steps: tc.steps}
			res.Judge()
			if c := res.Conclusion(); !strings.Contains(c, "no step met") || !strings.Contains(c, "nothing was limited: at") || !strings.Contains(c, "the misses are not the limit's") {
				t.Errorf("every step missed; conclusion:\n%s", c)
			}
		})
	}
}
