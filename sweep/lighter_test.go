package sweep

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/stats"
)

// TestLighter: under a limit flag a higher value is a lighter load, so a
// list sweep with an SLO answers with the lowest limit that meets it,
// runs on after a miss when the next step is a higher limit, and calls
// the results not monotone when a lower limit met where a higher one
// missed; --max-rate keeps its direction.
func TestLighter(t *testing.T) {
	p99, _ := ParseSLO("p99<=5ms")
	rate, _ := ParseSLO("p99<=5ms,rate>=1500")
	for _, tc := range []struct {
		name      string
		p         Param
		vals      []float64
		met       map[float64]bool // by value; met when absent
		slo       SLO
		keepGoing bool
		repeat    int
		ran       int // steps run
		best      float64
		miss      float64 // -1: nil (best too)
		stopped   string
		want      []string // in the conclusion
		not       []string // not in it
	}{
		{name: "ascending limits run on after a miss", p: "cpus", vals: []float64{0.1, 0.5, NoneValue}, met: map[float64]bool{0.1: false},
			slo: p99, ran: 3, best: 0.5, miss: 0.1,
			want: []string{"lowest --cpus meeting the SLO p99<=5ms: 0.5 (step 2)", "--cpus 0.1 (step 1) missed"}, not: []string{"not monotone", "stopped"}},
		{name: "none first, then lower limits: stops after the miss", p: "cpus", vals: []float64{NoneValue, 0.25, 0.1}, met: map[float64]bool{0.25: false, 0.1: false},
			slo: p99, ran: 2, best: NoneValue, miss: 0.25, stopped: "stopped after --cpus 0.25 missed the SLO (1 step left",
			want: []string{"lowest --cpus meeting the SLO p99<=5ms: none (step 1)"}},
		{name: "keep going, none met", p: "cpus", vals: []float64{NoneValue, 0.1, 0.25}, met: map[float64]bool{0.25: false, 0.1: false},
			slo: p99, keepGoing: true, ran: 3, best: NoneValue, miss: 0.25,
			want: []string{"lowest --cpus meeting the SLO p99<=5ms: none (step 1)", "--cpus 0.25 (step 3) missed"}, not: []string{"no answer", "not monotone"}},
		{name: "every limit met", p: "io-write-bps", vals: []float64{1 << 20, 5 << 20}, slo: p99, ran: 2, best: 1 << 20, miss: -1,
			want: []string{"lowest --io-write-bps meeting the SLO p99<=5ms: 1M (step 1); every step met it: a lower limit may meet it too"}},
		{name: "a lower limit met, a higher missed", p: "cpus", vals: []float64{0.5, 1, 2}, met: map[float64]bool{1: false},
			slo: p99, ran: 3, best: 2, miss: 1,
			want: []string{"lowest --cpus meeting the SLO p99<=5ms: 2 (step 3)", "not monotone: --cpus 0.5 met the SLO below 1, which missed it; the answer is the lowest value met above the highest missed, and the machine or the server varied: re-run with --repeat"}},
		{name: "no answer: only a lower limit met", p: "memory", vals: []float64{256 << 20, 1 << 30, NoneValue}, met: map[float64]bool{1 << 30: false, NoneValue: false},
			slo: p99, ran: 3, best: -1, miss: NoneValue,
			want: []string{"no answer: --memory 256M (step 1) met the SLO p99<=5ms, but none (step 3), higher, missed it: the results are not monotone", "no value above it met it"}},
		{name: "with --repeat: no advice to repeat", p: "cpus", vals: []float64{0.5, 1, 2}, met: map[float64]bool{1: false}, repeat: 3,
			slo: p99, ran: 9, best: 2, miss: 1,
			want: []string{"not monotone", "the machine or the server varied more than --repeat evens out"}, not: []string{"re-run with --repeat"}},
		{name: "max-rate keeps its direction", p: MaxRate, vals: []float64{1000, 2000, 3000}, met: map[float64]bool{2000: false},
			slo: p99, ran: 2, best: 1000, miss: 2000, stopped: "stopped after --max-rate 2000 missed the SLO (1 step left",
			want: []string{"highest --max-rate meeting the SLO p99<=5ms: 1000 (step 1)"}},
		{name: "max-rate not monotone", p: MaxRate, vals: []float64{1000, 2000, 3000}, met: map[float64]bool{2000: false}, keepGoing: true,
			slo: p99, ran: 3, best: 1000, miss: 2000,
			want: []string{"not monotone: --max-rate 3000 met the SLO above 2000, which missed it; the answer is the highest value met below the lowest missed, and the machine or the server varied: re-run with --repeat"}},
		{name: "absolute rate: expected, said why", p: MaxRate, vals: []float64{1000, 2000}, slo: rate, keepGoing: true, ran: 2, best: -1, miss: 1000,
			want: []string{"not monotone", "as expected under rate>=1500: a throughput in ops/s that a light load cannot reach"}, not: []string{"re-run with --repeat"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ran []float64
			exec := func(ctx context.Context, s run.Spec) (*run.Result, error) {
				v, _ := s.Tags["value"], 0
				var x float64
				fmt.Sscan(v, &x)
				ran = append(ran, x)
				met, ok := tc.met[x]
				r := &run.Result{Info: run.Info{ID: fmt.Sprintf("run-%d", len(ran)), MaxRate: s.MaxRate}}
				r.Summary.Status = "completed"
				r.Summary.Total = stats.Summary{Count: 1000, Rate: x, P99: 1}
				if tc.p.None(x) {
					r.Summary.Total.Rate = 5000
				}
				if ok && !met {
					r.Summary.Total.P99 = 10
				}
				return r, nil
			}
			build := func(v, w float64) (run.Spec, error) {
				return run.Spec{Tags: map[string]string{"value": Format(v)}}, nil
			}
			spec := Spec{Param: tc.p, Values: Values{List: tc.vals}, SLO: tc.slo, KeepGoing: tc.keepGoing, Repeat: tc.repeat, ID: "S", Exec: exec, Build: build}
			if tc.p == MaxRate {
				spec.Build = nil
				spec.Base.Tags = nil
				spec.Exec = func(ctx context.Context, s run.Spec) (*run.Result, error) {
					s.Tags["value"] = Format(s.MaxRate)
					return exec(ctx, s)
				}
			}
			res, err := Run(context.Background(), spec)
			if err != nil {
				t.Fatal(err)
			}
			c := res.Conclusion()
			if len(ran) != tc.ran {
				t.Errorf("ran %v, want %d steps", ran, tc.ran)
			}
			value := func(st *Step) float64 {
				if st == nil {
					return -1
				}
				return st.Value
			}
			if value(res.Best) != tc.best || value(res.Miss) != tc.miss {
				t.Errorf("best %v miss %v, want %v %v", value(res.Best), value(res.Miss), tc.best, tc.miss)
			}
			if !strings.Contains(res.Stopped, tc.stopped) || (tc.stopped == "") != (res.Stopped == "") {
				t.Errorf("stopped %q, want %q", res.Stopped, tc.stopped)
			}
			for _, w := range tc.want {
				if !strings.Contains(c, w) {
					t.Errorf("conclusion lacks %q:\n%s", w, c)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(c, w) {
					t.Errorf("conclusion has %q:\n%s", w, c)
				}
			}
		})
	}
	if !Param("cpus").Lighter() || MaxRate.Lighter() || !slices.ContainsFunc(limitParams, Param.Lighter) {
		t.Error("Lighter: the limit flags, and only they")
	}
}
