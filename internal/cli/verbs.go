package cli

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// verb is a command that takes a workload: init, run, check, cleanup.
type verb struct {
	name  string
	short string
	// example is a usage line; WORKLOAD is replaced by the workload's name.
	example string
	// aliases are other names of the verb (sysbench's "prepare").
	aliases []string
}

var (
	verbInit = verb{"init", "Create a workload's schema and load its initial data (sysbench's prepare)",
		"stampede init WORKLOAD [flags] [URL...]", []string{"prepare"}}
	verbRun = verb{"run", "Run a workload and report throughput and latency",
		"stampede run WORKLOAD [flags] [URL...]", nil}
	verbCheck = verb{"check", "Run a workload's consistency checks",
		"stampede check WORKLOAD [flags] [URL...]", nil}
	verbCleanup = verb{"cleanup", "Drop a workload's tables",
		"stampede cleanup WORKLOAD [flags] [URL...]", nil}
)

const urlHelp = `URLs are libpq connection strings: postgresql://user:password@host:port/db?sslmode=...
or key=value pairs. With no URL, the libpq environment variables apply (PGHOST, PGPORT,
PGUSER, PGPASSWORD, PGDATABASE, PGSSLMODE, ...). With several URLs, connections are
spread round-robin over them.`

// workloadVerb builds a verb command with one subcommand per workload.
func (a *app) workloadVerb(v verb) *cobra.Command {
	cmd := &cobra.Command{
		Use:     v.name + " WORKLOAD [flags] [URL...]",
		Aliases: v.aliases,
		Short:   v.short,
		Long:    v.short + ".\n\n" + urlHelp + "\n\nWorkloads: " + workloadNames() + " (see `stampede workloads`).",
		Args:    cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("name a workload: `%s` (workloads: %s)", strings.Replace(v.example, "WORKLOAD", "NAME", 1), workloadNames())
			}
			if strings.Contains(args[0], "://") || strings.Contains(args[0], "=") {
				return usagef("%q is a URL, not a workload: name the workload first, as in `stampede %s WORKLOAD [flags] URL...` (workloads: %s)", sqlx.Redact(args[0]), v.name, workloadNames())
			}
			return usagef("unknown workload %q: see `stampede workloads` (available: %s)", args[0], workloadNames())
		},
	}
	for _, m := range workload.Registered() {
		cmd.AddCommand(a.workloadCmd(v, m))
	}
	return cmd
}

