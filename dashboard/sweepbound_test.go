package dashboard_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/stampede-bench/stampede/dashboard"
	"github.com/stampede-bench/stampede/limit"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
)

// TestSweepLimitNotePage serves a sweep of --cpus 0.5,2 whose 2 step's
// limit never bound (its run's summary.json: not throttled, the server
// at 0.2 of 2 CPUs) and reads it back: the API's step says so as
// `stampede sweep` does, the 0.5 step (throttled) does not, the answer on
// the 2 step is said to be the machine's; and the page's steps table has
// the note column with those notes.
func TestSweepLimitNotePage(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	root := t.TempDir()
	id := "20261130-000000-bound"
	steps := []struct {
		cpus string
		p99  float64
		b    limit.CPUBound
	}{
		{"0.5", 900, limit.CPUBound{CPUs: 0.5, UsedCores: 0.49, Periods: 40, Throttled: 31, ThrottledSec: 2.5}},
		{"2", 300, limit.CPUBound{CPUs: 2, UsedCores: 0.2, Periods: 40}},
	}
	for i, st := range steps {
		info := runlog.RunInfo{ID: fmt.Sprintf("%s-%d", id, i+1), Workload: "ycsb", Series: []string{"read"}, Start: t0.Add(time.Duration(i) * time.Minute),
			Tags: map[string]string{"sweep": id, "sweep_step": fmt.Sprint(i + 1)}, Flags: map[string]string{"cpus": st.cpus, "slo": "p99<=500ms"},
			Command: []string{"stampede", "sweep", "ycsb", "--cpus", "0.5,2", "--slo", "p99<=500ms"}, StampedeVersion: "test"}
		w, err := runlog.Create(root, info)
		if err != nil {
			t.Fatal(err)
		}
		sum := map[string]any{"total": stats.Summary{Count: 1000, Seconds: 10, Rate: 100, P50: 1, P95: 2, P99: st.p99, P999: 4, Max: 5}, "cpu_limit": st.b}
		if err := w.Finish(info.Start.Add(10*time.Second), runlog.StatusCompleted, "", sum); err != nil {
			t.Fatal(err)
		}
	}
	srv := serve(t, root, "")
	var doc dashboard.SweepDoc
	getJSON(t, srv.URL+"/api/sweeps/"+id, &doc)
	want := []string{"", "limit never bound: server used 0.20 of 2 CPUs, not throttled"}
	if !doc.Notes || len(doc.Steps) != 2 || doc.Steps[0].LimitNote != want[0] || doc.Steps[1].LimitNote != want[1] || doc.Steps[1].CPULimit == nil || doc.Steps[1].CPULimit.Periods != 40 {
		t.Errorf("notes %v, steps %+v; want notes %q", doc.Notes, doc.Steps, want)
	}
	if !strings.Contains(doc.Conclusion, "lowest --cpus meeting the SLO p99<=500ms: 2 (step 2)") ||
		!strings.Contains(doc.Conclusion, "the CPU limit did not bind where the answer lies: at --cpus 2 (step 2) the server used 0.20 of 2 CPUs, not throttled; the answer is limited by the machine, not the limit") {
		t.Errorf("conclusion:\n%s", doc.Conclusion)
	}

	// The key is the NDJSON's and the README's, limit_note.
	var raw struct {
		Steps []map[string]any `json:"steps"`
	}
	getJSON(t, srv.URL+"/api/sweeps/"+id, &raw)
	if len(raw.Steps) != 2 || raw.Steps[1]["limit_note"] != want[1] || raw.Steps[1]["note"] != nil {
		t.Errorf("/api/sweeps/%s's steps %v: want the note as limit_note", id, raw.Steps)
	}

	ctx := browser(t)
	load(t, ctx, srv.URL+"/#/sweep/"+id, "sweep")
	read := `[...document.querySelectorAll('#steps thead th:last-child, #steps td[data-field=note]')].map(td => td.textContent)`
	cells, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](read))
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 3 || cells[0] != "note" || cells[1] != "-" || cells[2] != want[1] {
		t.Errorf("the steps table's note column: %q; want note, -, %q", cells, want[1])
	}
}
