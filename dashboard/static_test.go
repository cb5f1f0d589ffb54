package dashboard_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/stampede-bench/stampede/results/store"
	"github.com/stampede-bench/stampede/runlog"
)

// TestStaticChart opens the pages `report --chart x.html` and `compare
// --chart x.html` save in Debian's Chromium from their files, with no
// server: nothing is fetched (the page's resource list stays empty), the
// run page's figures are `report --format json`'s to the last digit, the
// charts are drawn, a drag zooms them and the page says where the window's
// figures are computed (the command it gives is then run: it must be a
// valid report window), and the compare page shows compare's table and
// each run's figures. Screenshots are saved.
func TestStaticChart(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	root := t.TempDir()
	files := t.TempDir()
	const long = "20261122-103512-sql-hour"
	writeLongRun(t, root, long, 3600, 10)
	hourPage := filepath.Join(files, "hour.html")
	stampede(t, "report", long, "--results-dir", root, "--chart", hourPage)
	fi, err := os.Stat(hourPage)
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range []string{"1", "2"} {
		// The test's own process watched: its RSS is drawn.
		stampede(t, "run", "ycsb", "--driver", "null", "--duration", "3s", "--display-every", "250ms", "--ramp", "500ms",
			"--concurrency", "2", "--seed", seed, "--results-dir", root, "--watch-pid", strconv.Itoa(os.Getpid()))
	}
	var listed []store.RunRow
	if err := json.Unmarshal(stampede(t, "runs", "--results-dir", root, "--format", "json", "--workload", "ycsb"), &listed); err != nil || len(listed) != 2 {
		t.Fatalf("runs: %v", err)
	}
	a, b := listed[0].ID, listed[1].ID
	// A run split by endpoint, whose saved page has charts per endpoint.
	epRoot := t.TempDir()
	stampede(t, "run", "ycsb", "--driver", "null", "--duration", "3s", "--display-every", "250ms", "--concurrency", "2",
		"--by-endpoint", "--telemetry=false", "--results-dir", epRoot, "postgresql://10.0.0.1:26257/ycsb", "postgresql://10.0.0.2:26257/ycsb")
	epRuns, err := runlog.List(epRoot)
	if err != nil || len(epRuns) != 1 {
		t.Fatalf("runs: %v %v", epRuns, err)
	}
	ctx := browser(t)
	out := shots(t)
	runPage, cmpPage, epPage := filepath.Join(files, "run.html"), filepath.Join(files, "compare.html"), filepath.Join(files, "endpoints.html")
	stampede(t, "report", a, "--results-dir", root, "--chart", runPage)
	stampede(t, "compare", a, b, "--results-dir", root, "--chart", cmpPage)
	stampede(t, "report", epRuns[0].ID, "--results-dir", epRoot, "--chart", epPage)
	// The server is gone (there never was one): the run directories are
	// moved away too, so that nothing could be read from them.
	if err := os.Rename(root, root+".moved"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Rename(root+".moved", root) })

	noFetch := func(what string) {
		t.Helper()
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`performance.getEntriesByType('resource').length`))
		if err != nil || n != 0 {
			t.Errorf("%s fetched %d resources (%v), want none", what, n, err)
		}
	}

	load(t, ctx, "file://"+runPage, "run")
	noFetch("the saved run page")
	os.Rename(root+".moved", root)
	want := stampede(t, "report", a, "--results-dir", root, "--format", "json")
	checkFigures(t, "saved run page", pageFigures(t, ctx, "figures"), want)
	if charts, err := chromedp.Run(ctx, chromedp.Evaluate[int](`window.stampedeCharts.length`)); err != nil || charts < 2 {
		t.Errorf("%d charts drawn, %v", charts, err)
	}
	titles, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#telemetry .chart')].map(c => c.dataset.chart)`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"host CPU", "host memory", "processes ", ": memory (RSS, MiB) and count"} {
		if !slices.ContainsFunc(titles, func(s string) bool { return strings.Contains(s, want) }) {
			t.Errorf("no telemetry chart %q among %q", want, titles)
		}
	}
	screenshot(t, ctx, out, "static-run")

	// A drag across the throughput chart zooms both charts and says
	// where the window's figures come from.
	drag(t, ctx, `#charts .u-over`, `#window-note`)
	type zoomed struct {
		From   string    `json:"from"`
		To     string    `json:"to"`
		Note   string    `json:"note"`
		Scales []float64 `json:"scales"`
	}
	z, err := chromedp.Run(ctx, chromedp.Evaluate[zoomed](`({from: document.getElementById('window').dataset.qfrom, to: document.getElementById('window').dataset.qto,
		note: document.getElementById('window-note').textContent,
		scales: window.stampedeCharts.slice(0, 2).flatMap(u => [u.scales.x.min, u.scales.x.max])})`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("zoomed: %+v", z)
	cmd := "stampede report " + a + " --from " + z.From + " --to " + z.To
	if !strings.Contains(z.Note, cmd) || !strings.Contains(z.Note, "stampede serve") {
		t.Errorf("the zoomed page says %q, want the command %q and stampede serve", z.Note, cmd)
	}
	if len(z.Scales) != 4 || z.Scales[0] != z.Scales[2] || z.Scales[1] != z.Scales[3] || z.Scales[1]-z.Scales[0] > 2.5 {
		t.Errorf("the two charts' x scales after the zoom: %v, want the same window, narrower than the run", z.Scales)
	}
	// The command the page gives is a valid window of the run.
	stampede(t, "report", a, "--results-dir", root, "--from", z.From, "--to", z.To, "--format", "json")
	screenshot(t, ctx, out, "static-run-zoomed")

	// The saved page of a run split by endpoint: a drag across the
	// throughput chart zooms the per-endpoint charts too, and the reset
	// button unzooms them all.
	load(t, ctx, "file://"+epPage, "run")
	drag(t, ctx, `#charts .u-over`, `#window-note`)
	type scale struct {
		Where string  `json:"where"`
		Min   float64 `json:"min"`
		Max   float64 `json:"max"`
	}
	scalesJS := `window.stampedeCharts.filter(u => u.root.closest('#charts, #endpoint-charts')).map(u => ({where: u.root.closest('.charts').id, min: u.scales.x.min, max: u.scales.x.max}))`
	zs, err := chromedp.Run(ctx, chromedp.Evaluate[[]scale](scalesJS))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("zoomed, by endpoint: %+v", zs)
	if len(zs) != 4 || zs[2].Where != "endpoint-charts" || zs[3].Where != "endpoint-charts" {
		t.Fatalf("charts of the saved page by endpoint: %+v, want 2 over time and 2 per endpoint", zs)
	}
	for _, c := range zs[1:] {
		if c.Min != zs[0].Min || c.Max != zs[0].Max || zs[0].Max-zs[0].Min > 2.5 {
			t.Errorf("after the zoom, a chart of %s shows %g to %g s, the chart dragged across %g to %g s (narrower than the run)", c.Where, c.Min, c.Max, zs[0].Min, zs[0].Max)
		}
	}
	screenshot(t, ctx, out, "static-endpoints-zoomed")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#window button`))); err != nil {
		t.Fatal(err)
	}
	reset, err := chromedp.Run(ctx, chromedp.Evaluate[[]scale](scalesJS))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range reset {
		if c.Min != reset[0].Min || c.Max != reset[0].Max || c.Max-c.Min < 2.5 {
			t.Errorf("after reset zoom, a chart of %s shows %g to %g s, want the whole run as every other: %+v", c.Where, c.Min, c.Max, reset)
		}
	}

	// A one-hour run of 10 operation types, saved (before the browser
	// starts): its figures, and how soon it is interactive (the best of
	// three loads), handed to scripts/bench's dashboard stage, which
	// judges it (see benchFigure).
	best := 0.0
	for i := range 3 {
		if ms := load(t, ctx, "file://"+hourPage, "run"); i == 0 || ms < best {
			best = ms
		}
	}
	t.Logf("saved page of a one-hour run with 10 operation types (%.1f MB): interactive %.0f ms after the navigation started (best of 3)", float64(fi.Size())/1e6, best)
	benchFigure(t, "saved_hour_ms", best)
	checkFigures(t, "saved one-hour run", pageFigures(t, ctx, "figures"), stampede(t, "report", long, "--results-dir", root, "--format", "json"))
	screenshot(t, ctx, out, "static-run-hour")

	os.Rename(root, root+".moved")
	load(t, ctx, "file://"+cmpPage, "compare")
	noFetch("the saved compare page")
	os.Rename(root+".moved", root)
	if cmpRows, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('table.compare tr[data-op]').length`)); err != nil || cmpRows != 3 {
		t.Errorf("compare table: %d rows, %v", cmpRows, err)
	}
	checkFigures(t, "saved compare page, A", pageFigures(t, ctx, "figures-0"), want)
	checkFigures(t, "saved compare page, B", pageFigures(t, ctx, "figures-1"), stampede(t, "report", b, "--results-dir", root, "--format", "json"))
	screenshot(t, ctx, out, "static-compare")

	// Log-scale latency axes: distinct ticks have distinct labels, on the
	// charts drawn and on ticks chosen to collide when rounded.
	labels, err := chromedp.Run(ctx, chromedp.Evaluate[[][]string](`window.stampedeCharts.filter(u => u.scales.y.distr === 3).map(u => u.axes[1]._values.filter(v => v !== ''))`))
	if err != nil || len(labels) == 0 {
		t.Fatalf("no log-scale chart on the compare page (%v)", err)
	}
	for _, ls := range labels {
		seen := map[string]bool{}
		for _, l := range ls {
			if seen[l] {
				t.Errorf("a log-scale axis labels two ticks %q: %v", l, ls)
			}
			seen[l] = true
		}
	}
	for _, tc := range []struct {
		splits []float64
		want   string
	}{
		{[]float64{0.0009, 0.001, 0.002, 0.005, 0.01}, "0.0009 0.001 0.002 0.005 0.01"},
		{[]float64{0.00095, 0.001, 0.00105}, "0.00095 0.001 0.00105"},
		{[]float64{1, 10, 100, 1000, 10000}, "1 10 100 1,000 10,000"},
		{[]float64{2.5, 3, 3.5}, "2.5 3 3.5"},
		{[]float64{0.1234, 0.1236}, "0.123 0.124"},
	} {
		raw, _ := json.Marshal(tc.splits)
		got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.stampedeLogTicks(null, `+string(raw)+`)`))
		if err != nil || strings.Join(got, " ") != tc.want {
			t.Errorf("log ticks %v: %q (%v), want %q", tc.splits, got, err, tc.want)
		}
	}
}

