package cockroach

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	_ "net/http/pprof" // --pprofport serves the default mux's /debug/pprof
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/stampede-bench/stampede/cmdline"
	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/internal/exposed"
	"github.com/stampede-bench/stampede/output"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// Main parses and runs a `workload` command line: args are the words
// after `stampede workload`.
func Main(ctx context.Context, args []string, env cmdline.Env) error {
	c, err := Parse(args)
	if text, ok := IsHelp(err); ok {
		fmt.Fprintln(env.Stdout, text)
		return nil
	}
	if err != nil {
		return err
	}
	return c.reword(args, c.Execute(ctx, env))
}

// reword makes the commands stampede's messages suggest (`stampede init
// ycsb`) the ones of this command line's form (`stampede workload init
// ycsb`), completed from args (the words after `workload`) with the flags
// and URLs they take, so that they run as printed; a run whose settings
// differ from what init loaded is told so in cockroach's flags (see
// mismatch), and is an error of the command line.
func (c *Command) reword(args []string, err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	var mm *workload.LoadMismatchError
	if errors.As(err, &mm) {
		msg = c.mismatch(mm)
	}
	msg = c.hinter(args).Hints(msg)
	r := strings.NewReplacer("`stampede init`", "`stampede workload init "+c.Workload+"`",
		"`stampede init ", "`stampede workload init ", "`stampede check ", "`stampede workload check ")
	msg = r.Replace(msg)
	if errors.Is(err, workload.ErrLoadMismatch) || errors.Is(err, workload.ErrUnfinishedLoad) || mm != nil {
		return usageError{rewordedError{msg, err}}
	}
	if msg != err.Error() {
		return rewordedError{msg, err}
	}
	return err
}

// rewordedError is an error with another message.
type rewordedError struct {
	msg string
	err error
}

func (e rewordedError) Error() string { return e.msg }
func (e rewordedError) Unwrap() error { return e.err }

// conn is the run.Conn of the command.
func (c *Command) conn() run.Conn {
	return run.Conn{URLs: c.URLs, Database: c.Database, Conns: c.conns}
}

// loadSpec is init's (or run's with --init or --drop), nil for a run
// without them.
func (c *Command) loadSpec(conn run.Conn) *run.LoadSpec {
	if c.Verb == "run" && c.value("init") != "true" && c.value("drop") != "true" && c.value("force-drop") != "true" {
		return nil
	}
	n, _ := strconv.Atoi(c.value("init-conns"))
	conn.Conns = 0
	seed, _ := strconv.ParseUint(c.value("seed"), 10, 64)
	loader := strings.ToLower(c.value("data-loader"))
	return &run.LoadSpec{Workload: c.gen, Conn: conn, Concurrency: n, Seed: seed,
		Insert: loader == "insert" || loader == "inserts"}
}

// runSpec is run's spec, without its observers.
func (c *Command) runSpec(conn run.Conn) run.Spec {
	maxOps, _ := strconv.ParseInt(c.value("max-ops"), 10, 64)
	rate, _ := strconv.ParseFloat(c.value("max-rate"), 64)
	seed, _ := strconv.ParseUint(c.value("seed"), 10, 64)
	s := run.Spec{
		Workload:       c.gen,
		Conn:           conn,
		Concurrency:    c.concurrency,
		Duration:       c.durationValue("duration"),
		MaxOps:         maxOps,
		Ramp:           c.durationValue("ramp"),
		MaxRate:        rate,
		DisplayEvery:   c.durationValue("display-every"),
		TolerateErrors: c.value("tolerate-errors") == "true",
		Seed:           seed,
		ResultsDir:     c.value("results-dir"),
		// cockroach's run checks nothing after it: `workload check` does.
		SkipChecks: true,
	}
	if rate > 0 {
		// cockroach's --max-rate is a limiter: latency is service time.
		s.Latency = run.LatencyService
		if l := c.value("latency"); l != "" {
			s.Latency = l
		}
	}
	if c.fs.Changed("prometheus-port") {
		s.PrometheusListen, _ = promListen(c.value("prometheus-port")) // Execute checked it
		s.PrometheusFlag = "--prometheus-port"
	}
	return s
}

