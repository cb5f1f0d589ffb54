package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stampede-bench/stampede/cmdline"
	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/output"
	"github.com/stampede-bench/stampede/redact"
	"github.com/stampede-bench/stampede/report"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/workload"
)

// fleetOp builds the run.FleetOp of a fleet command.
func (a *app) fleetOp(spec fleet.Spec, gen workload.Generator, cf *cmdline.Conn, urls []string, concurrency int) (run.FleetOp, error) {
	conn, err := cf.Spec(urls)
	if err != nil {
		return run.FleetOp{}, err
	}
	return run.FleetOp{Workload: gen, Spec: spec, Conn: conn, Concurrency: concurrency, Log: a.stderr,
		NewBar: func(unit string, total int64) fleet.Bar { return output.NewProgress(a.stderr, unit, total) }}, nil
}

// initFleet is `init WORKLOAD --tenants N`.
func (a *app) initFleet(ctx context.Context, gen workload.Generator, spec fleet.Spec, cf *cmdline.Conn, inf *cmdline.Init, fif *cmdline.FleetInit, urls []string) error {
	if err := inf.ResolveLoaders(); err != nil {
		return err
	}
	op, err := a.fleetOp(spec, gen, cf, urls, fif.Concurrency())
	if err != nil {
		return err
	}
	return inf.LoadFleet(ctx, op, fif, a.stdout)
}

// checkFleet is `check WORKLOAD --tenants N`.
func (a *app) checkFleet(ctx context.Context, gen workload.Generator, spec fleet.Spec, cf *cmdline.Conn, urls []string) error {
	op, err := a.fleetOp(spec, gen, cf, urls, 0)
	if err != nil {
		return err
	}
	res, err := run.CheckFleet(ctx, op, a.stdout)
	if res.Checked > 0 || err == nil {
		fmt.Fprintf(a.stdout, "%d tenants checked, %d failed\n", res.Checked, len(res.Failed))
	}
	return err
}

// cleanupFleet is `cleanup WORKLOAD --tenants N`.
func (a *app) cleanupFleet(ctx context.Context, gen workload.Generator, spec fleet.Spec, cf *cmdline.Conn, forceDrop bool, urls []string) error {
	op, err := a.fleetOp(spec, gen, cf, urls, 0)
	if err != nil {
		return err
	}
	op.ForceDrop = forceDrop
	n, left, db, err := run.CleanupFleet(ctx, op)
	if err != nil {
		return err
	}
	switch spec.Mode {
	case fleet.ModeDatabase:
		fmt.Fprintf(a.stdout, "dropped %s; %d left\n", fleet.Plural(n, "tenant database"), left.Databases)
	case fleet.ModeSchema:
		fmt.Fprintf(a.stdout, "dropped %s from database %q; %d left\n", fleet.Plural(n, "tenant schema"), db, left.Schemas)
	default:
		fmt.Fprintf(a.stdout, "dropped the shared tables of %s from database %q; %s\n", fleet.Plural(n, "tenant"), db, left.TablesLeft())
	}
	if line := left.ExecOutsideText(); line != "" {
		fmt.Fprintln(a.stdout, line)
	}
	if left.Roles.Dropped > 0 {
		fmt.Fprintf(a.stdout, "dropped %s\n", fleet.Plural(left.Roles.Dropped, "tenant login role"))
	}
	if len(left.Roles.Kept) > 0 {
		fmt.Fprintf(a.stdout, "left %s of the tenants' names alone: not made by stampede for this fleet\n", left.Roles.KeptText())
	}
	return nil
}

// fleetCmd is the `fleet` command group.
func (a *app) fleetCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "fleet",
		Short: "Work on every tenant of a fleet (see --tenants of init)",
		Example: `  stampede init tpcc --tenants 100 --warehouses 1 'postgresql://postgres@localhost:5432'
  stampede fleet exec --workload tpcc --tenants 100 'ALTER TABLE customer ADD COLUMN note TEXT' 'postgresql://postgres@localhost:5432'`,
		Args: cmdline.Positional(0, 0),
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.fleetExecCmd())
	return cmd
}