// drag drags the mouse across the middle of the chart sel, from 35% to
// 75% of its width, and waits for what the page shows of the window: the
// element wait (the saved page's note, or the served page's figures).
func drag(t *testing.T, ctx context.Context, sel, wait string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.ScrollIntoView(chromedp.CSS(sel))); err != nil {
		t.Fatal(err)
	}
	box, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(() => { const r = document.querySelector('`+sel+`').getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()`))
	if err != nil {
		t.Fatal(err)
	}
	y := box[1] + box[3]/2
	x0, x1 := box[0]+box[2]*0.35, box[0]+box[2]*0.75
	if err := chromedp.Do(ctx,
		chromedp.MouseEvent(chromedp.MouseMoved, x0, y),
		chromedp.MouseEvent(chromedp.MousePressed, x0, y, chromedp.ButtonLeft),
		chromedp.MouseEvent(chromedp.MouseMoved, (x0+x1)/2, y, chromedp.ButtonLeft),
		chromedp.MouseEvent(chromedp.MouseMoved, x1, y, chromedp.ButtonLeft),
		chromedp.MouseEvent(chromedp.MouseReleased, x1, y, chromedp.ButtonLeft),
		chromedp.WaitVisible(chromedp.CSS(wait))); err != nil {
		t.Fatal(err)
	}
}
