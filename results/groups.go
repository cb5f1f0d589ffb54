package results

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	mstats "github.com/aclements/go-moremath/stats"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/stampede-bench/stampede/redact"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
)

// GroupAlpha is the level at which CompareGroups calls a difference: a
// figure differs when the Mann-Whitney U test's two-sided p-value is
// below it, as benchstat's default.
const GroupAlpha = 0.05

// GroupPower is the power the repetitions estimate of a GroupRow aims at:
// the chance that runs of that many repetitions per side find a
// difference of the observed size at GroupAlpha.
const GroupPower = 0.8

// Verdicts of a GroupRow.
const (
	GroupNoDifference = "no difference"
	GroupHigher       = "B higher"
	GroupLower        = "B lower"
	GroupOnlyA        = "only A"
	GroupOnlyB        = "only B"
)

// GroupComparison is the result of `stampede compare` of two groups of
// runs (several runs per side): each figure of each run, judged over
// runs as benchstat judges benchmarks.
type GroupComparison struct {
	A GroupSide `json:"a"`
	B GroupSide `json:"b"`
	// Workload is the workload of every run.
	Workload string `json:"workload"`
	// Alpha is the level of the test (GroupAlpha).
	Alpha float64 `json:"alpha"`
	// MinP is the smallest p-value the U test can give with groups of
	// these sizes (both sides wholly apart); CanReject is MinP < Alpha:
	// when false, no difference can ever be called, and Note says how
	// many runs a side needs.
	MinP      float64 `json:"min_p"`
	CanReject bool    `json:"can_reject"`
	// Rows are the figures of each operation, then of the total.
	Rows     []GroupRow `json:"rows"`
	Note     string     `json:"note,omitempty"`
	Warnings []string   `json:"warnings,omitempty"`
	// Flags are the flags whose recorded values are not the same in
	// every run of both sides: within a side, the side's runs are not
	// repetitions of one run; between sides, what differs beside what
	// the comparison is about.
	Flags []GroupFlag `json:"flags_differ,omitempty"`
}

// GroupFlag is a flag whose recorded values differ among a
// GroupComparison's runs: the values each side's runs recorded, sorted
// and once each ("" where a run did not record it).
type GroupFlag struct {
	Name string   `json:"name"`
	A    []string `json:"a"`
	B    []string `json:"b"`
}

// groupFlags returns the flags whose recorded values (as run.json's
// readers show them: passwords masked) differ among the runs of a and b,
// sorted by name, but automaticFlags.
func groupFlags(a, b []*runlog.Run) []GroupFlag {
	names := map[string]bool{}
	sides := [2][]map[string]string{}
	for i, group := range [2][]*runlog.Run{a, b} {
		for _, r := range group {
			f := redact.Flags(r.Info.Flags, nil)
			sides[i] = append(sides[i], f)
			for n := range f {
				names[n] = true
			}
		}
	}
	var out []GroupFlag
	for name := range names {
		if automaticFlags[name] {
			continue
		}
		var vals [2][]string
		all := map[string]bool{}
		for i, side := range sides {
			for _, f := range side {
				if v := f[name]; !slices.Contains(vals[i], v) {
					vals[i] = append(vals[i], v)
				}
				all[f[name]] = true
			}
			slices.SortFunc(vals[i], compareFlagValues)
		}
		if len(all) > 1 {
			out = append(out, GroupFlag{Name: name, A: vals[0], B: vals[1]})
		}
	}
	slices.SortFunc(out, func(x, y GroupFlag) int { return strings.Compare(x.Name, y.Name) })
	return out
}

// compareFlagValues orders two values of a flag by what they say:
// durations (2s before 20s) and numbers by value, anything else as text.
func compareFlagValues(x, y string) int {
	if dx, err := time.ParseDuration(x); err == nil {
		if dy, err := time.ParseDuration(y); err == nil {
			return cmp.Compare(dx, dy)
		}
	}
	if fx, err := strconv.ParseFloat(x, 64); err == nil {
		if fy, err := strconv.ParseFloat(y, 64); err == nil {
			return cmp.Compare(fx, fy)
		}
	}
	return strings.Compare(x, y)
}