// resultSeries is the __result block's operation: newOrder for tpcc with
// waits (cockroach's ResultHist), else every operation merged ("").
func (c *Command) resultSeries() string {
	if c.Workload == "tpcc" {
		if w := strings.ToLower(c.value("wait")); w != "false" && w != "off" && w != "0" {
			return "newOrder"
		}
	}
	return ""
}

// Execute runs the command.
func (c *Command) Execute(ctx context.Context, env cmdline.Env) error {
	for _, w := range c.warnings {
		fmt.Fprintf(env.Stderr, "warning: %s\n", w)
	}
	if c.fs.Changed("pprofport") {
		if err := servePprof(c.value("pprofport"), env.Stderr); err != nil {
			return err
		}
	}
	if c.fs.Changed("prometheus-port") {
		if _, err := promListen(c.value("prometheus-port")); err != nil {
			return err
		}
	}
	conn := c.conn()
	switch c.Verb {
	case "check":
		// cockroach's check prints nothing when the data is consistent:
		// stampede's lines go to stderr, stdout stays cockroach's.
		return run.Check(ctx, c.gen, conn, env.Stderr, env.Stderr)
	}
	if load := c.loadSpec(conn); load != nil {
		if err := c.load(ctx, load, env); err != nil {
			return err
		}
	} else if err := c.cockroachOnly(ctx, conn, env.Stderr, false); err != nil {
		return err
	} else if err := c.adoptLoad(ctx, conn, env.Stderr); err != nil {
		return err
	}
	if c.Verb == "init" {
		return nil
	}
	idle, err := c.openIdle(ctx)
	defer closeAll(idle)
	if err != nil {
		return err
	}
	return c.run(ctx, c.conn(), env) // adoptLoad may have changed the connections
}

// load drops the database with --drop, loads the data, and applies
// CockroachDB's splits.
func (c *Command) load(ctx context.Context, spec *run.LoadSpec, env cmdline.Env) error {
	spec.Log = env.Stderr
	opts, err := spec.Conn.Options(c.Database, 1)
	if err != nil {
		return err
	}
	d, err := serverDialect(ctx, opts)
	if err != nil {
		return err
	}
	if err := c.columnFamilies(d); err != nil {
		return err
	}
	if _, ok := d.(dialect.Importer); ok && strings.EqualFold(c.value("data-loader"), "import") {
		return usagef("--data-loader=import: IMPORT INTO needs the rows where CockroachDB can read them, which stampede does not serve; use --data-loader=copy (COPY FROM STDIN) or insert")
	}
	// --force-drop implies --drop: the refusal names --force-drop alone.
	if c.value("drop") == "true" || c.value("force-drop") == "true" {
		made, err := createdByStampede(ctx, opts)
		if err != nil {
			return err
		}
		if !made {
			// A user's database keeps its owner, comment, grants and
			// settings: init's --drop drops the workload's own tables.
			fmt.Fprintf(env.Stderr, "warning: --drop: database %q was not created by stampede: it stays, and --drop drops only the tables of %s in it\n", opts.Database, c.gen.Meta().Name)
			spec.Drop = true
			spec.ForceDrop = spec.ForceDrop || c.value("force-drop") == "true"
			if err := run.Load(ctx, *spec); err != nil {
				return err
			}
			return c.cockroachOnly(ctx, spec.Conn, env.Stderr, true)
		}
		if err := c.checkDropOwned(ctx, opts, env.Stderr); err != nil {
			return err
		}
		if err := dropDatabase(ctx, opts, d, env.Stderr); err != nil {
			return err
		}
	}
	if err := run.Load(ctx, *spec); err != nil {
		return err
	}
	return c.cockroachOnly(ctx, spec.Conn, env.Stderr, true)
}

