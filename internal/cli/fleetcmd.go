package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/output"
	"github.com/stampede-bench/stampede/report"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/workload"
)

// fleetConcurrency is how many tenants check and cleanup work on at once
// unless --conns says otherwise.
const fleetConcurrency = 8

// workloadArgs returns the workload flags given on the command line as
// arguments that configure a fresh generator the same way, and those that
// shape the data (not RuntimeOnly) as one sorted string for the tenants'
// markers.
func workloadArgs(gen workload.Generator) (args []string, shaping string) {
	f, ok := gen.(workload.Flagser)
	if !ok {
		return nil, ""
	}
	flags := f.Flags()
	var shape []string
	// The command's flag set holds the workload's flags (the same *Flag
	// values), so Changed is set on them but the workload's own set does
	// not know it parsed them: VisitAll, not Visit.
	flags.VisitAll(func(fl *pflag.Flag) {
		if !fl.Changed {
			return
		}
		var vals []string
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			vals = sv.GetSlice()
		} else {
			vals = []string{fl.Value.String()}
		}
		for _, v := range vals {
			a := "--" + fl.Name + "=" + v
			args = append(args, a)
			if !flags.Meta[fl.Name].RuntimeOnly {
				shape = append(shape, a)
			}
		}
	})
	sort.Strings(shape)
	return args, strings.Join(shape, " ")
}

// generatorFactory returns a function that makes generators configured as
// gen is, with the given seed.
func generatorFactory(gen workload.Generator, seed uint64) func() (workload.Generator, error) {
	args, _ := workloadArgs(gen)
	meta := gen.Meta()
	return func() (workload.Generator, error) {
		g, err := workload.FromFlags(meta, args...)
		if err != nil {
			return nil, err
		}
		if s, ok := g.(workload.Seeder); ok {
			s.SetSeed(seed)
		}
		return g, nil
	}
}

// fleetTarget builds the target of a fleet command.
func (a *app) fleetTarget(spec fleet.Spec, gen workload.Generator, cf *connFlags, urls []string, concurrency int) (fleet.Target, error) {
	if spec.Mode == fleet.ModeColumn {
		if _, ok := gen.(workload.TenantColumner); !ok {
			return fleet.Target{}, asUsage(fleet.ColumnModeError(gen.Meta().Name))
		}
	}
	if cf.driver == sqlx.DriverNull {
		return fleet.Target{}, usagef("--tenants needs a server: the null driver has no databases or schemas to make tenants of")
	}
	opts, err := cf.options(urls, gen.Meta().DatabaseName(), concurrency)
	if err != nil {
		return fleet.Target{}, err
	}
	if cf.conns > 0 {
		concurrency = cf.conns
	}
	return fleet.Target{
		Spec:        spec,
		Base:        opts,
		Concurrency: concurrency,
		Workload:    gen.Meta().Name,
		Logf: func(format string, args ...any) {
			fmt.Fprintf(a.stderr, format+"\n", args...)
		},
		NewBar: func(unit string, total int64) fleet.Bar {
			return output.NewProgress(a.stderr, unit, total)
		},
	}, nil
}

// initFleet is `init WORKLOAD --tenants N`.
func (a *app) initFleet(ctx context.Context, gen workload.Generator, spec fleet.Spec, cf *connFlags, inf *initFlags, fif *fleetInitFlags, urls []string) error {
	if err := inf.resolveLoaders(); err != nil {
		return err
	}
	t, err := a.fleetTarget(spec, gen, cf, urls, fif.concurrency)
	if err != nil {
		return err
	}
	seed := pickSeed(inf.seed)
	_, shaping := workloadArgs(gen)
	where := fmt.Sprintf("database %q", t.Base.Database)
	if spec.Mode == fleet.ModeDatabase {
		where = "one database each"
	}
	fmt.Fprintf(a.stderr, "creating %s of %s: %s, %d at once, seed %d\n",
		tenantsSummary(spec), gen.Meta().Name, where, t.Concurrency, seed)
	tot, err := fleet.Create(ctx, fleet.CreateOptions{
		Target:          t,
		NewGenerator:    generatorFactory(gen, seed),
		Flags:           shaping,
		Seed:            seed,
		LoadConcurrency: inf.concurrency,
		ExtraTables:     fif.extraTables,
		Drop:            inf.drop,
	})
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return fmt.Errorf("init interrupted with %d tenants created now (%d were there before): run the same command again to create the others", tot.Created, tot.Existing)
		case errors.Is(err, workload.ErrTablesExist):
			return tablesExistError(err)
		case errors.Is(err, fleet.ErrTenantMismatch):
			return asUsage(err)
		}
		return err
	}
	rate := float64(tot.Created) / max(tot.Elapsed.Seconds(), 1e-9)
	fmt.Fprintf(a.stdout, "tenants:   %d (%d created now, %d already there)\n", spec.Tenants, tot.Created, tot.Existing)
	fmt.Fprintf(a.stdout, "databases: %d\nschemas:   %d\ntables:    %d\n", tot.Databases, tot.Schemas, tot.Tables)
	fmt.Fprintf(a.stdout, "size:      %s on the server\n", humanBytes(tot.Bytes))
	fmt.Fprintf(a.stdout, "elapsed:   %s (%.1f tenants/s)\n", tot.Elapsed.Round(1e7), rate)
	return nil
}

