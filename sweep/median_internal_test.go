package sweep

import (
	"testing"

	"github.com/stampede-bench/stampede/stats"
)

// TestMedianStepOpsOfEveryRun: a repeated step's medians cover every
// operation and figure any of its runs has, not only the first run's; an
// operation's latencies are the median over the runs that did it (a run
// without it has no latency, not one of 0), its count over all runs.
// Before, an operation the first run did not sample was left out of the
// step, and one a later run missed pulled the latency median towards 0.
func TestMedianStepOpsOfEveryRun(t *testing.T) {
	op := func(n int64, p99 float64) stats.Summary { return stats.Summary{Count: n, P99: p99} }
	runs := []Step{
		{Ops: map[string]stats.Summary{"read": op(100, 10)}, Figures: map[string]float64{"tpmC": 50}},
		{Ops: map[string]stats.Summary{"read": op(90, 12), "scan": op(2, 40)}},
		{Ops: map[string]stats.Summary{"read": op(110, 14), "scan": op(4, 60)}, Figures: map[string]float64{"tpmC": 70, "efficiency": 80}},
	}
	st := medianStep(runs, runs)
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		{"read count", float64(st.Ops["read"].Count), 100},
		{"read p99", st.Ops["read"].P99, 12},
		{"scan count (0 in the first run)", float64(st.Ops["scan"].Count), 2},
		{"scan p99 (over the runs that scanned)", st.Ops["scan"].P99, 50},
		{"tpmC (over the runs that have it)", st.Figures["tpmC"], 60},
		{"efficiency (one run)", st.Figures["efficiency"], 80},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	if len(st.Ops) != 2 || len(st.Figures) != 2 {
		t.Errorf("ops %v, figures %v: want read and scan, tpmC and efficiency", st.Ops, st.Figures)
	}
}
