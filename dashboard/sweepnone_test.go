package dashboard_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/stampede-bench/stampede/dashboard"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
)

// TestSweepNonePage serves sweeps of limit flags with none (a step
// without the limit, the most resources) and reads them in Chromium:
// none comes after every number in the points and the grid's columns, is
// drawn at the right end of the swept value's axis (the server's x and
// none_at), where the axis labels it none. A sweep of --cpus none,0.5,1
// whose every step meets its SLO answers 0.5, the lowest limit (a higher
// --cpus is a lighter load); a grid of --conns 2,4 by --cpus
// none,0.5 puts none in the last column.
func TestSweepNonePage(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	root := t.TempDir()
	type step struct {
		flags map[string]string
		rate  int
	}
	sweeps := []struct {
		id      string
		command []string
		steps   []step
	}{
		{"20261122-000000-cpus", []string{"stampede", "sweep", "ycsb", "--cpus", "none,0.5,1", "--repeat", "2", "--slo", "p99<=1000ms"},
			[]step{{map[string]string{"cpus": "none"}, 400}, {map[string]string{"cpus": "0.5"}, 100}, {map[string]string{"cpus": "1"}, 200},
				{map[string]string{"cpus": "none"}, 400}, {map[string]string{"cpus": "0.5"}, 100}, {map[string]string{"cpus": "1"}, 200}}},
		{"20261122-000000-grid", []string{"stampede", "sweep", "ycsb", "--conns", "2,4", "--cpus", "none,0.5"},
			[]step{{map[string]string{"conns": "2", "cpus": "none"}, 300}, {map[string]string{"conns": "2", "cpus": "0.5"}, 100},
				{map[string]string{"conns": "4", "cpus": "none"}, 400}, {map[string]string{"conns": "4", "cpus": "0.5"}, 200}}},
	}
	k := 0
	for _, sw := range sweeps {
		for i, st := range sw.steps {
			k++
			flags, rep := st.flags, 1
			if sw.command[5] == "--repeat" {
				flags["slo"], rep = "p99<=1000ms", 1+i/3
			}
			info := runlog.RunInfo{ID: fmt.Sprintf("%s-%d", sw.id, i+1), Workload: "ycsb", Series: []string{"read"}, Start: t0.Add(time.Duration(k) * time.Minute),
				Tags: map[string]string{"sweep": sw.id, "sweep_step": fmt.Sprint(i + 1), "sweep_rep": fmt.Sprint(rep)}, Flags: flags, Command: sw.command, StampedeVersion: "test"}
			w, err := runlog.Create(root, info)
			if err != nil {
				t.Fatal(err)
			}
			sum := map[string]any{"total": stats.Summary{Count: int64(10 * st.rate), Seconds: 10, Rate: float64(st.rate), P50: 1, P95: 2, P99: 3, P999: 4, Max: 5}}
			if err := w.Finish(info.Start.Add(10*time.Second), runlog.StatusCompleted, "", sum); err != nil {
				t.Fatal(err)
			}
		}
	}
	srv := serve(t, root, "")

	var doc dashboard.SweepDoc
	getJSON(t, srv.URL+"/api/sweeps/"+sweeps[0].id, &doc)
	var points []string
	for _, p := range doc.Points {
		points = append(points, fmt.Sprintf("%s@%g", p.ValueText, p.X))
	}
	if want := []string{"0.5@0.5", "1@1", "none@1.25"}; !slices.Equal(points, want) || doc.NoneAt != 1.25 {
		t.Errorf("points %v, none at %g; want %v, none at 1.25", points, doc.NoneAt, want)
	}
	// Every step met: the answer is the lowest limit, 0.5 (a higher
	// --cpus is a lighter load), as stampede sweep answers.
	if doc.Best != 2 || doc.Steps[0].ValueText != "none" || doc.Steps[0].X != 1.25 || !strings.HasPrefix(doc.Conclusion, "lowest --cpus meeting the SLO p99<=1000ms: 0.5") {
		t.Errorf("best step %d (step 1: %q at %g); want step 2 (0.5), none at 1.25: %s; %+v", doc.Best, doc.Steps[0].ValueText, doc.Steps[0].X, doc.Conclusion, doc.Steps[0])
	}
	var grid dashboard.SweepDoc
	getJSON(t, srv.URL+"/api/sweeps/"+sweeps[1].id, &grid)
	var cells []string
	for _, c := range grid.Cells {
		cells = append(cells, fmt.Sprintf("%s/%s@%g", c.ValueText, c.Value2Text, c.X2))
	}
	if want := []string{"2/0.5@0.5", "2/none@0.625", "4/0.5@0.5", "4/none@0.625"}; !slices.Equal(cells, want) || grid.NoneAt2 != 0.625 {
		t.Errorf("cells %v, none at %g; want %v, none at 0.625", cells, grid.NoneAt2, want)
	}

	ctx := browser(t)
	out := shots(t)
	load(t, ctx, srv.URL+"/#/sweep/"+sweeps[0].id, "sweep")
	type axis struct {
		X      []float64 `json:"x"`
		Labels []string  `json:"labels"`
		Rows   []string  `json:"rows"`
	}
	// The throughput chart's x values and its axis's tick labels (uPlot's
	// own, as drawn), and the medians table's rows.
	read := `(() => { const u = window.stampedeCharts[0]; return {x: [...u.data[0]], labels: (u.axes[0]._values || []).map(String),
		rows: [...document.querySelectorAll('#points tbody tr td:first-child, #grid thead th')].map(td => td.textContent)}; })()`
	a, err := chromedp.Run(ctx, chromedp.Evaluate[axis](read))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.X, []float64{0.5, 1, 1.25}) || len(a.Labels) == 0 || a.Labels[len(a.Labels)-1] != "none" || !slices.Equal(a.Rows, []string{"0.5", "1", "none"}) {
		t.Errorf("sweep page: x %v, tick labels %q, medians rows %q; want none last at 1.25, labelled none", a.X, a.Labels, a.Rows)
	}
	screenshot(t, ctx, out, "sweep-none")
	// No legend entry ends in a colon with nothing after it (ops/s:,
	// met:) while the cursor is off the chart.
	bare := `[...document.querySelectorAll('.u-legend tr')].filter(tr => { const v = tr.querySelector('.u-value'), th = tr.querySelector('th');
		return v && th && v.textContent === '' && getComputedStyle(th, '::after').content.includes(':'); }).map(tr => tr.textContent)`
	if b, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](bare)); err != nil || len(b) > 0 {
		t.Errorf("legend entries ending in a colon: %q (%v)", b, err)
	}
	load(t, ctx, srv.URL+"/#/sweep/"+sweeps[1].id, "sweep")
	a, err = chromedp.Run(ctx, chromedp.Evaluate[axis](read))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.X, []float64{0.5, 0.625}) || len(a.Labels) == 0 || a.Labels[len(a.Labels)-1] != "none" || !slices.Equal(a.Rows, []string{"--conns \\ --cpus", "0.5", "none"}) {
		t.Errorf("grid page: x %v, tick labels %q, header %q; want none last at 0.625, labelled none", a.X, a.Labels, a.Rows)
	}
	screenshot(t, ctx, out, "sweep-grid-none")
}
