package run

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/redact"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// LoadSpec says what Load does: stampede init.
type LoadSpec struct {
	// Workload is the workload's generator, its flags parsed. Required.
	Workload workload.Generator
	// Conn says where; the database is created when missing.
	Conn Conn
	// Drop drops the workload's tables first (saying which); without it,
	// Load refuses when one exists. It drops only tables stampede made
	// (see workload.ForeignTables), and refuses others, unless ForceDrop.
	Drop bool
	// Action names, in a refusal, what would have dropped the tables
	// ("--reload" for a sweep's); "--drop" when empty.
	Action string
	// ForceDrop lets Drop drop tables that stampede did not make
	// (--force-drop).
	ForceDrop bool
	// DropFormer, with Drop, drops too the tables of the load recorded
	// in the database that this load does not make
	// (workload.FormerTables: a sweep's previous step loaded --tables 3,
	// this step loads 1), stampede's own only, as Drop's.
	DropFormer bool
	// Concurrency is the number of parallel COPY streams; 0 means 2 per
	// CPU.
	Concurrency int
	// Seed seeds the generated data; 0 picks one (and says which).
	Seed uint64
	// Analyze refreshes the planner's statistics after the load; nil
	// means the workload's default (all but the sysbench scripts).
	Analyze *bool
	// Insert loads with multi-row INSERT statements instead of COPY
	// (cockroach workload's --data-loader=insert).
	Insert bool
	// Timer, when set, has the load insert and time each row as YCSB's
	// load does (workload.LoadOptions.Timer; YCSB's load report).
	Timer workload.InsertTimer
	// Log receives the load's lines (stderr on the command line).
	Log io.Writer
	// Progress, when set, is called with the rows loaded as they are,
	// and once with -1 when the load ends; total is the rows to load,
	// sent the bytes sent so far.
	Progress func(rows int64, total int64, sent func() int64)
	// Done, when set, is called once the data is loaded and recorded,
	// with the rows loaded and the time it took (YCSB's load report).
	Done func(rows int64, elapsed time.Duration)
	// Steps, when set, says how the tables are set up: each created
	// just before its load (CreateEach) and each step reported (Step),
	// for sysbench's lines (see workload.LoadOptions).
	Steps *workload.LoadOptions
	// Share, when its Count is set, makes this load one of Count that
	// split the data (init --clients N --client-index I): it loads share
	// Index only (see workload.ShareLoader), and the load is complete
	// when every share is in. It excludes Drop.
	Share Part
}

// bigLoad is the size of rows above which init warns (1 TB).
const bigLoad = 1 << 40

// ValidateLoad checks spec as Load does before it connects (init
// --dry-run): the workload's record table, the loaders, the share of a
// split load (its data split so, on a server) and an init file given;
// it connects to nothing and changes nothing but the generator's share.
func ValidateLoad(spec LoadSpec) error {
	if _, err := prepareLoad(spec); err != nil {
		return err
	}
	if _, err := spec.Conn.Options(spec.Workload.Meta().DatabaseName(), 1); err != nil {
		return err
	}
	if spec.Share.Count > 0 && spec.Conn.Driver == sqlx.DriverNull {
		return errNullShare
	}
	return nil
}

// errNullShare refuses a split load without a server.
var errNullShare = inputf("--clients with the null driver: a split load records its shares in the database; give a URL")

// prepareLoad checks spec and makes its generator the share spec.Share
// says, as Load does before it connects, and returns the number of COPY
// streams.
func prepareLoad(spec LoadSpec) (streams int, err error) {
	gen := spec.Workload
	if gen == nil {
		return 0, inputf("LoadSpec.Workload is nil: give a generator (workload.FromFlags)")
	}
	if err := workload.RecordTableError(gen, "init"); err != nil {
		return 0, asInput(err)
	}
	streams = spec.Concurrency
	if streams == 0 {
		streams = 2 * runtime.GOMAXPROCS(0)
	}
	if streams < 0 {
		return 0, inputf("LoadSpec.Concurrency %d is negative", streams)
	}
	if ss, ok := gen.(workload.SingleStreamer); ok && ss.SingleStream() {
		streams = 1 // its load is one stream whatever --concurrency says
	}
	if spec.Share.Count > 0 {
		if err := applyShare(gen, spec); err != nil {
			return 0, err
		}
	}
	if sl, ok := gen.(workload.ScriptLoader); ok && sl.LoadScript() == "" {
		return 0, inputf("init %s runs your init file: give --init-file FILE", gen.Meta().Name)
	}
	return streams, nil
}

// Load creates the workload's schema and loads its initial data, in
// parallel COPY streams, then records what it loaded (see
// workload.RecordLoad) for run and check to compare with.
func Load(ctx context.Context, spec LoadSpec) error {
	return copyHint(ctx, spec.Workload, spec.Conn, load(ctx, spec))
}

// copyHint completes the commands err suggests that drop stampede's
// tables, with --force-drop, when the database of gen on c is a copy of
// one stampede loaded (workload.CopyHint): they would be refused as
// written. It connects only for such an err.
func copyHint(ctx context.Context, gen workload.Generator, c Conn, err error) error {
	if !workload.SuggestsDrop(err) {
		return err
	}
	opts, oerr := c.Options(gen.Meta().DatabaseName(), 1)
	if oerr != nil || opts.Driver == sqlx.DriverNull {
		return err
	}
	db, oerr := sqlx.Open(ctx, opts)
	if oerr != nil {
		return err
	}
	defer db.Close()
	return workload.CopyHint(ctx, db, err)
}