func workloadNames() string {
	var names []string
	for _, m := range workload.Registered() {
		names = append(names, m.Name)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// workloadCmd builds `VERB NAME`.
func (a *app) workloadCmd(v verb, m workload.Meta) *cobra.Command {
	gen := m.New()
	cf := &connFlags{}
	rf := &runFlags{}
	inf := &initFlags{}
	tf := &tenantFlags{}
	fif := &fleetInitFlags{}
	frf := &fleetRunFlags{}
	cmd := &cobra.Command{
		Use:   m.Name + " [flags] [URL...]",
		Short: m.Description,
		Long:  m.Description + "\n\n" + urlHelp,
		Args:  cobra.ArbitraryArgs,
	}
	if m.Details != "" {
		cmd.Long = m.Details + "\n\n" + urlHelp
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	if f, ok := gen.(workload.Flagser); ok {
		fs.AddFlagSet(f.Flags().FlagSet)
		acceptDashes(fs)
	}
	cf.register(fs)
	switch v.name {
	case "init":
		inf.register(fs)
	case "check", "cleanup":
		// sysbench passes its general options to every command.
		fs.IntVar(&inf.threads, "threads", 0, "sysbench's option, accepted and unused here")
		_ = fs.MarkHidden("threads")
	case "run":
		rf.register(fs)
		tf.register(fs)
		frf.register(fs)
	}
	if v.name != "run" {
		tf.register(fs)
		if v.name == "init" {
			fif.register(fs)
		}
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		ctx := cmd.Context()
		a.setCommand(cmd)
		for _, arg := range args {
			if !strings.Contains(arg, "://") && !strings.Contains(arg, "=") {
				return usagef("unexpected argument %q: URLs look like postgresql://user@host:port/db (see `stampede %s %s --help`)", sqlx.Redact(arg), v.name, m.Name)
			}
		}
		if h, ok := gen.(workload.Hookser); ok && h.Hooks().Validate != nil {
			if err := h.Hooks().Validate(); err != nil {
				return asUsage(err)
			}
		}
		a.warnIgnored(v.name, m, gen)
		if v.name != "run" {
			spec, on, err := tf.spec(m.Name)
			if err == nil && v.name == "init" {
				err = fif.validate(fs, on)
			}
			if err != nil {
				return err
			}
			if on {
				switch v.name {
				case "init":
					return a.initFleet(ctx, gen, spec, cf, inf, fif, args)
				case "check":
					return a.checkFleet(ctx, gen, spec, cf, args)
				default:
					return a.cleanupFleet(ctx, gen, spec, cf, args)
				}
			}
		}
		switch v.name {
		case "init":
			return a.initWorkload(ctx, gen, cf, inf, args)
		case "run":
			if err := rf.resolve(fs); err != nil {
				return err
			}
			if ec := fs.Lookup("expensive-checks"); ec != nil && ec.Changed && ec.Value.String() == "true" && rf.skipChecks {
				return usagef("--expensive-checks adds checks that --skip-checks skips: give one of them")
			}
			_, err := a.runWorkload(ctx, runSpec{gen: gen, conn: cf, flags: rf, fs: fs, urls: args, tenants: tf, fleet: frf})
			return err
		case "check":
			return a.checkWorkload(ctx, gen, cf, args)
		default:
			return a.cleanupWorkload(ctx, gen, cf, args)
		}
	}
	return cmd
}

// openDB opens the workload's database (creating it first when create is
// set) with the given number of connections.
func (a *app) openDB(ctx context.Context, gen workload.Generator, cf *connFlags, urls []string, conns int, create bool) (*sqlx.DB, error) {
	opts, err := cf.options(urls, gen.Meta().DatabaseName(), conns)
	if err != nil {
		return nil, err
	}
	if create {
		created, err := sqlx.EnsureDatabase(ctx, opts)
		if err != nil {
			return nil, err
		}
		if created {
			fmt.Fprintf(a.stderr, "created database %q\n", opts.Database)
		}
	}
	return sqlx.Open(ctx, opts)
}

// initFlags control loading.
type initFlags struct {
	drop        bool
	analyze     bool
	concurrency int
	threads     int
	seed        uint64
	fs          *pflag.FlagSet // the flags registered in, to tell which were given
}

func (f *initFlags) register(fs *pflag.FlagSet) {
	f.fs = fs
	fs.BoolVar(&f.drop, "drop", false, "drop existing tables first")
	fs.BoolVar(&f.analyze, "analyze", true, "refresh the planner's statistics (ANALYZE) after loading; the sysbench workloads skip it unless given, as sysbench's prepare does")
	fs.IntVar(&f.concurrency, "concurrency", 2*runtime.GOMAXPROCS(0), "number of parallel COPY streams")
	fs.IntVar(&f.threads, "threads", 0, "sysbench's name for --concurrency")
	_ = fs.MarkHidden("threads")
	fs.Uint64Var(&f.seed, "seed", 0, "random seed for the generated data (0: pick one and print it)")
	fs.Uint64Var(&f.seed, "rand-seed", 0, "sysbench's name for --seed")
	_ = fs.MarkHidden("rand-seed")
}

// resolveLoaders applies --threads (sysbench's name for --concurrency)
// and checks the number of loaders, naming the flag the user gave.
func (f *initFlags) resolveLoaders() error {
	name := "--concurrency"
	if f.fs != nil && f.fs.Changed("threads") {
		if f.fs.Changed("concurrency") && f.threads != f.concurrency {
			return usagef("--threads %d and --concurrency %d disagree: give one of them", f.threads, f.concurrency)
		}
		f.concurrency, name = f.threads, "--threads"
	}
	if f.concurrency < 1 {
		return usagef("%s %d: need at least 1 loader", name, f.concurrency)
	}
	return checkSize(name, int64(f.concurrency), bytesPerLoader, "COPY stream", "a few per CPU of the server are enough")
}

func (a *app) initWorkload(ctx context.Context, gen workload.Generator, cf *connFlags, f *initFlags, urls []string) error {
	if err := f.resolveLoaders(); err != nil {
		return err
	}
	seed := pickSeed(f.seed)
	if d, ok := gen.(workload.RunDefaulter); ok {
		for _, w := range d.RunDefaults().Warnings {
			fmt.Fprintf(a.stderr, "warning: %s\n", w)
		}
	}
	if s, ok := gen.(workload.Seeder); ok {
		s.SetSeed(seed)
	}
	db, err := a.openDB(ctx, gen, cf, urls, f.concurrency+1, true)
	if err != nil {
		return err
	}
	defer db.Close()
	tables := gen.Tables()
	total := workload.TotalRows(tables)
	if !f.drop {
		// Refuse before the header, so that the refusal is the only line.
		if err := workload.CheckNoTables(ctx, db, gen, tables); err != nil {
			return tablesExistError(err)
		}
	} else if err := a.sayDrops(ctx, db, tables); err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "loading %s into database %q on %s: %d rows, %d streams, seed %d\n",
		gen.Meta().Name, db.Database(), strings.Join(db.Endpoints(), ","), total, f.concurrency, seed)
	bar := newProgress(a.stderr, "rows", total)
	sent0 := db.BytesSent()
	bar.bytes = func() int64 { return db.BytesSent() - sent0 }
	skipAnalyze := gen.Meta().NoAnalyze
	if f.fs != nil && f.fs.Changed("analyze") {
		skipAnalyze = !f.analyze
	}
	err = workload.Setup(ctx, db, gen, workload.LoadOptions{Drop: f.drop, Concurrency: f.concurrency, Progress: bar.Add,
		SkipAnalyze: skipAnalyze})
	bar.Done()
	if err != nil {
		if errors.Is(err, workload.ErrTablesExist) {
			return tablesExistError(err)
		}
		if ctx.Err() != nil {
			return fmt.Errorf("init interrupted: the tables are partially loaded; run `stampede init %s --drop` to start over", gen.Meta().Name)
		}
		return err
	}
	if err := workload.RecordLoad(ctx, db, gen); err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "loaded %d rows in %s (%.0f rows/s, %.1f MB/s sent)\n", total, bar.Elapsed().Round(1e6), bar.Rate(),
		float64(db.BytesSent()-sent0)/1e6/max(bar.Elapsed().Seconds(), 1e-9))
	return nil
}

// sayDrops names, before --drop drops them, the tables that exist.
func (a *app) sayDrops(ctx context.Context, db *sqlx.DB, tables []workload.Table) error {
	existing, err := workload.ExistingTables(ctx, db, tables)
	if err != nil {
		return err
	}
	where := fmt.Sprintf("database %q on %s", db.Database(), strings.Join(db.Endpoints(), ","))
	if len(existing) == 0 {
		fmt.Fprintf(a.stderr, "--drop: no table to drop in %s\n", where)
		return nil
	}
	fmt.Fprintf(a.stderr, "--drop: dropping %s (%s) in %s\n", plural(len(existing), "table"), strings.Join(existing, ", "), where)
	return nil
}

// tablesExistError is a usage error (exit 2) saying which table exists and
// how to start over, without ErrTablesExist's prefix.
func tablesExistError(err error) error {
	return asUsage(errors.New(strings.TrimPrefix(err.Error(), workload.ErrTablesExist.Error()+": ")))
}

func (a *app) checkWorkload(ctx context.Context, gen workload.Generator, cf *connFlags, urls []string) error {
	h, ok := gen.(workload.Hookser)
	if !ok || h.Hooks().CheckConsistency == nil {
		return usagef("workload %s has no consistency checks", gen.Meta().Name)
	}
	db, err := a.openDB(ctx, gen, cf, urls, 4, false)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := a.reconcileLoad(ctx, db, gen); err != nil {
		return err
	}
	return h.Hooks().CheckConsistency(ctx, db, printer{a.stdout})
}

// reconcileLoad compares the data flags with what init recorded (see
// workload.ReconcileLoad): a flag given with another value is refused in
// one line, a flag not given takes the loaded value, with a note.
func (a *app) reconcileLoad(ctx context.Context, db *sqlx.DB, gen workload.Generator) error {
	notes, err := workload.ReconcileLoad(ctx, db, gen)
	for _, n := range notes {
		fmt.Fprintf(a.stderr, "note: %s\n", n)
	}
	var mismatch *workload.LoadMismatchError
	if errors.As(err, &mismatch) {
		return asUsage(err)
	}
	return err
}

func (a *app) cleanupWorkload(ctx context.Context, gen workload.Generator, cf *connFlags, urls []string) error {
	db, err := a.openDB(ctx, gen, cf, urls, 1, false)
	if err != nil {
		return err
	}
	defer db.Close()
	tables := gen.Tables()
	existing, err := workload.ExistingTables(ctx, db, tables)
	if err != nil {
		return err
	}
	if len(existing) == 0 && !db.Null() {
		fmt.Fprintf(a.stderr, "no table of %s in database %q on %s: nothing to drop\n", gen.Meta().Name, db.Database(), strings.Join(db.Endpoints(), ","))
	}
	for i := len(existing) - 1; i >= 0; i-- {
		if _, err := db.Exec(ctx, db.Dialect().DropTable(existing[i])); err != nil {
			return fmt.Errorf("dropping %s: %w", existing[i], err)
		}
		fmt.Fprintf(a.stderr, "dropped table %s\n", existing[i])
	}
	if err := workload.ForgetLoad(ctx, db, gen); err != nil {
		return fmt.Errorf("removing the record of the load from %s: %w", workload.LoadRecordTable, err)
	}
	if h, ok := gen.(workload.Hookser); ok && h.Hooks().Cleanup != nil {
		return h.Hooks().Cleanup(ctx, db, printer{a.stderr})
	}
	return nil
}

// printer adapts an io.Writer to workload.Reporter.
type printer struct {
	w interface{ Write([]byte) (int, error) }
}

func (p printer) Printf(format string, args ...any) {
	fmt.Fprintf(p.w, format, args...)
	if !strings.HasSuffix(format, "\n") {
		fmt.Fprintln(p.w)
	}
}

// acceptDashes lets every flag of fs spelled with underscores (sysbench's
// script options: --table_size, --point_selects) be given with dashes as
// well, as sysbench 1.0 accepts --table-size for --table_size. Help keeps
// sysbench's spelling.
func acceptDashes(fs *pflag.FlagSet) {
	underscored := map[string]bool{}
	fs.VisitAll(func(f *pflag.Flag) {
		if strings.Contains(f.Name, "_") {
			underscored[f.Name] = true
		}
	})
	if len(underscored) == 0 {
		return
	}
	fs.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if u := strings.ReplaceAll(name, "-", "_"); underscored[u] {
			return pflag.NormalizedName(u)
		}
		return pflag.NormalizedName(name)
	})
}
