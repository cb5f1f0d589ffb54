package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/stampede-bench/stampede/cmdline"
	"github.com/stampede-bench/stampede/output"
	"github.com/stampede-bench/stampede/results/store"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/workload"
)

// runsFlags are the flags of `stampede runs`.
type runsFlags struct {
	resultsDir string
	resultsURL string
	workload   string
	tags       []string
	since      string
	until      string
	limit      int
	rebuild    bool
	format     string
}

// runsCmd is `stampede runs`: the saved runs, from the results store.
func (a *app) runsCmd() *cobra.Command {
	var rf runsFlags
	cmd := &cobra.Command{
		Use:   "runs",
		Short: "List saved runs, from the results store",
		Long: `runs lists saved runs with their total throughput and p99 latency, oldest first,
from the results store: an index of the run directories, with each run's figures
recomputed as ` + "`stampede report`" + ` does (after the ramp-up, to the end).

The store is by default the SQLite file index.sqlite in the results directory;
--results-url (or $STAMPEDE_RESULTS_URL) names another: sqlite:PATH, or a
postgres:// or postgresql:// URL of a PostgreSQL or CockroachDB database, which
several machines can share. Before listing, runs indexes the run directories of
the results directory that the store lacks (or holds with another status);
--rebuild indexes every one of them again and forgets the runs whose directory
is gone, after moving aside an SQLite file it cannot read (NAME.damaged-TIME). The
store holds nothing else: it can be deleted and rebuilt at any time.

A PostgreSQL store also keeps the runs themselves (runs write into it as they
go): with --results-dir none, or a results directory that does not exist, runs
lists the store alone, as clients on other machines wrote it. ` + "`stampede runs upload DIR`" + `
sends a run directory to it later (a run that could not reach the store).

--tag key=value keeps the runs that have that tag; given several times, a run
must have them all (one value per key); key= keeps the runs tagged key with an
empty value (run --tag key=), not the runs without key. ` + "`stampede report --tag`" + `
selects the same runs.

--since and --until bound the runs' start time: an RFC 3339 time or date
(2026-11-22T10:00:00Z, 2026-11-22), or a duration ago (24h, 30m).

Exit status: 0 on success, 2 for a command line error, 1 when the store cannot
be reached or read.`,
		Example: `  stampede runs
  stampede runs --workload ycsb --tag db=pg17 --since 24h
  stampede runs --results-url postgresql://bench@results-db/stampede --format json`,
		Args: cmdline.Positional(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runs(cmd.Context(), rf, time.Now())
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&rf.resultsDir, "results-dir", "", "where run directories are found (default $STAMPEDE_RESULTS_DIR or ~/.stampede/runs)")
	fs.StringVar(&rf.resultsURL, "results-url", "", "results store: sqlite:PATH, postgres://... or postgresql://... (default $STAMPEDE_RESULTS_URL, or index.sqlite in the results directory)")
	fs.StringVar(&rf.workload, "workload", "", "only runs of this workload")
	fs.StringArrayVar(&rf.tags, "tag", nil, "only runs with this tag, key=value (repeatable: all must match; key= matches runs tagged key with an empty value, not runs without key)")
	fs.StringVar(&rf.since, "since", "", "only runs started at or after this time: RFC 3339 time or date, or a duration ago (24h)")
	fs.StringVar(&rf.until, "until", "", "only runs started before this time: RFC 3339 time or date, or a duration ago")
	fs.IntVar(&rf.limit, "limit", 0, "only the latest N runs (0: all)")
	fs.BoolVar(&rf.rebuild, "rebuild", false, "index every run directory again first")
	fs.StringVar(&rf.format, "format", "text", "output format: text or json (an array)")
	cmd.AddCommand(a.runsUploadCmd())
	return cmd
}

// runs runs `stampede runs`; now is the time durations ago count from.
func (a *app) runs(ctx context.Context, rf runsFlags, now time.Time) error {
	switch rf.format {
	case "text", "json":
	default:
		return usagef("unknown --format %q: use text or json", rf.format)
	}
	if rf.limit < 0 {
		return usagef("--limit %d is negative", rf.limit)
	}
	f := store.Filter{Workload: rf.workload, Limit: rf.limit}
	var err error
	if f.Since, err = store.ParseTime(rf.since, now); err != nil {
		return usagef("--since: %v", err)
	}
	if f.Until, err = store.ParseTime(rf.until, now); err != nil {
		return usagef("--until: %v", err)
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Until.After(f.Since) {
		return usagef("--since %s is not before --until %s: no run can start in that window; swap them", rf.since, rf.until)
	}
	if rf.workload != "" {
		if _, ok := workload.Get(rf.workload); !ok && rf.workload != run.DiffWorkload {
			// Runs of a workload this build does not know may be in the
			// store (an older or newer stampede wrote them): warn, list.
			fmt.Fprintf(a.stderr, "warning: --workload %q is not a workload of this stampede (%s): listing the runs recorded under that name, if any\n", rf.workload, cmdline.WorkloadNames())
		}
	}
	if f.Tags, err = runlog.ParseTags(rf.tags); err != nil {
		return usagef("%v", err)
	}
	root, err := resultsRoot(rf.resultsDir, rf.resultsURL)
	if err != nil {
		return err
	}
	named := rf.resultsDir != "" || os.Getenv("STAMPEDE_RESULTS_DIR") != ""
	rows, err := run.ListRuns(ctx, root, run.StoreURL(root, rf.resultsURL), named, rf.rebuild, f, a.stderr)
	if err != nil {
		return err
	}
	return a.printRuns(rows, rf.format)
}

// printRuns writes rows as text (one line per run) or as a JSON array.
func (a *app) printRuns(rows []store.RunRow, format string) error {
	any, err := output.Runs(a.stdout, rows, format == "json")
	if err == nil && !any {
		fmt.Fprintln(a.stderr, "no runs")
	}
	return err
}

// runsUploadCmd is `stampede runs upload DIR...`: run directories sent to
// a PostgreSQL results store, for a run that could not reach it.
func (a *app) runsUploadCmd() *cobra.Command {
	var resultsURL string
	cmd := &cobra.Command{
		Use:   "upload DIR...",
		Short: "Send run directories to a PostgreSQL results store",
		Long: `upload sends each run directory DIR to the PostgreSQL results store of
--results-url (or $STAMPEDE_RESULTS_URL), as a run writes itself into it, and
indexes it there: ` + "`stampede runs`" + `, ` + "`report`" + ` and ` + "`compare`" + ` then read it from the store
alone. A run whose client lost the store (it said so once, and went on in its
directory) is sent this way when the store is back; what the store already holds
of the run is not sent again.

An upload is idempotent: a run the store already holds whole is said in one line
("already in the results store") and left alone, exit status 0, so that a script
may upload again safely. A store that holds another copy of the run (other bytes
under the same run ID) is refused, exit status 2.

Exit status: 0 when every run is in the store, 2 for a command line error (not a
run directory, no PostgreSQL store, a different copy in the store), 1 when the
store cannot be reached or written.`,
		Example: `  stampede runs upload ~/.stampede/runs/20261122-103512-ycsb-3f9a --results-url postgresql://bench@results-db/stampede`,
		Args:    cmdline.Positional(1, -1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runsUpload(cmd.Context(), args, storeURL(resultsURL))
		},
	}
	cmd.Flags().StringVar(&resultsURL, "results-url", "", "the PostgreSQL results store: postgres://... or postgresql://... (default $STAMPEDE_RESULTS_URL)")
	return cmd
}

// runsUpload runs `stampede runs upload`.
func (a *app) runsUpload(ctx context.Context, dirs []string, url string) error {
	return run.Upload(ctx, dirs, url, a.stdout)
}