// load is Load.
func load(ctx context.Context, spec LoadSpec) error {
	streams, err := prepareLoad(spec)
	if err != nil {
		return err
	}
	gen := spec.Workload
	log := spec.Log
	if log == nil {
		log = io.Discard
	}
	seed := pickSeed(spec.Seed)
	if d, ok := gen.(workload.RunDefaulter); ok {
		for _, w := range d.RunDefaults().Warnings {
			fmt.Fprintf(log, "warning: %s\n", w)
		}
	}
	if s, ok := gen.(workload.Seeder); ok {
		s.SetSeed(seed)
	}
	db, err := openDB(ctx, gen, spec.Conn, streams+1, true, log)
	if err != nil {
		return err
	}
	defer func() { db.Close() }() // the one inLoad may reopen
	if spec.Share.Count > 0 {
		return loadShare(ctx, spec, db, streams, seed, log)
	}
	if drops(gen, spec) {
		// Where the search path finds a user's tables of the load's
		// names first, the drop and the reload work on the load's
		// schema (its search path first, said in a note), as cleanup
		// does, never on the user's tables.
		opts, err := spec.Conn.Options(gen.Meta().DatabaseName(), streams+1)
		if err != nil {
			return err
		}
		if db, err = inLoad(ctx, db, opts, gen, "init", log); err != nil {
			return err
		}
	}
	if fd, ok := gen.(workload.ForceDropSetter); ok {
		fd.SetForceDrop(spec.ForceDrop)
	}
	if ll, ok := gen.(workload.LoadLogger); ok {
		ll.SetLoadLog(log)
	}
	if sl, ok := gen.(workload.SelfLoader); ok && sl.LoadsItself() {
		// --force-drop (which implies Drop) replaces a user's objects
		// beside the data kept: tpcc's init --routines-only --force-drop.
		if flag := keepsData(gen); flag != "" && spec.Drop && !spec.ForceDrop {
			return inputf("--drop with --%s: --%s keeps the data loaded and makes only what is missing beside it; leave --drop out, or leave --%s out to reload", flag, flag, flag)
		}
		return loadInput(sl.LoadItself(ctx, db))
	}
	tables := gen.Tables()
	total := workload.TotalRows(tables)
	if df, ok := gen.(workload.DropFirster); ok && df.DropsFirst() {
		spec.Drop = true // pgbench's step d
	}
	// join: a part of the data whose tables exist (see
	// workload.PartLoader) loads into them.
	join, adopt := false, false
	var adopted []string
	if ic, ok := gen.(workload.InitChecker); ok && !db.Null() {
		// Before anything is dropped or created: the refusal is the
		// only line.
		if err := ic.CheckInit(ctx, db); err != nil {
			return asInput(err)
		}
	}
	if !spec.Drop {
		// The tables its runs write (bulk_insert's sbtestN), which a
		// user's table of that name must not receive.
		verb := "init"
		if spec.Steps != nil && spec.Steps.PrepareRun {
			verb = "prepare" // sysbench's form: the verb the user gave
		}
		if err := refuseForeignRunTables(ctx, db, gen, verb); err != nil {
			return err
		}
		var pe *workload.LoadPartError
		if join, err = workload.JoinsLoad(ctx, db, gen, tables); errors.As(err, &pe) {
			return asInput(err)
		} else if err != nil {
			return err
		}
		// Refuse before the first line, so that the refusal is the only
		// line.
		if !join {
			// YCSB's JDBC binding has its users create usertable:
			// an empty one of the workload's shape is loaded into.
			if adopt, err = workload.AdoptsTables(ctx, db, gen, tables); errors.Is(err, workload.ErrTablesExist) {
				return tablesExist(err)
			} else if err != nil {
				return err
			}
			join = adopt
		}
		if err := workload.CheckNoTables(ctx, db, gen, tables); err != nil && !join {
			return tablesExist(err)
		}
		if join {
			// Tables a user made, which the load fills: they stay the
			// user's (recorded as adopted), as foreign as before.
			if adopted, err = workload.ForeignTables(ctx, db, gen, tableNamesOf(tables)); err != nil {
				return err
			}
		}
	} else {
		var former []workload.Table
		if spec.DropFormer {
			if former, err = workload.FormerTables(ctx, db, gen); err != nil {
				return err
			}
		}
		if err := sayDrops(ctx, db, gen, append(slices.Clone(tables), former...), spec.ForceDrop, spec.Action, log); err != nil {
			return err
		}
		for i := len(former) - 1; i >= 0; i-- { // refused above unless stampede's (or --force-drop)
			if _, err := db.Exec(ctx, db.Dialect().DropTable(former[i].Name)); err != nil {
				return fmt.Errorf("dropping %s: %w", former[i].Name, err)
			}
		}
		if spec.Steps != nil && spec.Steps.Step != nil {
			spec.Steps.Step(workload.LoadStep{Kind: workload.StepDrop}) // refused nothing: the drop begins
		}
		if err := dropScripted(ctx, db, gen, log); err != nil {
			return err // refused or failed: the record of what it made stays
		}
		if fd, ok := gen.(workload.FormerDropper); ok && !db.Null() {
			if err := fd.DropFormer(ctx, db, log); err != nil {
				return err
			}
		}
		if err := forgetLoad(ctx, db, gen, spec.ForceDrop); err != nil {
			return err // the record of the data dropped must not outlive it
		}
	}
	script, scripted := gen.(workload.ScriptLoader)
	if scripted {
		fmt.Fprintf(log, "loading %s into %s: running %s\n",
			gen.Meta().Name, db.Where(), script.LoadScript())
	} else {
		fmt.Fprintf(log, "loading %s into %s: %d rows, %s, seed %d\n",
			gen.Meta().Name, db.Where(), total, plural(streams, "stream"), seed)
	}
	if est := workload.EstimateBytes(tables); est > bigLoad {
		// Not refused: a cluster may hold it; said, so that a typo is
		// seen before hours of loading.
		fmt.Fprintf(log, "warning: this load is about %s of rows (estimated from its first batches), more than %s: it takes hours and at least that much disk on the server; Ctrl-C stops it\n",
			HumanBytes(est), HumanBytes(bigLoad))
	}
	sent0 := db.BytesSent()
	sent := func() int64 { return db.BytesSent() - sent0 }
	progress := func(n int64) {
		if spec.Progress != nil {
			spec.Progress(n, total, sent)
		}
	}
	skipAnalyze := gen.Meta().NoAnalyze
	if spec.Analyze != nil {
		skipAnalyze = !*spec.Analyze
	}
	start := time.Now()
	if adopt {
		fmt.Fprintf(log, "loading into the existing empty %s, which stays yours: cleanup and --drop leave it alone (%s drops it)\n", tableNames(tables), workload.ForceDropFlag)
	} else if join {
		fmt.Fprintf(log, "loading a part into the existing %s, beside the parts loaded before\n", tableNames(tables))
	}
	opts := workload.LoadOptions{Drop: spec.Drop, Concurrency: streams, Progress: progress,
		SkipAnalyze: skipAnalyze, SkipCreate: join, Insert: spec.Insert, Timer: spec.Timer}
	if spec.Steps != nil {
		opts.CreateEach, opts.Step, opts.PrepareRun = spec.Steps.CreateEach, spec.Steps.Step, spec.Steps.PrepareRun
	}
	if e, ok := gen.(interface{ SetErrorOutput(io.Writer) }); ok && scripted {
		e.SetErrorOutput(log) // what an init file's load says beside its lines
	}
	err = workload.Setup(ctx, db, gen, opts)
	var fe *workload.ForeignError
	for try := 0; scripted && spec.ForceDrop && errors.As(err, &fe) && fe.Action == "init sql" && try < 100; try++ {
		// The init file creates a table of the user's (its CREATE
		// failed): --force-drop drops it, and what the file made
		// before it, and runs the file again.
		kind := strings.TrimPrefix(fe.Kind, "partitioned ")
		name := db.Dialect().QuoteIdent(fe.Names[0])
		if strings.ContainsAny(fe.Names[0], `."`) {
			name = fe.Names[0] // as the file's statement writes it (a schema, quotes)
		}
		// CASCADE takes what depends on it: each named before it goes.
		deps, derr := workload.DependentsOf(ctx, db, []string{name})
		if derr != nil {
			return derr
		}
		with := ""
		if len(deps) > 0 {
			verb := map[bool]string{true: "depends", false: "depend"}[len(deps) == 1]
			with = ", and with it " + strings.Join(deps, ", ") + ", which " + verb + " on it (CASCADE)"
		}
		fmt.Fprintf(log, "%s: dropping %s %s, which stampede did not make%s, and running %s again\n", workload.ForceDropFlag, kind, fe.Names[0], with, script.LoadScript())
		if _, err := db.Exec(ctx, "DROP "+strings.ToUpper(kind)+" IF EXISTS "+name+" CASCADE"); err != nil {
			return fmt.Errorf("dropping %s %s: %w", kind, fe.Names[0], err)
		}
		if err := dropScripted(ctx, db, gen, log); err != nil {
			return err
		}
		err = workload.Setup(ctx, db, gen, opts)
	}
	progress(-1)
	if err != nil && scripted {
		return configInput(err) // the user's file, refused as bad input
	}
	if err != nil {
		if errors.Is(err, workload.ErrTablesExist) {
			return tablesExist(err)
		}
		if errors.Is(err, workload.ErrForeign) {
			return asInput(err) // bulk_insert's prepare over a user's table
		}
		if ctx.Err() != nil {
			return fmt.Errorf("init interrupted: the tables are partially loaded; run `stampede init %s --drop` to start over", gen.Meta().Name)
		}
		return err
	}
	if err := workload.RecordLoad(ctx, db, gen, adopted...); err != nil {
		return err
	}
	elapsed := time.Since(start)
	secs := max(elapsed.Seconds(), 1e-9)
	if scripted {
		total = script.LoadedRows()
		fmt.Fprintf(log, "ran %s in %s: %d rows written by COPY and INSERT\n", script.LoadScript(), elapsed.Round(time.Millisecond), total)
		if spec.Done != nil {
			spec.Done(total, elapsed)
		}
		return nil
	}
	fmt.Fprintf(log, "loaded %d rows in %s (%.0f rows/s, %.1f MB/s sent)\n", total, elapsed.Round(time.Millisecond),
		float64(total)/secs, float64(sent())/1e6/secs)
	if spec.Done != nil {
		spec.Done(total, elapsed)
	}
	return nil
}

