package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/stampede-bench/stampede/chart"
	"github.com/stampede-bench/stampede/cmdline"
	"github.com/stampede-bench/stampede/dashboard"
	"github.com/stampede-bench/stampede/output"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
)

// reportFlags are the flags of `stampede report`.
type reportFlags struct {
	resultsDir  string
	resultsURL  string
	from, to    string
	includeRamp bool
	format      string
	chart       cmdline.ChartFlag
	force       bool
	split       cmdline.SplitFlags
	tags        []string
}

// reportCmd is `stampede report RUN...`: the final figures recomputed from
// run directories. It only reads them.
func (a *app) reportCmd() *cobra.Command {
	var rf reportFlags
	cmd := &cobra.Command{
		Use:   "report RUN... | --tag key=value",
		Short: "Recompute the final figures of saved runs",
		Long: `report recomputes a run's final figures from its run directory: the per-interval
histograms are merged exactly, so a completed run reports what it printed when it
finished, and a killed run what it measured up to its last complete interval.

RUN is a run ID, a unique prefix of one, or the path of a run directory; a run
that is not under the results directory is read from the PostgreSQL results store
of --results-url (or $STAMPEDE_RESULTS_URL), which the runs write into. Several
runs are merged as parts of one benchmark run at the same time, for example by
several client machines: histograms are merged, counts and errors summed, and
rates are per second of the union of the intervals they contributed. Runs under a
rate (latency from each operation's intended start) and closed-loop runs (service
time) are not merged: their latencies mean different things. --tag
key=value adds every run that has that tag, as ` + "`stampede runs --tag`" + ` selects
them: given several times, a run must have them all; key= selects the runs tagged
key with an empty value (run --tag key=), not the runs without key.

By default each run's window starts at the end of its ramp-up; --from and --to
select another, as offsets from each run's start (30s, 2m) or as RFC 3339 times.
A window takes whole intervals, those that start in [--from, --to), so adjacent
windows share none; the window line says which it took, and every rate is per
second of the time they cover. A window that holds no interval is refused, with
the nearest window that holds one.

--chart FILE also draws the runs over time, ramp-up included, as SVG, PNG or a
self-contained HTML page (by FILE's extension; the page is the dashboard's, see
` + "`stampede serve`" + `, with the data in it): throughput and p50/p95/p99 latency
per operation and interval, intervals with errors, and the telemetry the run
recorded (host CPU, disk I/O, watched processes). Several runs are overlaid, each
timed from its own start.

Exit status: 0 on success (a truncated run is reported with a warning), 2 for a
command line error, including a RUN that names no run, several runs or a directory
that is not a run, and a window that holds no interval, and 1 when a run cannot be
read.`,
		Example: `  stampede report 20261122-103512-ycsb-3f9a
  stampede report 20261122-1035 --from 1m --to 5m
  stampede report ./client1/20261122-103512-ycsb-3f9a ./client2/20261122-103513-ycsb-77c1 --format json
  stampede report 20261122-1035 --chart run.html
  stampede report --tag job=ycsb-a --results-dir /results`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && len(rf.tags) == 0 {
				return usagef("name the runs to report: run ids, prefixes or directories, or --tag key=value (see `stampede runs`)")
			}
			return a.report(args, rf)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&rf.resultsDir, "results-dir", "", "where run directories are found (default $STAMPEDE_RESULTS_DIR or ~/.stampede/runs)")
	fs.StringVar(&rf.resultsURL, "results-url", "", "also read the runs a PostgreSQL results store holds (postgresql://...; default $STAMPEDE_RESULTS_URL): those not under the results directory")
	fs.StringVar(&rf.from, "from", "", "start of the window: offset from the run's start (30s, 2m) or RFC 3339 time (default: end of the ramp-up)")
	fs.StringVar(&rf.to, "to", "", "end of the window: offset from the run's start or RFC 3339 time (default: end of the run)")
	fs.BoolVar(&rf.includeRamp, "include-ramp", false, "start the window at the run's start rather than at the end of its ramp-up")
	fs.StringVar(&rf.format, "format", "text", "output format: text or json (one JSON object)")
	fs.Var(&rf.chart, "chart", "also draw the runs over time into this file: .svg, .png or .html")
	fs.BoolVar(&rf.force, "force", false, "replace the --chart file if it exists")
	fs.StringArrayVar(&rf.tags, "tag", nil, "also merge every run with this key=value tag (a job's clients: job=NAME; repeatable: all must match; key= matches runs tagged key with an empty value)")
	rf.split.Register(fs)
	return cmd
}

// report runs `stampede report`.
func (a *app) report(refs []string, rf reportFlags) error {
	switch rf.format {
	case "text", "json":
	default:
		return usagef("unknown --format %q: use text or json", rf.format)
	}
	from, err := results.ParseBound(rf.from)
	if err != nil {
		return usagef("--from: %v", err)
	}
	to, err := results.ParseBound(rf.to)
	if err != nil {
		return usagef("--to: %v", err)
	}
	if rf.includeRamp && from.IsSet() {
		return usagef("give --from or --include-ramp, not both")
	}
	chartPath, err := rf.chart.Path()
	if err != nil {
		return err
	}
	root, err := resultsRoot(rf.resultsDir, rf.resultsURL)
	if err != nil {
		return err
	}
	src := &cmdline.RunSource{Root: root, StoreURL: storeURL(rf.resultsURL)}
	defer src.Close()
	runs, err := cmdline.OpenRunsFrom(src, refs, rf.tags)
	if err != nil {
		return err
	}
	if done, err := a.reportDiffRuns(runs, rf); done {
		return err
	}
	if err := results.SameLatency(runs); err != nil {
		return asUsage(err)
	}
	if err := output.CheckClients(runs); err != nil {
		return asUsage(err)
	}
	if err := output.CheckChartPath(chartPath, runs, rf.force); err != nil {
		return asUsage(err)
	}
	window := results.Window{From: from, To: to, IncludeRamp: rf.includeRamp}
	by, err := rf.split.By()
	if err != nil {
		return err
	}
	view, warnings, err := results.Recompute(runs, window)
	if err != nil {
		return windowUsage(err)
	}
	for _, w := range warnings {
		fmt.Fprintf(a.stderr, "warning: %s\n", oneLine(w.Error()))
	}
	if rf.format == "json" {
		if err := output.JSON(a.stdout, output.NewReportDoc(runs, view)); err != nil {
			return err
		}
	} else if err := output.ReportSplit(a.stdout, runs, view, by); err != nil {
		return err
	}
	if chartPath == "" {
		return nil
	}
	// The chart shows each run's own figures.
	views := []results.View{view}
	if len(runs) > 1 {
		if views, err = results.PerRun(runs, window); err != nil {
			return err
		}
	}
	return a.writeChart(chartPath, runs, views, nil, warnings, by)
}

// windowUsage marks an error of a window that holds no interval because
// of how it was given as a command-line error (exit code 2).
func windowUsage(err error) error {
	var we *results.WindowError
	if errors.As(err, &we) {
		return asUsage(err)
	}
	return err
}

// writeChart draws runs into path (see dashboard.WriteChart).
func (a *app) writeChart(path string, runs []*runlog.Run, views []results.View, labels []string, printed []error, by string) error {
	err := dashboard.WriteChart(path, runs, views, labels, printed, by, a.stderr)
	if errors.Is(err, chart.ErrFormat) {
		return asUsage(err)
	}
	return err
}