// adoptLoad makes a tpcc run given no --warehouses run on the warehouses
// init loaded, as a ycsb or bank run given no data flag takes what init
// loaded (run.Spec does that for them): the workers and connections
// follow (10 and 2 per warehouse).
func (c *Command) adoptLoad(ctx context.Context, conn run.Conn, log io.Writer) error {
	lw, ok := c.gen.(interface {
		LoadedWarehouses(context.Context, *sqlx.DB) (int, bool)
	})
	if !ok || c.Verb != "run" || c.fs.Changed("warehouses") {
		return nil
	}
	// However it ends, the flags are then resolved against the
	// warehouses the run keeps (resolvePartitions waits for them).
	c.loadKnown = true
	opts, err := conn.Options(c.Database, 1)
	if err != nil {
		return c.resolve() // the run says why
	}
	db, err := sqlx.Open(ctx, opts)
	if err != nil {
		return c.resolve()
	}
	n, ok := lw.LoadedWarehouses(ctx, db)
	db.Close()
	if ok {
		c.loaded = n
	}
	if !ok || strconv.Itoa(n) == c.value("warehouses") {
		return c.resolve()
	}
	if err := c.fs.Set("warehouses", strconv.Itoa(n)); err != nil {
		return err
	}
	if err := c.resolve(); err != nil {
		return err
	}
	fmt.Fprintf(log, "note: using --warehouses %d, as init (of %s) loaded database %q\n", n, c.Workload, c.Database)
	return nil
}

// awaitsLoad says whether --warehouses is still only the default of a
// run that takes the load's (adoptLoad has not read it yet): not when
// given, nor when the run loads the data itself (--init, --drop).
func (c *Command) awaitsLoad() bool {
	return c.Verb == "run" && !c.loadKnown && !c.fs.Changed("warehouses") && c.loadSpec(run.Conn{}) == nil
}

// run runs the workload with cockroach's printer.
func (c *Command) run(ctx context.Context, conn run.Conn, env cmdline.Env) error {
	s := c.runSpec(conn)
	s.Command = cmdline.RedactArgs(env.Args)
	s.Flags = cmdline.FlagValues(c.fs, env.Secrets)
	s.Log, s.Checks = noteWriter{c, env.Stderr}, env.Stderr
	wh, _ := strconv.Atoi(c.value("active-warehouses"))
	if wh == 0 {
		wh, _ = strconv.Atoi(c.value("warehouses"))
	}
	if f := c.gen.Flags().Lookup("warehouse-range"); f != nil && f.Changed {
		// --partitions with --partition-affinity (resolvePartitions):
		// report merges the partitions' runs by their warehouses.
		s.Flags["warehouse-range"] = f.Value.String()
		var first, last int
		if _, err := fmt.Sscanf(f.Value.String(), "%d:%d", &first, &last); err == nil {
			wh = last - first + 1
		}
	}
	p := &output.Cockroach{W: env.Stdout, Log: env.Stderr, JSON: c.value("display-format") == "incremental-json",
		Result: c.resultSeries(), TPCC: c.Workload == "tpcc", ActiveWarehouses: wh, Ramp: s.Ramp, Telemetry: true,
		AllOps: c.Workload == "tpcc", Names: map[string]string{"read-modify-write": "readModifyWrite"},
		// cockroach's ycsb records a read that finds no row as a read, and
		// an update or delete that changes none as an update or delete.
		Merge: []string{"not_found", "unexpected_state"}}
	if a, ok := c.gen.(output.CockroachAuditor); ok {
		p.Auditor = a
	}
	if path := c.value("histograms"); path != "" {
		labels, err := output.ParseOpenMetricsLabels(c.value("openmetrics-labels"), c.Workload)
		if err != nil {
			return usagef("%v", err)
		}
		if err := output.CheckFileDir("--histograms", path, "export"); err != nil {
			return usagef("%v", err) // cockroach makes the directory; stampede makes none unasked
		}
		f, err := os.Create(path)
		if err != nil {
			return usagef("--histograms: %v", err)
		}
		p.Histograms = output.NewHistogramExporter(f, c.value("histogram-export-format"), c.durationValue("histograms-max-latency"), labels)
		defer func() {
			if err := p.Histograms.Close(); err != nil {
				fmt.Fprintf(env.Stderr, "warning: --histograms %s: %v\n", path, err)
			}
			f.Close()
		}()
	}
	s.Observers = []run.Observer{p}
	r, err := run.Start(ctx, s)
	if err != nil {
		return err
	}
	_, err = r.Wait()
	if perr := p.Err(); perr != nil {
		fmt.Fprintf(env.Stderr, "warning: --histograms: %v\n", perr)
	}
	return err
}

