package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/stampede-bench/stampede/report"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
)

// compareFlags are the flags of `stampede compare`.
type compareFlags struct {
	resultsDir string
	format     string
	chart      string
}

// compareTotal is the name of the total's row, as in the final report.
const compareTotal = "__result"

// compareCmd is `stampede compare A B`: two runs side by side.
func (a *app) compareCmd() *cobra.Command {
	var cf compareFlags
	cmd := &cobra.Command{
		Use:   "compare A B",
		Short: "Compare two saved runs, operation by operation",
		Long: `compare recomputes the final figures of two runs from their run directories (after
the ramp-up, to the end, as ` + "`stampede report`" + ` does) and prints them side by side
for each operation and for the total (__result): throughput and p50, p95 and p99
latencies of A and of B, with the ratio B/A.

It also tells a throughput difference from run-to-run noise. The throughput of each
operation is taken in every interval of each run; the difference between the means
of A and B is marked "*" when it exceeds twice its standard error,
sqrt(sdA²/nA + sdB²/nB) (Welch), and "noise" otherwise; "?" when a run has fewer
than two intervals. The intervals of one run are not independent samples, so treat
this as a guide, not a test: a "*" on a short run deserves a second run.

A and B are run IDs, unique prefixes of one, or paths of run directories. A run may
be compared with itself (every ratio is 1).

--chart FILE also draws both runs over time on the same axes, each timed from its
own start, one colour per run, as SVG, PNG or a self-contained HTML page (by FILE's
extension); see ` + "`stampede report --help`" + `.

Exit status: 0 on success, 2 for a command line error, including a run that cannot
be found, and 1 when a run cannot be read.`,
		Example: `  stampede compare 20261122-103512 20261122-113512
  stampede compare ./before/20261122-103512-ycsb-3f9a ./after/20261122-113512-ycsb-77c1 --format json`,
		Args: usageArgs(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.compare(args[0], args[1], cf)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&cf.resultsDir, "results-dir", "", "where run directories are found (default $STAMPEDE_RESULTS_DIR or ~/.stampede/runs)")
	fs.StringVar(&cf.format, "format", "text", "output format: text or json (one JSON object)")
	fs.StringVar(&cf.chart, "chart", "", "also draw both runs over time into this file: .svg, .png or .html")
	return cmd
}

// compareRun describes one side of a comparison.
type compareRun struct {
	ID        string    `json:"id"`
	Dir       string    `json:"dir"`
	Workload  string    `json:"workload"`
	Start     time.Time `json:"start"`
	Status    string    `json:"status"`
	From      time.Time `json:"from"`
	To        time.Time `json:"to"`
	Seconds   float64   `json:"seconds"`
	Intervals int       `json:"intervals"`
}

// compareRow is one operation (or the total) of both runs.
type compareRow struct {
	Name string `json:"name"`
	// A and B are nil for an operation the run did not do.
	A *stats.Summary `json:"a"`
	B *stats.Summary `json:"b"`
	// Ratio holds B/A, null where A is 0 or missing.
	Ratio struct {
		OpsPerSec *float64 `json:"ops_per_sec"`
		P50       *float64 `json:"p50"`
		P95       *float64 `json:"p95"`
		P99       *float64 `json:"p99"`
	} `json:"ratio"`
	Throughput throughputTest `json:"throughput"`
}

// throughputTest compares the per-interval throughput of two runs.
type throughputTest struct {
	MeanA float64 `json:"mean_a"`
	SDA   float64 `json:"sd_a"`
	NA    int     `json:"n_a"`
	MeanB float64 `json:"mean_b"`
	SDB   float64 `json:"sd_b"`
	NB    int     `json:"n_b"`
	// Diff is MeanB - MeanA; Threshold is twice its standard error.
	Diff      float64 `json:"diff"`
	Threshold float64 `json:"threshold"`
	// Verdict is "*" (significant), "noise" or "?" (too few intervals).
	Verdict     string `json:"verdict"`
	Significant bool   `json:"significant"`
}

// comparison is the result of `stampede compare`.
type comparison struct {
	A     compareRun   `json:"a"`
	B     compareRun   `json:"b"`
	Ops   []compareRow `json:"ops"`
	Total compareRow   `json:"total"`
	// Telemetry pairs the runs' telemetry figures; Limits are their
	// resource limits (null: none).
	Telemetry []telemetryRow `json:"telemetry,omitempty"`
	Limits    *compareLimits `json:"limits,omitempty"`
	Warnings  []string       `json:"warnings,omitempty"`
}

// compare runs `stampede compare`.
func (a *app) compare(refA, refB string, cf compareFlags) error {
	switch cf.format {
	case "text", "json":
	default:
		return usagef("unknown --format %q: use text or json", cf.format)
	}
	if err := checkChartExt(cf.chart); err != nil {
		return err
	}
	root, err := resultsRoot(cf.resultsDir)
	if err != nil {
		return err
	}
	var (
		runs  [2]*runlog.Run
		views [2]results.View
		rates [2]map[string][]float64
		c     comparison
	)
	for i, ref := range []string{refA, refB} {
		if runs[i], err = openRunRef(root, ref); err != nil {
			return err
		}
		if err := checkChartDir(cf.chart, runs[i:i+1]); err != nil {
			return err
		}
		view, warnings, err := results.Recompute([]*runlog.Run{runs[i]}, results.Window{})
		if err != nil {
			return err
		}
		for _, w := range warnings {
			c.Warnings = append(c.Warnings, w.Error())
			fmt.Fprintf(a.stderr, "warning: %s\n", oneLine(w.Error()))
		}
		views[i] = view
		if rates[i], err = intervalRates(runs[i], view); err != nil {
			return err
		}
	}
	if wa, wb := runs[0].Info.Workload, runs[1].Info.Workload; wa != wb {
		w := fmt.Sprintf("run %s is %s and run %s is %s: their operations differ, and the totals count different things (compare runs of one workload)",
			runs[0].Info.ID, wa, runs[1].Info.ID, wb)
		c.Warnings = append(c.Warnings, w)
		fmt.Fprintf(a.stderr, "warning: %s\n", w)
	}
	side := func(r *runlog.Run, v results.View) compareRun {
		return compareRun{ID: r.Info.ID, Dir: r.Dir, Workload: r.Info.Workload, Start: r.Info.Start, Status: r.Info.Status,
			From: v.From, To: v.To, Seconds: v.Seconds, Intervals: v.Intervals}
	}
	c.A, c.B = side(runs[0], views[0]), side(runs[1], views[1])
	var names []string
	opsA, opsB := map[string]*stats.Summary{}, map[string]*stats.Summary{}
	for _, op := range views[0].Ops {
		names = append(names, op.Name)
		opsA[op.Name] = &op.Summary
	}
	for _, op := range views[1].Ops {
		if opsA[op.Name] == nil {
			names = append(names, op.Name)
		}
		opsB[op.Name] = &op.Summary
	}
	for _, name := range names {
		c.Ops = append(c.Ops, compareOp(name, opsA[name], opsB[name], rates[0][name], rates[1][name]))
	}
	c.Total = compareOp(compareTotal, &views[0].Total, &views[1].Total, rates[0][compareTotal], rates[1][compareTotal])
	telRows, limits, telWarnings, err := compareTelemetry(runs, views)
	if err != nil {
		return err
	}
	c.Telemetry = telRows
	if len(limits[0]) > 0 || len(limits[1]) > 0 {
		c.Limits = &compareLimits{A: limits[0], B: limits[1]}
	}
	for _, w := range telWarnings {
		c.Warnings = append(c.Warnings, w)
		fmt.Fprintf(a.stderr, "warning: %s\n", oneLine(w))
	}
	if cf.format == "json" {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(c); err != nil {
			return err
		}
	} else if err := writeComparison(a, c); err != nil {
		return err
	} else if err := writeTelemetryComparison(a.stdout, c.Telemetry, limits); err != nil {
		return err
	}
	if cf.chart == "" {
		return nil
	}
	var printed []error
	for _, w := range c.Warnings {
		printed = append(printed, errors.New(w))
	}
	return a.writeChart(cf.chart, runs[:], views[:], []string{"A", "B"}, printed)
}

// openRunRef finds and opens the run ref names; what names no run is a
// usage error.
func openRunRef(root, ref string) (*runlog.Run, error) {
	dir, err := runlog.Find(root, ref)
	if err != nil {
		if errors.Is(err, runlog.ErrRunNotFound) || errors.Is(err, runlog.ErrAmbiguousRun) || errors.Is(err, runlog.ErrNotRunDir) {
			return nil, asUsage(err)
		}
		return nil, err
	}
	run, err := runlog.Open(dir)
	if errors.Is(err, runlog.ErrNotRunDir) {
		return nil, asUsage(err)
	}
	return run, err
}

// intervalRates returns the throughput (ops/s) of each operation of v, and
// of the total under the name compareTotal, in each interval of run's
// default window (the intervals results.Recompute merged into v).
func intervalRates(run *runlog.Run, v results.View) (map[string][]float64, error) {
	ivs, err := run.Intervals()
	var trunc *runlog.TruncatedError
	if err != nil && !errors.As(err, &trunc) {
		return nil, err
	}
	from := run.Info.Start
	if t, ok := results.RampEnd(run, nil); ok {
		from = t
	}
	transactions := slices.ContainsFunc(v.Ops, func(op results.OpView) bool { return op.Name == results.TransactionSeries })
	out := map[string][]float64{}
	for _, iv := range ivs {
		secs := iv.End.Sub(iv.Start).Seconds()
		if iv.Start.Before(from) || secs <= 0 { // as results.Window takes them
			continue
		}
		var total int64
		for _, op := range v.Ops {
			var n int64
			if d := iv.Series[op.Name]; d != nil {
				n = d.Packed.TotalCount()
			}
			out[op.Name] = append(out[op.Name], float64(n)/secs)
			if !transactions || op.Name == results.TransactionSeries {
				total += n
			}
		}
		out[compareTotal] = append(out[compareTotal], float64(total)/secs)
	}
	return out, nil
}

// compareOp builds one row; a or b is nil for an operation only one run did.
func compareOp(name string, a, b *stats.Summary, ratesA, ratesB []float64) compareRow {
	r := compareRow{Name: name, A: a, B: b}
	if a != nil && b != nil {
		r.Ratio.OpsPerSec = ratio(a.Rate, b.Rate)
		r.Ratio.P50 = ratio(a.P50, b.P50)
		r.Ratio.P95 = ratio(a.P95, b.P95)
		r.Ratio.P99 = ratio(a.P99, b.P99)
	}
	// An operation a run did not do ran at 0 ops/s in each of its intervals.
	if a == nil {
		ratesA = make([]float64, len(ratesB))
	}
	if b == nil {
		ratesB = make([]float64, len(ratesA))
	}
	r.Throughput = welch(ratesA, ratesB)
	return r
}

// ratio returns b/a, or nil if a is 0.
func ratio(a, b float64) *float64 {
	if a == 0 {
		return nil
	}
	v := b / a
	return &v
}

// welch compares the means of two samples: the difference is significant
// when it exceeds twice its standard error, sqrt(sdA²/nA + sdB²/nB).
func welch(xa, xb []float64) throughputTest {
	t := throughputTest{NA: len(xa), NB: len(xb)}
	t.MeanA, t.SDA = meanSD(xa)
	t.MeanB, t.SDB = meanSD(xb)
	t.Diff = t.MeanB - t.MeanA
	if t.NA < 2 || t.NB < 2 {
		t.Verdict = "?"
		return t
	}
	t.Threshold = 2 * math.Sqrt(t.SDA*t.SDA/float64(t.NA)+t.SDB*t.SDB/float64(t.NB))
	t.Significant = math.Abs(t.Diff) > t.Threshold
	t.Verdict = "noise"
	if t.Significant {
		t.Verdict = "*"
	}
	return t
}

// meanSD returns the mean and sample standard deviation of xs.
func meanSD(xs []float64) (mean, sd float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1))
}

// writeComparison prints c as text.
func writeComparison(a *app, c comparison) error {
	for _, s := range []struct {
		label string
		run   compareRun
	}{{"A", c.A}, {"B", c.B}} {
		status := s.run.Status
		if status == runlog.StatusRunning {
			status = "running (or killed)"
		}
		fmt.Fprintf(a.stdout, "%s: run %s: %s, started %s, %s; %d intervals, %.1fs\n", s.label, s.run.ID, s.run.Workload,
			s.run.Start.Format(time.RFC3339), status, s.run.Intervals, s.run.Seconds)
	}
	fmt.Fprintln(a.stdout)
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
	if err := writeTable(a.stdout, table, right); err != nil {
		return err
	}
	_, err := fmt.Fprint(a.stdout, `
Latencies in ms; B/A is B's figure divided by A's (above 1: more throughput, or
higher latency, in B). throughput: "*" when the difference in mean per-interval
ops/s exceeds twice its standard error, |mean(B) - mean(A)| > 2*sqrt(sd(A)²/n(A) +
sd(B)²/n(B)) over the n intervals of each run; "noise" when it does not; "?" when a
run has fewer than 2 intervals.
`)
	return err
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
