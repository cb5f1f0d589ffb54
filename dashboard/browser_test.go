package dashboard_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/stampede-bench/stampede/report"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/results/store"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
)

// browser starts Debian's Chromium, headless, and returns a chromedp
// context on it; the test is skipped, saying why, only when Chromium is
// not installed (scripts/test installs it).
func browser(t *testing.T) context.Context {
	t.Helper()
	path := os.Getenv("STAMPEDE_CHROMIUM")
	if path == "" {
		var err error
		if path, err = exec.LookPath("chromium"); err != nil {
			why := os.Getenv("STAMPEDE_NO_CHROMIUM")
			if why == "" {
				why = "chromium is not on $PATH (scripts/test installs it with apt-get)"
			}
			t.Skipf("browser test skipped: %s", why)
		}
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.WindowSize(1400, 1000), chromedp.Flag("disable-gpu", true))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	ctx, cancel3 := context.WithTimeout(ctx, 10*time.Minute) // a busy machine's CI took over 3
	t.Cleanup(cancel3)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start %s: %v", path, err)
	}
	return ctx
}

// shots is where the browser test saves its screenshots:
// $STAMPEDE_TEST_OUTPUT/dashboard, or a temporary directory.
func shots(t *testing.T) string {
	dir := t.TempDir()
	if out := os.Getenv("STAMPEDE_TEST_OUTPUT"); out != "" {
		dir = filepath.Join(out, "dashboard")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// screenshot saves the page as name.png under dir.
func screenshot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// load navigates to url and waits until the page says it is ready as
// page (its charts drawn); it returns when that was, in milliseconds since
// the navigation started, as the page measured it.
func load(t *testing.T, ctx context.Context, url, page string) float64 {
	t.Helper()
	err := chromedp.Do(ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.CSS(`body[data-ready="`+page+`"]`)))
	if err != nil {
		body, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("main")))
		t.Fatalf("load %s: %v (page: %.300s)", url, err, body)
	}
	ms, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`window.stampedeTiming["`+page+`"]`))
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// pageFigures reads a figures table of the page: per operation, each
// field's exact value (data-value) and text.
func pageFigures(t *testing.T, ctx context.Context, table string) map[string]map[string][2]string {
	t.Helper()
	type row struct {
		Op     string            `json:"op"`
		Values map[string]string `json:"values"`
		Texts  map[string]string `json:"texts"`
	}
	js := `[...document.querySelectorAll('#` + table + ` tr[data-op]')].map(tr => ({op: tr.dataset.op,
		values: Object.fromEntries([...tr.querySelectorAll('td[data-field]')].map(td => [td.dataset.field, td.dataset.value])),
		texts: Object.fromEntries([...tr.querySelectorAll('td[data-field]')].map(td => [td.dataset.field, td.textContent]))}))`
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]row](js))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string][2]string{}
	for _, r := range rows {
		out[r.Op] = map[string][2]string{}
		for k, v := range r.Values {
			out[r.Op][k] = [2]string{v, r.Texts[k]}
		}
	}
	return out
}

// checkFigures compares a figures table of the page with a report
// document (report --format json's): every value exact, every text as
// stampede's text report formats it.
func checkFigures(t *testing.T, what string, got map[string]map[string][2]string, reportJSON []byte) {
	t.Helper()
	var rep struct {
		Ops   []map[string]any `json:"ops"`
		Total map[string]any   `json:"total"`
	}
	if err := json.Unmarshal(reportJSON, &rep); err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]any{"__result": rep.Total}
	for _, o := range rep.Ops {
		want[o["name"].(string)] = o
	}
	checkRows(t, what, got, want)
}

// checkRows compares the rows of a figures table of the page with want,
// by operation: every value exact, every text as stampede's text report
// formats it.
func checkRows(t *testing.T, what string, got map[string]map[string][2]string, want map[string]map[string]any) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: the page shows %d rows, report %d", what, len(got), len(want))
	}
	for op, fields := range want {
		if got[op] == nil {
			t.Errorf("%s: no row %s in the page", what, op)
			continue
		}
		for _, f := range []string{"count", "errors", "ops_per_sec", "mean_ms", "p50_ms", "p95_ms", "p99_ms", "p99_9_ms", "max_ms"} {
			w := fields[f].(float64)
			g, err := strconv.ParseFloat(got[op][f][0], 64)
			if err != nil || g != w {
				t.Errorf("%s %s %s: the page holds %q, report %v", what, op, f, got[op][f][0], w)
			}
			text := report.FormatMs(w)
			switch {
			case f == "ops_per_sec":
				text = fmt.Sprintf("%.1f", w)
			case !strings.HasSuffix(f, "_ms"):
				text = strconv.FormatFloat(w, 'f', -1, 64)
			}
			if got[op][f][1] != text {
				t.Errorf("%s %s %s: the page shows %q, report's text %q", what, op, f, got[op][f][1], text)
			}
		}
	}
}