// humanBytes renders a size in B, kB, MB, GB.
func humanBytes(n int64) string {
	v := float64(n)
	for _, u := range []string{"B", "kB", "MB", "GB", "TB", "PB"} {
		if v < 1024 || u == "PB" {
			if u == "B" {
				return fmt.Sprintf("%d B", n)
			}
			return fmt.Sprintf("%.1f %s", v, u)
		}
		v /= 1024
	}
	return ""
}

// checkFleet is `check WORKLOAD --tenants N`.
func (a *app) checkFleet(ctx context.Context, gen workload.Generator, spec fleet.Spec, cf *connFlags, urls []string) error {
	if h, ok := gen.(workload.Hookser); !ok || h.Hooks().CheckConsistency == nil {
		return usagef("workload %s has no consistency checks", gen.Meta().Name)
	}
	t, err := a.fleetTarget(spec, gen, cf, urls, fleetConcurrency)
	if err != nil {
		return err
	}
	res, err := fleet.Check(ctx, fleet.CheckOptions{Target: t, NewGenerator: generatorFactory(gen, 1)})
	for _, f := range res.Failed {
		fmt.Fprintln(a.stdout, f.Error())
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "%d tenants checked, %d failed\n", res.Checked, len(res.Failed))
	if len(res.Failed) > 0 {
		return fmt.Errorf("%d of %d tenants failed their checks (listed above)", len(res.Failed), res.Checked)
	}
	return nil
}

// cleanupFleet is `cleanup WORKLOAD --tenants N`.
func (a *app) cleanupFleet(ctx context.Context, gen workload.Generator, spec fleet.Spec, cf *connFlags, urls []string) error {
	t, err := a.fleetTarget(spec, gen, cf, urls, fleetConcurrency)
	if err != nil {
		return err
	}
	var tables []string
	if spec.Mode == fleet.ModeColumn {
		gen.(workload.TenantColumner).SetTenant(1)
		for _, tb := range gen.Tables() {
			tables = append(tables, tb.Name)
		}
	}
	n, left, err := fleet.Drop(ctx, fleet.DropOptions{Target: t, Tables: tables})
	if err != nil {
		return err
	}
	switch spec.Mode {
	case fleet.ModeDatabase:
		fmt.Fprintf(a.stdout, "dropped %d tenant databases; %d left\n", n, left.Databases)
	case fleet.ModeSchema:
		fmt.Fprintf(a.stdout, "dropped %d tenant schemas from database %q; %d left\n", n, t.Base.Database, left.Schemas)
	default:
		fmt.Fprintf(a.stdout, "dropped the shared tables of %d tenants from database %q; %d tables left\n", n, t.Base.Database, left.Tables)
	}
	return nil
}

// fleetCmd is the `fleet` command group.
func (a *app) fleetCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "fleet",
		Short: "Work on every tenant of a fleet (see --tenants of init)",
		Args:  usageArgs(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.fleetExecCmd())
	return cmd
}