// GroupSide is one side of a GroupComparison: its runs, in the order
// given.
type GroupSide struct {
	Runs []CompareRun `json:"runs"`
}

// GroupRow is one figure of one operation (or of the total, CompareTotal)
// over the runs of both sides.
type GroupRow struct {
	Op string `json:"op"`
	// Figure is "ops_per_sec", "p50_ms", "p95_ms", "p99_ms" or "errors"
	// (a run's failed operations).
	Figure string `json:"figure"`
	// A and B hold the figure of each run of a side that did the
	// operation; nil when none did.
	A *GroupStats `json:"a"`
	B *GroupStats `json:"b"`
	// Ratio is B's median over A's; nil where A's is 0 or missing.
	Ratio *float64 `json:"ratio"`
	// P is the two-sided p-value of the Mann-Whitney U test of A's
	// values against B's (github.com/aclements/go-moremath/stats, as
	// golang.org/x/perf's benchstat), 1 when every value is equal, nil
	// for an operation only one side did.
	P *float64 `json:"p"`
	// Verdict is "B higher" or "B lower" when P < Alpha, "no difference"
	// otherwise (also when the groups are too small for the test to ever
	// reject: see GroupComparison.CanReject), "only A" or "only B".
	Verdict string `json:"verdict"`
	// Needed is the number of runs per side that would find a difference
	// of the observed size (B's median minus A's) with power GroupPower
	// at Alpha, given the runs' spread (see neededRuns); nil when the
	// medians are equal (no difference to find) or a side is missing.
	Needed *int `json:"needed"`
}

// GroupStats are a figure's values over a side's runs.
type GroupStats struct {
	Values []float64 `json:"values"`
	Median float64   `json:"median"`
	Min    float64   `json:"min"`
	Max    float64   `json:"max"`
	// Spread is the largest distance of a value from the median, in
	// percent of the median (0 when the median is 0), as benchstat's ±.
	Spread float64 `json:"spread_pct"`
	// SD is the sample standard deviation of the values.
	SD float64 `json:"sd"`
}

// GroupError is bad input to CompareGroups (a side without runs, runs of
// two workloads, a run on both sides): the caller's to correct.
type GroupError struct{ msg string }

func (e *GroupError) Error() string { return e.msg }

// groupFigures are the figures a GroupRow judges, in their order.
var groupFigures = []struct {
	name string
	get  func(*stats.Summary) float64
}{
	{"ops_per_sec", func(s *stats.Summary) float64 { return s.Rate }},
	{"p50_ms", func(s *stats.Summary) float64 { return s.P50 }},
	{"p95_ms", func(s *stats.Summary) float64 { return s.P95 }},
	{"p99_ms", func(s *stats.Summary) float64 { return s.P99 }},
	{"errors", func(s *stats.Summary) float64 { return float64(s.Errors) }},
}

