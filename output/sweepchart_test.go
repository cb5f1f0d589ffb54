package output_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/chart"
	"github.com/stampede-bench/stampede/output"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/sweep"
)

// sweepData reads the data a sweep's SVG chart holds (its metadata).
func sweepData(t *testing.T, svg string) chart.Sweep {
	t.Helper()
	m := regexp.MustCompile(`<metadata id="` + chart.SweepDataID + `">([^<]*)</metadata>`).FindStringSubmatch(svg)
	if m == nil {
		t.Fatalf("no %s metadata in the SVG", chart.SweepDataID)
	}
	var c chart.Sweep
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// svgTexts are the texts an SVG draws.
func svgTexts(svg string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`<text[^>]*>([^<]*)</text>`).FindAllStringSubmatch(svg, -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	return out
}

// TestSweepChart draws a search run three times per value at its
// boundary: the chart's points are the sweep's values with their
// medians as the sweep judged them, the SLO's latency bound is drawn as
// a line with its key, and the answer (the highest value met) and the
// lowest missed are marked by their values; the PNG is 1000 pixels wide.
func TestSweepChart(t *testing.T) {
	slo, _ := sweep.ParseSLO("p99<=5ms")
	n := 0
	exec := func(ctx context.Context, s run.Spec) (*run.Result, error) {
		n++
		r := &run.Result{Info: run.Info{ID: fmt.Sprintf("run-%d", n), MaxRate: s.MaxRate, Workers: 4}}
		r.Summary.Status = "completed"
		// p99 grows past a knee at 5000 ops/s; run 4 reads a burst.
		p99 := 1 + max(0, s.MaxRate-5000)/100
		if n == 4 {
			p99 += 50
		}
		r.Summary.Total = stats.Summary{Count: int64(s.MaxRate), Rate: s.MaxRate * 0.99, P50: p99 / 4, P95: p99 / 2, P99: p99, P999: p99 * 2}
		return r, nil
	}
	res, err := sweep.Run(context.Background(), sweep.Spec{Param: sweep.MaxRate, Values: sweep.Values{Lo: 1000, Hi: 64000, Bounds: true},
		Search: true, SLO: slo, Repeat: 3, ID: "S", Exec: exec})
	if err != nil || res.Best == nil || res.Miss == nil {
		t.Fatalf("sweep: %v, best %+v miss %+v", err, res.Best, res.Miss)
	}
	dir := t.TempDir()
	svgPath := filepath.Join(dir, "sweep.svg")
	if err := output.WriteSweepChart(svgPath, res, "sweep S: ycsb"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(svgPath)
	if err != nil {
		t.Fatal(err)
	}
	svg := string(b)
	c := sweepData(t, svg)
	if len(c.Points) != len(res.Points) {
		t.Fatalf("%d points drawn, the sweep has %d", len(c.Points), len(res.Points))
	}
	repeated := false
	for i, p := range res.Points {
		got, m := c.Points[i], p.Median.Total
		want := chart.SweepPoint{Value: p.Value, Text: sweep.Format(p.Value), Rate: m.Rate, P50: m.P50, P95: m.P95, P99: m.P99, P999: m.P999, Judged: p.Judged, Met: p.Met}
		if got != want {
			t.Errorf("point %d: drawn %+v, the sweep's %+v", i, got, want)
		}
		repeated = repeated || len(p.Runs) > 1
	}
	if !repeated {
		t.Errorf("no value ran more than once: the medians are not tested")
	}
	if c.Answer != res.Best.Value || c.Miss != res.Miss.Value || c.Bounds["p99"] != 5 {
		t.Errorf("answer %g miss %g bounds %v; the sweep's best %g miss %g", c.Answer, c.Miss, c.Bounds, res.Best.Value, res.Miss.Value)
	}
	texts := strings.Join(svgTexts(svg), "\n")
	for _, want := range []string{
		"answer: --max-rate " + sweep.Format(res.Best.Value),
		"missed: --max-rate " + sweep.Format(res.Miss.Value),
		"SLO p99 <= 5.00 ms",
		"throughput against --max-rate",
		"latency against throughput (ms, log scale), each value a point",
	} {
		if !strings.Contains(texts, want) {
			t.Errorf("the SVG does not draw %q; its texts:\n%s", want, texts)
		}
	}
	// Both the answer's marks (throughput panel, latency panel).
	if k := strings.Count(texts, "answer: --max-rate "+sweep.Format(res.Best.Value)); k != 2 {
		t.Errorf("the answer is marked %d times, want 2 (one per panel)", k)
	}

	pngPath := filepath.Join(dir, "sweep.png")
	if err := output.WriteSweepChart(pngPath, res, "sweep S: ycsb"); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(pngPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil || cfg.Width != 1000 {
		t.Errorf("PNG: %+v, %v; want 1000 pixels wide", cfg, err)
	}
	if err := output.WriteSweepChart(filepath.Join(dir, "sweep.gif"), res, ""); err == nil || !strings.Contains(err.Error(), "use .svg or .png") {
		t.Errorf("a .gif chart: %v", err)
	}
}

// TestSweepChartKinds draws the chart of each kind of sweep of one flag
// over a model whose answer is known: p99 is 1 ms up to 5000 ops/s and
// grows 1 ms per 100 ops/s past it, so that p99<=5ms holds up to 5400
// ops/s. A list (with the SLO and --keep-going, and without: the peak
// marked), a list with --repeat 3 (one run of a value reads a burst the
// median leaves out), a search, and a limit flag with none (its values
// marked as written). Each chart draws the values' medians, marks the
// answer and the miss the model gives, and draws the SLO's bound at 5 ms.
func TestSweepChartKinds(t *testing.T) {
	slo, _ := sweep.ParseSLO("p99<=5ms")
	model := func(rate float64) stats.Summary {
		p99 := 1 + max(0, rate-5000)/100
		return stats.Summary{Count: int64(rate), Rate: rate * 0.99, P50: p99 / 4, P95: p99 / 2, P99: p99, P999: p99 * 2}
	}
	list := sweep.Values{List: []float64{1000, 2000, 4000, 8000}, Lo: 1000, Hi: 8000}
	for _, tc := range []struct {
		name string
		spec sweep.Spec
		// answer and miss are the model's; search bounds them within
		// 5% instead.
		answer, miss         float64
		answerText, label    string
		search, noSLO, burst bool
	}{
		{name: "list", spec: sweep.Spec{Param: sweep.MaxRate, Values: list, SLO: slo, KeepGoing: true}, answer: 4000, miss: 8000, answerText: "4000", label: "answer"},
		{name: "list without an SLO", spec: sweep.Spec{Param: sweep.MaxRate, Values: list}, answer: 8000, answerText: "8000", label: "peak", noSLO: true},
		{name: "repeat", spec: sweep.Spec{Param: sweep.MaxRate, Values: list, SLO: slo, Repeat: 3}, answer: 4000, miss: 8000, answerText: "4000", label: "answer", burst: true},
		{name: "search", spec: sweep.Spec{Param: sweep.MaxRate, Values: sweep.Values{Lo: 1000, Hi: 64000, Bounds: true}, Search: true, SLO: slo}, label: "answer", search: true},
		{name: "memory with none", spec: sweep.Spec{Param: "memory", Values: sweep.Values{List: []float64{0, 256 << 20, 1 << 30}, Hi: 1 << 30}, Whole: true},
			answer: 1 << 30, answerText: "1G", label: "peak", noSLO: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			tc.spec.ID = "S"
			if tc.spec.Param == "memory" {
				// A step of another flag is built as a run's flags are
				// (the step records its value in Flags).
				tc.spec.Build = func(v, w float64) (run.Spec, error) { return run.Spec{}, nil }
			}
			tc.spec.Exec = func(ctx context.Context, s run.Spec) (*run.Result, error) {
				n++
				rate := s.MaxRate
				if tc.spec.Param == "memory" {
					// 1000 ops/s a GiB of memory; 900 without a limit.
					mem, _ := strconv.ParseFloat(s.Flags["memory"], 64)
					rate = max(900, 1000*mem/(1<<30))
				}
				r := &run.Result{Info: run.Info{ID: fmt.Sprintf("run-%d", n), MaxRate: s.MaxRate, Workers: 4}}
				r.Summary.Status = "completed"
				r.Summary.Total = model(rate)
				if tc.burst && n == 2 {
					r.Summary.Total.P99 += 50 // 2000 ops/s's first run misses
				}
				return r, nil
			}
			res, err := sweep.Run(context.Background(), tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			svgPath := filepath.Join(t.TempDir(), "sweep.svg")
			if err := output.WriteSweepChart(svgPath, res, "sweep S"); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(svgPath)
			if err != nil {
				t.Fatal(err)
			}
			svg := string(b)
			c := sweepData(t, svg)
			if len(c.Points) != len(res.Points) {
				t.Fatalf("%d points drawn, the sweep has %d", len(c.Points), len(res.Points))
			}
			for i, p := range res.Points {
				m := p.Median.Total
				want := model(p.Value) // the model's own figures: the burst is not the median
				if tc.spec.Param == "memory" {
					want = model(max(900, 1000*p.Value/(1<<30)))
				}
				if got := c.Points[i]; got.Value != p.Value || got.Rate != want.Rate || got.P99 != want.P99 || got.Rate != m.Rate {
					t.Errorf("point %d: drawn %+v, the model's rate %g p99 %g", i, got, want.Rate, want.P99)
				}
			}
			switch {
			case tc.search:
				if !(c.Answer <= 5400 && c.Miss > 5400 && c.Miss <= c.Answer*1.05+1) {
					t.Errorf("search: answer %g, miss %g; want them around 5400 within 5%%", c.Answer, c.Miss)
				}
				tc.answerText = sweep.Format(c.Answer)
			case c.Answer != tc.answer || c.Miss != tc.miss || c.AnswerLabel != tc.label:
				t.Errorf("%s %g, miss %g; want %s %g, miss %g", c.AnswerLabel, c.Answer, c.Miss, tc.label, tc.answer, tc.miss)
			}
			texts := strings.Join(svgTexts(svg), "\n")
			mark := tc.label + ": " + tc.spec.Param.Flag() + " " + tc.answerText
			if k := strings.Count(texts, mark); k != 2 {
				t.Errorf("%q marked %d times, want 2 (one per panel); the texts:\n%s", mark, k, texts)
			}
			if c.Miss != 0 && !strings.Contains(texts, "missed: "+tc.spec.Param.Flag()+" "+tc.spec.Param.Text(c.Miss)) {
				t.Errorf("the miss %g is not marked; the texts:\n%s", c.Miss, texts)
			}
			if tc.noSLO {
				if len(c.Bounds) != 0 || strings.Contains(texts, "SLO p") {
					t.Errorf("no SLO, but bounds %v drawn", c.Bounds)
				}
				return
			}
			if c.Bounds["p99"] != 5 || !strings.Contains(texts, "SLO p99 <= 5.00 ms") {
				t.Errorf("the SLO's bound: %v, want p99 5 ms drawn and keyed; the texts:\n%s", c.Bounds, texts)
			}
		})
	}
}

// TestSweepGridChart draws a grid, --concurrency 1,2 by --max-rate
// 1000,2000,4000,8000, over a model in which each worker carries 2500
// ops/s before p99 grows 1 ms per 100 ops/s beyond: p99<=5ms holds up to
// 2900 ops/s with 1 worker, 5400 with 2. The chart draws a line per
// worker count against --max-rate, rings each line's answer (2000 and
// 4000), and draws the SLO's bound at 5 ms; the answers are the rows'.
func TestSweepGridChart(t *testing.T) {
	slo, _ := sweep.ParseSLO("p99<=5ms")
	n := 0
	exec := func(ctx context.Context, s run.Spec) (*run.Result, error) {
		n++
		p99 := 1 + max(0, s.MaxRate-2500*float64(s.Concurrency))/100
		r := &run.Result{Info: run.Info{ID: fmt.Sprintf("run-%d", n), MaxRate: s.MaxRate, Workers: s.Concurrency}}
		r.Summary.Status = "completed"
		r.Summary.Total = stats.Summary{Count: int64(s.MaxRate), Rate: s.MaxRate * 0.99, P50: p99 / 4, P95: p99 / 2, P99: p99, P999: p99 * 2}
		return r, nil
	}
	res, err := sweep.Run(context.Background(), sweep.Spec{ID: "S", Param: sweep.Concurrency, Values: sweep.Values{List: []float64{1, 2}, Lo: 1, Hi: 2},
		Param2: sweep.MaxRate, Values2: sweep.Values{List: []float64{1000, 2000, 4000, 8000}, Lo: 1000, Hi: 8000}, SLO: slo, KeepGoing: true, Exec: exec})
	if err != nil {
		t.Fatal(err)
	}
	svgPath := filepath.Join(t.TempDir(), "grid.svg")
	if err := output.WriteSweepChart(svgPath, res, "sweep S: a grid"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(svgPath)
	if err != nil {
		t.Fatal(err)
	}
	svg := string(b)
	c := sweepData(t, svg)
	want := []chart.SweepMark{{Value: 1, Text: "1", Value2: 2000, Rate: 1980}, {Value: 2, Text: "2", Value2: 4000, Rate: 3960}}
	if c.Flag2 != "--max-rate" || !slices.Equal(c.Marks, want) || c.Bounds["p99"] != 5 {
		t.Errorf("flag2 %q, marks %+v, bounds %v; want --max-rate, %+v, p99 5", c.Flag2, c.Marks, c.Bounds, want)
	}
	if len(c.Points) != 8 {
		t.Errorf("%d points drawn, want 2 x 4", len(c.Points))
	}
	for _, p := range c.Points {
		met := p.Value2 <= 2500*p.Value+400
		if !p.Judged || p.Met != met || p.Rate != p.Value2*0.99 {
			t.Errorf("--concurrency %g --max-rate %g: drawn %+v, want met %v", p.Value, p.Value2, p, met)
		}
	}
	texts := strings.Join(svgTexts(svg), "\n")
	for _, want := range []string{"throughput against --max-rate, a line per --concurrency", "--concurrency 1", "--concurrency 2",
		"each line's answer (highest met)", "SLO p99 <= 5.00 ms", "p99 against throughput (ms, log scale), a line per --concurrency"} {
		if !strings.Contains(texts, want) {
			t.Errorf("the SVG does not draw %q; its texts:\n%s", want, texts)
		}
	}
}
