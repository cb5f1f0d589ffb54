package dashboard

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/sweep"
)

// TestSweepDocTPCCSearchSLO: a TPC-C search without --slo is judged on
// the dashboard as `stampede sweep` judged it, by TPC-C's own SLO
// (efficiency>=85% and clause 5.2.5's response times, read from each
// step's operations): from the SLO its runs record, and for older runs
// that record none, from the workload and --search. A probe with no
// Order-Status is judged on the other terms.
func TestSweepDocTPCCSearchSLO(t *testing.T) {
	command := []string{"sweep", "tpcc", "--warehouses", "8", "--active-warehouses", "1:8", "--search", "--ramp", "10s", "--duration", "2m", "URL"}
	// Active warehouses 1, 3 and 8 met; 5 too; 6 missed on efficiency.
	steps := []struct {
		w       string
		eff     float64
		orderSt int64
	}{{"1", 95, 0}, {"3", 96, 3}, {"8", 40, 20}, {"5", 97, 5}, {"6", 70, 9}}
	for _, recorded := range []string{"", sweep.TPCCSLO} {
		var runs []*runlog.Run
		for i, s := range steps {
			ops := []map[string]any{
				{"name": "newOrder", "count": 2000, "p90_ms": 100},
				{"name": "payment", "count": 2000, "p90_ms": 50},
				{"name": "delivery", "count": 200, "p90_ms": 80},
				{"name": "stockLevel", "count": 200, "p90_ms": 30},
			}
			if s.orderSt > 0 {
				ops = append(ops, map[string]any{"name": "orderStatus", "count": s.orderSt, "p90_ms": 20})
			}
			sum, _ := json.Marshal(map[string]any{"total": stats.Summary{Count: 4400, Rate: 10}, "ops": ops, "figures": map[string]float64{"efficiency": s.eff, "tpmC": 12 * s.eff}})
			flags := map[string]string{"active-warehouses": s.w, "warehouses": "8", "search": "true", "ramp": "10s", "duration": "2m"}
			if recorded != "" {
				flags["slo"] = recorded
			}
			runs = append(runs, &runlog.Run{Info: runlog.RunInfo{ID: fmt.Sprintf("r%d", i+1), Workload: "tpcc", Status: "completed", Command: command, Flags: flags,
				Tags: map[string]string{"sweep": "S", "sweep_step": fmt.Sprint(i + 1), "sweep_rep": "1"}}, Summary: sum})
		}
		doc, err := sweepDoc("S", runs)
		if err != nil {
			t.Fatal(err)
		}
		if doc.SLO != sweep.TPCCSLO {
			t.Errorf("recorded %q: slo %q, want %q", recorded, doc.SLO, sweep.TPCCSLO)
		}
		for i, s := range doc.Steps {
			if !s.Judged || s.Met != (i != 2 && i != 4) {
				t.Errorf("recorded %q: step %d judged %v met %v (%s)", recorded, s.N, s.Judged, s.Met, s.Why)
			}
		}
		if !strings.Contains(doc.Steps[0].Why, "orderStatus.p90<=5s not judged: no orderStatus operations") {
			t.Errorf("step 1's verdict %q does not say orderStatus was not judged", doc.Steps[0].Why)
		}
		if doc.Best != 4 || doc.Miss != 5 || !strings.Contains(doc.Conclusion, "highest --active-warehouses meeting the SLO "+sweep.TPCCSLO+": 5 (step 4)") {
			t.Errorf("recorded %q: best %d miss %d, conclusion %q", recorded, doc.Best, doc.Miss, doc.Conclusion)
		}
	}
}
