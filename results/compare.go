package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/stampede-bench/stampede/redact"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/telemetry"
)

// CompareTotal is the name of the total's row, as in the final report.
const CompareTotal = "__result"

// CompareRun describes one side of a Comparison.
type CompareRun struct {
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

// CompareRow is one operation (or the total) of both runs.
type CompareRow struct {
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
	Throughput ThroughputTest `json:"throughput"`
}

// ThroughputTest compares the per-interval throughput of two runs with
// Welch's t-test.
//
// The samples are each run's intervals after its ramp-up, with an interval
// shorter than half the run's usual one (its last, partial one, a few
// milliseconds long when the run stops just after a tick) merged into the
// one before it, as the charts merge it: a dozen operations over 9 ms is a
// rate of 1,300 ops/s that no one measured, and its distance from the
// others' rate would count as variance (a 1.6x difference over three full
// intervals was called noise for it). Intervals of one run are not
// independent samples (a drift, a checkpoint): the verdict is a guide.
type ThroughputTest struct {
	MeanA float64 `json:"mean_a"`
	SDA   float64 `json:"sd_a"`
	NA    int     `json:"n_a"`
	MeanB float64 `json:"mean_b"`
	SDB   float64 `json:"sd_b"`
	NB    int     `json:"n_b"`
	// Diff is MeanB - MeanA and SE its standard error,
	// sqrt(sdA²/nA + sdB²/nB); DF is the Welch–Satterthwaite degrees of
	// freedom, and Threshold the critical difference at the 5% level
	// (two-sided): SE times Student's t quantile 0.975 with DF degrees of
	// freedom. All four are 0 when the verdict is not "*" or "noise".
	Diff      float64 `json:"diff"`
	SE        float64 `json:"se"`
	DF        float64 `json:"df"`
	Threshold float64 `json:"threshold"`
	// Verdict is "*" (|Diff| > Threshold: significant), "noise", "?"
	// (a run has fewer than MinCompareIntervals intervals), or "only A" /
	// "only B" for an operation only that run did (nothing to test).
	Verdict     string `json:"verdict"`
	Significant bool   `json:"significant"`
}

// MinCompareIntervals is the fewest intervals (after merging short ones)
// each run needs for a throughput verdict: with two, the standard
// deviation rests on one degree of freedom and the test says little.
const MinCompareIntervals = 3

// Verdicts of a ThroughputTest.
const (
	VerdictSignificant = "*"
	VerdictNoise       = "noise"
	VerdictTooFew      = "?"
	VerdictOnlyA       = "only A"
	VerdictOnlyB       = "only B"
)

// Comparison is the result of `stampede compare`.
type Comparison struct {
	A     CompareRun   `json:"a"`
	B     CompareRun   `json:"b"`
	Ops   []CompareRow `json:"ops"`
	Total CompareRow   `json:"total"`
	// Telemetry pairs the runs' telemetry figures; Limits are their
	// resource limits (null: none).
	Telemetry []TelemetryRow `json:"telemetry,omitempty"`
	Limits    *CompareLimits `json:"limits,omitempty"`
	Warnings  []string       `json:"warnings,omitempty"`
	// Figures pairs the workload's own figures of both runs (churn's
	// rows/s, TPC-C's tpmC), as their reports print them; filled by the
	// caller that can rebuild the workload (output.CompareFigures), nil
	// here.
	Figures []FigureRow `json:"figures,omitempty"`
	// Flags are the workload flags whose values the runs recorded
	// differently (TPC-C's --server-side: which run called server-side
	// routines), by name.
	Flags []FlagDiff `json:"flags_differ,omitempty"`
}

// FlagDiff is a flag whose value differs between the runs of a
// Comparison ("" where a run did not record it).
type FlagDiff struct {
	Name string `json:"name"`
	A    string `json:"a"`
	B    string `json:"b"`
}

// automaticFlags are entries a run records beside its flags that no flag
// sets: values stampede picked itself (the GOGC the run's garbage
// collection got from its heap headroom, which moves by a few between
// runs), not the user's, so compare does not list them among the flags
// that differ.
var automaticFlags = map[string]bool{"gc-percent": true}

// flagDiffs returns the flags of a and b whose recorded values differ,
// sorted by name, but automaticFlags.
func flagDiffs(a, b map[string]string) []FlagDiff {
	var out []FlagDiff
	for name, va := range a {
		if automaticFlags[name] {
			continue
		}
		if vb := b[name]; vb != va {
			out = append(out, FlagDiff{Name: name, A: va, B: vb})
		}
	}
	for name, vb := range b {
		if _, ok := a[name]; !ok && !automaticFlags[name] {
			out = append(out, FlagDiff{Name: name, B: vb})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// pickedSeeds names, in a differing --seed (or sysbench's --rand-seed)
// of 0 or not given, the seed the run picked and ran with: "0" read as a
// seed of 0 beside the other run's.
func pickedSeeds(diffs []FlagDiff, a, b uint64) {
	picked := func(v string, seed uint64) string {
		if (v == "0" || v == "") && seed != 0 {
			return fmt.Sprintf("picked %d", seed)
		}
		return v
	}
	for i := range diffs {
		if d := &diffs[i]; d.Name == "seed" || d.Name == "rand-seed" {
			d.A, d.B = picked(d.A, a), picked(d.B, b)
		}
	}
}

// FigureRow is one workload figure of both runs in a Comparison: A and B
// nil where a run has none, Ratio B/A, nil where A is 0 or missing.
type FigureRow struct {
	Name  string   `json:"name"`
	A     *float64 `json:"a"`
	B     *float64 `json:"b"`
	Ratio *float64 `json:"ratio"`
}

// PairFigures pairs the figures of two runs by name, in A's order then
// B's extra ones (each a name and value, in a run's order).
func PairFigures(a, b []string, va, vb map[string]float64) []FigureRow {
	var rows []FigureRow
	names := append(append([]string(nil), a...), b...)
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			continue
		}
		seen[n] = true
		row := FigureRow{Name: n}
		if v, ok := va[n]; ok {
			row.A = &v
		}
		if v, ok := vb[n]; ok {
			row.B = &v
		}
		if row.A != nil && row.B != nil && *row.A != 0 {
			r := *row.B / *row.A
			row.Ratio = &r
		}
		rows = append(rows, row)
	}
	return rows
}

// Compare recomputes the final figures of runs a and b (after the
// ramp-up, to the end) and pairs them, operation by operation and in
// total, with the ratios B/A and a test of whether their per-interval
// throughputs differ beyond noise; then their telemetry and limits.
// Warnings (damaged runs, runs of two workloads) are in the result. The
// views are the runs' own, for charts.
func Compare(a, b *runlog.Run) (Comparison, [2]View, error) {
	return CompareBy(a, b, "")
}

// CompareBy is Compare with rows for the operations by endpoint (by
// "endpoint": OP@ENDPOINT) or by locality (by "locality": OP@LOCALITY)
// after the operations' own, for runs that recorded their figures by
// endpoint; "" is Compare. The total is the same.
func CompareBy(a, b *runlog.Run, by string) (Comparison, [2]View, error) {
	var (
		runs  = [2]*runlog.Run{a, b}
		views [2]View
		rates [2]map[string][]float64
		c     Comparison
	)
	for i, run := range runs {
		view, warnings, err := Recompute([]*runlog.Run{run}, Window{})
		if err != nil {
			return c, views, err
		}
		for _, w := range warnings {
			c.Warnings = append(c.Warnings, w.Error())
		}
		views[i] = view
		ivs, err := countIntervals(run)
		if err != nil {
			return c, views, err
		}
		rates[i] = intervalRates(run, ivs, view)
		splitRates(run, ivs, view, by, rates[i])
	}
	if a.Info.ID == b.Info.ID {
		c.Warnings = append(c.Warnings, fmt.Sprintf("A and B are the same run, %s: every ratio is 1 and nothing is compared; give two different runs", a.Info.ID))
	}
	if wa, wb := a.Info.Workload, b.Info.Workload; wa != wb {
		c.Warnings = append(c.Warnings, fmt.Sprintf("run %s is %s and run %s is %s: their operations differ, and the totals count different things (compare runs of one workload)",
			a.Info.ID, wa, b.Info.ID, wb))
	}
	side := func(r *runlog.Run, v View) CompareRun {
		return CompareRun{ID: r.Info.ID, Dir: r.Dir, Workload: r.Info.Workload, Start: r.Info.Start, Status: r.Info.Status,
			From: v.From, To: v.To, Seconds: v.Seconds, Intervals: v.Intervals}
	}
	c.A, c.B = side(a, views[0]), side(b, views[1])
	if a.Info.Workload == b.Info.Workload {
		// Compared as run.json's readers show them: a password never
		// leaves a run directory through compare.
		c.Flags = flagDiffs(redact.Flags(a.Info.Flags, nil), redact.Flags(b.Info.Flags, nil))
		pickedSeeds(c.Flags, a.Info.Seed, b.Info.Seed)
	}
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
	for i, v := range views {
		ops := map[string][]OpView{"endpoint": v.Endpoints, "locality": v.Localities}[by]
		for _, op := range ops {
			if opsA[op.Name] == nil && opsB[op.Name] == nil {
				names = append(names, op.Name)
			}
			if i == 0 {
				opsA[op.Name] = &op.Summary
			} else {
				opsB[op.Name] = &op.Summary
			}
		}
	}
	for _, name := range names {
		c.Ops = append(c.Ops, compareOp(name, opsA[name], opsB[name], rates[0][name], rates[1][name]))
	}
	c.Total = compareOp(CompareTotal, &views[0].Total, &views[1].Total, rates[0][CompareTotal], rates[1][CompareTotal])
	telRows, limits, telWarnings, err := compareTelemetry(runs, views)
	if err != nil {
		return c, views, err
	}
	c.Telemetry = telRows
	if len(limits[0]) > 0 || len(limits[1]) > 0 {
		c.Limits = &CompareLimits{A: limits[0], B: limits[1]}
	}
	c.Warnings = append(c.Warnings, telWarnings...)
	return c, views, nil
}

// intervalRates returns the throughput (ops/s) of each operation of v, and
// of the total under the name CompareTotal, in each interval of run's
// default window (the intervals results.Recompute merged into v), short
// intervals merged (see rateGroups).
func intervalRates(run *runlog.Run, ivs []countedInterval, v View) map[string][]float64 {
	transactions := slices.ContainsFunc(v.Ops, func(op OpView) bool { return op.Name == TransactionSeries })
	counted := countedSeries([]*runlog.Run{run})
	out := map[string][]float64{}
	for _, g := range rateGroups(run, ivs) {
		var secs float64
		for _, iv := range g {
			secs += iv.End.Sub(iv.Start).Seconds()
		}
		var total int64
		for _, op := range v.Ops {
			n := groupCount(g, op.Name)
			out[op.Name] = append(out[op.Name], float64(n)/secs)
			if counts(op.Name, transactions, counted) {
				total += n
			}
		}
		out[CompareTotal] = append(out[CompareTotal], float64(total)/secs)
	}
	return out
}

// countedInterval is an interval's bounds and the operations of each of
// its series (its histogram's count): what throughputs need of it.
type countedInterval struct {
	Start, End time.Time
	counts     map[string]int64
}

// countIntervals reads run's intervals, one at a time, into their bounds
// and counts; a truncated log gives the intervals before the damage.
func countIntervals(run *runlog.Run) ([]countedInterval, error) {
	var out []countedInterval
	err := run.Scan(func(iv *runlog.ScanInterval) error {
		c := countedInterval{Start: iv.Start, End: iv.End, counts: make(map[string]int64, len(iv.Series))}
		for _, s := range iv.Series {
			c.counts[s.Name] = s.Hist.TotalCount()
		}
		out = append(out, c)
		return nil
	})
	var trunc *runlog.TruncatedError
	if err != nil && !errors.As(err, &trunc) {
		return nil, err
	}
	return out, nil
}

// rateGroups returns the intervals of ivs in run's default window (those
// that start at or after the ramp-up's end and last a while, as
// results.Window takes them), grouped as the charts group them: an
// interval shorter than half the usual one joins the one before it (see
// mergeShort), so that a run's last few milliseconds do not make a rate of
// their own.
func rateGroups(run *runlog.Run, ivs []countedInterval) [][]countedInterval {
	from := run.Info.Start
	if t, ok := RampEnd(run, nil); ok {
		from = t
	}
	var taken []countedInterval
	var lens []time.Duration
	for _, iv := range ivs {
		if iv.Start.Before(from) || !iv.End.After(iv.Start) {
			continue
		}
		taken = append(taken, iv)
		lens = append(lens, iv.End.Sub(iv.Start))
	}
	var groups [][]countedInterval
	for _, g := range mergeShort(lens) {
		groups = append(groups, taken[g[0]:g[len(g)-1]+1])
	}
	return groups
}

// groupCount returns the operations of series in the intervals of g (an
// interval without the series counts 0).
func groupCount(g []countedInterval, series string) int64 {
	var n int64
	for _, iv := range g {
		n += iv.counts[series]
	}
	return n
}

// splitRates adds to rates the throughput of each part series of v by
// endpoint, or merged by locality, in each interval of run's default
// window, as intervalRates does for operations.
func splitRates(run *runlog.Run, ivs []countedInterval, v View, by string, rates map[string][]float64) {
	if by == "" || len(v.Endpoints) == 0 {
		return
	}
	locs := Localities(run)
	group := func(series string) (string, bool) {
		op, ep, ok := SplitName(series)
		if !ok || by != "locality" {
			return series, ok
		}
		return op + SplitSep + locs[ep], locs[ep] != ""
	}
	for _, g := range rateGroups(run, ivs) {
		var secs float64
		for _, iv := range g {
			secs += iv.End.Sub(iv.Start).Seconds()
		}
		counts := map[string]int64{}
		for _, op := range v.Endpoints {
			name, ok := group(op.Name)
			if !ok {
				continue
			}
			counts[name] += groupCount(g, op.Name)
		}
		for name, n := range counts {
			rates[name] = append(rates[name], float64(n)/secs)
		}
	}
}

// compareOp builds one row; a or b is nil for an operation only one run did.
func compareOp(name string, a, b *stats.Summary, ratesA, ratesB []float64) CompareRow {
	r := CompareRow{Name: name, A: a, B: b}
	if a != nil && b != nil {
		r.Ratio.OpsPerSec = ratio(a.Rate, b.Rate)
		r.Ratio.P50 = ratio(a.P50, b.P50)
		r.Ratio.P95 = ratio(a.P95, b.P95)
		r.Ratio.P99 = ratio(a.P99, b.P99)
	}
	r.Throughput = welch(ratesA, ratesB)
	// An operation one run did not do is not a difference in throughput
	// to test: the other run did something else (another script, another
	// workload), which the row's "-" cells show.
	switch {
	case a == nil && b != nil:
		r.Throughput = ThroughputTest{NB: len(ratesB), Verdict: VerdictOnlyB}
		r.Throughput.MeanB, r.Throughput.SDB = meanSD(ratesB)
	case b == nil && a != nil:
		r.Throughput = ThroughputTest{NA: len(ratesA), Verdict: VerdictOnlyA}
		r.Throughput.MeanA, r.Throughput.SDA = meanSD(ratesA)
	}
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

// welch compares the means of two samples with Welch's t-test at the 5%
// level (two-sided): the difference is significant when it exceeds its
// standard error, sqrt(sdA²/nA + sdB²/nB), times Student's t quantile
// 0.975 with the Welch–Satterthwaite degrees of freedom. Each sample needs
// MinCompareIntervals values, else the verdict is "?".
func welch(xa, xb []float64) ThroughputTest {
	t := ThroughputTest{NA: len(xa), NB: len(xb)}
	t.MeanA, t.SDA = meanSD(xa)
	t.MeanB, t.SDB = meanSD(xb)
	if t.NA < MinCompareIntervals || t.NB < MinCompareIntervals {
		t.Verdict = VerdictTooFew
		return t
	}
	t.Diff = t.MeanB - t.MeanA
	va, vb := t.SDA*t.SDA/float64(t.NA), t.SDB*t.SDB/float64(t.NB)
	t.SE = math.Sqrt(va + vb)
	if t.SE == 0 {
		// Every interval of each run at one rate: any difference is
		// beyond noise (the t statistic is infinite), none is none.
		t.DF = float64(t.NA + t.NB - 2)
	} else {
		t.DF = (va + vb) * (va + vb) / (va*va/float64(t.NA-1) + vb*vb/float64(t.NB-1))
		t.Threshold = t.SE * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: t.DF}.Quantile(0.975)
	}
	t.Significant = math.Abs(t.Diff) > t.Threshold
	t.Verdict = VerdictNoise
	if t.Significant {
		t.Verdict = VerdictSignificant
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

// TelemetryRow is one telemetry figure of both runs in a Comparison.
type TelemetryRow struct {
	// Name is the figure's stable name and Label what it is, as
	// `stampede report`'s telemetry block says (telemetry.Figure's).
	Name  string `json:"name"`
	Label string `json:"label"`
	Unit  string `json:"unit"`
	// A and B are nil when the run has no such figure (no telemetry, or
	// a device or process group it did not watch).
	A *float64 `json:"a"`
	B *float64 `json:"b"`
	// Ratio is B/A, nil where A is 0 or missing.
	Ratio *float64 `json:"ratio"`
}

// CompareLimits are the resource limits of both runs of a Comparison, as
// their run.json records them (null: none).
type CompareLimits struct {
	A json.RawMessage `json:"a"`
	B json.RawMessage `json:"b"`
}

// compareTelemetry recomputes both runs' telemetry over their windows and
// pairs the figures by name, in A's order then B's extra ones. Figures that
// are zero in both runs are left out. Limits are the runs' resource limits
// as run.json records them.
func compareTelemetry(runs [2]*runlog.Run, views [2]View) (rows []TelemetryRow, limits [2]json.RawMessage, warnings []string, err error) {
	var names []string
	byName := [2]map[string]float64{{}, {}}
	units, labels := map[string]string{}, map[string]string{}
	for i, run := range runs {
		limits[i] = run.Info.Limits
		sum, err := TelemetrySummary(run, views[i].From, views[i].To)
		if err != nil {
			if sum == nil {
				return nil, limits, nil, err
			}
			warnings = append(warnings, err.Error())
		}
		if sum == nil {
			continue
		}
		if note := telemetry.DirtiedSummaryNote(*sum); note != "" { // as report says under its table
			warnings = append(warnings, fmt.Sprintf("%s (%s): %s", string(rune('A'+i)), run.Info.ID, strings.TrimPrefix(note, "note: ")))
		}
		for _, f := range sum.Flat() {
			if _, seen := units[f.Name]; !seen {
				names = append(names, f.Name)
				units[f.Name], labels[f.Name] = f.Unit, f.Label
			}
			byName[i][f.Name] = f.Value
		}
	}
	for _, name := range names {
		row := TelemetryRow{Name: name, Label: labels[name], Unit: units[name]}
		if v, ok := byName[0][name]; ok {
			row.A = &v
		}
		if v, ok := byName[1][name]; ok {
			row.B = &v
		}
		if (row.A == nil || *row.A == 0) && (row.B == nil || *row.B == 0) {
			continue
		}
		if row.A != nil && row.B != nil && *row.A != 0 {
			r := *row.B / *row.A
			row.Ratio = &r
		}
		rows = append(rows, row)
	}
	return rows, limits, warnings, nil
}
