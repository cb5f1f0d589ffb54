package dashboard_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/stampede-bench/stampede/dashboard"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/telemetry"
)

// TestSweepRepeatPage: the page of a TPC-C sweep with --repeat 2 over
// --concurrency 1,2, under telemetry watching this process, shows what
// `stampede sweep` prints: each value's medians over its runs with the
// spread (lowest-highest), computed here from the steps the sweep printed
// as NDJSON; and per step the workload's figures (tpmC, efficiency "-"
// without waits) and the telemetry columns (the host's CPU busy, its
// disks' MB/s, the watched group's cores), each from the step's own
// telemetry summary.
func TestSweepRepeatPage(t *testing.T) {
	dbURL := serverDatabase(t, "stampede_sweeprepeat")
	stampede(t, "init", "tpcc", "--warehouses", "1", dbURL)
	root := t.TempDir()
	out := stampede(t, "sweep", "tpcc", "--concurrency", "1,2", "--repeat", "2", "--wait=false", "--duration", "1s", "--ramp", "0s",
		"--watch-pid", strconv.Itoa(os.Getpid()), "--slo", "p99<=10s", "--results-dir", root, "--format", "json", dbURL)
	type step struct {
		Type      string             `json:"type"`
		ID        string             `json:"id"`
		N         int                `json:"step"`
		Value     float64            `json:"value"`
		Total     stats.Summary      `json:"total"`
		Figures   map[string]float64 `json:"figures"`
		Telemetry *telemetry.Summary `json:"telemetry"`
	}
	var id string
	var steps []step
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s step
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("%v in %s", err, sc.Bytes())
		}
		switch s.Type {
		case "sweep":
			id = s.ID
		case "step":
			steps = append(steps, s)
		}
	}
	if len(steps) != 4 {
		t.Fatalf("%d steps, want 2 values x 2 rounds:\n%s", len(steps), out)
	}
	// Each value's medians and spread, from its two runs: the median of
	// two is their mean.
	type want struct {
		runs                             []int
		rate, p50, p99, tpmC             float64
		rateMin, rateMax, p99Min, p99Max float64
	}
	wants := map[float64]*want{}
	for _, s := range steps {
		w := wants[s.Value]
		if w == nil {
			w = &want{rateMin: math.Inf(1), p99Min: math.Inf(1)}
			wants[s.Value] = w
		}
		w.runs = append(w.runs, s.N)
		w.rate += s.Total.Rate / 2
		w.p50 += s.Total.P50 / 2
		w.p99 += s.Total.P99 / 2
		w.tpmC += s.Figures["tpmC"] / 2
		w.rateMin, w.rateMax = min(w.rateMin, s.Total.Rate), max(w.rateMax, s.Total.Rate)
		w.p99Min, w.p99Max = min(w.p99Min, s.Total.P99), max(w.p99Max, s.Total.P99)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(b)) }

	srv := serve(t, root, "")
	var doc dashboard.SweepDoc
	getJSON(t, srv.URL+"/api/sweeps/"+id, &doc)
	if len(doc.Points) != 2 || !slices.Equal(doc.Figures, []string{"tpmC", "efficiency(%)"}) || !doc.Telemetry {
		t.Fatalf("served %d points, figures %v, telemetry %v: want 2, tpmC and efficiency(%%), true", len(doc.Points), doc.Figures, doc.Telemetry)
	}
	for _, p := range doc.Points {
		w := wants[p.Value]
		if w == nil || !slices.Equal(p.Runs, w.runs) || !near(p.Total.Rate, w.rate) || !near(p.Total.P50, w.p50) || !near(p.Total.P99, w.p99) ||
			!near(p.Figures["tpmC"], w.tpmC) || p.RateMin != w.rateMin || p.RateMax != w.rateMax || p.P99Min != w.p99Min || p.P99Max != w.p99Max {
			t.Errorf("--concurrency %v: served %+v, want %+v", p.Value, p, w)
		}
	}

	ctx := browser(t)
	load(t, ctx, srv.URL+"/#/sweep/"+id, "sweep")
	type row struct {
		Value  string            `json:"value"`
		Fields map[string]string `json:"fields"`
		Texts  map[string]string `json:"texts"`
	}
	read := func(table, key string) []row {
		t.Helper()
		js := `[...document.querySelectorAll('#` + table + ` tbody tr')].map(tr => ({value: tr.dataset.` + key + `,
			fields: Object.fromEntries([...tr.querySelectorAll('td[data-field]')].map(td => [td.dataset.figure || td.dataset.field, td.dataset.value || ''])),
			texts: Object.fromEntries([...tr.querySelectorAll('td[data-field]')].map(td => [td.dataset.figure || td.dataset.field, td.textContent]))}))`
		rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]row](js))
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	points := read("points", "value")
	if len(points) != 2 {
		t.Fatalf("the page's medians table has %d rows, want 2", len(points))
	}
	f1 := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	for _, r := range points {
		v, _ := strconv.ParseFloat(r.Value, 64)
		w := wants[v]
		if w == nil {
			t.Fatalf("medians row for --concurrency %s: no such value", r.Value)
		}
		rate, _ := strconv.ParseFloat(r.Fields["ops_per_sec"], 64)
		p99, _ := strconv.ParseFloat(r.Fields["p99_ms"], 64)
		if r.Texts["value"] != sweepText(v) || r.Texts["runs"] != "2" || !near(rate, w.rate) || !near(p99, w.p99) ||
			r.Texts["ops_spread"] != f1(w.rateMin)+"-"+f1(w.rateMax) || r.Texts["tpmC"] != f1(w.tpmC) || r.Texts["efficiency"] != "-" || r.Texts["met_in"] != "2/2" || r.Texts["slo"] != "met" {
			t.Errorf("medians row for --concurrency %v: %+v; want ops/s %v spread %s-%s, p99 %v, tpmC %s, efficiency -, met in 2/2", v, r, w.rate, f1(w.rateMin), f1(w.rateMax), w.p99, f1(w.tpmC))
		}
	}
	// The latency chart plots each value's median, and says so.
	titles, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#charts h3')].map(h => h.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(titles, "latency against throughput (ms, log scale), each value a point: the median of its completed runs") {
		t.Errorf("chart titles %q: want the latency chart's to say it plots each value's median", titles)
	}
	rows := read("steps", "step")
	if len(rows) != len(steps) {
		t.Fatalf("the page's steps table has %d rows, want %d", len(rows), len(steps))
	}
	for i, r := range rows {
		s := steps[i]
		tel := s.Telemetry
		if tel == nil || len(tel.Procs) != 1 {
			t.Fatalf("step %d: telemetry %+v, want one watched group", s.N, tel)
		}
		busy := 100 - tel.CPU.Idle.Avg - tel.CPU.IOWait.Avg
		var kb float64
		for _, d := range tel.Disks {
			kb += d.ReadKBPerSec.Avg + d.WriteKBPerSec.Avg
		}
		watched := fmt.Sprintf("%s %.2f", tel.Procs[0].Name, tel.Procs[0].CPUCores.Avg)
		if r.Texts["cpu_pct"] != f1(busy) || r.Texts["disk_mb_s"] != f1(kb/1024) || r.Texts["watched"] != watched || r.Texts["tpmC"] != f1(s.Figures["tpmC"]) || r.Texts["efficiency"] != "-" {
			t.Errorf("step %d: %v; want cpu%% %s, disk %s, watched %q, tpmC %s, efficiency -", s.N, r.Texts, f1(busy), f1(kb/1024), watched, f1(s.Figures["tpmC"]))
		}
		if r.Texts["value"] != sweepText(s.Value) {
			t.Errorf("step %d: value %q", s.N, r.Texts["value"])
		}
	}
	screenshot(t, ctx, shots(t), "sweep-repeat")
}

// sweepText is a worker count as the page prints it.
func sweepText(v float64) string {
	return strings.TrimSuffix(strconv.FormatFloat(v, 'f', -1, 64), ".0")
}
