package dashboard_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/stampede-bench/stampede/dashboard"
	"github.com/stampede-bench/stampede/runlog"
)

// TestSweepGridPage runs a sweep of two flags (--max-ops given first, so
// its values are the table's rows, and --concurrency across), three runs
// a pair, and reads it in Chromium: the grid's table holds, in each cell,
// the median over that pair's runs of the figure chosen, computed here
// from the runs' own summary.json files (exact, through the cell's
// data-number, and as text); choosing another figure (p99) redraws the
// cells and the chart (a line per row).
func TestSweepGridPage(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	root := t.TempDir()
	out := stampede(t, "sweep", "ycsb", "--driver", "null", "--max-ops", "300,600", "--concurrency", "1,2", "--repeat", "3",
		"--slo", "errors<=0", "--results-dir", root, "--format", "json")
	var id string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l struct{ Type, ID string }
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%v in %s", err, sc.Bytes())
		}
		if l.Type == "sweep" {
			id = l.ID
		}
	}
	// The truth: each pair's runs' summary.json, read here.
	type pair struct{ ops, workers string }
	figures := map[pair][]map[string]float64{}
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		run, err := runlog.Open(filepath.Join(root, d.Name()))
		if err != nil || run.Info.Tags["sweep"] != id {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, d.Name(), runlog.SummaryFile))
		if err != nil {
			t.Fatal(err)
		}
		var sum struct {
			Total map[string]any `json:"total"`
		}
		if err := json.Unmarshal(data, &sum); err != nil {
			t.Fatal(err)
		}
		f := map[string]float64{}
		for k, v := range sum.Total {
			if x, ok := v.(float64); ok {
				f[k] = x
			}
		}
		p := pair{run.Info.Flags["max-ops"], run.Info.Flags["concurrency"]}
		figures[p] = append(figures[p], f)
	}
	if len(figures) != 4 {
		t.Fatalf("%d pairs of values among the sweep's runs, want 4: %v", len(figures), figures)
	}
	median := func(p pair, key string) float64 {
		var xs []float64
		for _, f := range figures[p] {
			xs = append(xs, f[key])
		}
		if len(xs) != 3 {
			t.Fatalf("%v: %d runs, want 3", p, len(xs))
		}
		slices.Sort(xs)
		return xs[1]
	}

	srv := serve(t, root, "")
	var doc dashboard.SweepDoc
	getJSON(t, srv.URL+"/api/sweeps/"+id, &doc)
	if doc.Param != "max-ops" || doc.Param2 != "concurrency" || len(doc.Cells) != 4 || len(doc.Steps) != 12 {
		t.Fatalf("served --%s by --%s, %d cells, %d steps: want --max-ops by --concurrency, 4 and 12", doc.Param, doc.Param2, len(doc.Cells), len(doc.Steps))
	}

	ctx := browser(t)
	load(t, ctx, srv.URL+"/#/sweep/"+id, "sweep")
	type cellText struct {
		Row    string `json:"row"`
		Col    string `json:"col"`
		Number string `json:"number"`
		Text   string `json:"text"`
	}
	check := func(key string, format func(float64) string) {
		t.Helper()
		cells, err := chromedp.Run(ctx, chromedp.Evaluate[[]cellText](`[...document.querySelectorAll('#grid tbody tr')].flatMap(tr =>
			[...tr.querySelectorAll('td')].map(td => ({row: tr.dataset.value, col: td.dataset.value2, number: td.dataset.number || '', text: td.textContent})))`))
		if err != nil {
			t.Fatal(err)
		}
		var order []string
		for _, c := range cells {
			order = append(order, c.Row+"/"+c.Col)
			want := median(pair{c.Row, c.Col}, key)
			got, err := strconv.ParseFloat(c.Number, 64)
			if err != nil || got != want || c.Text != format(want) {
				t.Errorf("%s: cell --max-ops %s --concurrency %s reads %q (%q), want the median of its runs' summary.json %v (%q)", key, c.Row, c.Col, c.Number, c.Text, want, format(want))
			}
		}
		if fmt.Sprint(order) != "[300/1 300/2 600/1 600/2]" {
			t.Errorf("%s: cells %v, want --max-ops 300 and 600 down, --concurrency 1 and 2 across", key, order)
		}
		n, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](`[window.stampedeCharts.length, window.stampedeCharts[0].series.length, document.querySelectorAll('#steps tr[data-step]').length]`))
		if err != nil || n[0] != 1 || n[1] != 3 || n[2] != 12 {
			t.Errorf("%s: %v charts, series and steps, want 1 chart of 2 lines (3 series with x) and 12 steps: %v", key, n, err)
		}
	}
	// The cells' text as the page formats every figure (the number is
	// the truth; the text must be its formatting).
	format := func(fn string) func(float64) string {
		return func(v float64) string {
			s, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`%s(%s)`, fn, strconv.FormatFloat(v, 'g', -1, 64))))
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
	}
	check("ops_per_sec", format("fmtRate"))
	if err := chromedp.Do(ctx, chromedp.SetValue(chromedp.CSS(`#grid-figure`), "p99_ms")); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById('grid-figure').dispatchEvent(new Event('change'))`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`body[data-ready="sweep-grid-p99_ms"]`))); err != nil {
		t.Fatal(err)
	}
	check("p99_ms", format("fmtMs"))
	screenshot(t, ctx, shots(t), "sweep-grid")
}
