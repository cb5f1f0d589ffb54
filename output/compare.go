package output

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"time"

	"github.com/stampede-bench/stampede/report"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
)

// Comparison prints a comparison of two runs as text: the runs, a table of
// their figures and ratios, how to read it, then their limits and
// telemetry side by side.
func Comparison(w io.Writer, c results.Comparison) error {
	if err := writeComparison(w, c); err != nil {
		return err
	}
	if err := writeFigureComparison(w, c.Figures); err != nil {
		return err
	}
	var limits [2]json.RawMessage
	if c.Limits != nil {
		limits = [2]json.RawMessage{c.Limits.A, c.Limits.B}
	}
	return writeTelemetryComparison(w, c.Telemetry, limits)
}

// writeComparison prints c as text.
func writeComparison(w io.Writer, c results.Comparison) error {
	for _, s := range []struct {
		label string
		run   results.CompareRun
	}{{"A", c.A}, {"B", c.B}} {
		status := s.run.Status
		if status == runlog.StatusRunning {
			status = runningStatus(s.run.Dir)
		}
		fmt.Fprintf(w, "%s: run %s: %s, started %s, %s; %d intervals, %.1fs\n", s.label, s.run.ID, s.run.Workload,
			s.run.Start.Format(time.RFC3339), status, s.run.Intervals, s.run.Seconds)
	}
	if len(c.Flags) > 0 {
		var diffs []string
		for _, f := range c.Flags {
			diffs = append(diffs, fmt.Sprintf("--%s (A %s, B %s)", f.Name, flagValue(f.A), flagValue(f.B)))
		}
		fmt.Fprintf(w, "flags that differ: %s\n", strings.Join(diffs, ", "))
	}
	fmt.Fprintln(w)
	table := [][]string{{"operation", "ops/s(A)", "ops/s(B)", "B/A", "p50(A)", "p50(B)", "B/A", "p95(A)", "p95(B)", "B/A",
		"p99(A)", "p99(B)", "B/A", "throughput"}}
	for _, r := range append(c.Ops, c.Total) {
		row := []string{r.Name}
		row = append(row, cells(r.A, r.B, r.Ratio.OpsPerSec, func(s *stats.Summary) string { return fmt.Sprintf("%.1f", s.Rate) })...)
		row = append(row, cells(r.A, r.B, r.Ratio.P50, func(s *stats.Summary) string { return report.FormatMs(s.P50) })...)
		row = append(row, cells(r.A, r.B, r.Ratio.P95, func(s *stats.Summary) string { return report.FormatMs(s.P95) })...)
		row = append(row, cells(r.A, r.B, r.Ratio.P99, func(s *stats.Summary) string { return report.FormatMs(s.P99) })...)
		row = append(row, r.Throughput.Verdict)
		table = append(table, row)
	}
	right := map[int]bool{}
	for i := 1; i < 13; i++ {
		right[i] = true
	}
	if err := writeTable(w, table, right); err != nil {
		return err
	}
	_, err := fmt.Fprint(w, `
Latencies in ms; B/A is B's figure divided by A's (above 1: more throughput, or
higher latency, in B). throughput: Welch's t-test on the ops/s of each run's
intervals (a last interval under half the usual length merged into the one before):
"*" when |mean(B) - mean(A)| > t(0.975, df) * sqrt(sd(A)²/n(A) + sd(B)²/n(B)), a
difference beyond run-to-run noise at the 5% level; "noise" when it is not; "?"
when a run has fewer than 3 intervals; "only A" or "only B" for an operation only
that run did. The intervals of one run are not independent samples: with one run a
side this is a guide only; compare groups of runs (A1,A2,... B1,B2,..., or --a-tag
and --b-tag) for a verdict over runs.
`)
	return err
}

