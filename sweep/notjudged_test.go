package sweep

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/stats"
)

// tpccProbe is a TPC-C search's probe at --active-warehouses w (10
// terminals each) that completes no New-Orders from noneFrom warehouses
// up (a probe shorter than a New-Order's keying time), its Payments
// quick: the figures a 10s probe at 2 warehouses gave.
func tpccProbe(noneFrom float64) func(ctx context.Context, s run.Spec) (*run.Result, error) {
	n := 0
	return func(ctx context.Context, s run.Spec) (*run.Result, error) {
		n++
		w, _ := strconv.ParseFloat(s.Flags["active-warehouses"], 64)
		r := &run.Result{Info: run.Info{ID: fmt.Sprintf("run-%d", n), Workers: int(10 * w)}}
		r.Summary.Status = "completed"
		orders, eff := int64(40), 95.0
		if w >= noneFrom {
			orders, eff = 0, 0
		}
		r.Summary.Total = stats.Summary{Count: 50 + orders, Rate: 5}
		r.Summary.Ops = []run.NamedSummary{{Name: "newOrder", Summary: stats.Summary{Count: orders, P90: 100}}, {Name: "payment", Summary: stats.Summary{Count: 50, P90: 50}}}
		r.Summary.Figures = map[string]float64{"efficiency": eff}
		return r, nil
	}
}

// TestSearchNotJudged: a TPC-C search whose probe completes no
// New-Orders does not take it for one that met efficiency>=85% on
// payment.p90 alone: the probe is not judged, the search stops there and
// answers from none of it, saying its efficiency would rest on no
// New-Orders and the --duration that counts enough; a search whose
// lowest probe has none gives no answer at all.
func TestSearchNotJudged(t *testing.T) {
	eff, _ := ParseSLO(TPCCEfficiency)
	times, _ := ParseSLO(TPCCResponseTimes)
	slo := eff.With(times)
	build := func(v, w float64) (run.Spec, error) { return run.Spec{}, nil }
	for _, tc := range []struct {
		name     string
		noneFrom float64
		best     float64 // 0: none
		want     []string
	}{
		{name: "second probe", noneFrom: 2, best: 1, want: []string{
			"--active-warehouses 2 (step 2) was not judged: efficiency>=85% not judged: no newOrder operations",
			"at 2 warehouses (20 terminals) an efficiency of 85% completes 21.9 New-Orders a minute, so a --duration of at least",
			"the search stopped at --active-warehouses 2, which could not be judged"}},
		{name: "lowest probe", noneFrom: 1, want: []string{"no answer: no step was judged to meet the SLO",
			"--active-warehouses 1 (step 1) was not judged", "at 1 warehouse (10 terminals)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Run(context.Background(), Spec{Param: "active-warehouses", Values: Values{Lo: 1, Hi: 2, Bounds: true}, Search: true, Whole: true,
				SLO: slo, ID: "S", Exec: tpccProbe(tc.noneFrom), Build: build})
			if err != nil {
				t.Fatal(err)
			}
			c := res.Conclusion()
			for _, w := range tc.want {
				if !strings.Contains(c, w) {
					t.Errorf("conclusion lacks %q:\n%s", w, c)
				}
			}
			if strings.Contains(c, "(step 2)") && strings.Contains(c, ": 2 (step 2)") {
				t.Errorf("answered from the probe without New-Orders:\n%s", c)
			}
			if got := res.Steps[len(res.Steps)-1]; got.Judged || got.Met || !strings.Contains(got.Why, "not judged") {
				t.Errorf("the probe without New-Orders: judged %v, met %v (%s)", got.Judged, got.Met, got.Why)
			}
			if tc.best == 0 && res.Best != nil || tc.best != 0 && (res.Best == nil || res.Best.Value != tc.best) || res.Miss != nil {
				t.Errorf("best %+v, miss %+v, want best %g and no miss", res.Best, res.Miss, tc.best)
			}
		})
	}
}

// TestNewOrdersToTell: the count of New-Orders NewOrdersNeeded asks for
// is the least whose 95% interval, from a figure 10% short of a bound,
// no longer reaches it: at that count the verdict misses, one fewer
// and it is within chance.
func TestNewOrdersToTell(t *testing.T) {
	n := newOrdersToTell(efficiencyResolution)
	eff, _ := ParseSLO("efficiency>=85%")
	at := func(count int64) bool {
		_, met, _ := eff.Verdict(Measure{Total: stats.Summary{Count: count}, Ops: map[string]stats.Summary{"newOrder": {Count: count}}, Figures: map[string]float64{"efficiency": 85 * (1 - efficiencyResolution)}})
		return met
	}
	if at(n) || !at(n-1) {
		t.Errorf("count %d: met at it %v (want false), at %d %v (want true)", n, at(n), n-1, at(n-1))
	}
}

// TestEveryMetRepeat: a list run 3 times whose every value met the SLO
// on its median, one run having missed (a burst), does not say every
// step met it: it says each value met it on the median of its
// repetitions and how many missed; with none missed it says every step.
func TestEveryMetRepeat(t *testing.T) {
	p99, _ := ParseSLO("p99<=40ms")
	for _, tc := range []struct {
		name  string
		burst func(n int) bool
		want  string
	}{
		{"one missed", func(n int) bool { return n == 3 }, "; every value met it on the median of its repetitions (1 of 6 repetitions missed): the limit is higher"},
		{"none missed", func(int) bool { return false }, "; every step met it: the limit is higher"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sv := &server{knee: 1e6, burst: tc.burst}
			res, err := Run(context.Background(), Spec{Param: Concurrency, Values: Values{List: []float64{1, 4}}, SLO: p99, ID: "S", Exec: sv.exec, Repeat: 3})
			if err != nil {
				t.Fatal(err)
			}
			if c := res.Conclusion(); !strings.Contains(c, tc.want) {
				t.Errorf("conclusion:\n%s\nwant %q", c, tc.want)
			}
		})
	}
}