// keepsData returns the name of a flag given to gen that keeps the data
// loaded (workload.FlagMeta.KeepsData), "" for none.
func keepsData(gen workload.Generator) string {
	f, ok := gen.(workload.Flagser)
	if !ok || f.Flags().FlagSet == nil {
		return ""
	}
	name := ""
	f.Flags().VisitAll(func(fl *pflag.Flag) {
		if fl.Changed && f.Flags().Meta[fl.Name].KeepsData && name == "" {
			name = fl.Name
		}
	})
	return name
}

// tablesExist is an error matching ErrInput that says which table exists
// and how to start over, without workload.ErrTablesExist's prefix.
func tablesExist(err error) error {
	return inputError{errors.New(strings.TrimPrefix(err.Error(), workload.ErrTablesExist.Error()+": "))}
}

// splitTablesExist rewords, for a split load (--clients), the refusal of
// a table that stampede did not make: --force-drop, which drops it in
// init's own form, is not for a client of a split load (the clients
// would drop each other's shares), so the drop is a step of its own,
// once, before every client's init.
func splitTablesExist(err error, name string) error {
	msg, ok := strings.CutSuffix(err.Error(), ", or to drop it anyway, add "+workload.ForceDropFlag)
	if !ok {
		return err
	}
	return inputf("%s, or to drop it anyway, run `stampede cleanup %s %s` once first, then every client's init", msg, name, workload.ForceDropFlag)
}

// drops reports whether the load drops the workload's tables first:
// --drop, or a first step that drops (pgbench's -I d...).
func drops(gen workload.Generator, spec LoadSpec) bool {
	df, ok := gen.(workload.DropFirster)
	return spec.Drop || ok && df.DropsFirst()
}

// tableNamesOf returns the tables' names.
func tableNamesOf(tables []workload.Table) []string {
	names := make([]string, len(tables))
	for i, t := range tables {
		names[i] = t.Name
	}
	return names
}

// tableNames lists the tables' names.
func tableNames(tables []workload.Table) string {
	names := make([]string, len(tables))
	for i, t := range tables {
		names[i] = t.Name
	}
	return strings.Join(names, ", ")
}

// sayDrops names, before a drop drops them, the tables that exist, and
// refuses (unless force) those stampede did not make, by action ("--drop"
// when empty).
func sayDrops(ctx context.Context, db *sqlx.DB, gen workload.Generator, tables []workload.Table, force bool, action string, log io.Writer) error {
	existing, err := workload.ExistingTables(ctx, db, tables)
	if err != nil {
		return err
	}
	foreign, err := workload.ForeignTables(ctx, db, gen, existing)
	if err != nil {
		return err
	}
	runTables, err := dropsRunTables(ctx, db, gen)
	if err != nil {
		return err
	}
	for _, t := range runTables {
		c, err := workload.TableComment(ctx, db, t)
		if err != nil {
			return err
		}
		if !workload.IsMarkOf(c, gen) {
			foreign = append(foreign, t) // bulk_insert's sbtestN of a user's
		}
	}
	if action == "" {
		action = "--drop"
	}
	if df, ok := gen.(workload.DropFirster); ok && df.DropsFirst() {
		action = "init's step d (drop)" // pgbench's steps: no --drop given
	}
	drop := append(slices.Clone(existing), runTables...)
	shadowed, err := workload.ShadowedTables(ctx, db, gen, tableNamesOf(tables))
	if err != nil {
		return err
	}
	cascade, err := refuseAll(ctx, db, gen, foreign, existing, drop, shadowed, force, action, log)
	if err != nil {
		return err
	}
	names, err := workload.QualifiedNames(ctx, db, existing)
	if err != nil {
		return err
	}
	if cascade {
		// --force-drop: the tables go now, with what depends on
		// them; the load's own drop finds them gone.
		for i := len(drop) - 1; i >= 0; i-- {
			if _, err := db.Exec(ctx, db.Dialect().DropTable(drop[i])+" CASCADE"); err != nil {
				return fmt.Errorf("dropping %s: %w", drop[i], err)
			}
		}
	}
	// The load's tables that the search path hides go now, by name, as
	// the record says, before the record goes (ForgetLoad).
	if err := dropShadowed(ctx, db, shadowed, cascade, nil); err != nil {
		return err
	}
	where := db.Where()
	if _, scripted := gen.(workload.ScriptLoader); scripted && len(existing) == 0 {
		return nil // dropScripted says what it drops
	}
	if len(existing) == 0 && len(runTables) == 0 {
		fmt.Fprintf(log, "--drop: no table to drop in %s\n", where)
		return nil
	}
	if len(existing) == 0 {
		return nil // dropScripted says which of the runs' it drops
	}
	for _, s := range shadowed {
		names = append(names, s.Name)
	}
	fmt.Fprintf(log, "--drop: dropping %s (%s) in %s\n", plural(len(names), "table"), strings.Join(names, ", "), where)
	return nil
}

// dropShadowed drops the load's tables that the search path hides
// (workload.ShadowedTables), by their qualified names, saying each on
// log when log is set.
func dropShadowed(ctx context.Context, db *sqlx.DB, shadowed []workload.Shadowed, cascade bool, log io.Writer) error {
	for i := len(shadowed) - 1; i >= 0; i-- {
		sql := "DROP TABLE IF EXISTS " + shadowed[i].Ref
		if cascade {
			sql += " CASCADE"
		}
		if _, err := db.Exec(ctx, sql); err != nil {
			return fmt.Errorf("dropping %s: %w", shadowed[i].Name, err)
		}
		if log != nil {
			fmt.Fprintf(log, "dropped table %s\n", shadowed[i].Name)
		}
	}
	return nil
}