// CompareGroups recomputes each run of a and b over its default window
// (after the ramp-up, to the end, as Compare) and judges each figure of
// each operation and of the total over runs: per side the median and
// spread, a Mann-Whitney U test of A's runs against B's, and the
// repetitions a difference of the observed size would need. Each side
// needs two runs or more; all runs must be of one workload, and no run on
// both sides (a *GroupError otherwise).
func CompareGroups(a, b []*runlog.Run) (GroupComparison, error) {
	c := GroupComparison{Alpha: GroupAlpha}
	if err := checkGroups(a, b); err != nil {
		return c, err
	}
	c.Workload = a[0].Info.Workload
	c.Flags = groupFlags(a, b)
	c.MinP = minP(len(a), len(b))
	c.CanReject = c.MinP < GroupAlpha
	if !c.CanReject {
		c.Note = fmt.Sprintf("with %d and %d runs the U test's smallest p-value is %.3f, not below %.2f: it cannot tell any difference; give at least %d runs a side",
			len(a), len(b), c.MinP, GroupAlpha, minRuns())
	}
	var names []string
	sides := [2]map[string][]float64{}
	for i, group := range [2][]*runlog.Run{a, b} {
		byFig := map[string][]float64{}
		has := map[string]int{}
		for _, run := range group {
			view, warnings, err := Recompute([]*runlog.Run{run}, Window{})
			if err != nil {
				return c, err
			}
			for _, w := range warnings {
				c.Warnings = append(c.Warnings, w.Error())
			}
			side := CompareRun{ID: run.Info.ID, Dir: run.Dir, Workload: run.Info.Workload, Start: run.Info.Start, Status: run.Info.Status,
				From: view.From, To: view.To, Seconds: view.Seconds, Intervals: view.Intervals}
			if i == 0 {
				c.A.Runs = append(c.A.Runs, side)
			} else {
				c.B.Runs = append(c.B.Runs, side)
			}
			add := func(op string, s *stats.Summary) {
				if !slices.Contains(names, op) {
					names = append(names, op)
				}
				has[op]++
				for _, f := range groupFigures {
					byFig[op+"\x00"+f.name] = append(byFig[op+"\x00"+f.name], f.get(s))
				}
			}
			for _, op := range view.Ops {
				add(op.Name, &op.Summary)
			}
			add(CompareTotal, &view.Total)
		}
		for op, n := range has {
			if n < len(group) {
				c.Warnings = append(c.Warnings, fmt.Sprintf("operation %s is in %d of side %s's %d runs: judged over those runs", op, n, "AB"[i:i+1], len(group)))
			}
		}
		sides[i] = byFig
	}
	slices.Sort(c.Warnings)
	// The total last, as in compare's table.
	names = slices.DeleteFunc(names, func(n string) bool { return n == CompareTotal })
	names = append(names, CompareTotal)
	for _, op := range names {
		for _, f := range groupFigures {
			key := op + "\x00" + f.name
			row, err := groupRow(op, f.name, sides[0][key], sides[1][key], c.CanReject)
			if err != nil {
				return c, err
			}
			c.Rows = append(c.Rows, row)
		}
	}
	return c, nil
}

// checkGroups refuses groups CompareGroups cannot judge.
func checkGroups(a, b []*runlog.Run) error {
	for i, g := range [][]*runlog.Run{a, b} {
		if len(g) == 0 {
			return &GroupError{fmt.Sprintf("side %s has no run: give each side two runs or more", "AB"[i:i+1])}
		}
	}
	if len(a) == 1 || len(b) == 1 {
		return &GroupError{fmt.Sprintf("side A has %s and side B %s: compare one run with one run, or groups of two runs or more on each side", runsText(len(a)), runsText(len(b)))}
	}
	seen := map[string]string{}
	for i, g := range [][]*runlog.Run{a, b} {
		for _, run := range g {
			side := "AB"[i : i+1]
			if prev, ok := seen[run.Info.ID]; ok {
				return &GroupError{fmt.Sprintf("run %s is given twice (side %s and side %s): each run counts once", run.Info.ID, prev, side)}
			}
			seen[run.Info.ID] = side
			if w0 := a[0].Info.Workload; run.Info.Workload != w0 {
				return &GroupError{fmt.Sprintf("run %s is %s and run %s is %s: compare groups of runs of one workload", a[0].Info.ID, w0, run.Info.ID, run.Info.Workload)}
			}
		}
	}
	return nil
}

// groupRow judges one figure over A's values xa and B's xb.
func groupRow(op, fig string, xa, xb []float64, canReject bool) (GroupRow, error) {
	r := GroupRow{Op: op, Figure: fig}
	if len(xa) > 0 {
		r.A = groupStats(xa)
	}
	if len(xb) > 0 {
		r.B = groupStats(xb)
	}
	switch {
	case r.A == nil:
		r.Verdict = GroupOnlyB
		return r, nil
	case r.B == nil:
		r.Verdict = GroupOnlyA
		return r, nil
	}
	if r.A.Median != 0 {
		v := r.B.Median / r.A.Median
		r.Ratio = &v
	}
	p := 1.0
	res, err := mstats.MannWhitneyUTest(xa, xb, mstats.LocationDiffers)
	switch {
	case err == nil:
		p = res.P
	case errors.Is(err, mstats.ErrSamplesEqual):
		// Every value equal on both sides: nothing differs.
	default:
		return r, fmt.Errorf("%s %s: U test: %w", op, fig, err)
	}
	r.P = &p
	r.Verdict = GroupNoDifference
	if canReject && p < GroupAlpha {
		r.Verdict = GroupHigher
		if r.B.Median < r.A.Median {
			r.Verdict = GroupLower
		}
	}
	r.Needed = neededRuns(r.A, r.B)
	return r, nil
}

