package chart_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/stampede-bench/stampede/chart"
	"github.com/stampede-bench/stampede/results"
)

// TestEveryOperationDrawn: a run of ten operations (a run sql's scripts
// and statements) draws a latency panel for each, and each operation's
// throughput line in a colour of its own.
func TestEveryOperationDrawn(t *testing.T) {
	s := results.Series{ID: "x", Workload: "sql", Start: t0}
	for k := range 10 {
		op := results.OpSeries{Name: fmt.Sprintf("op%02d", k)}
		for i := range 6 {
			op.Points = append(op.Points, results.OpPoint{Span: results.Span{From: float64(i), To: float64(i + 1)},
				Count: 10, Rate: float64(10 + k), P50: 1, P95: 2, P99: 3, Max: 4})
		}
		s.Ops = append(s.Ops, op)
	}
	doc := parseSVG(t, render(t, chart.SVG, chart.Input{Runs: []chart.Run{{Series: s}}}))
	for k := range 10 {
		if title := fmt.Sprintf("op%02d: latency (ms, log scale)", k); !doc.hasText(title) {
			t.Errorf("no panel %q in %q", title, doc.texts)
		}
	}
	for _, text := range doc.texts {
		if regexp.MustCompile(`not drawn`).MatchString(text) {
			t.Errorf("note %q", text)
		}
	}
	// The throughput panel's lines are the first ten data paths drawn.
	stroke := regexp.MustCompile(`stroke:(#[0-9A-Fa-f]{6})`)
	colours := map[string]bool{}
	paths := doc.dataPaths()
	for _, p := range paths[:min(10, len(paths))] {
		if m := stroke.FindStringSubmatch(p.style); m != nil {
			colours[m[1]] = true
		}
	}
	if len(colours) != 10 {
		t.Errorf("the ten throughput lines are drawn in %d colours: %v", len(colours), colours)
	}
}