// checkHistograms checks --histograms and its format.
func checkHistograms(path, format string) error {
	if err := output.CheckHistogramsPath(path, format); err != nil {
		return usagef("%v", err)
	}
	return nil
}

// serverDialect asks the first endpoint which server it is.
func serverDialect(ctx context.Context, opts sqlx.Options) (dialect.Dialect, error) {
	opts.MaxConns = 1
	if _, err := sqlx.EnsureDatabase(ctx, opts); err != nil {
		return nil, err
	}
	db, err := sqlx.Open(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return db.Dialect(), nil
}

// createdByStampede reports whether the database of opts carries the
// mark EnsureDatabase puts on a database it creates: only such a database
// is --drop's to drop and create again.
func createdByStampede(ctx context.Context, opts sqlx.Options) (bool, error) {
	opts.MaxConns = 1
	db, err := sqlx.Open(ctx, opts)
	if sqlx.IsMissingDatabase(err) {
		return true, nil // nothing to drop: created by the load
	}
	if err != nil {
		return false, err
	}
	defer db.Close()
	var c *string
	if err := db.QueryRow(ctx, "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = current_database()").Scan(&c); err != nil {
		return false, fmt.Errorf("reading the comment of database %q: %w", opts.Database, err)
	}
	return c != nil && *c == sqlx.CreatedDatabaseMark, nil
}

// dropDatabase drops the workload's database (cockroach's --drop),
// connecting to the server's maintenance database, and says so.
// checkDropOwned refuses, unless --force-drop, to drop a database that
// holds objects stampede did not make, of any kind (cockroach's --drop
// drops the whole database; a user's tables, sequences, functions, types,
// large objects... in it must survive a pasted line).
func (c *Command) checkDropOwned(ctx context.Context, opts sqlx.Options, log io.Writer) error {
	opts.MaxConns = 1
	db, err := sqlx.Open(ctx, opts)
	if sqlx.IsMissingDatabase(err) {
		return nil // nothing to drop
	}
	if err != nil {
		return err
	}
	defer db.Close()
	foreign, err := workload.ForeignObjectsIn(ctx, db, c.gen, fleet.MarkerTable)
	if err != nil {
		return err
	}
	// A user's work on the database itself (settings, grants, owner...)
	// goes with it too.
	work, err := workload.DatabaseWorkOf(ctx, db, "")
	if foreign = append(foreign, work...); err != nil || len(foreign) == 0 {
		return err
	}
	if c.value("force-drop") == "true" {
		fmt.Fprintf(log, "--force-drop: dropping database %q with objects stampede did not make: %s\n", opts.Database, strings.Join(foreign, ", "))
		return nil
	}
	// Tables of stampede's load of another workload are stampede's, but
	// not this workload's: named apart, with their load's cleanup.
	var users, others, renamed []string
	var loads []string
	for _, f := range foreign {
		if name, ok := strings.CutSuffix(f, workload.RenamedNote(c.gen.Meta().Name)); ok {
			renamed = append(renamed, name)
			continue
		}
		name, load, ok := strings.Cut(f, " (stampede's load of ")
		if !ok {
			users = append(users, f)
			continue
		}
		others = append(others, name)
		if load = strings.TrimSuffix(load, ")"); !slices.Contains(loads, load) {
			loads = append(loads, load)
		}
	}
	where := fmt.Sprintf("database %q on %s", opts.Database, strings.Join(db.Endpoints(), ","))
	held := fmt.Sprintf("stampede's load of %s (%s), not of %s", strings.Join(loads, " and "), shortNames(others), c.gen.Meta().Name)
	switch {
	case len(renamed) > 0:
		// A table of this workload's load that the user renamed, to
		// keep it: the database is no longer only the load's.
		var parts []string
		if len(users) > 0 {
			parts = append(parts, fmt.Sprintf("%s that stampede did not make (%s)", objectCount(users), shortNames(users)))
		}
		parts = append(parts, fmt.Sprintf("%s, stampede's %s of %s under a name %s does not use (renamed, so kept)",
			shortNames(renamed), map[bool]string{true: "table", false: "tables"}[len(renamed) == 1], c.gen.Meta().Name, c.gen.Meta().Name))
		if len(others) > 0 {
			parts = append(parts, held)
		}
		return usagef("%s holds %s: --drop leaves the database alone; to drop it anyway, add %s",
			where, strings.Join(parts, " and "), workload.ForceDropFlag)
	case len(others) == 0:
		return usagef("%s holds %s that stampede did not make (%s): --drop leaves the database alone; to drop it anyway, add %s",
			where, objectCount(users), shortNames(users), workload.ForceDropFlag)
	case len(users) == 0:
		cleanups := make([]string, len(loads))
		for i, l := range loads {
			cleanups[i] = "`stampede cleanup " + l + "`"
		}
		return usagef("%s holds %s: --drop leaves the database alone; %s drops that load, or to drop it anyway, add %s",
			where, held, strings.Join(cleanups, " and "), workload.ForceDropFlag)
	}
	return usagef("%s holds %s that stampede did not make (%s) and %s: --drop leaves the database alone; to drop it anyway, add %s",
		where, objectCount(users), shortNames(users), held, workload.ForceDropFlag)
}

// objectCount is "1 object" or "N objects".
func objectCount(names []string) string {
	if len(names) == 1 {
		return "1 object"
	}
	return strconv.Itoa(len(names)) + " objects"
}

// shortNames lists up to five names, and how many more there are.
func shortNames(names []string) string {
	if len(names) <= 5 {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:5], ", ") + fmt.Sprintf(" and %d more", len(names)-5)
}

