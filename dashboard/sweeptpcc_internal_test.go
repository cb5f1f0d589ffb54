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
	for _, recorded := range []string{"", sweep.TPCCSLO, sweep.TPCCEfficiency} { // none, fix34c's, fix34k's
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
		if doc.Latencies != nil {
			t.Errorf("recorded %q: latency lines %v drawn for an SLO of operations' terms and efficiency", recorded, doc.Latencies)
		}
		if doc.Best != 4 || doc.Miss != 5 || !strings.Contains(doc.Conclusion, "highest --active-warehouses meeting the SLO "+sweep.TPCCSLO+": 5 (step 4)") {
			t.Errorf("recorded %q: best %d miss %d, conclusion %q", recorded, doc.Best, doc.Miss, doc.Conclusion)
		}
	}
}

// TestSweepDocTPCCNoNewOrders: a TPC-C search's probe that completed
// no New-Orders is not judged on the dashboard either (not met on its
// Payments alone), its efficiency not given (no basis), and the
// conclusion names it rather than answering from it.
func TestSweepDocTPCCNoNewOrders(t *testing.T) {
	command := []string{"sweep", "tpcc", "--warehouses", "2", "--active-warehouses", "1:2", "--search", "--duration", "10s", "URL"}
	var runs []*runlog.Run
	for i, newOrders := range []int64{40, 0} {
		ops := []map[string]any{{"name": "newOrder", "count": newOrders, "p90_ms": 100}, {"name": "payment", "count": 50, "p90_ms": 50}}
		eff := float64(newOrders) * 2.3
		sum, _ := json.Marshal(map[string]any{"total": stats.Summary{Count: 50 + newOrders, Rate: 5}, "concurrency": 10 * (i + 1), "ops": ops, "figures": map[string]float64{"efficiency": eff, "tpmC": 12 * eff}})
		flags := map[string]string{"active-warehouses": fmt.Sprint(i + 1), "warehouses": "2", "search": "true", "duration": "10s", "slo": sweep.TPCCEfficiency}
		runs = append(runs, &runlog.Run{Info: runlog.RunInfo{ID: fmt.Sprintf("r%d", i+1), Workload: "tpcc", Status: "completed", Command: command, Flags: flags,
			Tags: map[string]string{"sweep": "S", "sweep_step": fmt.Sprint(i + 1), "sweep_rep": "1"}}, Summary: sum})
	}
	doc, err := sweepDoc("S", runs)
	if err != nil {
		t.Fatal(err)
	}
	if s := doc.Steps[0]; !s.Judged || !s.Met || s.Figures["efficiency"] != 92 {
		t.Errorf("step 1: judged %v met %v (%s), figures %v", s.Judged, s.Met, s.Why, s.Figures)
	}
	if s := doc.Steps[1]; s.Judged || s.Met || !strings.Contains(s.Why, "efficiency>=85% not judged: no newOrder operations") {
		t.Errorf("step 2, no New-Orders: judged %v met %v (%s)", s.Judged, s.Met, s.Why)
	} else if _, ok := s.Figures["efficiency"]; ok || s.Figures["tpmC"] != 0 {
		t.Errorf("step 2, no New-Orders: figures %v, want tpmC 0 and no efficiency", s.Figures)
	}
	if !strings.Contains(doc.Conclusion, "--active-warehouses 2 (step 2) was not judged") || strings.Contains(doc.Conclusion, ": 2 (step 2)") {
		t.Errorf("conclusion:\n%s", doc.Conclusion)
	}
}

// TestSweepDocSLOLatencies: the sweep page draws as latency lines only
// the SLO's terms on the whole run's latency; an operation's terms
// (newOrder.p90, stockLevel.p90: no single p90 line at the last one's
// bound) and efficiency stay in the SLO's text.
func TestSweepDocSLOLatencies(t *testing.T) {
	for _, tc := range []struct {
		slo  string
		want map[string]float64
	}{
		{"efficiency>=85%", nil},
		{"newOrder.p90<=5s,stockLevel.p90<=20s", nil},
		{"p99<=5ms,newOrder.p90<=5s,stockLevel.p90<=20s,efficiency>=85%", map[string]float64{"p99": 5}},
		{"p90<=2ms,max<=1s,errors<=1%,rate>=100", map[string]float64{"p90": 2, "max": 1000}},
	} {
		t.Run(tc.slo, func(t *testing.T) {
			sum, _ := json.Marshal(map[string]any{"total": stats.Summary{Count: 4400, Rate: 10, P99: 1},
				"ops":     []map[string]any{{"name": "newOrder", "count": 2000, "p90_ms": 100}, {"name": "stockLevel", "count": 200, "p90_ms": 30}},
				"figures": map[string]float64{"efficiency": 90}})
			runs := []*runlog.Run{{Info: runlog.RunInfo{ID: "r1", Workload: "tpcc", Status: "completed", Command: []string{"sweep", "tpcc", "--active-warehouses", "1,2", "URL"},
				Flags: map[string]string{"active-warehouses": "1", "slo": tc.slo}, Tags: map[string]string{"sweep": "S", "sweep_step": "1", "sweep_rep": "1"}}, Summary: sum}}
			doc, err := sweepDoc("S", runs)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(doc.Latencies) != fmt.Sprint(tc.want) || !strings.HasPrefix(doc.SLO, tc.slo) {
				t.Errorf("latency lines %v, want %v; slo %q", doc.Latencies, tc.want, doc.SLO)
			}
		})
	}
}
