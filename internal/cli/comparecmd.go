package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/stampede-bench/stampede/cmdline"
	"github.com/stampede-bench/stampede/output"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
)

// compareFlags are the flags of `stampede compare`.
type compareFlags struct {
	resultsDir string
	resultsURL string
	format     string
	chart      cmdline.ChartFlag
	force      bool
	split      cmdline.SplitFlags
	aTags      []string
	bTags      []string
}

// compareCmd is `stampede compare A B`: two runs side by side.
func (a *app) compareCmd() *cobra.Command {
	var cf compareFlags
	cmd := &cobra.Command{
		Use:   "compare A B | A1,A2,... B1,B2,... | --a-tag key=value --b-tag key=value",
		Short: "Compare two saved runs, operation by operation",
		Long: `compare recomputes the final figures of two runs from their run directories (after
the ramp-up, to the end, as ` + "`stampede report`" + ` does) and prints them side by side
for each operation and for the total (__result): throughput and p50, p95 and p99
latencies of A and of B, with the ratio B/A.

It also tells a throughput difference from run-to-run noise, with Welch's t-test.
The throughput of each operation is taken in every interval of each run (an interval
under half the usual length, such as a run's last few milliseconds, merged into the
one before it); the difference between the means of A and B is marked "*" when it
exceeds its standard error, sqrt(sdA²/nA + sdB²/nB), times Student's t quantile
0.975 with the Welch–Satterthwaite degrees of freedom (the 5% level), and "noise"
otherwise; "?" when a run has fewer than 3 intervals; "only A" or "only B" for an
operation only that run did. The intervals of one run are not independent samples,
so treat this as a guide, not a test: a "*" on a short run deserves a second run.

A and B are run IDs, unique prefixes of one, or paths of run directories. A run may
be compared with itself (every ratio is 1, and a warning says so).

Groups of runs (several repetitions per side) are judged over runs, as benchstat
judges benchmarks: give each side as a comma-separated list of runs
(A1,A2,A3 B1,B2,B3), or select it by tags with --a-tag key=value and --b-tag
key=value, as ` + "`stampede report --tag`" + ` and ` + "`stampede runs --tag`" + ` select runs
(repeated, every tag must match); a side given by tag takes the place of one
argument. Each figure of each operation and of the total (ops/s, p50, p95, p99,
errors) is taken once per run; per side the median over the runs and the spread
(the largest distance of a run from the median); a Mann-Whitney U test over runs
(two-sided, github.com/aclements/go-moremath's, as benchstat's) says "B higher" or
"B lower" when p < 0.05 and "no difference" otherwise; with fewer runs than the test
can ever reject with (3 and 3: its smallest p is 0.1) a note says so and how many
it needs. "runs needed" is the runs per side that would find a difference of the
observed size with 80% power: 2 (z(0.975) + z(0.8))² s² / d², with d the difference
of the medians and s the runs' pooled standard deviation, over the U test's
efficiency 3/pi. Each side needs two runs or more, all of one workload, no run on
both sides; one run is compared with one run only. --chart and --by-endpoint/
--by-locality take one run a side.

--chart FILE also draws both runs over time on the same axes, each timed from its
own start, one colour per run, as SVG, PNG or a self-contained HTML page (by FILE's
extension); see ` + "`stampede report --help`" + `.

Exit status: 0 on success, 2 for a command line error, including a run that cannot
be found, and 1 when a run cannot be read.`,
		Example: `  stampede compare 20261122-103512 20261122-113512
  stampede compare ./before/20261122-103512-ycsb-3f9a ./after/20261122-113512-ycsb-77c1 --format json
  stampede compare --a-tag side=before --b-tag side=after
  stampede compare 20261122-1035,20261122-1036,20261122-1037 20261122-1135,20261122-1136,20261122-1137`,
		Args: cmdline.Positional(0, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.compareSides(args, cf)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&cf.resultsDir, "results-dir", "", "where run directories are found (default $STAMPEDE_RESULTS_DIR or ~/.stampede/runs)")
	fs.StringVar(&cf.resultsURL, "results-url", "", "also read the runs a PostgreSQL results store holds (postgresql://...; default $STAMPEDE_RESULTS_URL): those not under the results directory")
	fs.StringVar(&cf.format, "format", "text", "output format: text or json (one JSON object)")
	fs.Var(&cf.chart, "chart", "also draw both runs over time into this file: .svg, .png or .html")
	fs.BoolVar(&cf.force, "force", false, "replace the --chart file if it exists")
	fs.StringArrayVar(&cf.aTags, "a-tag", nil, "side A is every run with this key=value tag (repeatable: all must match, as report --tag)")
	fs.StringArrayVar(&cf.bTags, "b-tag", nil, "side B is every run with this key=value tag (repeatable: all must match, as report --tag)")
	cf.split.Register(fs)
	return cmd
}

// compareSides sorts compare's arguments and tags into its two sides: one
// run a side is compare as it always was, groups are judged over runs.
func (a *app) compareSides(args []string, cf compareFlags) error {
	tags := [2][]string{cf.aTags, cf.bTags}
	refs, err := cmdline.CompareSides(args, tags)
	if err != nil {
		return err
	}
	if len(tags[0]) == 0 && len(tags[1]) == 0 && len(refs[0]) == 1 && len(refs[1]) == 1 {
		return a.compare(refs[0][0], refs[1][0], cf)
	}
	switch cf.format {
	case "text", "json":
	default:
		return usagef("unknown --format %q: use text or json", cf.format)
	}
	if p, _ := cf.chart.Path(); p != "" {
		return usagef("--chart draws one run a side: compare groups without it, or chart one run of each side")
	}
	if by, err := cf.split.By(); err != nil || by != "" {
		return usagef("--by-endpoint and --by-locality compare one run a side: compare groups without them")
	}
	root, err := resultsRoot(cf.resultsDir, cf.resultsURL)
	if err != nil {
		return err
	}
	src := &cmdline.RunSource{Root: root, StoreURL: storeURL(cf.resultsURL)}
	defer src.Close()
	c, one, err := cmdline.CompareGroups(src, refs, tags)
	if err != nil {
		return err
	}
	if c == nil { // tags that select one run a side: two runs
		return a.compare(one[0], one[1], cf)
	}
	for _, w := range c.Warnings {
		fmt.Fprintf(a.stderr, "warning: %s\n", oneLine(w))
	}
	if cf.format == "json" {
		return output.JSON(a.stdout, c)
	}
	return output.GroupComparison(a.stdout, *c)
}

// compare runs `stampede compare`.
func (a *app) compare(refA, refB string, cf compareFlags) error {
	switch cf.format {
	case "text", "json":
	default:
		return usagef("unknown --format %q: use text or json", cf.format)
	}
	chartPath, err := cf.chart.Path()
	if err != nil {
		return err
	}
	root, err := resultsRoot(cf.resultsDir, cf.resultsURL)
	if err != nil {
		return err
	}
	var runs [2]*runlog.Run
	src := &cmdline.RunSource{Root: root, StoreURL: storeURL(cf.resultsURL)}
	defer src.Close()
	for i, ref := range []string{refA, refB} {
		if runs[i], err = src.Open(ref); err != nil {
			return err
		}
	}
	var mix *results.LatencyMixError
	if err := results.SameLatency(runs[:]); errors.As(err, &mix) { // as report refuses them
		return usagef("%s", mix.ForCompare())
	}
	if err := output.CheckChartPath(chartPath, runs[:], cf.force); err != nil {
		return asUsage(err)
	}
	by, err := cf.split.By()
	if err != nil {
		return err
	}
	c, views, err := results.CompareBy(runs[0], runs[1], by)
	if err != nil {
		return err
	}
	output.CompareFigures(&c, runs, views)
	c.A.Dir, c.B.Dir = src.Where(c.A.Dir), src.Where(c.B.Dir)
	for _, w := range c.Warnings {
		fmt.Fprintf(a.stderr, "warning: %s\n", oneLine(w))
	}
	if cf.format == "json" {
		if err := output.JSON(a.stdout, c); err != nil {
			return err
		}
	} else if err := output.Comparison(a.stdout, c); err != nil {
		return err
	}
	if chartPath == "" {
		return nil
	}
	var printed []error
	for _, w := range c.Warnings {
		printed = append(printed, errors.New(w))
	}
	return a.writeChart(chartPath, runs[:], views[:], []string{"A", "B"}, printed, by)
}