// writeFigureComparison prints the workload's figures of both runs and
// their ratios (nothing when neither run has any).
func writeFigureComparison(w io.Writer, rows []results.FigureRow) error {
	if len(rows) == 0 {
		return nil
	}
	table := [][]string{{"figure", "A", "B", "B/A"}}
	for _, r := range rows {
		row := []string{r.Name, "-", "-", "-"}
		if r.A != nil {
			row[1] = figureText(*r.A)
		}
		if r.B != nil {
			row[2] = figureText(*r.B)
		}
		if r.Ratio != nil {
			row[3] = fmt.Sprintf("%.2f", *r.Ratio)
		}
		table = append(table, row)
	}
	fmt.Fprintln(w)
	return writeTable(w, table, map[int]bool{1: true, 2: true, 3: true})
}

// figureText writes a workload figure: whole numbers as they are, others
// with one decimal from 100 up, three below.
func figureText(v float64) string {
	switch {
	case v == float64(int64(v)):
		return strconv.FormatInt(int64(v), 10)
	case v >= 100 || v <= -100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// cells renders a figure of A and B and their ratio; "-" where missing.
func cells(a, b *stats.Summary, r *float64, f func(*stats.Summary) string) []string {
	out := []string{"-", "-", "-"}
	if a != nil {
		out[0] = f(a)
	}
	if b != nil {
		out[1] = f(b)
	}
	if r != nil {
		out[2] = fmt.Sprintf("%.2f", *r)
	}
	return out
}

// writeTelemetryComparison prints the limits and telemetry of both runs,
// each telemetry figure under the label `stampede report`'s telemetry
// block gives it (its stable name is in the JSON form).
func writeTelemetryComparison(w io.Writer, rows []results.TelemetryRow, limits [2]json.RawMessage) error {
	if len(limits[0]) > 0 || len(limits[1]) > 0 {
		fmt.Fprintln(w)
		if err := writeTable(w, limitsTable(limits), nil); err != nil {
			return err
		}
	}
	if len(rows) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	table := [][]string{{"telemetry", "unit", "A", "B", "B/A"}}
	num := func(v *float64, unit string) string {
		switch {
		case v == nil:
			return "-"
		case unit == "bytes" || unit == "bytes/s":
			return report.Bytes(*v)
		}
		return strconv.FormatFloat(*v, 'f', decimals(*v), 64)
	}
	for _, r := range rows {
		ratio := "-"
		if r.Ratio != nil {
			ratio = fmt.Sprintf("%.2f", *r.Ratio)
		}
		table = append(table, []string{cmp.Or(r.Label, r.Name), r.Unit, num(r.A, r.Unit), num(r.B, r.Unit), ratio})
	}
	return writeTable(w, table, map[int]bool{2: true, 3: true, 4: true})
}

// decimals picks how many decimals a telemetry figure shows.
func decimals(v float64) int {
	switch a := max(v, -v); {
	case a >= 1000:
		return 0
	case a >= 10:
		return 1
	default:
		return 2
	}
}

// limitsTable is the runs' limits side by side, as the telemetry: a row
// per limit either run set, "-" where the other did not, and "none" for a
// run without limits. A record this stampede cannot read is shown as it
// is, on one line.
func limitsTable(limits [2]json.RawMessage) [][]string {
	var names []string
	values := [2]map[string]string{{}, {}}
	for i, raw := range limits {
		if len(raw) == 0 || string(raw) == "null" {
			continue
		}
		var rec run.LimitsRecord
		items := [][2]string{{"limits", oneLineJSON(raw)}}
		if err := json.Unmarshal(raw, &rec); err == nil && len(rec.Items()) > 0 {
			items = rec.Items()
		}
		for _, it := range items {
			if _, ok := values[0][it[0]]; !ok {
				if _, ok := values[1][it[0]]; !ok {
					names = append(names, it[0])
				}
			}
			values[i][it[0]] = it[1]
		}
	}
	table := [][]string{{"limits", "A", "B"}}
	for _, n := range names {
		row := []string{n}
		for i := range values {
			v, ok := values[i][n]
			switch {
			case ok:
			case len(values[i]) == 0:
				v = "none"
			default:
				v = "-"
			}
			row = append(row, v)
		}
		table = append(table, row)
	}
	return table
}

// oneLineJSON renders a JSON record on one line.
func oneLineJSON(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// flagValue is a flag's recorded value for "flags that differ": "not
// given" where the run did not record it.
func flagValue(v string) string {
	if v == "" {
		return "not given"
	}
	return v
}
