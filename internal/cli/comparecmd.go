package cli

import (
	"encoding/json"
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
}

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

--chart FILE also draws both runs over time on the same axes, each timed from its
own start, one colour per run, as SVG, PNG or a self-contained HTML page (by FILE's
extension); see ` + "`stampede report --help`" + `.

Exit status: 0 on success, 2 for a command line error, including a run that cannot
be found, and 1 when a run cannot be read.`,
		Example: `  stampede compare 20261122-103512 20261122-113512
  stampede compare ./before/20261122-103512-ycsb-3f9a ./after/20261122-113512-ycsb-77c1 --format json`,
		Args: cmdline.Positional(2, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.compare(args[0], args[1], cf)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&cf.resultsDir, "results-dir", "", "where run directories are found (default $STAMPEDE_RESULTS_DIR or ~/.stampede/runs)")
	fs.StringVar(&cf.resultsURL, "results-url", "", "also read the runs a PostgreSQL results store holds (postgresql://...; default $STAMPEDE_RESULTS_URL): those not under the results directory")
	fs.StringVar(&cf.format, "format", "text", "output format: text or json (one JSON object)")
	fs.Var(&cf.chart, "chart", "also draw both runs over time into this file: .svg, .png or .html")
	fs.BoolVar(&cf.force, "force", false, "replace the --chart file if it exists")
	cf.split.Register(fs)
	return cmd
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
		if runs[i], err = openRunRef(src, ref); err != nil {
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
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(c); err != nil {
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

// openRunRef finds and opens the run ref names; what names no run is a
// usage error.
func openRunRef(src *cmdline.RunSource, ref string) (*runlog.Run, error) {
	dir, err := src.Find(ref)
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
