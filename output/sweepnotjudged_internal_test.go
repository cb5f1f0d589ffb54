package output

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/sweep"
)

// TestSweepNotJudged prints a list sweep of TPC-C whose second step
// completed no New-Orders: its efficiency cell is "-" (not a measured
// 0.0), its verdict says it was not judged (not "met"), its NDJSON has
// no slo_met but slo_not_judged, and the conclusion names it rather
// than saying every step met.
func TestSweepNotJudged(t *testing.T) {
	eff, _ := sweep.ParseSLO(sweep.TPCCEfficiency)
	times, _ := sweep.ParseSLO(sweep.TPCCResponseTimes)
	slo := eff.With(times)
	step := func(n int, orders int64, e float64) sweep.Step {
		return sweep.Step{N: n, Value: float64(n), RunID: "run-" + string(rune('0'+n)), Status: "completed", Workers: 10 * n,
			Total: stats.Summary{Count: 50 + orders, Rate: 5, P99: 90},
			Ops:   map[string]stats.Summary{"newOrder": {Count: orders, P90: 100}, "payment": {Count: 50, P90: 40}}, Figures: map[string]float64{"tpmC": 12, "efficiency": e}}
	}
	res := &sweep.Result{ID: "x", Param: "active-warehouses", SLO: slo, Steps: []sweep.Step{step(1, 40, 93.3), step(2, 0, 0)}}
	res.Judge()
	for _, tc := range []struct {
		n         int
		cell      string // efficiency(%)
		verdict   string // the SLO column's start
		judged    bool
		notJudged string // NDJSON's slo_not_judged
	}{
		{1, "93.3", "met", true, ""},
		{2, "-", "efficiency>=85% not judged: no newOrder operations", false, "efficiency>=85% not judged: no newOrder operations"},
	} {
		st := res.Steps[tc.n-1]
		var text, js bytes.Buffer
		o := &Sweep{W: &text, Status: io.Discard, Param: res.Param, Figures: []string{"tpmC", "efficiency(%)"}}
		o.Begin(st, &run.Spec{})
		o.End(st)
		f := strings.Fields(text.String())
		// step, active-warehouses, max-rate, workers, ops/s, 5
		// latencies, errors, tpmC, efficiency(%), run, SLO...
		if len(f) < 15 || f[12] != tc.cell || !strings.HasPrefix(strings.Join(f[14:], " "), tc.verdict) {
			t.Errorf("step %d: row %q, want efficiency %q and verdict %q", tc.n, text.String(), tc.cell, tc.verdict)
		}
		(&Sweep{W: &js, JSON: true, Param: res.Param}).End(st)
		var obj struct {
			Met       *bool  `json:"slo_met"`
			NotJudged string `json:"slo_not_judged"`
		}
		if err := json.Unmarshal(js.Bytes(), &obj); err != nil {
			t.Fatal(err)
		}
		if (obj.Met != nil) != tc.judged || !strings.HasPrefix(obj.NotJudged, tc.notJudged) || (tc.notJudged == "") != (obj.NotJudged == "") {
			t.Errorf("step %d: NDJSON %s", tc.n, js.String())
		}
	}
	c := res.Conclusion()
	if !strings.Contains(c, "--active-warehouses 2 (step 2) was not judged") || strings.Contains(c, "every step met") || !strings.Contains(c, ": 1 (step 1)") {
		t.Errorf("conclusion:\n%s", c)
	}
}