// openDB opens the workload's database (creating it first when create is
// set, and saying so) with the given number of connections. Before it
// creates anything, a dialectChecker's CheckDialect may refuse the
// server.
func openDB(ctx context.Context, gen workload.Generator, c Conn, conns int, create bool, log io.Writer) (*sqlx.DB, error) {
	opts, err := c.Options(gen.Meta().DatabaseName(), conns)
	if err != nil {
		return nil, err
	}
	if dc, ok := gen.(dialectChecker); ok && create {
		// Refuse what the server cannot do before creating anything,
		// the database included.
		d, err := sqlx.ServerDialect(ctx, opts)
		if err != nil {
			return nil, err
		}
		if err := dc.CheckDialect(d); err != nil {
			return nil, asInput(err)
		}
	}
	if create {
		created, err := sqlx.EnsureDatabase(ctx, opts)
		if err != nil {
			return nil, err
		}
		if created {
			fmt.Fprintf(log, "created database %q\n", opts.Database)
		}
	}
	db, err := sqlx.Open(ctx, opts)
	if err != nil {
		return nil, configInput(err)
	}
	// A user's table of the name of init's record: refused before
	// anything is dropped, created or read.
	if err := workload.CheckRecordTable(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// checkConns is the number of connections Check opens.
const checkConns = 4

// Check runs the workload's consistency checks (stampede check), writing
// their lines to out and notes to log; its error says what failed.
func Check(ctx context.Context, gen workload.Generator, c Conn, out, log io.Writer) error {
	return copyHint(ctx, gen, c, check(ctx, gen, c, out, log))
}

// check is Check.
func check(ctx context.Context, gen workload.Generator, c Conn, out, log io.Writer) error {
	if gen == nil {
		return inputf("Check: the workload is nil")
	}
	if out == nil {
		out = io.Discard
	}
	h, ok := gen.(workload.Hookser)
	if ok && h.Hooks().CheckConsistency == nil && h.Hooks().NoChecks != "" {
		fmt.Fprintln(out, h.Hooks().NoChecks)
		return nil
	}
	if !ok || h.Hooks().CheckConsistency == nil {
		return inputf("workload %s has no consistency checks", gen.Meta().Name)
	}
	if log == nil {
		log = io.Discard
	}
	if len(c.URLs) > 1 {
		// Each URL may reach another server (a replica, a node): check
		// through every one, in turn, so that none goes unchecked.
		for i, u := range c.URLs {
			one := c
			one.URLs, one.Localities = []string{u}, nil
			if i < len(c.Localities) {
				one.Localities = []string{c.Localities[i]}
			}
			fmt.Fprintf(log, "checking through %s (URL %d of %d)\n", redact.Conn(u), i+1, len(c.URLs))
			if err := Check(ctx, gen, one, out, log); err != nil {
				return err
			}
		}
		return nil
	}
	db, err := openDB(ctx, gen, c, checkConns, false, log)
	if err != nil {
		return err
	}
	defer func() { db.Close() }() // the one inLoad may reopen
	if err := ReconcileLoad(ctx, db, gen, log); err != nil {
		return err
	}
	opts, err := c.Options(gen.Meta().DatabaseName(), checkConns)
	if err != nil {
		return err
	}
	if db, err = inLoad(ctx, db, opts, gen, "check", log); err != nil {
		return err
	}
	// Flags that differ from what was loaded, and an unfinished load,
	// are the command line's error, as a run's are.
	return configInput(loadInput(h.Hooks().CheckConsistency(ctx, db, printer{out})))
}

// CleanupSpec says what Cleanup does: stampede cleanup.
type CleanupSpec struct {
	// Workload is the workload's generator, its flags parsed. Required.
	Workload workload.Generator
	// Conn says where.
	Conn Conn
	// ForceDrop drops the workload's tables even where stampede did not
	// make them (--force-drop); without it Cleanup refuses them.
	ForceDrop bool
	// Log receives the lines saying what was dropped.
	Log io.Writer
	// Only, when set, limits the tables of runs dropped
	// (workload.Hooks.RunTables) to these, as sysbench's cleanup of
	// bulk_insert drops sbtest1..--threads only.
	Only []string
}

// NoDatabaseError is Cleanup's error for a database that does not exist:
// nothing of stampede's is there, and nothing was dropped; still an
// error, as the name may be a typo for the database that holds the load.
type NoDatabaseError struct {
	// Database is the database's name, Endpoint the server (host:port).
	Database, Endpoint string
	// Err is the connection's error (a *sqlx.ConnectError).
	Err error
}

func (e *NoDatabaseError) Error() string {
	return fmt.Sprintf("database %q does not exist on %s, nothing was dropped: %s", e.Database, e.Endpoint, sqlx.NoDatabaseHint)
}

// Unwrap returns the connection's error.
func (e *NoDatabaseError) Unwrap() error { return e.Err }

// Cleanup drops the workload's tables that exist (stampede cleanup), and
// the tables its runs made (workload.Hooks.RunTables), saying which on
// spec.Log, and forgets what init recorded of them. It drops only what
// stampede made (see workload.ForeignTables) unless spec.ForceDrop: when a
// table is not stampede's it drops nothing and says which in its error.
func Cleanup(ctx context.Context, spec CleanupSpec) error {
	gen := spec.Workload
	if gen == nil {
		return inputf("CleanupSpec.Workload is nil: give a generator (workload.FromFlags)")
	}
	if err := workload.RecordTableError(gen, "cleanup"); err != nil {
		return asInput(err)
	}
	log := spec.Log
	if log == nil {
		log = io.Discard
	}
	db, err := openDB(ctx, gen, spec.Conn, 1, false, log)
	if ce := (*sqlx.ConnectError)(nil); errors.As(err, &ce) && sqlx.IsMissingDatabase(err) {
		return &NoDatabaseError{Database: ce.Database, Endpoint: ce.Endpoint, Err: err}
	}
	if err != nil {
		return err
	}
	defer func() { db.Close() }() // the one inLoad may reopen
	if fd, ok := gen.(workload.ForceDropSetter); ok {
		fd.SetForceDrop(spec.ForceDrop)
	}
	// Drop every table of the load: the data flags init recorded, where
	// the command line does not give them (sbtest1..--tables).
	before := tableNames(gen.Tables())
	notes, err := workload.AdoptLoad(ctx, db, gen)
	if err != nil {
		return loadInput(err)
	}
	if before != tableNames(gen.Tables()) {
		// Said only where it changes what is dropped.
		for _, n := range notes {
			fmt.Fprintf(log, "note: %s\n", n)
		}
	}
	// Where the search path finds a user's tables of the load's names
	// first, cleanup works on the load's (its schema first), never on
	// the user's.
	opts, err := spec.Conn.Options(gen.Meta().DatabaseName(), 1)
	if err != nil {
		return err
	}
	if db, err = inLoad(ctx, db, opts, gen, "cleanup", log); err != nil {
		return err
	}
	tables, err := withInitMarked(ctx, db, gen, log)
	if err != nil {
		return err
	}
	existing, err := workload.ExistingTables(ctx, db, tables)
	if err != nil {
		return err
	}
	foreign, err := workload.ForeignTables(ctx, db, gen, existing)
	if err != nil {
		return err
	}
	var runTables []string
	if h, ok := gen.(workload.Hookser); ok && h.Hooks().RunTables != nil && !db.Null() {
		if runTables, err = h.Hooks().RunTables(ctx, db); err != nil {
			return err
		}
		if spec.Only != nil {
			runTables = slices.DeleteFunc(runTables, func(t string) bool { return !slices.Contains(spec.Only, t) })
		}
		for _, t := range runTables {
			c, err := workload.TableComment(ctx, db, t)
			if err != nil {
				return err
			}
			if !workload.IsMarkOf(c, gen) {
				foreign = append(foreign, t)
			}
		}
	}
	drop := append(slices.Clone(existing), runTables...)
	shadowed, err := workload.ShadowedTables(ctx, db, gen, tableNamesOf(gen.Tables()))
	if err != nil {
		return err
	}
	md, made := gen.(workload.MadeDropper)
	if made && !db.Null() {
		// The user's own cleanup file first (cleanup sql --cleanup-file),
		// so that what it drops is not refused; not on a copy, which is
		// refused before anything runs.
		if !spec.ForceDrop {
			var copied *workload.CopiedDatabaseError
			if err := workload.RefuseCopiedDatabase(ctx, db, "cleanup"); errors.As(err, &copied) {
				return asInput(err)
			} else if err != nil {
				return err
			}
		}
		if err := md.RunCleanupFile(ctx, db, log); err != nil {
			return configInput(err)
		}
	}
	// A role that may not drop one of them drops none, rather than
	// part of the load: refuseAll says so with every other problem.
	cascade, err := refuseAll(ctx, db, gen, foreign, existing, drop, shadowed, spec.ForceDrop, "cleanup", log)
	if err != nil {
		return err
	}
	dropTable := func(t string) string {
		if cascade {
			return db.Dialect().DropTable(t) + " CASCADE"
		}
		return db.Dialect().DropTable(t)
	}
	if len(drop)+len(shadowed) == 0 && !db.Null() && !made {
		fmt.Fprintf(log, "no table of %s in %s: nothing to drop%s\n", gen.Meta().Name, db.Where(), schemaFleetHere(ctx, db, gen))
	}
	names, err := workload.QualifiedNames(ctx, db, existing)
	if err != nil {
		return err
	}
	for i := len(existing) - 1; i >= 0; i-- {
		if _, err := db.Exec(ctx, dropTable(existing[i])); err != nil {
			return fmt.Errorf("dropping %s: %w", names[i], err)
		}
		fmt.Fprintf(log, "dropped table %s\n", names[i])
	}
	// What the record says the load made, where the search path hides
	// it: by its qualified name, before the record goes.
	if err := dropShadowed(ctx, db, shadowed, cascade, log); err != nil {
		return err
	}
	if oc, ok := gen.(workload.ObjectCleaner); ok && !db.Null() {
		if err := oc.CleanupObjects(ctx, db, log); err != nil {
			return err
		}
	}
	// What an init file made goes before the record: a refusal of a
	// user's part of it (an index made since) keeps the record, which
	// tells a copy of this database from it.
	if made {
		if err := md.DropMade(ctx, db, log, ""); err != nil {
			return configInput(err)
		}
	}
	if err := forgetLoad(ctx, db, gen, spec.ForceDrop); err != nil {
		return fmt.Errorf("removing the record of the load from %s: %w", workload.LoadRecordTable, err)
	}
	for _, t := range runTables {
		if _, err := db.Exec(ctx, dropTable(t)); err != nil {
			return fmt.Errorf("dropping %s: %w", t, err)
		}
		fmt.Fprintf(log, "dropped table %s\n", t)
	}
	return nil
}

// withInitMarked returns gen's tables and, after them, those the search
// path finds that carry the mark of stampede's init of gen's data though
// gen's flags do not name them (workload.InitMarkedTables: an init of
// --tables 4 killed before it recorded its load, cleaned up with the
// default --tables 1; HammerDB's orders under a cleanup without its
// --profile), saying on log that cleanup drops them too, and why, as
// init's record of the load tells.
func withInitMarked(ctx context.Context, db *sqlx.DB, gen workload.Generator, log io.Writer) ([]workload.Table, error) {
	tables := gen.Tables()
	extra, renamed, err := workload.InitMarkedTables(ctx, db, gen, tableNamesOf(tables))
	if err != nil {
		return tables, err
	}
	if len(renamed) > 0 {
		fmt.Fprintf(log, "kept %s (%s): %s the mark of stampede's init of %s under a name no load of %s uses, renamed to keep %s, so %s the user's now\n",
			plural(len(renamed), "table"), strings.Join(renamed, ", "), map[bool]string{true: "it carries", false: "they carry"}[len(renamed) == 1],
			gen.Meta().Name, gen.Meta().Name, map[bool]string{true: "it", false: "them"}[len(renamed) == 1], map[bool]string{true: "it is", false: "they are"}[len(renamed) == 1])
	}
	if len(extra) == 0 {
		return tables, nil
	}
	carry := map[bool]string{true: "carries", false: "carry"}[len(extra) == 1]
	// Which of the two: init's record of the load says it ended.
	why := "a load with other flags, or an init that ended before it recorded its load"
	if recordedHere(ctx, db, gen) {
		why = "init recorded its load here, with flags other than the cleanup's: another --profile, say"
	}
	fmt.Fprintf(log, "note: %s (%s) %s the mark of stampede's init of %s though its flags do not name %s (%s): cleanup drops %s too\n",
		plural(len(extra), "table"), strings.Join(extra, ", "), carry, gen.Meta().Name, map[bool]string{true: "it", false: "them"}[len(extra) == 1], why, map[bool]string{true: "it", false: "them"}[len(extra) == 1])
	for _, n := range extra {
		tables = append(tables, workload.Table{Name: n})
	}
	return tables, nil
}

// recordedHere reports whether init's record of gen's data is in db (a
// load that ended); false when it cannot be read.
func recordedHere(ctx context.Context, db *sqlx.DB, gen workload.Generator) bool {
	if ok, err := workload.TableExists(ctx, db, workload.LoadRecordTable); err != nil || !ok {
		return false
	}
	var found bool
	err := db.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM "+db.Dialect().QuoteIdent(workload.LoadRecordTable)+" WHERE data = "+db.Dialect().Placeholder(1)+")",
		workload.DataKeyOf(gen)).Scan(&found)
	return err == nil && found
}

