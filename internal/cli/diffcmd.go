package cli

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/cmdline"
	"github.com/stampede-bench/stampede/datadiff"
	"github.com/stampede-bench/stampede/output"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/runlog"
)

// diffFlags are the flags of `stampede diff`.
type diffFlags struct {
	workload, format, resultsDir string
	tables                       []string
	conns, maxRows               int
	noPK, canonical              bool
	converge                     time.Duration
}

// exitStatus is an error with its own exit status: diff exits 1 when the
// nodes differ and 2 on errors, as diff(1) does.
type exitStatus struct {
	err  error
	code int
}

func (e exitStatus) Error() string { return e.err.Error() }
func (e exitStatus) Unwrap() error { return e.err }
func (e exitStatus) ExitCode() int { return e.code }

// diffCmd is `stampede diff URL_A URL_B`.
func (a *app) diffCmd() *cobra.Command {
	var f diffFlags
	cmd := &cobra.Command{
		Use:   "diff URL_A URL_B",
		Short: "Prove that two nodes hold the same data, and find the rows that differ",
		Long: `diff compares the tables of two nodes (a primary and its replica, the source and
target of a migration, a backup and its restore) without moving their rows: each
server counts and hashes its rows over primary-key ranges, and only ranges whose
figures differ are split, down to the rows, which are printed with the columns that
differ. Each side reads one consistent snapshot on --conns connections.

The tables are a workload's (--workload tpcc, or with the workload's own flags:
--workload 'oltp_read_write --tables 8'), --tables, or with neither every table either
side holds in every schema its user can see (not the system's; stampede's own
bookkeeping tables only by --tables), named with its schema (public.t): a table on
one side only is a difference, and one without a primary key is named as not
compared (unless --no-pk). A URL without a
database uses the workload's. --converge 30s checks the differing ranges again until they are equal:
run after a workload on a replicated pair, the time it took is the replication lag.

Exit status: 0 when the nodes hold the same data, 1 when they differ, 2 on error.`,
		Example: `  stampede diff 'postgresql://host1/shop' 'postgresql://host2/shop'     # every table
  stampede diff --workload tpcc --no-pk 'postgresql://host1/tpcc' 'postgresql://host2/tpcc'
  stampede diff --tables orders,order_line --converge 30s URL_A URL_B`,
		Args: cmdline.Positional(2, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			err := a.diff(cmd, args, f)
			var u usageError
			var ex exitStatus
			if err != nil && !errors.As(err, &u) && !errors.Is(err, run.ErrInput) && !errors.As(err, &ex) && !errors.Is(err, errInterrupted) {
				err = exitStatus{err, 2}
			}
			return err
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.workload, "workload", "", "compare this workload's tables; its flags may follow in the same argument ('oltp_read_write --tables 8')")
	fs.StringSliceVar(&f.tables, "tables", nil, "compare these tables (comma-separated)")
	fs.IntVar(&f.conns, "conns", datadiff.DefaultConns, "connections per side, checking ranges in parallel in one snapshot")
	fs.IntVar(&f.maxRows, "max-rows", datadiff.DefaultMaxRows, "most differing rows to locate and print")
	fs.BoolVar(&f.noPK, "no-pk", false, "compare tables without a primary key by one checksum of all their rows (rows not located)")
	fs.DurationVar(&f.converge, "converge", 0, "check differing ranges again until equal or this long has passed, and print when they converged")
	fs.BoolVar(&f.canonical, "canonical-hash", false, "hash rows by their canonical text even where both servers share a cheaper native hash")
	fs.StringVar(&f.format, "format", "text", "output format: text or json")
	fs.StringVar(&f.resultsDir, "results-dir", "", "where the run directory is saved (default $STAMPEDE_RESULTS_DIR or ~/.stampede/runs)")
	return cmd
}

// diff runs `stampede diff`.
func (a *app) diff(cmd *cobra.Command, urls []string, f diffFlags) error {
	if f.format != "text" && f.format != "json" {
		return usagef("unknown --format %q: use text or json", f.format)
	}
	switch {
	case f.conns < 1:
		return usagef("--conns %d: need at least 1 connection per side", f.conns)
	case f.maxRows < 1:
		return usagef("--max-rows %d: need at least 1 differing row to locate and print", f.maxRows)
	case f.converge < 0:
		return usagef("--converge %s is negative: use 0 to compare once, or a duration such as 30s", f.converge)
	}
	if f.workload != "" && len(f.tables) > 0 {
		return usagef("give --workload or --tables, not both: either says which tables to compare (neither compares every table)")
	}
	flags := map[string]string{}
	cmd.Flags().Visit(func(fl *pflag.Flag) { flags[fl.Name] = fl.Value.String() })
	bar := &output.LazyProgress{W: a.stderr, Unit: "rows"}
	res, id, err := run.Diff(cmd.Context(), run.DiffSpec{
		Options: datadiff.Options{Tables: f.tables, Conns: f.conns, MaxRows: f.maxRows, NoPK: f.noPK,
			Converge: f.converge, Canonical: f.canonical, Progress: bar},
		URLs: [2]string{urls[0], urls[1]}, Workload: f.workload, ResultsDir: f.resultsDir,
		Command: cmdline.RedactArgs(a.args), Flags: flags, Log: a.stderr})
	bar.Done()
	if ive := (*pflag.InvalidValueError)(nil); errors.As(err, &ive) {
		// A flag of the workload's, in --workload's value: pflag's
		// message would end in strconv's.
		return usagef("--workload %s: %v", strings.Fields(f.workload)[0], cmdline.FlagValueError(ive))
	}
	if err != nil {
		return err
	}
	if f.format == "json" {
		err = datadiff.WriteJSON(a.stdout, res)
	} else {
		err = datadiff.WriteText(a.stdout, res)
	}
	if err != nil {
		return err
	}
	if id == "" {
		return errors.New("the comparison above was not saved (see the line before it)")
	}
	fmt.Fprintf(a.stderr, "saved as run %s\n", id)
	if err := res.Verdict(); err != nil {
		return exitStatus{err, 1}
	}
	return nil
}

// reportDiffRuns prints saved diff runs, which have no intervals to
// recompute, as diff printed them; done is false when no run is a diff.
func (a *app) reportDiffRuns(runs []*runlog.Run, rf reportFlags) (done bool, err error) {
	done, err = output.DiffRuns(a.stdout, a.stderr, runs, rf.format == "json", rf.chart.String() != "" || rf.from != "" || rf.to != "" || rf.includeRamp)
	if errors.Is(err, output.ErrDiffMixed) {
		err = asUsage(err)
	}
	return done, err
}