// writeLongRun writes a completed run of the given length in 1-second
// intervals with ops operation types, each with a few hundred latencies
// an interval.
func writeLongRun(t *testing.T, root, id string, seconds, ops int) {
	t.Helper()
	var names []string
	for i := range ops {
		names = append(names, fmt.Sprintf("op%02d", i))
	}
	start := t0
	w, err := runlog.Create(root, runlog.RunInfo{ID: id, Workload: "sql", Series: names, Start: start, Seed: 1, StampedeVersion: "test",
		Command: []string{"stampede", "run", "sql"}, Flags: map[string]string{"concurrency": "8"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.SetRampEnd(start.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	for i := range seconds {
		var ss []runlog.IntervalSeries
		for k, name := range names {
			h := stats.NewHistogram()
			n := 200 + 50*k + int(100*math.Sin(float64(i)/60))
			for j := range n {
				_ = h.RecordValue(int64(50_000*(k+1) + j*997 + (i%300)*1_000))
			}
			var errs int64
			if i%600 == 599 && k == 3 {
				errs = 2
			}
			ss = append(ss, runlog.IntervalSeries{Name: name, Hist: h, Count: h.TotalCount(), Errors: errs})
		}
		st := start.Add(time.Duration(i) * time.Second)
		if err := w.WriteInterval(st, st.Add(time.Second), ss, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(start.Add(time.Duration(seconds)*time.Second), runlog.StatusCompleted, "", nil); err != nil {
		t.Fatal(err)
	}
	// Its batch views, as a run's end saves them.
	run, err := runlog.Open(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(results.SaveTotals(run), results.SaveSeries(run)); err != nil {
		t.Fatal(err)
	}
}

// TestBrowser drives Debian's Chromium through the dashboard: the runs
// page and a run page, whose figures must be `stampede report --format
// json`'s to the last digit (and formatted as report's text formats them);
// a zoom dragged with the mouse, whose recomputed figures must be `report
// --from --to`'s; a live run followed for three intervals and then its
// end; the compare page. It times the run page of a one-hour run of 10
// operation types and the runs page over a store of 10,000 runs (logged,
// and judged by scripts/bench's dashboard stage: see benchFigure), and
// saves a screenshot of every page.
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	root := t.TempDir()
	for _, seed := range []string{"1", "2"} {
		stampede(t, "run", "ycsb", "--driver", "null", "--duration", "3s", "--display-every", "250ms", "--ramp", "500ms",
			"--concurrency", "2", "--seed", seed, "--results-dir", root, "--tag", "job=browser")
	}
	var listed []store.RunRow
	if err := json.Unmarshal(stampede(t, "runs", "--results-dir", root, "--format", "json"), &listed); err != nil || len(listed) != 2 {
		t.Fatalf("runs: %v", err)
	}
	a, b := listed[0].ID, listed[1].ID
	const long = "20261122-103512-sql-hour"
	writeLongRun(t, root, long, 3600, 10)
	// The browser's time budget starts once the runs are written: on a
	// loaded machine, writing the one-hour run took most of it.
	ctx := browser(t)
	out := shots(t)
	srv := serve(t, root, store.DefaultURL(root))

	// The runs page.
	load(t, ctx, srv.URL+"/#/", "runs")
	ids, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#runs tr[data-run]')].map(tr => tr.dataset.run)`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ids, ",") != b+","+a+","+long {
		t.Errorf("runs page lists %v", ids)
	}
	screenshot(t, ctx, out, "runs")

	// A run page: its figures are report's.
	load(t, ctx, srv.URL+"/#/run/"+a, "run")
	checkFigures(t, "run page", pageFigures(t, ctx, "figures"), stampede(t, "report", a, "--results-dir", root, "--format", "json"))
	if charts, err := chromedp.Run(ctx, chromedp.Evaluate[int](`window.stampedeCharts.length`)); err != nil || charts < 2 {
		t.Errorf("%d charts drawn, %v", charts, err)
	}
	screenshot(t, ctx, out, "run")

	// Zoom: drag across the middle of the throughput chart.
	drag(t, ctx, `#charts .u-over`, `#window-figures`)
	type bounds struct {
		From string `json:"from"`
		To   string `json:"to"`
	}
	q, err := chromedp.Run(ctx, chromedp.Evaluate[bounds](`({from: document.getElementById('window').dataset.qfrom, to: document.getElementById('window').dataset.qto})`))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("zoomed to --from %s --to %s", q.From, q.To)
	checkFigures(t, "zoomed window", pageFigures(t, ctx, "window-figures"),
		stampede(t, "report", a, "--results-dir", root, "--format", "json", "--from", q.From, "--to", q.To))
	screenshot(t, ctx, out, "run-zoomed")

	// The one-hour run of 10 operation types.
	first := load(t, ctx, srv.URL+"/#/run/"+long, "run")
	ms := load(t, ctx, srv.URL+"/#/run/"+long, "run")
	t.Logf("run page of a one-hour run with 10 operation types: interactive %.0f ms after the navigation started the first time (from its saved totals.json and series.ndjson), %.0f ms the second (target < 1000 ms)", first, ms)
	benchFigure(t, "hour_first_ms", first)
	benchFigure(t, "hour_ms", ms)
	checkFigures(t, "one-hour run", pageFigures(t, ctx, "figures"), stampede(t, "report", long, "--results-dir", root, "--format", "json"))
	screenshot(t, ctx, out, "run-hour")

	// The job's clients merged, from the runs page's group.
	load(t, ctx, srv.URL+"/#/?group=job=browser", "runs")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#merged`)), chromedp.WaitVisible(chromedp.CSS(`body[data-ready="merge"]`))); err != nil {
		t.Fatal(err)
	}
	checkFigures(t, "merged clients", pageFigures(t, ctx, "figures"), stampede(t, "report", "--tag", "job=browser", "--results-dir", root, "--format", "json"))
	screenshot(t, ctx, out, "merge")

	// The compare page.
	load(t, ctx, srv.URL+"/#/compare?run="+a+"&run="+b, "compare")
	if cmpRows, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('table.compare tr[data-op]').length`)); err != nil || cmpRows != 3 {
		t.Errorf("compare table: %d rows, %v", cmpRows, err)
	}
	screenshot(t, ctx, out, "compare")

	// A live run, followed for three intervals, then its end.
	s := spec{id: "20261122-143512-ycsb-live", workload: "ycsb", start: time.Now().Add(-time.Second).UTC(), n: 1, rate: 300, running: true}
	w := writeRun(t, root, s)
	load(t, ctx, srv.URL+"/#/run/"+s.id, "run")
	waitLive := func(n int) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`body[data-live="%d"]`, n)))); err != nil {
			t.Fatalf("live interval %d: %v", n, err)
		}
	}
	waitLive(1)
	for k := 1; k <= 3; k++ {
		writeInterval(t, w, s, k)
		waitLive(k + 1)
	}
	if points, err := chromedp.Run(ctx, chromedp.Evaluate[int](`window.stampedeCharts[0].data[0].length`)); err != nil || points != 4 {
		t.Errorf("the live chart has %d points, want 4 (%v)", points, err)
	}
	screenshot(t, ctx, out, "live")
	if err := w.Finish(s.start.Add(4*time.Second), runlog.StatusCompleted, "", nil); err != nil {
		t.Fatal(err)
	}
	// The page turns into the batch view: the end seen, the run page
	// drawn again (ready is cleared until then).
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`body[data-live-end="completed"][data-ready="run"]`)), chromedp.WaitVisible(chromedp.CSS(`#figures`))); err != nil {
		t.Fatal(err)
	}
	status, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#run-status`)))
	if err != nil {
		t.Fatal(err)
	}
	if status != "completed" {
		t.Errorf("after the end, the page says %q", status)
	}
	checkFigures(t, "live run after its end", pageFigures(t, ctx, "figures"), stampede(t, "report", s.id, "--results-dir", root, "--format", "json"))
	screenshot(t, ctx, out, "live-ended")

	// The runs page over a store of 10,000 runs.
	dir := t.TempDir()
	st, err := store.Open(context.Background(), store.DefaultURL(dir))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Put(context.Background(), SynthRows(10_000), nil); err != nil {
		t.Fatal(err)
	}
	st.Close()
	big := serve(t, t.TempDir(), store.DefaultURL(dir))
	get(t, big.URL+"/api/runs") // as `stampede serve` reads the store before it listens (Warm)
	// The best of five loads: the machine's other work delays some.
	var best float64
	for i := range 5 {
		ms := load(t, ctx, big.URL+"/#/", "runs")
		parts, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => {
			const nav = performance.getEntriesByType('navigation')[0];
			const api = performance.getEntriesByType('resource').find(e => e.name.includes('/api/runs'));
			return 'page loaded ' + nav.loadEventEnd.toFixed(0) + ' ms, /api/runs ' + api.startTime.toFixed(0) + '-' + api.responseEnd.toFixed(0) + ' ms';
		})()`))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("runs page over 10,000 runs, load %d: %.0f ms (%s)", i+1, ms, parts)
		if i == 0 || ms < best {
			best = ms
		}
	}
	if info, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#pageinfo`))); err != nil || info != "page 1 of 200, 10000 runs" {
		t.Errorf("runs page: %q %v", info, err)
	}
	benchFigure(t, "runs10k_ms", best)
	screenshot(t, ctx, out, "runs-10k")
}

// benchFigure hands a timing to scripts/bench's dashboard stage, which
// judges it against its target: $STAMPEDE_BENCH_FIGURES names a file the
// figure is appended to, as "name value". Timings are targets of the
// benchmark, not of the test, whose machine may be busy.
func benchFigure(t *testing.T, name string, v float64) {
	t.Helper()
	path := os.Getenv("STAMPEDE_BENCH_FIGURES")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := fmt.Fprintf(f, "%s %.0f\n", name, v); err != nil {
		t.Fatal(err)
	}
}
