package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/stampede-bench/stampede/stats"
)

// Op is one operation's figures at a point of the run.
type Op struct {
	// Name is the operation's name.
	Name string
	// Interval covers the interval just ended (unused in final reports).
	Interval stats.Summary
	// Cumulative covers the run so far (after the ramp).
	Cumulative stats.Summary
}

// Formatter writes interval lines and the final report. Implementations are
// not safe for concurrent use.
type Formatter interface {
	// Interval writes the figures of one interval ending elapsed after the
	// start.
	Interval(elapsed time.Duration, ops []Op) error
	// Final writes the final report: one entry per operation, the total
	// over all operations, and labelled extra figures.
	Final(elapsed time.Duration, ops []Op, total Op, extra []Extra) error
}

// Extra is a labelled figure of the final report (for example reconnects).
type Extra struct {
	// Name labels the figure (snake_case in JSON).
	Name string
	// Value is the figure.
	Value float64
	// Text is the human-readable rendering, such as "3" or "12.5 MB/s".
	Text string
}

// Text is the `cockroach workload` style text format.
type Text struct {
	W io.Writer
	// HeaderEvery repeats the interval header after this many intervals;
	// 0 means 20.
	HeaderEvery int
	intervals   int
}

const (
	intervalHeader = "_elapsed___errors__ops/sec(inst)___ops/sec(cum)__p50(ms)__p95(ms)__p99(ms)_pMax(ms)"
	finalHeader    = "_elapsed___errors_____ops(total)___ops/sec(cum)__avg(ms)__p50(ms)__p95(ms)__p99(ms)_pMax(ms)"
)

// Interval implements Formatter.
func (t *Text) Interval(elapsed time.Duration, ops []Op) error {
	every := t.HeaderEvery
	if every == 0 {
		every = 20
	}
	if t.intervals%every == 0 {
		if _, err := fmt.Fprintln(t.W, intervalHeader); err != nil {
			return err
		}
	}
	t.intervals++
	for _, op := range ops {
		i, c := op.Interval, op.Cumulative
		if _, err := fmt.Fprintf(t.W, "%8.1fs %8d %14.1f %14.1f %8s %8s %8s %8s %s\n",
			elapsed.Seconds(), c.Errors, i.Rate, c.Rate, FormatMs(i.P50), FormatMs(i.P95), FormatMs(i.P99), FormatMs(i.Max), op.Name); err != nil {
			return err
		}
	}
	return nil
}

// Final implements Formatter.
func (t *Text) Final(elapsed time.Duration, ops []Op, total Op, extra []Extra) error {
	if _, err := fmt.Fprintf(t.W, "\n%s__total\n", finalHeader); err != nil {
		return err
	}
	for _, op := range ops {
		if err := t.finalLine(elapsed, op); err != nil {
			return err
		}
	}
	if _, err := fmt.Fprintf(t.W, "\n%s__result\n", finalHeader); err != nil {
		return err
	}
	if err := t.finalLine(elapsed, total); err != nil {
		return err
	}
	if w := CappedWarning(append(ops, total)); w != "" {
		if _, err := fmt.Fprintln(t.W, w); err != nil {
			return err
		}
	}
	for _, e := range extra {
		if _, err := fmt.Fprintf(t.W, "  %s: %s\n", e.Name, e.Text); err != nil {
			return err
		}
	}
	return nil
}

func (t *Text) finalLine(elapsed time.Duration, op Op) error {
	c := op.Cumulative
	line := fmt.Sprintf("%8.1fs %8d %14d %14.1f %8s %8s %8s %8s %8s  %s",
		elapsed.Seconds(), c.Errors, c.Count, c.Rate, FormatMs(c.Mean), FormatMs(c.P50), FormatMs(c.P95), FormatMs(c.P99), FormatMs(c.Max), op.Name)
	_, err := fmt.Fprintln(t.W, strings.TrimRight(line, " "))
	return err
}

// FormatMs renders milliseconds with one decimal, or more below 1ms so
// that fast operations do not all read 0.0. A figure that reached the
// histograms' highest (stats.CapMs: values above 100 s are recorded as
// 100 s) reads ">=100000": 100 s or more, never as if it were the value.
func FormatMs(v float64) string {
	switch {
	case v >= stats.CapMs:
		return fmt.Sprintf(">=%.0f", stats.Ms(stats.Highest))
	case v == 0:
		return "0.0"
	case v < 0.1:
		return fmt.Sprintf("%.3f", v)
	case v < 1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// JSON writes newline-delimited JSON: one object per operation per
// interval ({"type":"interval",...}), then one per operation
// ({"type":"final",...}) and one total ({"type":"summary",...}).
type JSON struct {
	W io.Writer
}

type jsonInterval struct {
	Type       string        `json:"type"`
	ElapsedSec float64       `json:"elapsed_s"`
	Op         string        `json:"op"`
	Interval   stats.Summary `json:"interval"`
	Cumulative stats.Summary `json:"cumulative"`
}

type jsonFinal struct {
	Type       string             `json:"type"`
	ElapsedSec float64            `json:"elapsed_s"`
	Op         string             `json:"op"`
	Cumulative stats.Summary      `json:"cumulative"`
	Extra      map[string]float64 `json:"extra,omitempty"`
}

// Interval implements Formatter.
func (j *JSON) Interval(elapsed time.Duration, ops []Op) error {
	enc := json.NewEncoder(j.W)
	for _, op := range ops {
		if err := enc.Encode(jsonInterval{"interval", round3(elapsed.Seconds()), op.Name, op.Interval, op.Cumulative}); err != nil {
			return err
		}
	}
	return nil
}

// Final implements Formatter.
func (j *JSON) Final(elapsed time.Duration, ops []Op, total Op, extra []Extra) error {
	enc := json.NewEncoder(j.W)
	for _, op := range ops {
		if err := enc.Encode(jsonFinal{Type: "final", ElapsedSec: round3(elapsed.Seconds()), Op: op.Name, Cumulative: op.Cumulative}); err != nil {
			return err
		}
	}
	ex := map[string]float64{}
	for _, e := range extra {
		ex[e.Name] = e.Value
	}
	return enc.Encode(jsonFinal{Type: "summary", ElapsedSec: round3(elapsed.Seconds()), Op: total.Name, Cumulative: total.Cumulative, Extra: ex})
}

func round3(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }

// CappedWarning is the line that says how many values of ops reached the
// histograms' highest (stats.Highest, which larger values are recorded
// as), naming each series with its count; "" when none did. A total
// (unnamed) is left out of the names: its values are its series'.
func CappedWarning(ops []Op) string {
	var names []string
	var n int64
	for _, op := range ops {
		c := op.Cumulative.Capped
		if c == 0 || op.Name == "" {
			continue
		}
		n += c
		names = append(names, fmt.Sprintf("%s %d", op.Name, c))
	}
	if n == 0 {
		return ""
	}
	what := "values"
	if n == 1 {
		what = "value"
	}
	hs := stats.Ms(stats.Highest) / 1000
	return fmt.Sprintf("warning: %d %s reached the latency histograms' highest, %.0f s (%s), recorded as %.0f s: figures shown >=%.0f are %.0f s or more, and averages that include them are lower bounds",
		n, what, hs, strings.Join(names, ", "), hs, stats.Ms(stats.Highest), hs)
}