// dropsRunTables returns, for a workload.RunTablesDropper that drops
// them, the tables of db its runs made (workload.Hooks.RunTables).
func dropsRunTables(ctx context.Context, db *sqlx.DB, gen workload.Generator) ([]string, error) {
	rd, ok := gen.(workload.RunTablesDropper)
	h, hooks := gen.(workload.Hookser)
	if !ok || !rd.DropsRunTables() || !hooks || h.Hooks().RunTables == nil || db.Null() {
		return nil, nil
	}
	return h.Hooks().RunTables(ctx, db)
}

// dropScripted drops, for init --drop of a workload whose load is a
// user's file (workload.ScriptLoader), the tables an earlier init of it
// made, and of a workload.RunTablesDropper (churn) the tables its runs
// made: they carry its mark (workload.Hooks.RunTables lists them).
func dropScripted(ctx context.Context, db *sqlx.DB, gen workload.Generator, log io.Writer) error {
	if md, ok := gen.(workload.MadeDropper); ok {
		if db.Null() {
			return nil
		}
		return configInput(md.DropMade(ctx, db, log, "--drop: "))
	}
	_, scripted := gen.(workload.ScriptLoader)
	rd, runs := gen.(workload.RunTablesDropper)
	runs = runs && rd.DropsRunTables()
	if !scripted && !runs || db.Null() {
		return nil
	}
	made := "an earlier init of " + gen.Meta().Name
	if runs {
		made = "a run of " + gen.Meta().Name
	}
	h, ok := gen.(workload.Hookser)
	if !ok || h.Hooks().RunTables == nil {
		return nil
	}
	tables, err := h.Hooks().RunTables(ctx, db)
	if err != nil {
		return err
	}
	for _, t := range tables {
		c, err := workload.TableComment(ctx, db, t)
		if err != nil {
			return err
		}
		if _, err := db.Exec(ctx, db.Dialect().DropTable(t)); err != nil {
			return fmt.Errorf("dropping %s: %w", t, err)
		}
		if !workload.IsMarkOf(c, gen) { // sayDrops refused it without --force-drop
			fmt.Fprintf(log, "%s: dropped table %s, which stampede did not make\n", workload.ForceDropFlag, t)
			continue
		}
		fmt.Fprintf(log, "--drop: dropped table %s, which %s made\n", t, made)
	}
	return nil
}