// groupStats summarizes a side's values.
func groupStats(xs []float64) *GroupStats {
	s := &GroupStats{Values: xs, Min: slices.Min(xs), Max: slices.Max(xs)}
	sorted := slices.Sorted(slices.Values(xs))
	n := len(sorted)
	if n%2 == 1 {
		s.Median = sorted[n/2]
	} else {
		s.Median = (sorted[n/2-1] + sorted[n/2]) / 2
	}
	if s.Median != 0 {
		s.Spread = 100 * math.Max(s.Max-s.Median, s.Median-s.Min) / math.Abs(s.Median)
	}
	_, s.SD = meanSD(xs)
	return s
}

// minP returns the smallest two-sided p-value the U test gives for
// samples of n1 and n2 values: both samples wholly apart, asked of the
// test itself.
func minP(n1, n2 int) float64 {
	x1, x2 := make([]float64, n1), make([]float64, n2)
	for i := range x1 {
		x1[i] = float64(i)
	}
	for i := range x2 {
		x2[i] = float64(n1 + i)
	}
	res, err := mstats.MannWhitneyUTest(x1, x2, mstats.LocationDiffers)
	if err != nil {
		return 1
	}
	return res.P
}

// minRuns is the fewest runs per side (equal sides) with which the U test
// can reject at GroupAlpha.
func minRuns() int {
	n := 2
	for minP(n, n) >= GroupAlpha {
		n++
	}
	return n
}

// neededRuns estimates the runs per side that would find a difference of
// the observed size, d = |median(B) - median(A)|, with power GroupPower at
// GroupAlpha (two-sided): the normal approximation for two samples,
// n = 2 (z(1-alpha/2) + z(power))² s² / d², with s the pooled standard
// deviation of the runs (pooledVariance), divided by the U
// test's asymptotic relative efficiency against the t-test, 3/π (the
// U test needs about 5% more runs), rounded up and at least the fewest
// runs with which the test can reject at all (minRuns). Nil when d is 0.
func neededRuns(a, b *GroupStats) *int {
	d := math.Abs(b.Median - a.Median)
	if d == 0 {
		return nil
	}
	s2 := pooledVariance(a, b)
	std := distuv.UnitNormal
	z := std.Quantile(1-GroupAlpha/2) + std.Quantile(GroupPower)
	n := 2 * z * z * s2 / (d * d) / (3 / math.Pi)
	need := max(int(math.Ceil(n)), minRuns())
	return &need
}

// pooledVariance is the runs' pooled variance, each side's weighted by
// its degrees of freedom: ((nA-1) sd(A)² + (nB-1) sd(B)²) / (nA+nB-2);
// sides whose runs are not known (no Values) weigh the same.
func pooledVariance(a, b *GroupStats) float64 {
	na, nb := float64(len(a.Values)), float64(len(b.Values))
	if na < 2 || nb < 2 {
		return (a.SD*a.SD + b.SD*b.SD) / 2
	}
	return ((na-1)*a.SD*a.SD + (nb-1)*b.SD*b.SD) / (na + nb - 2)
}

// GroupFigureLabel is how text output names a GroupRow's figure.
func GroupFigureLabel(fig string) string {
	return strings.NewReplacer("ops_per_sec", "ops/s", "_ms", "").Replace(fig)
}

// runsText is "1 run" or "N runs".
func runsText(n int) string {
	if n == 1 {
		return "1 run"
	}
	return fmt.Sprintf("%d runs", n)
}
