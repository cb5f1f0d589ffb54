package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/stampede-bench/stampede/report"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
)

// reportFlags are the flags of `stampede report`.
type reportFlags struct {
	resultsDir  string
	from, to    string
	includeRamp bool
	format      string
}

// reportCmd is `stampede report RUN...`: the final figures recomputed from
// run directories. It only reads them.
func (a *app) reportCmd() *cobra.Command {
	var rf reportFlags
	cmd := &cobra.Command{
		Use:   "report RUN...",
		Short: "Recompute the final figures of saved runs",
		Long: `report recomputes a run's final figures from its run directory: the per-interval
histograms are merged exactly, so a completed run reports what it printed when it
finished, and a killed run what it measured up to its last complete interval.

RUN is a run ID, a unique prefix of one, or the path of a run directory. Several
runs are merged as parts of one benchmark run at the same time, for example by
several client machines: histograms are merged, counts and errors summed, and
rates are per second of the union of their windows.

By default each run's window starts at the end of its ramp-up; --from and --to
select another, as offsets from each run's start (30s, 2m) or as RFC 3339 times.
Intervals are not split: one partly inside the window counts whole.

Exit status: 0 on success (a truncated run is reported with a warning), 2 for a
command line error, including a RUN that names no run, several runs or a directory
that is not a run, and 1 when a run cannot be read.`,
		Example: `  stampede report 20261122-103512-ycsb-3f9a
  stampede report 20261122-1035 --from 1m --to 5m
  stampede report ./client1/20261122-103512-ycsb-3f9a ./client2/20261122-103513-ycsb-77c1 --format json`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.report(args, rf)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&rf.resultsDir, "results-dir", "", "where run directories are found (default $STAMPEDE_RESULTS_DIR or ~/.stampede/runs)")
	fs.StringVar(&rf.from, "from", "", "start of the window: offset from the run's start (30s, 2m) or RFC 3339 time (default: end of the ramp-up)")
	fs.StringVar(&rf.to, "to", "", "end of the window: offset from the run's start or RFC 3339 time (default: end of the run)")
	fs.BoolVar(&rf.includeRamp, "include-ramp", false, "start the window at the run's start rather than at the end of its ramp-up")
	fs.StringVar(&rf.format, "format", "text", "output format: text or json (one JSON object)")
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
	root, err := resultsRoot(rf.resultsDir)
	if err != nil {
		return err
	}
	runs := make([]*runlog.Run, 0, len(refs))
	seen := map[string]string{}
	for _, ref := range refs {
		dir, err := runlog.Find(root, ref)
		if err != nil {
			if errors.Is(err, runlog.ErrRunNotFound) || errors.Is(err, runlog.ErrAmbiguousRun) || errors.Is(err, runlog.ErrNotRunDir) {
				return asUsage(err)
			}
			return err
		}
		run, err := runlog.Open(dir)
		if err != nil {
			if errors.Is(err, runlog.ErrNotRunDir) {
				return asUsage(err)
			}
			return err
		}
		if prev, dup := seen[run.Info.ID]; dup {
			return usagef("run %s is given twice (%s and %s): each run counts once", run.Info.ID, prev, ref)
		}
		seen[run.Info.ID] = ref
		runs = append(runs, run)
	}
	view, warnings, err := results.Recompute(runs, results.Window{From: from, To: to, IncludeRamp: rf.includeRamp})
	if err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintf(a.stderr, "warning: %s\n", oneLine(w.Error()))
	}
	if rf.format == "json" {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(view)
	}
	return writeReportText(a, runs, view)
}

// writeReportText prints a header line per run, then the final block the
// run command prints.
func writeReportText(a *app, runs []*runlog.Run, v results.View) error {
	for _, r := range runs {
		status := r.Info.Status
		if status == runlog.StatusRunning {
			status = "running (or killed)"
		}
		fmt.Fprintf(a.stdout, "run %s: %s, started %s, %s\n", r.Info.ID, r.Info.Workload, r.Info.Start.Format(time.RFC3339), status)
	}
	fmt.Fprintf(a.stdout, "window %s to %s: %d intervals, %.1fs\n", v.From.Format(time.RFC3339Nano), v.To.Format(time.RFC3339Nano), v.Intervals, v.Seconds)
	ops := make([]report.Op, len(v.Ops))
	for i, op := range v.Ops {
		ops[i] = report.Op{Name: op.Name, Cumulative: op.Summary}
	}
	var extra []report.Extra
	if v.Reconnects != nil {
		extra = append(extra, report.Extra{Name: "reconnects", Value: float64(*v.Reconnects), Text: fmt.Sprint(*v.Reconnects)})
	}
	for _, s := range v.Series {
		extra = append(extra, report.Extra{Name: s.Name + "_p99_ms", Value: s.P99,
			Text: fmt.Sprintf("%s: p50 %.2fms p99 %.2fms max %.2fms", s.Name, s.P50, s.P99, s.Max)})
	}
	elapsed := time.Duration(v.Seconds * float64(time.Second))
	return (&report.Text{W: a.stdout}).Final(elapsed, ops, report.Op{Cumulative: v.Total}, extra)
}
