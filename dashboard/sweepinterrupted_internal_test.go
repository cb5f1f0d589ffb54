package dashboard

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
)

// TestSweepDocInterrupted: a sweep interrupted at step 3 of 4, read back
// from its runs, concludes as `stampede sweep` did ("interrupted at step
// 3: the sweep did not finish"), not "every step met it: the limit is
// higher"; one whose steps all completed has no such line.
func TestSweepDocInterrupted(t *testing.T) {
	for _, tc := range []struct {
		name     string
		statuses []string
		want     string
		not      string
	}{
		{"interrupted at step 3", []string{"completed", "completed", "interrupted"},
			"highest --max-rate meeting the SLO p99<=5ms,rate>=95%: 200 (step 2)\ninterrupted at step 3: the sweep did not finish; what it found is partial, from 2 completed runs", "every step met it"},
		{"completed", []string{"completed", "completed", "completed", "completed"},
			"highest --max-rate meeting the SLO p99<=5ms,rate>=95%: 400 (step 4); every step met it: the limit is higher", "interrupted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var runs []*runlog.Run
			for i, status := range tc.statuses {
				rate := float64(100 * (i + 1))
				sum, _ := json.Marshal(map[string]any{"total": stats.Summary{Count: 100, Rate: rate, P99: 1}, "max_rate": rate})
				runs = append(runs, &runlog.Run{Info: runlog.RunInfo{ID: fmt.Sprintf("r%d", i+1), Workload: "ycsb", Status: status,
					Command: []string{"sweep", "ycsb", "--max-rate", "100,200,300,400", "--slo", "p99<=5ms"},
					Flags:   map[string]string{"max-rate": fmt.Sprint(rate), "slo": "p99<=5ms"},
					Tags:    map[string]string{"sweep": "S", "sweep_step": fmt.Sprint(i + 1), "sweep_rep": "1"}}, Summary: sum})
			}
			doc, err := sweepDoc("S", runs)
			if err != nil {
				t.Fatal(err)
			}
			if doc.Conclusion != tc.want || strings.Contains(doc.Conclusion, tc.not) {
				t.Errorf("conclusion %q, want %q", doc.Conclusion, tc.want)
			}
		})
	}
}
