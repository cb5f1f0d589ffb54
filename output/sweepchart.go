package output

import (
	"bytes"
	"fmt"
	"os"

	"github.com/stampede-bench/stampede/chart"
	"github.com/stampede-bench/stampede/sweep"
)

// SweepChart is what a sweep's chart draws (chart.Sweep): each value's
// figures as the sweep judged it (its medians over its runs), the SLO's
// latency bounds on the total, and the answer: the highest value that
// met the SLO and the lowest above it that missed, or without an SLO the
// peak. A grid's (two flags) draws a line per value of the first flag
// against the second, each line's answer (its row's) marked.
func SweepChart(res *sweep.Result, title string) chart.Sweep {
	c := chart.Sweep{Title: title, Flag: res.Param.Flag()}
	// The swept axis: Param's, or a grid's Param2's; none (no limit) at
	// its right end, in the points' order (sweep.Param.Compare).
	axis, on := res.Param, func(p sweep.Point) float64 { return p.Value }
	if res.Param2 != "" {
		axis, on = res.Param2, func(p sweep.Point) float64 { return p.Value2 }
	}
	var vals []float64
	for _, p := range res.Points {
		vals = append(vals, on(p))
	}
	x, noneAt := axis.Axis(vals)
	for _, p := range res.Points {
		m := p.Median
		if m.Status != "completed" || m.Total.Count == 0 {
			continue
		}
		c.Points = append(c.Points, chart.SweepPoint{Value: p.Value, X: x(on(p)), Value2: p.Value2, Text: res.Param.Text(p.Value), Rate: m.Total.Rate, P50: m.Total.P50, P95: m.Total.P95,
			P99: m.Total.P99, P999: m.Total.P999, Judged: p.Judged, Met: p.Met})
		if res.Param2 != "" {
			c.Points[len(c.Points)-1].Text2 = res.Param2.Text(p.Value2)
		}
		if axis.None(on(p)) {
			c.NoneAt = noneAt
		}
	}
	c.Bounds = res.SLO.Latencies() // the total's; an operation's own bounds are in the SLO's text
	switch {
	case res.Best != nil:
		c.Answer, c.AnswerLabel = res.Best.Value, "answer"
	case len(res.SLO.Terms) == 0 && res.Peak != nil:
		c.Answer, c.AnswerLabel = res.Peak.Value, "peak"
	}
	if res.Miss != nil {
		c.Miss, c.MissText = res.Miss.Value, res.Param.Text(res.Miss.Value)
	}
	c.Lowest = res.Param.Lighter()
	if c.AnswerLabel != "" {
		c.AnswerText = res.Param.Text(c.Answer)
	}
	if res.Param2 != "" {
		// A grid: a line per value of Param, each row's answer ringed.
		c.Flag2, c.Lowest = res.Param2.Flag(), res.Param2.Lighter()
		c.Answer, c.AnswerText, c.AnswerLabel, c.Miss, c.MissText = 0, "", "", 0, "" // per row, in Marks
		for _, r := range res.Rows {
			at := r.Sweep.Best
			if len(res.SLO.Terms) == 0 {
				at = r.Sweep.Peak
			}
			if at != nil {
				c.Marks = append(c.Marks, chart.SweepMark{Value: r.Value, Text: res.Param.Text(r.Value), Value2: at.Value, Rate: at.Total.Rate})
			}
		}
	}
	if len(res.SLO.Terms) > 0 {
		c.SLO = res.SLO.String()
	}
	return c
}

// WriteSweepChart draws res into path (.svg or .png, chart.FormatOf),
// titled title.
func WriteSweepChart(path string, res *sweep.Result, title string) error {
	f, err := chart.FormatOf(path)
	if err != nil {
		return fmt.Errorf("--chart %w", err)
	}
	var buf bytes.Buffer
	if err := chart.WriteSweep(&buf, f, SweepChart(res, title)); err != nil {
		return err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("--chart: %w", err)
	}
	return nil
}
