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

// gridSVG writes res's chart as SVG, the grid tests' title, and returns
// the file and the data it holds.
func gridSVG(t *testing.T, res *sweep.Result) ([]byte, chart.Sweep) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "grid.svg")
	if err := output.WriteSweepChart(path, res, "sweep S: a grid"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b, sweepData(t, string(b))
}

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

// TestSweepChart draws the chart of each kind of sweep of one flag over
// a model whose answer is known: p99 is 1 ms up to 5000 ops/s and grows
// 1 ms per 100 ops/s past it, so that p99<=5ms holds up to 5400 ops/s. A
// list (with the SLO and --keep-going, and without: the peak marked), a
// list with --repeat 3 (one run of a value reads a burst the median
// leaves out), a search, a search with --repeat 3 (a probe at its
// boundary reads a burst), and limit flags with none (a step without the
// limit, the most resources: its point at the axis's right end, the tick
// labelled none, and marked when it is the answer, the peak or the miss).
// Each chart draws the values' medians in the sweep's order, marks the
// answer and the miss the model gives on both panels, and draws the SLO's
// bound at 5 ms; the PNG is 1000 pixels wide.
func TestSweepChart(t *testing.T) {
	slo, _ := sweep.ParseSLO("p99<=5ms")
	model := func(rate float64) stats.Summary {
		p99 := 1 + max(0, rate-5000)/100
		return stats.Summary{Count: int64(rate), Rate: rate * 0.99, P50: p99 / 4, P95: p99 / 2, P99: p99, P999: p99 * 2}
	}
	list := sweep.Values{List: []float64{1000, 2000, 4000, 8000}, Lo: 1000, Hi: 8000}
	search := sweep.Values{Lo: 1000, Hi: 64000, Bounds: true}
	// limit gives the rate a limit flag's step runs at: rates[text],
	// keyed by the value as written.
	limit := func(p sweep.Param, rates map[string]float64) func(s run.Spec) float64 {
		return func(s run.Spec) float64 {
			text := s.Flags[string(p)]
			if text != "none" {
				v, _ := strconv.ParseFloat(text, 64)
				text = p.Text(v)
			}
			return rates[text]
		}
	}
	mb := float64(1 << 20)
	for _, tc := range []struct {
		name string
		spec sweep.Spec
		// rate is the rate a step runs at (nil: its --max-rate).
		rate func(s run.Spec) float64
		// burst is a run whose p99 reads 50 ms more (0: none).
		burst int
		// answer and miss are the model's, as written (miss "": none
		// missed); a search's are bounded within 5% of 5400 instead.
		answer, miss, label string
		search, noSLO       bool
		// order is the points' values as written, in order (nil: not
		// checked).
		order []string
	}{
		{name: "list", spec: sweep.Spec{Param: sweep.MaxRate, Values: list, SLO: slo, KeepGoing: true}, answer: "4000", miss: "8000", label: "answer"},
		{name: "list without an SLO", spec: sweep.Spec{Param: sweep.MaxRate, Values: list}, answer: "8000", label: "peak", noSLO: true},
		{name: "repeat", spec: sweep.Spec{Param: sweep.MaxRate, Values: list, SLO: slo, Repeat: 3}, answer: "4000", miss: "8000", label: "answer", burst: 2},
		{name: "search", spec: sweep.Spec{Param: sweep.MaxRate, Values: search, Search: true, SLO: slo, Repeat: 1}, label: "answer", search: true},
		{name: "search with repeat", spec: sweep.Spec{Param: sweep.MaxRate, Values: search, Search: true, SLO: slo, Repeat: 3}, label: "answer", search: true, burst: 4},
		{name: "memory with none, the peak a limit", spec: sweep.Spec{Param: "memory", Values: sweep.Values{List: []float64{0, 256 * mb, 1024 * mb}, Hi: 1024 * mb}, Whole: true},
			rate: limit("memory", map[string]float64{"none": 900, "256M": 250, "1G": 1000}), answer: "1G", label: "peak", noSLO: true, order: []string{"256M", "1G", "none"}},
		{name: "cpus with none, the peak none", spec: sweep.Spec{Param: "cpus", Values: sweep.Values{List: []float64{0.5, 0, 1}, Hi: 1}},
			rate: limit("cpus", map[string]float64{"0.5": 2000, "1": 4000, "none": 4500}), answer: "none", label: "peak", noSLO: true, order: []string{"0.5", "1", "none"}},
		// A higher limit is a lighter load: the answer is the lowest
		// limit met, the miss the highest below it that missed.
		{name: "cpus with none, every limit met, the answer the lowest", spec: sweep.Spec{Param: "cpus", Values: sweep.Values{List: []float64{0.5, 1, 0}, Hi: 1}, SLO: slo},
			rate: limit("cpus", map[string]float64{"0.5": 2000, "1": 4000, "none": 5200}), answer: "0.5", label: "answer", order: []string{"0.5", "1", "none"}},
		{name: "cpus with none, the answer none", spec: sweep.Spec{Param: "cpus", Values: sweep.Values{List: []float64{0.5, 1, 0}, Hi: 1}, SLO: slo},
			rate: limit("cpus", map[string]float64{"0.5": 6000, "1": 5600, "none": 5200}), answer: "none", miss: "1", label: "answer", order: []string{"0.5", "1", "none"}},
		{name: "io-write-bps with none, the answer a limit, the lower missed", spec: sweep.Spec{Param: "io-write-bps", Values: sweep.Values{List: []float64{0, 5 * mb, 20 * mb}, Hi: 20 * mb}, SLO: slo, Whole: true},
			rate: limit("io-write-bps", map[string]float64{"5M": 8000, "20M": 5000, "none": 3000}), answer: "20M", miss: "5M", label: "answer", order: []string{"5M", "20M", "none"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			tc.spec.ID = "S"
			if tc.spec.Param != sweep.MaxRate {
				// A step of another flag is built as a run's flags are
				// (the step records its value in Flags).
				tc.spec.Build = func(v, w float64) (run.Spec, error) { return run.Spec{}, nil }
			}
			rate := func(s run.Spec) float64 { return s.MaxRate }
			if tc.rate != nil {
				rate = tc.rate
			}
			tc.spec.Exec = func(ctx context.Context, s run.Spec) (*run.Result, error) {
				n++
				r := &run.Result{Info: run.Info{ID: fmt.Sprintf("run-%d", n), MaxRate: s.MaxRate, Workers: 4}}
				r.Summary.Status = "completed"
				r.Summary.Total = model(rate(s))
				if n == tc.burst {
					r.Summary.Total.P99 += 50
				}
				return r, nil
			}
			res, err := sweep.Run(context.Background(), tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			svgPath := filepath.Join(dir, "sweep.svg")
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
			p, repeated, hiX := tc.spec.Param, false, 0.0
			for i, pt := range res.Points {
				m := pt.Median.Total
				x := pt.Value
				if p.None(pt.Value) {
					x = c.NoneAt
				}
				want := chart.SweepPoint{Value: pt.Value, X: x, Text: p.Text(pt.Value), Rate: m.Rate, P50: m.P50, P95: m.P95, P99: m.P99, P999: m.P999, Judged: pt.Judged, Met: pt.Met}
				if got := c.Points[i]; got != want {
					t.Errorf("point %d: drawn %+v, the sweep's %+v", i, got, want)
				}
				// The burst is not the median: the model's own figures.
				if m.P99 >= 50 {
					t.Errorf("point %d: p99 %g, a burst's, drawn", i, m.P99)
				}
				if !p.None(pt.Value) {
					hiX = max(hiX, x)
				}
				repeated = repeated || len(pt.Runs) > 1
			}
			if tc.spec.Repeat > 1 && !repeated {
				t.Errorf("no value ran more than once: the medians are not tested")
			}
			if tc.order != nil {
				var got []string
				for _, pt := range c.Points {
					got = append(got, pt.Text)
				}
				if !slices.Equal(got, tc.order) {
					t.Errorf("points %v, want %v", got, tc.order)
				}
			}
			texts := svgTexts(svg)
			all := strings.Join(texts, "\n")
			if slices.ContainsFunc(res.Points, func(pt sweep.Point) bool { return p.None(pt.Value) }) {
				// none at the right end, labelled none: past every number.
				if !(c.NoneAt > hiX) || !slices.Contains(texts, "none") {
					t.Errorf("none at %g (the highest number at %g), labelled none: %v; the texts:\n%s", c.NoneAt, hiX, slices.Contains(texts, "none"), all)
				}
			} else if c.NoneAt != 0 || slices.Contains(texts, "none") {
				t.Errorf("no none, but none at %g", c.NoneAt)
			}
			if tc.search {
				if !(c.Answer <= 5400 && c.Miss > 5400 && c.Miss <= c.Answer*1.05+1) {
					t.Errorf("search: answer %g, miss %g; want them around 5400 within 5%%", c.Answer, c.Miss)
				}
				tc.answer, tc.miss = sweep.Format(c.Answer), sweep.Format(c.Miss)
			}
			if c.AnswerText != tc.answer || c.MissText != tc.miss || c.AnswerLabel != tc.label || c.Answer != res.Points[slices.IndexFunc(res.Points, func(pt sweep.Point) bool { return p.Text(pt.Value) == tc.answer })].Value {
				t.Errorf("%s %g (%q), miss %g (%q); want %s %s, miss %q", c.AnswerLabel, c.Answer, c.AnswerText, c.Miss, c.MissText, tc.label, tc.answer, tc.miss)
			}
			// The answer and the miss marked on both panels.
			mark := tc.label + ": " + p.Flag() + " " + tc.answer
			if k := strings.Count(all, mark); k != 2 {
				t.Errorf("%q marked %d times, want 2 (one per panel); the texts:\n%s", mark, k, all)
			}
			if tc.miss != "" {
				if k := strings.Count(all, "missed: "+p.Flag()+" "+tc.miss); k != 2 {
					t.Errorf("the miss %s is marked %d times, want 2 (one per panel); the texts:\n%s", tc.miss, k, all)
				}
			}
			if tc.noSLO {
				if len(c.Bounds) != 0 || strings.Contains(all, "SLO p") {
					t.Errorf("no SLO, but bounds %v drawn", c.Bounds)
				}
			} else if c.Bounds["p99"] != 5 || !strings.Contains(all, "SLO p99 <= 5.00 ms") {
				t.Errorf("the SLO's bound: %v, want p99 5 ms drawn and keyed; the texts:\n%s", c.Bounds, all)
			}
			for _, want := range []string{"throughput against " + p.Flag(), "latency against throughput (ms, log scale), each value a point"} {
				if !strings.Contains(all, want) {
					t.Errorf("the SVG does not draw %q; its texts:\n%s", want, all)
				}
			}

			pngPath := filepath.Join(dir, "sweep.png")
			if err := output.WriteSweepChart(pngPath, res, "sweep S"); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(pngPath)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if cfg, err := png.DecodeConfig(f); err != nil || cfg.Width != 1000 {
				t.Errorf("PNG: %+v, %v; want 1000 pixels wide", cfg, err)
			}
			if dir := os.Getenv("STAMPEDE_SWEEP_CHARTS"); dir != "" {
				// To look at: STAMPEDE_SWEEP_CHARTS=/tmp/charts go test -run TestSweepChart
				b, _ := os.ReadFile(pngPath)
				_ = os.WriteFile(filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".png"), b, 0o644)
			}
			if err := output.WriteSweepChart(filepath.Join(dir, "sweep.gif"), res, ""); err == nil || !strings.Contains(err.Error(), "use .svg or .png") {
				t.Errorf("a .gif chart: %v", err)
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

// TestSweepGridChartNone draws a grid of two limit flags with none,
// --cpus none,1 by --io-write-bps none,5M without an SLO: the lines come
// in the order of --cpus (1, then none), each line's points in that of
// --io-write-bps, whose none sits at the axis's right end labelled none,
// and each line's peak is ringed at its point.
func TestSweepGridChartNone(t *testing.T) {
	rates := map[string]float64{"1/5M": 1000, "1/none": 1500, "none/5M": 2000, "none/none": 4000}
	n := 0
	res, err := sweep.Run(context.Background(), sweep.Spec{ID: "S", Param: "cpus", Values: sweep.Values{List: []float64{0, 1}, Hi: 1},
		Param2: "io-write-bps", Values2: sweep.Values{List: []float64{0, 5 << 20}, Hi: 5 << 20}, Whole2: true,
		Build: func(v, w float64) (run.Spec, error) { return run.Spec{}, nil },
		Exec: func(ctx context.Context, s run.Spec) (*run.Result, error) {
			n++
			cpus, bps := s.Flags["cpus"], s.Flags["io-write-bps"]
			if bps != "none" {
				bps = "5M"
			}
			r := &run.Result{Info: run.Info{ID: fmt.Sprintf("run-%d", n), Workers: 4}}
			r.Summary.Status = "completed"
			r.Summary.Total = stats.Summary{Count: 100, Rate: rates[cpus+"/"+bps], P50: 1, P95: 2, P99: 3, P999: 4}
			return r, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	b, c := gridSVG(t, res)
	var got []string
	for _, p := range c.Points {
		got = append(got, fmt.Sprintf("%s/%s@%g", p.Text, p.Text2, p.X))
	}
	at := 1.25 * (5 << 20)
	want := []string{fmt.Sprintf("1/5M@%g", 5.0*(1<<20)), fmt.Sprintf("1/none@%g", at), fmt.Sprintf("none/5M@%g", 5.0*(1<<20)), fmt.Sprintf("none/none@%g", at)}
	if !slices.Equal(got, want) || c.NoneAt != at {
		t.Errorf("points %v, none at %g; want %v, none at %g", got, c.NoneAt, want, at)
	}
	marks := []chart.SweepMark{{Value: 1, Text: "1", Value2: 0, Rate: 1500}, {Value: 0, Text: "none", Value2: 0, Rate: 4000}}
	if !slices.Equal(c.Marks, marks) {
		t.Errorf("marks %+v, want %+v", c.Marks, marks)
	}
	texts := svgTexts(string(b))
	for _, w := range []string{"none", "5M", "--cpus 1", "--cpus none", "each line's peak"} {
		if !slices.Contains(texts, w) {
			t.Errorf("the SVG does not draw %q; its texts: %q", w, texts)
		}
	}
	if i, j := slices.Index(texts, "--cpus 1"), slices.Index(texts, "--cpus none"); i > j {
		t.Errorf("the legend names --cpus none before --cpus 1: %q", texts)
	}
	if dir := os.Getenv("STAMPEDE_SWEEP_CHARTS"); dir != "" {
		png := filepath.Join(dir, "grid_none.png")
		_ = output.WriteSweepChart(png, res, "sweep S: a grid")
	}
}

// TestSweepGridChartLimit: a grid whose second flag is a limit (--cpus,
// under which a higher value is a lighter load) rings each line's lowest
// limit that met the SLO, and says so in its legend.
func TestSweepGridChartLimit(t *testing.T) {
	slo, _ := sweep.ParseSLO("p99<=5ms")
	n := 0
	res, err := sweep.Run(context.Background(), sweep.Spec{ID: "S", Param: sweep.Concurrency, Values: sweep.Values{List: []float64{1, 2}, Lo: 1, Hi: 2},
		Param2: "cpus", Values2: sweep.Values{List: []float64{0.25, 0.5, 1, sweep.NoneValue}, Lo: 0.25, Hi: 1}, SLO: slo,
		Build: func(v, w float64) (run.Spec, error) { return run.Spec{}, nil },
		Exec: func(ctx context.Context, s run.Spec) (*run.Result, error) {
			n++
			cpus, _ := strconv.ParseFloat(s.Flags["cpus"], 64)
			p99 := 1.0
			if s.Flags["cpus"] != "none" && cpus < 0.5*float64(s.Concurrency) {
				p99 = 10
			}
			r := &run.Result{Info: run.Info{ID: fmt.Sprintf("run-%d", n), Workers: s.Concurrency}}
			r.Summary.Status = "completed"
			r.Summary.Total = stats.Summary{Count: 100, Rate: float64(100 * n), P50: 1, P95: 1, P99: p99, P999: p99}
			return r, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if n != 8 {
		t.Errorf("%d steps ran, want 8: a miss at a low limit stops no row", n)
	}
	b, c := gridSVG(t, res)
	var got []string
	for _, m := range c.Marks {
		got = append(got, m.Text+"@"+sweep.Format(m.Value2))
	}
	if want := []string{"1@0.5", "2@1"}; !slices.Equal(got, want) || !c.Lowest {
		t.Errorf("marks %v (lowest %v), want %v, lowest", got, c.Lowest, want)
	}
	if texts := strings.Join(svgTexts(string(b)), "\n"); !strings.Contains(texts, "each line's answer (lowest met)") {
		t.Errorf("the legend does not say the answer is the lowest met; its texts:\n%s", texts)
	}
	if c := res.Conclusion(); !strings.Contains(c, "at --concurrency 1: lowest --cpus meeting the SLO p99<=5ms: 0.5") || !strings.Contains(c, "at --concurrency 2: lowest --cpus meeting the SLO p99<=5ms: 1") {
		t.Errorf("conclusion %q", c)
	}
}