// fleetExecCmd is `fleet exec`.
func (a *app) fleetExecCmd() *cobra.Command {
	cf := &cmdline.Conn{}
	tf := &cmdline.Tenants{}
	var workloadName, resultsDir string
	var concurrency int
	var restart bool
	cmd := &cobra.Command{
		Use:   "exec --workload NAME --tenants N [flags] STATEMENT [URL...]",
		Short: "Apply one SQL statement to every tenant of a fleet, resumably",
		Long: `Apply one SQL statement to every tenant of a fleet: in database mode connected to each
tenant's database, in schema mode with the tenant's schema as search_path, in column
mode once. Each tenant done is recorded (fsynced) in
<results-dir>/fleet-exec/<hash>.ndjson before it counts as done, so rerunning the
same command after a failure or Ctrl-C skips the tenants done (a tenant dropped and
made again since, by cleanup and init, is not done); --restart ignores the record.

Examples:
  stampede fleet exec --workload tpcc --tenants 20000 'ALTER TABLE customer ADD COLUMN note TEXT' 'postgresql://postgres@localhost:5432'
  stampede fleet exec --workload bank --tenants 2000 --tenant-mode schema --db bank --concurrency 16 'CREATE INDEX ON bank (balance)'

` + cmdline.URLHelp,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("give the statement to apply: `stampede fleet exec --workload NAME --tenants N 'ALTER TABLE ...' [URL...]`")
			}
			stmt, urls := args[0], args[1:]
			for _, u := range urls {
				if !strings.Contains(u, "://") && !strings.Contains(u, "=") {
					return usagef("unexpected argument %q: give one statement, then URLs (quote the statement)", redact.Conn(u))
				}
			}
			if workloadName == "" {
				return usagef("name the fleet's workload with --workload (it names the default tenant pattern and database)")
			}
			m, ok := workload.Get(workloadName)
			if !ok {
				return usagef("unknown workload %q: see `stampede workloads` (available: %s)", workloadName, cmdline.WorkloadNames())
			}
			spec, on, err := tf.Fleet(m.Name)
			if err != nil {
				return err
			}
			if !on {
				return usagef("give the number of tenants: --tenants N")
			}
			if concurrency < 1 {
				return usagef("--concurrency %d: need at least 1", concurrency)
			}
			op, err := a.fleetOp(spec, m.New(), cf, urls, concurrency)
			if err != nil {
				return err
			}
			res, err := run.ExecFleet(cmd.Context(), op, stmt, resultsDir, restart)
			return a.printExec(spec, res, err)
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.StringVar(&workloadName, "workload", "", "the fleet's workload (required)")
	tf.Register(fs)
	fs.IntVar(&concurrency, "concurrency", 8, "number of tenants worked on at once")
	fs.BoolVar(&restart, "restart", false, "ignore the record of an earlier run: apply the statement to every tenant")
	fs.StringVar(&resultsDir, "results-dir", "", "where the record of tenants done is kept (default $STAMPEDE_RESULTS_DIR or ~/.stampede/runs)")
	cf.Register(fs)
	return cmd
}

// printExec prints what fleet exec did.
func (a *app) printExec(spec fleet.Spec, res fleet.ExecResult, err error) error {
	for _, f := range res.Failed {
		fmt.Fprintln(a.stdout, f.Error())
	}
	if err != nil {
		return err
	}
	s := stats.Summarize(res.Latency, 0, res.Elapsed)
	what := fmt.Sprintf("applied to %d tenants, %d skipped (done earlier)", res.Applied, res.Skipped)
	if spec.Mode == fleet.ModeColumn {
		what = fmt.Sprintf("applied once to the shared tables of every tenant: %d applied now, %d done earlier", res.Applied, res.Skipped)
	}
	fmt.Fprintf(a.stdout, "%s, %d failed in %s\n", what, len(res.Failed), res.Elapsed.Round(1e6))
	if s.Count > 0 {
		fmt.Fprintf(a.stdout, "latency per tenant: p50 %s ms  p99 %s ms  max %s ms\n",
			report.FormatMs(s.P50), report.FormatMs(s.P99), report.FormatMs(s.Max))
	}
	if len(res.Failed) > 0 {
		return fmt.Errorf("the statement failed on %d tenants (listed above): fix them and run the same command again; the %d tenants done are skipped",
			len(res.Failed), res.Applied+res.Skipped)
	}
	return nil
}