// refuseForeignRunTables refuses, for init (verb: "init", or sysbench's
// "prepare") without --drop of a workload.RunTablesDropper (bulk_insert),
// the tables of its runs that exist without stampede's mark (its runs
// would write into a user's table; --force-drop, which implies --drop,
// drops them first) or with the mark of another workload's load.
func refuseForeignRunTables(ctx context.Context, db *sqlx.DB, gen workload.Generator, verb string) error {
	runTables, err := dropsRunTables(ctx, db, gen)
	if err != nil {
		return err
	}
	var foreign []string
	for _, t := range runTables {
		c, err := workload.TableComment(ctx, db, t)
		if err != nil {
			return err
		}
		if !workload.IsMark(c) {
			foreign = append(foreign, t)
		}
	}
	// Tables of stampede's load of another workload (oltp's sbtestN under
	// bulk_insert's init): not the user's, but not this load's either.
	others, err := workload.OtherLoads(ctx, db, gen, runTables)
	if err != nil {
		return err
	}
	where := db.Where()
	var ferr, oerr error
	if len(foreign) > 0 {
		it := "it"
		if len(foreign) > 1 {
			it = "them"
		}
		ferr = &workload.ForeignError{Kind: "table", Names: foreign, Action: verb, Where: where,
			Why: "no mark of stampede's on " + it + ", which every table stampede makes carries; " + gen.Meta().Name + "'s runs would write into " + it + "; nothing was created"}
	}
	if len(others) > 0 {
		oerr = &workload.OtherLoadError{Tables: others, Workload: gen.Meta().Name, Action: verb, Where: where}
	}
	if err := workload.Refusal(ferr, oerr); err != nil {
		return asInput(err)
	}
	return nil
}

// refuseAll refuses to drop the tables drop (existing, the workload's,
// and its runs') and shadowed (the load's tables that the search path
// hides, see workload.ShadowedTables), unless force, when foreign names
// tables stampede did not make (refuseForeign), a user added to existing
// columns holding data (refuseAddedColumns), or objects stampede did not
// make depend on them (refuseDependents); and, even with force, when the
// connection's role may not drop one of them (workload.RefuseNotOwned).
// Every problem is surveyed before a word is said: one refusal names
// them all (workload.Refusal), so that what force then drops is what the
// refusal named, and only once nothing is refused does force say what
// goes. It returns whether to drop with CASCADE.
func refuseAll(ctx context.Context, db *sqlx.DB, gen workload.Generator, foreign, existing, drop []string, shadowed []workload.Shadowed, force bool, action string, log io.Writer) (bool, error) {
	var refs, userShadowed []string
	for _, s := range shadowed {
		refs = append(refs, s.Ref)
		if !s.Marked {
			userShadowed = append(userShadowed, s.Name)
		}
	}
	// Init's record table goes with the load's last record
	// (workload.ForgetLoad): what a user made on it is refused with the
	// rest, before anything is dropped.
	if goes, err := workload.RecordGoes(ctx, db, gen); err != nil {
		return false, err
	} else if goes {
		drop = append(slices.Clone(drop), workload.LoadRecordTable)
	}
	var notes []string
	note, ferr := refuseForeign(ctx, db, gen, foreign, userShadowed, force, action)
	if ferr != nil && !errors.Is(ferr, workload.ErrForeign) {
		return false, ferr
	}
	notes = append(notes, note...)
	ours := slices.DeleteFunc(slices.Clone(existing), func(t string) bool { return slices.Contains(foreign, t) })
	note, aerr := refuseAddedColumns(ctx, db, gen, ours, force, action)
	if aerr != nil && !errors.Is(aerr, workload.ErrForeign) {
		return false, aerr
	}
	notes = append(notes, note...)
	cascade, note, derr := refuseDependents(ctx, db, drop, refs, shadowed, force, action)
	if derr != nil && !errors.Is(derr, workload.ErrForeign) {
		return false, derr
	}
	notes = append(notes, note...)
	// Indexes a user made on any table the drop takes: the load's and
	// its runs' (churn's, bulk_insert's).
	dropped := slices.DeleteFunc(slices.Clone(drop), func(t string) bool { return slices.Contains(foreign, t) })
	idx, ierr := workload.UserIndexes(ctx, db, gen, dropped)
	if ierr != nil {
		return false, ierr
	}
	if len(idx) > 0 && force {
		notes = append(notes, fmt.Sprintf("%s: dropping %s, which stampede did not make, with %s", workload.ForceDropFlag, strings.Join(idx, ", "), indexTables(idx)))
	} else if len(idx) > 0 {
		ierr = &workload.UserIndexesError{Indexes: idx, Where: db.Where(), Action: action}
	}
	var cerr error
	if _, made := gen.(workload.MadeDropper); made || len(drop)+len(shadowed) > 0 {
		// (What init sql made is no table of its Tables: a copy of
		// it is refused too.)
		cerr = workload.RefuseCopiedDatabase(ctx, db, action)
	}
	var copied *workload.CopiedDatabaseError
	if cerr != nil && !errors.As(cerr, &copied) {
		return false, cerr
	}
	if force && copied != nil {
		notes, cerr = append([]string{copied.Note()}, notes...), nil
	}
	// What no flag forces: a table the role may not drop.
	oerr := workload.RefuseNotOwned(ctx, db, append(slices.Clone(drop), refs...))
	var denied *workload.DeniedError
	if oerr != nil && !errors.As(oerr, &denied) {
		return false, oerr
	}
	if force && oerr != nil {
		return false, asInput(oerr)
	}
	// What an init file made (init sql's): its own refusals, surveyed
	// now, so that the one refusal names them beside the record's.
	var merr error
	if md, ok := gen.(workload.MadeDropper); ok && !force && !db.Null() {
		madeAction := "--drop: "
		if action == "cleanup" {
			madeAction = ""
		}
		if merr = md.RefuseMade(ctx, db, madeAction); merr != nil && !errors.Is(merr, sqlx.ErrConfig) && !errors.Is(merr, workload.ErrForeign) {
			return false, merr
		}
	}
	problems := []error{cerr, ferr, aerr, ierr, derr, merr, oerr}
	if r := (*workload.RefusalError)(nil); errors.As(merr, &r) {
		// Its problems, each named in the one list.
		problems = append(append([]error{cerr, ferr, aerr, ierr, derr}, r.Problems...), oerr)
	}
	if err := workload.Refusal(problems...); err != nil {
		return false, asInput(err)
	}
	for _, n := range notes {
		fmt.Fprintln(log, n)
	}
	return cascade, nil
}

// forgetLoad removes gen's record of its load (workload.ForgetLoad), with
// CASCADE when force (workload.ForgetLoadCascade: refuseAll named what
// goes with the record table).
func forgetLoad(ctx context.Context, db *sqlx.DB, gen workload.Generator, force bool) error {
	if force {
		return workload.ForgetLoadCascade(ctx, db, gen)
	}
	return workload.ForgetLoad(ctx, db, gen)
}

// indexTables is "the table" or "their tables", as UserIndexes' list idx
// names one table or more.
func indexTables(idx []string) string {
	tables := map[string]bool{}
	for _, i := range idx {
		_, t, _ := strings.Cut(i, " on table ")
		tables[t] = true
	}
	if len(tables) == 1 {
		return "the table"
	}
	return "their tables"
}

