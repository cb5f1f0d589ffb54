package output

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/stampede-bench/stampede/report"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
)

// GroupComparison prints c, a compare of two groups of runs, as text: the
// runs of each side, then per operation and figure each side's median and
// spread over its runs, B/A, the U test's p-value, the verdict and the
// runs per side a difference of the observed size would need.
func GroupComparison(w io.Writer, c results.GroupComparison) error {
	for _, s := range []struct {
		label string
		side  results.GroupSide
	}{{"A", c.A}, {"B", c.B}} {
		ids := make([]string, len(s.side.Runs))
		for i, r := range s.side.Runs {
			ids[i] = r.ID
			if status := r.Status; status != runlog.StatusCompleted {
				if status == runlog.StatusRunning {
					status = runningStatus(r.Dir)
				}
				ids[i] += " (" + status + ": its figures up to where it stopped)"
			}
		}
		fmt.Fprintf(w, "%s: %d runs of %s: %s\n", s.label, len(ids), c.Workload, strings.Join(ids, " "))
	}
	if len(c.Flags) > 0 {
		diffs := make([]string, len(c.Flags))
		for i, f := range c.Flags {
			vals := func(vs []string) string {
				out := make([]string, len(vs))
				for j, v := range vs {
					out[j] = flagValue(v)
				}
				return strings.Join(out, " and ")
			}
			diffs[i] = fmt.Sprintf("--%s (A %s, B %s)", f.Name, vals(f.A), vals(f.B))
		}
		fmt.Fprintf(w, "flags that differ: %s\n", strings.Join(diffs, ", "))
	}
	fmt.Fprintln(w)
	table := [][]string{{"operation", "figure", "A", "±", "B", "±", "B/A", "p", "verdict", "runs needed"}}
	for _, r := range c.Rows {
		row := []string{r.Op, results.GroupFigureLabel(r.Figure), "-", "", "-", "", "-", "-", r.Verdict, "-"}
		if r.A != nil {
			row[2], row[3] = groupValue(r.Figure, r.A.Median), fmt.Sprintf("±%.0f%%", r.A.Spread)
		}
		if r.B != nil {
			row[4], row[5] = groupValue(r.Figure, r.B.Median), fmt.Sprintf("±%.0f%%", r.B.Spread)
		}
		if r.Ratio != nil {
			row[6] = fmt.Sprintf("%.2f", *r.Ratio)
		}
		if r.P != nil {
			row[7] = fmt.Sprintf("%.3f", *r.P)
		}
		if r.Needed != nil {
			row[9] = strconv.Itoa(*r.Needed)
		}
		table = append(table, row)
	}
	if err := writeTable(w, table, map[int]bool{2: true, 3: true, 4: true, 5: true, 6: true, 7: true, 9: true}); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, `
Each figure is taken once per run (after its ramp-up, to its end): A and B are
the medians over each side's runs, ± the largest distance of a run from the
median; latencies in ms, errors counted per run. p: Mann-Whitney U test of A's
runs against B's (two-sided); "B higher" or "B lower" when p < %.2f, "no
difference" otherwise: the runs cannot tell. runs needed: runs per side that
would find a difference of the observed size (B's median - A's) with 80%% power
at that level, from the runs' standard deviation (normal approximation, over the
U test's efficiency 3/pi); "-" when the medians are equal.
`, c.Alpha)
	if err == nil && c.Note != "" {
		_, err = fmt.Fprintf(w, "note: %s\n", c.Note)
	}
	return err
}

// groupValue writes a figure's median: latencies as reports write them,
// rates with one decimal, counts as they are.
func groupValue(fig string, v float64) string {
	switch {
	case strings.HasSuffix(fig, "_ms"):
		return report.FormatMs(v)
	case fig == "errors":
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return fmt.Sprintf("%.1f", v)
}
