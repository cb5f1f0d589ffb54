package dashboard

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
)

// TestSweepDocLimitValues: the runs of a sweep of a limit flag with none
// (--memory none,5M,1.5G, the first step without the limit, recorded as
// none) are read back as a sweep of --memory, each step's value as the
// user wrote it beside its number (none 0, 5M 5242880); a grid's second
// flag's too.
func TestSweepDocLimitValues(t *testing.T) {
	for _, tc := range []struct {
		name    string
		command []string
		flags   []map[string]string
		param   string
		texts   [][2]string // value_text, value2_text per step
		values  []float64
	}{
		{"memory", []string{"sweep", "ycsb", "--memory", "none,5M,1.5G"},
			[]map[string]string{{"memory": "none"}, {"memory": "5242880"}, {"memory": "1610612736"}},
			"memory", [][2]string{{"none", ""}, {"5M", ""}, {"1.5G", ""}}, []float64{0, 5 << 20, 1536 << 20}},
		{"grid", []string{"sweep", "ycsb", "--conns", "2,4", "--cpus", "none,0.5"},
			[]map[string]string{{"conns": "2", "cpus": "none"}, {"conns": "2", "cpus": "0.5"}, {"conns": "4", "cpus": "none"}},
			"conns", [][2]string{{"2", "none"}, {"2", "0.5"}, {"4", "none"}}, []float64{2, 2, 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var runs []*runlog.Run
			for i, f := range tc.flags {
				sum, _ := json.Marshal(map[string]any{"total": stats.Summary{Count: 100, Rate: 100}})
				runs = append(runs, &runlog.Run{Info: runlog.RunInfo{ID: fmt.Sprintf("r%d", i+1), Workload: "ycsb", Status: "completed", Command: tc.command, Flags: f,
					Tags: map[string]string{"sweep": "S", "sweep_step": fmt.Sprint(i + 1), "sweep_rep": "1"}}, Summary: sum})
			}
			doc, err := sweepDoc("S", runs)
			if err != nil {
				t.Fatal(err)
			}
			if doc.Param != tc.param || len(doc.Steps) != len(tc.texts) {
				t.Fatalf("param %q, %d steps; want %q, %d", doc.Param, len(doc.Steps), tc.param, len(tc.texts))
			}
			for i, s := range doc.Steps {
				if s.Value != tc.values[i] || s.ValueText != tc.texts[i][0] || s.Value2Text != tc.texts[i][1] {
					t.Errorf("step %d: %v %q %q, want %v %q %q", i+1, s.Value, s.ValueText, s.Value2Text, tc.values[i], tc.texts[i][0], tc.texts[i][1])
				}
			}
		})
	}
}