// refuseForeign refuses, unless force, to drop tables that stampede did
// not make (by action: "cleanup", "--drop"): foreign, resolved through
// the search path, and shadowed, named schema-qualified (tables in the
// load's schema that the search path hides); with force it returns the
// line that says it drops them.
func refuseForeign(ctx context.Context, db *sqlx.DB, gen workload.Generator, foreign, shadowed []string, force bool, action string) ([]string, error) {
	if len(foreign)+len(shadowed) == 0 {
		return nil, nil
	}
	names, err := workload.QualifiedNames(ctx, db, foreign)
	if err != nil {
		return nil, err
	}
	if force {
		all := append(names, shadowed...)
		return []string{fmt.Sprintf("%s: dropping %s (%s), which stampede did not make", workload.ForceDropFlag, plural(len(all), "table"), strings.Join(all, ", "))}, nil
	}
	others, err := workload.OtherLoads(ctx, db, gen, foreign)
	if err != nil {
		return nil, err
	}
	where := db.Where()
	var oerr error
	if len(others) > 0 {
		named := map[string]string{}
		for i, t := range foreign {
			if w, ok := others[t]; ok {
				named[names[i]] = w
			}
		}
		oerr = &workload.OtherLoadError{Tables: named, Workload: gen.Meta().Name, Action: action, Where: where}
	}
	// The user's, beside (or without) another load's: one refusal.
	var mine, shown []string
	for i, t := range foreign {
		if _, ok := others[t]; !ok {
			mine, shown = append(mine, t), append(shown, names[i])
		}
	}
	shown = append(shown, shadowed...)
	var ferr error
	if len(shown) > 0 {
		adopted, err := workload.AdoptedTables(ctx, db, gen)
		if err != nil {
			return nil, err
		}
		moved, err := workload.MovedTables(ctx, db, gen, mine)
		if err != nil {
			return nil, err
		}
		copied, err := workload.CopiedTables(ctx, db, mine)
		if err != nil {
			return nil, err
		}
		elsewhere, err := workload.LoadsElsewhere(ctx, db, gen)
		if err != nil {
			return nil, err
		}
		ferr = workload.ForeignTablesError(db, gen, append(mine, shadowed...), action, moved, copied, adopted...)
		if fe, ok := ferr.(*workload.ForeignError); ok {
			fe.Names, fe.Elsewhere = shown, elsewhere
		}
	}
	return nil, workload.Refusal(oerr, ferr)
}

// refuseAddedColumns refuses, unless force, to drop the workload's tables
// when a user added to them columns holding data (workload.AddedColumns);
// with force it returns the line that says that they go.
func refuseAddedColumns(ctx context.Context, db *sqlx.DB, gen workload.Generator, tables []string, force bool, action string) ([]string, error) {
	cols, err := workload.AddedColumns(ctx, db, gen, tables)
	if err != nil || len(cols) == 0 {
		return nil, err
	}
	where := db.Where()
	if err := columnFleetHere(ctx, db, gen, cols, action); err != nil {
		return nil, err
	}
	if !force {
		return nil, &workload.AddedColumnsError{Columns: cols, Where: where, Action: action}
	}
	return []string{fmt.Sprintf("%s: dropping the columns %s, which stampede did not make, with their tables", workload.ForceDropFlag, strings.Join(cols, ", "))}, nil
}

// refuseDependents refuses, unless force, to drop tables (and refs, the
// shadowed tables as SQL writes them) when objects stampede did not make
// depend on them (workload.Dependents: a user's view, foreign key or
// column of their row type), which a drop without CASCADE fails over;
// with force it returns true (drop them with CASCADE) and the line that
// says so.
func refuseDependents(ctx context.Context, db *sqlx.DB, tables, refs []string, shadowed []workload.Shadowed, force bool, action string) (bool, []string, error) {
	deps, err := workload.Dependents(ctx, db, nil, tables)
	if err != nil {
		return false, nil, err
	}
	more, err := workload.DependentsOf(ctx, db, refs)
	if err != nil {
		return false, nil, err
	}
	for _, d := range more {
		if !slices.Contains(deps, d) {
			deps = append(deps, d)
		}
	}
	if len(deps) == 0 {
		return false, nil, nil
	}
	names, err := workload.QualifiedNames(ctx, db, tables)
	if err != nil {
		return false, nil, err
	}
	for _, s := range shadowed {
		names = append(names, s.Name)
	}
	what := "table " + strings.Join(names, ", ")
	if len(names) > 1 {
		what = "tables " + strings.Join(names, ", ")
	}
	what += fmt.Sprintf(" in %s", db.Where())
	if !force {
		// The refusal names the tables each object depends on, not
		// every table the drop would take.
		rels := make([]string, 0, len(tables)+len(refs))
		for _, t := range tables {
			rels = append(rels, db.Dialect().QuoteIdent(t))
		}
		on, objs, err := workload.DependedOn(ctx, db, append(rels, refs...), names, db.Where(), deps)
		if err != nil {
			return false, nil, err
		}
		return false, nil, &workload.DependentsError{What: on, Objects: objs, Action: action}
	}
	return true, []string{workload.ForceDropNote(what, len(names), deps)}, nil
}

// dialectChecker is implemented by generators whose flags ask for what
// only some servers do (ycsb's --regions: CockroachDB's multi-region
// databases): Load asks before creating anything, the database
// included, and refuses with the error.
type dialectChecker interface {
	CheckDialect(d dialect.Dialect) error
}

// applyShare checks spec.Share and makes gen load its share.
func applyShare(gen workload.Generator, spec LoadSpec) error {
	p := spec.Share
	sl, ok := gen.(workload.ShareLoader)
	switch {
	case p.Count < 1 || p.Count > maxClients:
		return inputf("--clients %d: give the number of clients that split the load, from 1 to %d", p.Count, maxClients)
	case p.Index < 0 || p.Index >= p.Count:
		return inputf("--client-index %d: give this client's share of the load, from 0 to %d (--clients %d)", p.Index, p.Count-1, p.Count)
	case !ok:
		return inputf("init %s cannot split its load between clients (--clients): load it from one client", gen.Meta().Name)
	case spec.Drop:
		return inputf("--drop with --clients: the clients of a split load would drop each other's shares; run `stampede cleanup %s` once, then every client's init without --drop", gen.Meta().Name)
	case spec.Steps != nil || spec.Timer != nil:
		return inputf("--clients: a split load prints stampede's lines only; drop --output-style (or the sysbench and pgbench command-line forms)")
	}
	if err := sl.LoadShare(p.Index, p.Count); err != nil {
		return asInput(err)
	}
	return nil
}

