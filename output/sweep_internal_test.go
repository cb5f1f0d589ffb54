package output

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/sweep"
)

// TestSweepGolden checks the sweep's text and NDJSON layouts against
// golden files (go test -run Sweep -update rewrites them).
func TestSweepGolden(t *testing.T) {
	slo, err := sweep.ParseSLO("p99<=5ms,rate>=95%")
	if err != nil {
		t.Fatal(err)
	}
	steps := []sweep.Step{
		{N: 1, Value: 1000, RunID: "20261126-060000-ycsb-aaaa", Dir: "/r/20261126-060000-ycsb-aaaa", Status: "completed", Target: 1000, Workers: 8,
			Total: stats.Summary{Count: 29990, Rate: 999.7, P50: 0.21, P95: 0.52, P99: 1.13, P999: 3.9, Max: 12.4}, Figures: map[string]float64{"tpmC": 12.5}},
		{N: 2, Value: 8000, RunID: "20261126-060030-ycsb-bbbb", Dir: "/r/20261126-060030-ycsb-bbbb", Status: "completed", Target: 8000, Workers: 8,
			Total: stats.Summary{Count: 239000, Errors: 12, Rate: 7966.7, P50: 0.35, P95: 2.1, P99: 6.1, P999: 14.2, Max: 102.5}},
		{N: 3, Value: 2830, RunID: "20261126-060100-ycsb-cccc", Dir: "/r/20261126-060100-ycsb-cccc", Status: "completed", Target: 2830, Workers: 8,
			Total: stats.Summary{Count: 84870, Rate: 2829.0, P50: 0.25, P95: 0.61, P99: 1.4, P999: 4.4, Max: 15.0}},
		{N: 4, Value: 4760, RunID: "20261126-060130-ycsb-dddd", Dir: "/r/20261126-060130-ycsb-dddd", Status: "interrupted", Target: 4760, Workers: 8,
			Total: stats.Summary{Count: 40000, Rate: 4750.2, P50: 0.3, P95: 0.9, P99: 2.2, P999: 5.1, Max: 17.3}},
	}
	for i := range steps[:3] {
		steps[i].Judged = true
		steps[i].Met, steps[i].Why = slo.Check(sweep.Measure{Total: steps[i].Total, Target: steps[i].Target})
	}
	res := &sweep.Result{ID: "20261126-060000-1a2b", Param: sweep.MaxRate, SLO: slo, Search: true, Steps: steps,
		Stopped: "interrupted at step 4: the search did not finish"}
	res.Best, res.Miss, res.Peak = &res.Steps[2], &res.Steps[1], &res.Steps[1]
	checkSweepGolden(t, "sweep", res, "ycsb", "--max-rate", "1000:64000", "a search from 1000 to 64000, within 5%", "30s each")
}