func dropDatabase(ctx context.Context, opts sqlx.Options, d dialect.Dialect, log io.Writer) error {
	cfgs, err := sqlx.ParseConfigs(opts)
	if err != nil {
		return err
	}
	cfg := cfgs[0].ConnConfig.Copy()
	name := cfg.Database
	cfg.Database = "postgres"
	if _, ok := d.(dialect.RangeSplitter); ok {
		cfg.Database = "system"
	}
	if _, ok := d.(dialect.RangeSplitter); !ok {
		if err := dropSubscriptions(ctx, cfgs[0].ConnConfig.Copy(), log); err != nil {
			return err
		}
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("--drop: connecting to drop database %q: %w", name, err)
	}
	defer conn.Close(ctx)
	fmt.Fprintf(log, "--drop: dropping database %q on %s:%d\n", name, cfg.Host, cfg.Port)
	if _, err := conn.Exec(ctx, d.DropDatabase(name)); err != nil {
		return fmt.Errorf("--drop: dropping database %q: %w", name, err)
	}
	return nil
}

// dropSubscriptions drops the logical replication subscriptions of the
// database cfg names, which PostgreSQL's DROP DATABASE refuses to drop
// under them: reached only with --force-drop (a subscription is never
// stampede's: the refusal before names it). Each is disabled and detached
// from its slot first, so that its drop does not reach the publisher,
// whose slot is kept (the line says so).
func dropSubscriptions(ctx context.Context, cfg *pgx.ConnConfig, log io.Writer) error {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("--drop: connecting to database %q to drop its subscriptions: %w", cfg.Database, err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SELECT subname, coalesce(subslotname, '') FROM pg_subscription WHERE subdbid = (SELECT oid FROM pg_database WHERE datname = current_database()) ORDER BY subname")
	if err != nil {
		return fmt.Errorf("--drop: listing the subscriptions of database %q: %w", cfg.Database, err)
	}
	type sub struct{ name, slot string }
	var subs []sub
	for rows.Next() {
		var s sub
		if err := rows.Scan(&s.name, &s.slot); err != nil {
			rows.Close()
			return fmt.Errorf("--drop: listing the subscriptions of database %q: %w", cfg.Database, err)
		}
		subs = append(subs, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("--drop: listing the subscriptions of database %q: %w", cfg.Database, err)
	}
	for _, s := range subs {
		q := pgx.Identifier{s.name}.Sanitize()
		kept := ""
		if s.slot != "" {
			kept = fmt.Sprintf(" (its replication slot %s on the publisher is kept: drop it there)", s.slot)
		}
		fmt.Fprintf(log, "--force-drop: dropping subscription %s of database %q%s\n", s.name, cfg.Database, kept)
		for _, stmt := range []string{"ALTER SUBSCRIPTION " + q + " DISABLE", "ALTER SUBSCRIPTION " + q + " SET (slot_name = NONE)", "DROP SUBSCRIPTION " + q} {
			if _, err := conn.Exec(ctx, stmt); err != nil {
				return fmt.Errorf("--force-drop: dropping subscription %s of database %q: %w", s.name, cfg.Database, err)
			}
		}
	}
	return nil
}

// cockroachOnly applies, through the dialect, the splits of --split,
// --splits and --ranges after init's load (as cockroach's init splits the
// tables it creates), and --scatter after the load or before a run
// without one (as cockroach's tpcc scatters in both); on a server without
// ranges it says so in one line and goes on. It also says what
// --families does there.
func (c *Command) cockroachOnly(ctx context.Context, conn run.Conn, log io.Writer, afterLoad bool) error {
	var splits map[string][][]string
	if afterLoad {
		splits = c.splitPoints()
	} else {
		var given []string
		for _, f := range []string{"split", "splits", "ranges"} {
			if c.fs.Changed(f) {
				given = append(given, "--"+f)
			}
		}
		if len(given) > 0 {
			fmt.Fprintf(log, "warning: %s: splits are made when init creates the tables (workload init, or run --init), as cockroach's: nothing to split now\n", strings.Join(given, ", "))
		}
	}
	want := len(splits) > 0 || c.scatter
	if !want && !c.families {
		return nil
	}
	opts, err := conn.Options(c.Database, 1)
	if err != nil {
		return err
	}
	db, err := sqlx.Open(ctx, opts)
	if err != nil {
		return err
	}
	defer db.Close()
	rs, ok := db.Dialect().(dialect.RangeSplitter)
	if c.families && !ok {
		fmt.Fprintln(log, "warning: --families: column families are CockroachDB's; PostgreSQL stores each row whole: the run goes on without them")
	}
	if !want {
		return nil
	}
	if !ok {
		if c.splitGivenName() != "" || c.scatter {
			fmt.Fprintf(log, "warning: %s: range splits and scatter are CockroachDB's; %s has no ranges: the run goes on without them\n", c.splitGivenName(), db.Dialect().Name())
		}
		return nil
	}
	for table, points := range splits {
		if _, err := db.Exec(ctx, rs.SplitAt(table, points)); err != nil {
			return fmt.Errorf("splitting %s: %w", table, err)
		}
	}
	if c.scatter {
		for _, t := range c.gen.Tables() {
			if _, err := db.Exec(ctx, rs.Scatter(t.Name)); err != nil {
				return fmt.Errorf("scattering %s: %w", t.Name, err)
			}
		}
	}
	return nil
}

// columnFamilies gives the tables column families on CockroachDB (a
// server with ranges), as cockroach's init creates them: ycsb's by
// --families or its workload's default, tpcc's by --families; a workload
// without families refuses --families there, before anything is loaded.
// Elsewhere it does nothing (a given --families gets its warning after
// the load).
func (c *Command) columnFamilies(d dialect.Dialect) error {
	if _, crdb := d.(dialect.RangeSplitter); !crdb {
		return nil
	}
	if f, ok := c.gen.(interface{ SetColumnFamilies(bool) }); ok {
		f.SetColumnFamilies(c.crdbFamilies)
		return nil
	}
	if c.crdbFamilies {
		return usagef("--families: stampede's %s has no column families; run without --families", c.Workload)
	}
	return nil
}

// splitGivenName names the flags that asked for splits or scatter.
func (c *Command) splitGivenName() string {
	var names []string
	for _, f := range []string{"split", "splits", "ranges", "scatter"} {
		if c.fs.Changed(f) {
			names = append(names, "--"+f)
		}
	}
	return strings.Join(names, ", ")
}

// splitPoints returns the tables' split points, as cockroach's workloads
// split them: tpcc's every 10 warehouses and 100 items with --split,
// bank's table into --ranges, ycsb's key space into --splits.
func (c *Command) splitPoints() map[string][][]string {
	out := map[string][][]string{}
	switch c.Workload {
	case "tpcc":
		if !c.split {
			return nil
		}
		wh, _ := strconv.Atoi(c.value("warehouses"))
		batches := func(total, per int) int {
			n := total / per
			if total%per == 0 {
				n--
			}
			return n
		}
		for i := 0; i < batches(wh, 10); i++ {
			w := strconv.Itoa((i + 1) * 10)
			out["warehouse"] = append(out["warehouse"], []string{w})
			out["district"] = append(out["district"], []string{w, "0"})
			out["history"] = append(out["history"], []string{w})
		}
		for i := 0; i < batches(100000, 100); i++ {
			out["item"] = append(out["item"], []string{strconv.Itoa((i + 1) * 100)})
		}
	case "bank":
		rows, _ := strconv.Atoi(c.value("rows"))
		ranges, _ := strconv.Atoi(c.value("ranges"))
		for i := 0; i < ranges-1; i++ {
			out["bank"] = append(out["bank"], []string{strconv.Itoa((i + 1) * (rows / ranges))})
		}
	case "ycsb":
		n, _ := strconv.ParseUint(c.value("splits"), 10, 64)
		if n > 0 {
			step := ^uint64(0) / (n + 1)
			for i := uint64(0); i < n; i++ {
				out["usertable"] = append(out["usertable"], []string{dialect.QuoteLiteral("user" + strconv.FormatUint(step*(i+1), 10))})
			}
		}
	}
	for t, p := range out {
		if len(p) == 0 {
			delete(out, t)
		}
	}
	return out
}

// openIdle opens tpcc's --idle-conns connections to every URL, held open
// and idle during the run (application_name stampede-idle).
func (c *Command) openIdle(ctx context.Context) ([]*pgx.Conn, error) {
	n, _ := strconv.Atoi(c.value("idle-conns"))
	if n <= 0 {
		return nil, nil
	}
	opts, err := c.conn().Options(c.Database, 1)
	if err != nil {
		return nil, err
	}
	cfgs, err := sqlx.ParseConfigs(opts)
	if err != nil {
		return nil, err
	}
	var conns []*pgx.Conn
	for range n {
		for _, pc := range cfgs {
			cfg := pc.ConnConfig.Copy()
			cfg.RuntimeParams["application_name"] = "stampede-idle"
			conn, err := pgx.ConnectConfig(ctx, cfg)
			if err != nil {
				return conns, fmt.Errorf("--idle-conns: %w", err)
			}
			conns = append(conns, conn)
		}
	}
	return conns, nil
}

func closeAll(conns []*pgx.Conn) {
	for _, c := range conns {
		_ = c.Close(context.Background())
	}
}

// promListen is the address --prometheus-port gives: a port (every
// interface, as cockroach's) or stampede's host:port, which keeps the
// metrics to one address (127.0.0.1:2112).
func promListen(given string) (string, error) {
	addr, port := ":"+given, given
	if _, err := strconv.Atoi(given); err != nil {
		var err error
		if _, port, err = net.SplitHostPort(given); err != nil || port == "" {
			return "", usagef("--prometheus-port %q: give a port, or host:port such as 127.0.0.1:2112", given)
		}
		addr = given
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return "", usagef("--prometheus-port %q: %s is not a port number (0 to 65535)", given, port)
	}
	return addr, nil
}

// servePprof serves Go's pprof endpoint on given, a port (every
// interface, as cockroach's --pprofport does) or stampede's host:port,
// and warns when other machines can reach it: it is unauthenticated, and
// its heap profiles hold the process's memory (the connection's password
// among it). A port it cannot listen on is a warning, as cockroach's.
func servePprof(given string, log io.Writer) error {
	addr := given
	if _, err := strconv.Atoi(given); err == nil {
		addr = ":" + given
	} else if _, port, err := net.SplitHostPort(given); err != nil || port == "" {
		return usagef("--pprofport %q: give a port, or host:port such as 127.0.0.1:33333", given)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(log, "warning: --pprofport %s: cannot listen: %v (the workload goes on without it)\n", given, errors.Unwrap(err))
		return nil
	}
	fmt.Fprintf(log, "pprof at http://%s/debug/pprof/\n", ln.Addr())
	if w := exposed.Warning("--pprofport", given, ln.Addr(), "read this process's memory (heap profiles, with the connection's password) and stacks"); w != "" {
		fmt.Fprintln(log, w)
	}
	go func() { _ = http.Serve(ln, nil) }()
	return nil
}
