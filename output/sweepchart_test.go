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
		want := chart.SweepPoint{Value: p.Value, Rate: m.Rate, P50: m.P50, P95: m.P95, P99: m.P99, P999: m.P999, Judged: p.Judged, Met: p.Met}
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