// loadShare is Load of share spec.Share (see workload.ShareLoader): the
// first client creates the tables, each loads its rows, and the last
// builds the indexes and finishes the load, all recorded in
// stampede_load under the load's lock.
func loadShare(ctx context.Context, spec LoadSpec, db *sqlx.DB, streams int, seed uint64, log io.Writer) error {
	gen := spec.Workload
	sl := gen.(workload.ShareLoader)
	p := spec.Share
	if db.Null() {
		return errNullShare
	}
	// Begin: under the lock, the first client records the load and
	// creates every table; the others check their flags against the
	// record. Without advisory locks two creators collide on the
	// record's key or a table's name, and the second tries again.
	var start workload.ShareStart
	var err error
	for range 3 {
		if start, err = beginShare(ctx, db, spec, seed); !collided(err) {
			break
		}
	}
	var mismatch *workload.ShareMismatchError
	switch {
	case errors.Is(err, workload.ErrTablesExist):
		return splitTablesExist(tablesExist(err), gen.Meta().Name)
	case errors.As(err, &mismatch):
		return asInput(err)
	case err != nil:
		return err
	}
	if start.Seed != seed {
		seed = start.Seed // the record's: every share draws from one seed
		if s, ok := gen.(workload.Seeder); ok {
			s.SetSeed(seed)
		}
	}
	partly := func() error {
		return inputf("client %d of %d's share of %s (%s) is partly loaded already in database %q (an init of it stopped before its end): start the split load over: `stampede cleanup %s`, then every client's init again",
			p.Index, p.Count, gen.Meta().Name, sl.ShareOf(p.Index, p.Count), db.Database(), gen.Meta().Name)
	}
	if pr, ok := gen.(workload.ShareProber); ok {
		// Tables without a unique key while the shares load would take
		// the share's rows a second time without an error.
		if in, err := pr.ShareLoaded(ctx, db); err != nil || in {
			return cmp.Or(err, partly())
		}
	}
	tables := gen.Tables()
	total := workload.TotalRows(tables)
	who := "created the tables; "
	if !start.Create {
		who = "into the tables another client created; "
	}
	fmt.Fprintf(log, "loading client %d of %d's share of %s (%s) into %s: %s%d rows, %s, seed %d\n",
		p.Index, p.Count, gen.Meta().Name, sl.ShareOf(p.Index, p.Count), db.Where(), who, total, plural(streams, "stream"), seed)
	sent0 := db.BytesSent()
	sent := func() int64 { return db.BytesSent() - sent0 }
	progress := func(n int64) {
		if spec.Progress != nil {
			spec.Progress(n, total, sent)
		}
	}
	began := time.Now()
	err = workload.LoadShareRows(ctx, db, gen, workload.LoadOptions{Concurrency: streams, Progress: progress, Insert: spec.Insert})
	progress(-1)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("init interrupted: client %d of %d's share is partially loaded; start the split load over with `stampede cleanup %s`", p.Index, p.Count, gen.Meta().Name)
		}
		if sqlx.SQLState(err) == "23505" {
			// Rows of the share are in already: an init of it stopped
			// before its end (killed), and its rows are not replaced.
			return partly()
		}
		return err
	}
	loaded := time.Since(began)
	// End: under the lock, record the share; the last one in builds the
	// indexes and statistics and runs PostLoad first.
	tx, err := db.Begin(ctx, sqlx.TxOptions{})
	if err != nil {
		return fmt.Errorf("recording the share: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if err := workload.ShareLock(ctx, tx, gen); err != nil {
		return err
	}
	skipAnalyze := gen.Meta().NoAnalyze
	if spec.Analyze != nil {
		skipAnalyze = !*spec.Analyze
	}
	last, err := workload.EndShare(ctx, db, tx, sl, p.Index, func() error {
		fmt.Fprintf(log, "every other share is in: building the indexes and finishing the load\n")
		return finishFailed(workload.FinishTables(ctx, db, gen, skipAnalyze), gen.Meta().Name, db.Database())
	})
	if err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("recording the share: %w", err)
	}
	elapsed := time.Since(began)
	secs := max(loaded.Seconds(), 1e-9)
	fmt.Fprintf(log, "loaded %d rows in %s (%.0f rows/s, %.1f MB/s sent)\n", total, loaded.Round(time.Millisecond),
		float64(total)/secs, float64(sent())/1e6/secs)
	if last {
		fmt.Fprintf(log, "the load is complete: all %d shares are in (finished in %s)\n", p.Count, elapsed.Round(time.Millisecond))
	} else {
		fmt.Fprintf(log, "recorded client %d of %d's share: run and check refuse the data until every share is in\n", p.Index, p.Count)
	}
	if spec.Done != nil {
		spec.Done(total, elapsed)
	}
	return nil
}

// finishFailed words the errors of a split load's index build that mean
// its data is not as the shares' records say (err of FinishTables; nil
// stays nil): a share loaded twice (a unique index that finds duplicate
// keys) or indexes built already (an earlier finish that stopped before
// it recorded its share).
func finishFailed(err error, name, database string) error {
	switch sqlx.SQLState(err) {
	case "23505":
		return inputf("the split load of %s in database %q holds a share's rows twice (building its unique index found duplicate keys): start the split load over: `stampede cleanup %s`, then every client's init again",
			name, database, name)
	case "42P16", "42P07":
		return inputf("the split load of %s in database %q has indexes built already (a finish of the load stopped before its end): start the split load over: `stampede cleanup %s`, then every client's init again",
			name, database, name)
	}
	return err
}

// collided reports whether err is a collision with another client of a
// split load that began at once (a unique violation, a table that
// exists): beginning again finds what it made.
func collided(err error) bool {
	s := sqlx.SQLState(err)
	return s == "23505" || s == "42P07"
}

// beginShare is the beginning of a split load's share, in a transaction
// that holds the load's lock: workload.BeginShare, and, for the first
// client, the tables' creation.
func beginShare(ctx context.Context, db *sqlx.DB, spec LoadSpec, seed uint64) (workload.ShareStart, error) {
	gen := spec.Workload
	p := spec.Share
	tx, err := db.Begin(ctx, sqlx.TxOptions{})
	if err != nil {
		return workload.ShareStart{}, fmt.Errorf("starting the split load: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if err := workload.ShareLock(ctx, tx, gen); err != nil {
		return workload.ShareStart{}, err
	}
	start, err := workload.BeginShare(ctx, db, tx, gen.(workload.ShareLoader), p.Index, p.Count, seed, spec.Seed != 0)
	if err != nil {
		return start, err
	}
	if start.Create {
		if err := workload.CreateShared(ctx, db, gen); err != nil {
			return start, err
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return start, fmt.Errorf("starting the split load: %w", err)
	}
	return start, nil
}

// columnFleetHere returns a usage error when the only columns added to
// the workload's tables are a column-mode fleet's tenant column and the
// database holds that fleet's marker: the command named no fleet, so it
// took the fleet's shared tables for a plain load with a column added
// (chk28e: "a column added since init"); the error names the fleet's
// own command. nil otherwise.
func columnFleetHere(ctx context.Context, db *sqlx.DB, gen workload.Generator, cols []string, action string) error {
	for _, c := range cols {
		if !strings.HasSuffix(c, "."+workload.TenantColumn) {
			return nil
		}
	}
	workloads, ok, err := workload.TenantMarkerWorkloads(ctx, db, "", workload.TenantMarkerTable)
	if err != nil || !ok || !slices.Contains(workloads, gen.Meta().Name) {
		return err
	}
	var n int64
	if err := db.QueryRow(ctx, "SELECT count(DISTINCT "+workload.TenantColumn+") FROM "+db.Dialect().QuoteIdent(workload.TenantMarkerTable)).Scan(&n); err != nil {
		return fmt.Errorf("counting the tenants of %s: %w", workload.TenantMarkerTable, err)
	}
	fix := "`stampede cleanup " + gen.Meta().Name + " --tenants " + strconv.FormatInt(n, 10) + " --tenant-mode column` drops it"
	if action != "cleanup" {
		fix = "`stampede init " + gen.Meta().Name + " --drop --tenants " + strconv.FormatInt(n, 10) + " --tenant-mode column` reloads it"
	}
	return inputf("%s holds a column-mode fleet of %d %s tenants (its shared tables' %s column): %s drops nothing without the fleet's flags; %s",
		db.Where(), n, gen.Meta().Name, workload.TenantColumn, action, fix)
}

// schemaFleetHere returns, for cleanup's "nothing to drop", a note that db
// holds the tenant schemas of a schema-mode fleet of gen's workload (their
// mark), with the command that drops them: a cleanup without the fleet's
// flags looks for a plain load and finds none. "" when there are none, or
// on a failure to look (the note is advice).
func schemaFleetHere(ctx context.Context, db *sqlx.DB, gen workload.Generator) string {
	if db.Dialect().Name() != "postgres" {
		return ""
	}
	var n int64
	if err := db.QueryRow(ctx, "SELECT count(*) FROM pg_namespace WHERE obj_description(oid, 'pg_namespace') LIKE $1",
		workload.TenantMarkPrefix+gen.Meta().Name+";%").Scan(&n); err != nil || n == 0 {
		return ""
	}
	return fmt.Sprintf(" (it holds %d tenant schemas of a schema-mode fleet of %s: `stampede cleanup %s --tenants %d --tenant-mode schema`, with the fleet's --tenant-pattern if it is not %s, drops them)",
		n, gen.Meta().Name, gen.Meta().Name, n, fleet.DefaultPattern(gen.Meta().Name))
}