// fleetExecCmd is `fleet exec`.
func (a *app) fleetExecCmd() *cobra.Command {
	cf := &connFlags{}
	tf := &tenantFlags{}
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
same command after a failure or Ctrl-C skips the tenants done; --restart ignores the
record.

Examples:
  stampede fleet exec --workload tpcc --tenants 20000 'ALTER TABLE customer ADD COLUMN note TEXT' 'postgresql://postgres@localhost:5432'
  stampede fleet exec --workload bank --tenants 2000 --tenant-mode schema --db bank --concurrency 16 'CREATE INDEX ON bank (balance)'

` + urlHelp,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("give the statement to apply: `stampede fleet exec --workload NAME --tenants N 'ALTER TABLE ...' [URL...]`")
			}
			stmt, urls := args[0], args[1:]
			if strings.TrimSpace(stmt) == "" {
				return usagef("the statement is empty")
			}
			for _, u := range urls {
				if !strings.Contains(u, "://") && !strings.Contains(u, "=") {
					return usagef("unexpected argument %q: give one statement, then URLs (quote the statement)", sqlx.Redact(u))
				}
			}
			if workloadName == "" {
				return usagef("name the fleet's workload with --workload (it names the default tenant pattern and database)")
			}
			m, ok := workload.Get(workloadName)
			if !ok {
				return usagef("unknown workload %q: see `stampede workloads` (available: %s)", workloadName, workloadNames())
			}
			spec, on, err := tf.spec(m.Name)
			if err != nil {
				return err
			}
			if !on {
				return usagef("give the number of tenants: --tenants N")
			}
			if concurrency < 1 {
				return usagef("--concurrency %d: need at least 1", concurrency)
			}
			gen := m.New()
			t, err := a.fleetTarget(spec, gen, cf, urls, concurrency)
			if err != nil {
				return err
			}
			root, err := resultsRoot(resultsDir)
			if err != nil {
				return err
			}
			record := filepath.Join(root, "fleet-exec", execRecordName(stmt, spec, t.Base)+".ndjson")
			return a.fleetExec(cmd.Context(), t, stmt, record, restart)
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.StringVar(&workloadName, "workload", "", "the fleet's workload (required)")
	tf.register(fs)
	fs.IntVar(&concurrency, "concurrency", 8, "number of tenants worked on at once")
	fs.BoolVar(&restart, "restart", false, "ignore the record of an earlier run: apply the statement to every tenant")
	fs.StringVar(&resultsDir, "results-dir", "", "where the record of tenants done is kept (default $STAMPEDE_RESULTS_DIR or ~/.stampede/runs)")
	cf.register(fs)
	return cmd
}

// execRecordName is the record's file name: a hash of what makes two
// invocations the same job (the statement, the fleet, and the server and
// database it is on, so that a statement applied to a staging fleet is
// not skipped on production).
func execRecordName(stmt string, spec fleet.Spec, base sqlx.Options) string {
	h := sha256.New()
	parts := []string{stmt, spec.Pattern, string(spec.Mode), base.Database}
	if cfgs, err := sqlx.ParseConfigs(base); err == nil {
		for _, c := range cfgs {
			parts = append(parts, fmt.Sprintf("%s:%d", c.ConnConfig.Host, c.ConnConfig.Port))
		}
	}
	if spec.Mode == fleet.ModeDatabase {
		parts[3] = ""
	}
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func (a *app) fleetExec(ctx context.Context, t fleet.Target, stmt, record string, restart bool) error {
	fmt.Fprintf(a.stderr, "applying to %s, %d at once; record %s\n", tenantsSummary(t.Spec), t.Concurrency, record)
	res, err := fleet.Exec(ctx, fleet.ExecOptions{Target: t, Statement: stmt, Record: record, Restart: restart})
	for _, f := range res.Failed {
		fmt.Fprintln(a.stdout, f.Error())
	}
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted after %d tenants: run the same command again to apply the statement to the others", res.Applied)
		}
		return err
	}
	s := stats.Summarize(res.Latency, 0, res.Elapsed)
	if t.Spec.Mode == fleet.ModeColumn {
		fmt.Fprintf(a.stdout, "applied once to the shared tables of every tenant: %d applied now, %d done earlier, %d failed in %s\n",
			res.Applied, res.Skipped, len(res.Failed), res.Elapsed.Round(1e6))
	} else {
		fmt.Fprintf(a.stdout, "applied to %d tenants, %d skipped (done earlier), %d failed in %s\n",
			res.Applied, res.Skipped, len(res.Failed), res.Elapsed.Round(1e6))
	}
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