// checkSweepGolden prints res (its steps begun and ended in order) as a
// sweep of workload over flag values prints it, as text and as NDJSON,
// and compares each with testdata/NAME.golden and NAME_json.golden (-update
// rewrites them).
func checkSweepGolden(t *testing.T, name string, res *sweep.Result, workload, flag, values, plan, duration string) {
	t.Helper()
	for _, asJSON := range []bool{false, true} {
		golden := name + ".golden"
		if asJSON {
			golden = name + "_json.golden"
		}
		t.Run(golden, func(t *testing.T) {
			var out, status bytes.Buffer
			o := &Sweep{W: &out, Status: &status, JSON: asJSON, Plan: plan, Duration: duration,
				Hint: func(s string) string { return s + " --results-dir /r" }}
			o.Header(res.ID, workload, flag, values, res.SLO)
			for _, st := range res.Steps {
				o.Begin(st, &run.Spec{MaxRate: st.Target, Concurrency: st.Workers})
				o.End(st)
			}
			o.Done(res)
			got := append(status.Bytes(), out.Bytes()...)
			path := filepath.Join("testdata", golden)
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// TestSweepEfficiencyWithinChance: a TPC-C search's step whose efficiency
// is short of the SLO's bound by sampling noise alone is met, its verdict
// says why (in the table, the conclusion and the NDJSON's slo_note), and
// one beyond chance misses (golden files, -update rewrites them).
func TestSweepEfficiencyWithinChance(t *testing.T) {
	slo, err := sweep.ParseSLO(sweep.TPCCSLO)
	if err != nil {
		t.Fatal(err)
	}
	ops := func(newOrders int64) map[string]stats.Summary {
		m := map[string]stats.Summary{}
		for _, op := range []string{"newOrder", "payment", "orderStatus", "delivery", "stockLevel"} {
			m[op] = stats.Summary{Count: newOrders, P90: 40}
		}
		return m
	}
	steps := []sweep.Step{
		// 26 New-Orders in 2 minutes at 1 warehouse: 80.9% (interval to 118%).
		{N: 1, Value: 1, RunID: "20261129-210000-tpcc-aaaa", Status: "completed", Workers: 10, Ops: ops(26),
			Total: stats.Summary{Count: 58, Rate: 0.48, P50: 20, P95: 60, P99: 90, P999: 95, Max: 99}, Figures: map[string]float64{"efficiency": 80.9}},
		// 1,500 New-Orders at 8 warehouses: 72.9% (interval to 76.7%).
		{N: 2, Value: 8, RunID: "20261129-210230-tpcc-bbbb", Status: "completed", Workers: 80, Ops: ops(1500),
			Total: stats.Summary{Count: 3340, Rate: 27.8, P50: 25, P95: 70, P99: 95, P999: 99, Max: 120}, Figures: map[string]float64{"efficiency": 72.9}},
	}
	for i := range steps {
		steps[i].Judged = true
		steps[i].Met, steps[i].Why = slo.Check(sweep.Measure{Total: steps[i].Total, Ops: steps[i].Ops, Figures: steps[i].Figures})
	}
	if !steps[0].Met || steps[1].Met {
		t.Fatalf("met %v (%s), %v (%s): want the first within chance, the second missed", steps[0].Met, steps[0].Why, steps[1].Met, steps[1].Why)
	}
	res := &sweep.Result{ID: "20261129-210000-3c4d", Param: "active-warehouses", SLO: slo, Search: true, Steps: steps}
	res.Best, res.Miss, res.Peak = &res.Steps[0], &res.Steps[1], &res.Steps[1]
	checkSweepGolden(t, "sweep_efficiency", res, "tpcc", "--active-warehouses", "1:8", "a search from 1 to 8", "30s ramp + 2m0s each")
}

// TestSweepMediansInterrupted: the medians table counts a value's
// completed runs only, and marks the value whose run was interrupted
// beside its count; "met in" agrees with the count.
func TestSweepMediansInterrupted(t *testing.T) {
	slo, err := sweep.ParseSLO("p99<=50ms")
	if err != nil {
		t.Fatal(err)
	}
	step := func(n int, v float64, status string, p99 float64) sweep.Step {
		return sweep.Step{N: n, Value: v, Status: status, RunID: fmt.Sprintf("run-%d", n), Total: stats.Summary{Count: 100, Rate: 100 * float64(n), P99: p99}}
	}
	res := &sweep.Result{ID: "x", Param: sweep.Concurrency, SLO: slo, Stopped: "interrupted at step 4: the sweep did not finish",
		Steps: []sweep.Step{step(1, 1, "completed", 10), step(2, 2, "completed", 20), step(3, 1, "completed", 12), step(4, 2, "interrupted", 90)}}
	res.Judge()
	var out bytes.Buffer
	(&Sweep{W: &out, Status: io.Discard, Param: res.Param}).Done(res)
	rows := map[string][]string{}
	for _, line := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			rows[f[0]] = f
		}
	}
	for _, tc := range []struct {
		value string
		want  []string // runs, then met in and the verdict (the row's last two)
	}{
		{"1", []string{"2", "2/2", "met"}},
		{"2", []string{"1", "(+1", "interrupted)", "1/1", "met"}},
	} {
		f := rows[tc.value]
		if len(f) < len(tc.want)+1 || !slices.Equal(f[1:1+len(tc.want)-2], tc.want[:len(tc.want)-2]) || !slices.Equal(f[len(f)-2:], tc.want[len(tc.want)-2:]) {
			t.Errorf("value %s: row %q, want runs %v and met in, verdict %v:\n%s", tc.value, f, tc.want[:len(tc.want)-2], tc.want[len(tc.want)-2:], out.String())
		}
	}
}
