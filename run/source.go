package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// source is where a run's operations come from: one database (an ordinary
// run) or many tenants (a fleet run). The run drives the engine, the run
// log and the observers the same way for both.
type source struct {
	// load is the workers and operations the engine runs.
	load workload.QueryLoad
	// workers is the number of workers load must have.
	workers int
	// endpoints, database and serverVersion describe the server in
	// run.json; where says what the run works on in the first line.
	endpoints     []string
	database      string
	serverVersion string
	where         string
	// reconnects counts the connections re-established so far.
	reconnects func() int64
	// check runs the workload's consistency checks after the run; nil
	// when the source cannot.
	check func(ctx context.Context, r workload.Reporter) error
	// close releases the source's connections.
	close func()
	// abandon closes, from under them, the connections of the workers
	// the engine abandoned at the run's end (see Run.closeLoad).
	abandon func(workers []int)
	// rampDone, when set, is called when the engine's ramp ends (a fleet
	// leaves the ramp out of its tenants' figures too).
	rampDone func()
	// fleet, when set, is the fleet run: its tenants' figures come from
	// it at the end.
	fleet *fleetSource
	// db is the run's database; nil for a fleet.
	db *sqlx.DB
	// threadIO says the connections use thread I/O: the run gives each
	// worker a processor (GOMAXPROCS) so that a worker blocked in the
	// kernel does not hold back the others.
	threadIO bool
}

// threadIOWorkersPerCPU is the most workers per CPU that IOAuto gives a
// thread each. Measured on 2 CPUs with the server on the same machine
// (oltp_point_select): thread I/O did 2.3 times the poller's throughput at
// 2 workers, 1.1-1.3 times at 4, about the same at 8 to 16, and 0.7-0.8
// times at 32 and 64, where the poller's one waiting thread collects many
// replies per wake-up.
const threadIOWorkersPerCPU = 4

// threadIO says whether a run's connections use thread I/O
// (sqlx.Options.ThreadIO): IOThread, or IOAuto with a PostgreSQL
// connection for each worker and at most threadIOWorkersPerCPU workers per
// CPU.
func threadIO(mode string, workers int, opts sqlx.Options) bool {
	switch mode {
	case IOThread:
		return opts.Driver != sqlx.DriverNull
	case IOPoller:
		return false
	}
	return opts.Driver != sqlx.DriverNull && workers <= threadIOWorkersPerCPU*runtime.NumCPU() &&
		opts.MaxConns >= workers
}

// openSource opens what a run works on: a fleet of tenants, else one
// database.
func (r *Run) openSource(ctx context.Context) (*source, error) {
	if r.spec.Fleet != nil {
		return r.openFleet(ctx)
	}
	src, err := r.openDatabase(ctx)
	return src, copyHint(ctx, r.spec.Workload, r.spec.Conn, err)
}

// openDatabase is openSource of one database.
func (r *Run) openDatabase(ctx context.Context) (*source, error) {
	s := &r.spec
	gen := s.Workload
	opser, ok := gen.(workload.Opser)
	if !ok {
		return nil, inputf("workload %s cannot be run", gen.Meta().Name)
	}
	opts, err := s.Conn.Options(gen.Meta().DatabaseName(), s.Concurrency)
	if err != nil {
		return nil, err
	}
	opts.Workers = s.Concurrency
	if s.Conn.Conns > s.Concurrency {
		// The pool opens connections as workers ask for them: never more
		// than one per worker.
		r.warnf("--conns %d is more than the %s use: the run opens %d, one per worker (raise --concurrency for more)",
			s.Conn.Conns, plural(s.Concurrency, "worker"), s.Concurrency)
	}
	if _, ok := gen.(workload.Measurer); ok && opts.MaxConns >= opts.Workers {
		opts.MaxConns++ // the measurement's reads, beside the workers' connections
	}
	opts.StatementTimeout = s.OpTimeout
	opts.ThreadIO = threadIO(s.IOMode, s.Concurrency, opts)
	opts.Warn = r.warnf
	db, err := sqlx.Open(ctx, opts)
	if err != nil {
		return nil, configInput(err)
	}
	ok = false
	defer func() {
		if !ok {
			db.Close()
		}
	}()
	if err := r.checkConnectionRoom(ctx, db, opts); err != nil {
		return nil, err
	}
	if err := r.reconcileLoad(ctx, db); err != nil {
		return nil, err
	}
	if db, err = inLoad(ctx, db, opts, gen, "run", s.Log); err != nil {
		return nil, err
	}
	h, _ := gen.(workload.Hookser)
	if rl, ok := gen.(workload.RunLogger); ok && s.Log != nil {
		rl.SetRunLog(s.Log)
	}
	if h != nil && h.Hooks().PreRun != nil {
		if err := h.Hooks().PreRun(ctx, db); err != nil {
			return nil, loadInput(err)
		}
	}
	// Asked before Ops: a workload may take every connection of the
	// pool for its workers there (the sql workload keeps one per worker
	// from Ops on), and the question would then wait for one forever.
	version := db.ServerVersion(ctx)
	unloaded, err := r.unloadedTables(ctx, db)
	if err != nil {
		return nil, err
	}
	load, err := opser.Ops(ctx, db, workload.OpsConfig{Concurrency: s.Concurrency, Seed: r.seed, Warn: r.warnf,
		Ramp: s.Ramp, Duration: s.Duration})
	if err != nil {
		return nil, loadInput(configInput(err))
	}
	// From here the load may hold every connection of the pool (the sql
	// workload keeps one per worker): an error returns them first, or
	// the pool's Close above would wait for them forever. (Deferred
	// last, it runs first.)
	defer func() {
		if !ok && load.Close != nil {
			_ = load.Close(context.Background())
		}
	}()
	if err := checkLoadWorkers(gen, load, s.Concurrency); err != nil {
		return nil, err
	}
	r.warnUnloaded(db, load, unloaded)
	src := &source{
		load:          load,
		workers:       s.Concurrency,
		endpoints:     db.Endpoints(),
		database:      db.Database(),
		serverVersion: version,
		where:         fmt.Sprintf("database %q", db.Database()),
		reconnects:    db.Reconnects,
		close:         db.Close,
		abandon:       db.Abandon,
		threadIO:      opts.ThreadIO,
		db:            db,
	}
	if h != nil && h.Hooks().CheckConsistency != nil {
		check := h.Hooks().CheckConsistency
		src.check = func(ctx context.Context, r workload.Reporter) error { return check(ctx, db, r) }
	}
	ok = true
	return src, nil
}

// checkLoadWorkers says when gen's Ops returned another number of workers
// than the run asked for (a workload's defect).
func checkLoadWorkers(gen workload.Generator, load workload.QueryLoad, workers int) error {
	if len(load.Workers) != workers {
		return fmt.Errorf("workload %s returned %d workers for %d", gen.Meta().Name, len(load.Workers), workers)
	}
	return nil
}

// unloadedTables returns the workload's tables in db that stampede did
// not load (no record of its init, no mark), for warnUnloaded; none for a
// workload that loads itself.
func (r *Run) unloadedTables(ctx context.Context, db *sqlx.DB) ([]string, error) {
	gen := r.spec.Workload
	if sl, ok := gen.(workload.SelfLoader); ok && sl.LoadsItself() {
		return nil, nil
	}
	return workload.UnloadedTables(ctx, db, gen)
}

// warnUnloaded warns, before a run whose load writes, that it writes into
// tables stampede did not load (unloaded, found before Ops took the pool's
// connections).
func (r *Run) warnUnloaded(db *sqlx.DB, load workload.QueryLoad, tables []string) {
	if len(tables) == 0 || !workload.LoadWrites(load) {
		return
	}
	r.warnf("%s", workload.UnloadedWarning(tables, db.Database(), r.spec.Workload.Meta().Name))
}

// checkConnectionRoom refuses, before any worker connects, a run that needs
// more connections to one server than it accepts: better than the
// server's "too many clients" once the workers start.
func (r *Run) checkConnectionRoom(ctx context.Context, db *sqlx.DB, opts sqlx.Options) error {
	need := min(opts.MaxConns, opts.Workers)
	if n := len(db.Endpoints()); n > 1 {
		need = (need + n - 1) / n
	}
	room, limit, ok := db.ConnectionRoom(ctx)
	if !ok || need <= room {
		return nil
	}
	advice := fmt.Sprintf("--concurrency %d or less, --conns %d to share connections among the workers,", room, room)
	if o := r.spec.ClientsOption; o != "" {
		advice = fmt.Sprintf("%s %d or less,", o, room)
	}
	return inputf("the run needs %d connections to %s, which accepts %d more (max_connections %d less those in use and reserved): use %s or raise max_connections",
		need, db.Endpoints()[0], room, limit, advice)
}

// CheckLoad checks, before a run of s starts, that its database holds
// what the run needs, as Start does first (ReconcileLoad, then the
// workload's PreRun), for a caller that runs s later and refuses a load
// that does not fit first (a sweep, before its first step). A fleet, the
// null driver and a server that cannot be reached are left to the run
// (which says why); an error says what does not fit, and matches ErrInput
// when the command line is to change.
func CheckLoad(ctx context.Context, s Spec) error {
	h, ok := s.Workload.(workload.Hookser)
	if !ok || h.Hooks().PreRun == nil || s.Fleet != nil {
		return nil
	}
	opts, err := s.Conn.Options(s.Workload.Meta().DatabaseName(), 1)
	if err != nil || opts.Driver == sqlx.DriverNull {
		return nil
	}
	db, err := sqlx.Open(ctx, opts)
	if err != nil {
		return nil
	}
	defer func() { db.Close() }() // the one inLoad may reopen
	if err := ReconcileLoad(ctx, db, s.Workload, s.Log); err != nil {
		return err
	}
	if db, err = inLoad(ctx, db, opts, s.Workload, "run", io.Discard); err != nil {
		return err
	}
	if rl, ok := s.Workload.(workload.RunLogger); ok && s.Log != nil {
		rl.SetRunLog(s.Log)
	}
	return loadInput(h.Hooks().PreRun(ctx, db))
}

// LoadMismatch returns how the data settings of s's workload differ from
// what init recorded in its database (workload.ReconcileLoad's error),
// nil when they do not, nothing is recorded or there is no server: a
// sweep of a flag that changes the data asks before its first step.
func LoadMismatch(ctx context.Context, s Spec) (*workload.LoadMismatchError, error) {
	opts, err := s.Conn.Options(s.Workload.Meta().DatabaseName(), 1)
	if err != nil || opts.Driver == sqlx.DriverNull {
		return nil, nil
	}
	db, err := sqlx.Open(ctx, opts)
	if err != nil {
		return nil, nil // the run says why it cannot connect
	}
	defer db.Close()
	_, err = workload.ReconcileLoad(ctx, db, s.Workload)
	var m *workload.LoadMismatchError
	if errors.As(err, &m) {
		return m, nil
	}
	return nil, nil // other errors: the step's run says them
}

// AdoptRecorded gives s's workload the data settings init recorded in
// its database that the command line did not give
// (workload.AdoptRecorded), before a sweep's --reload loads the data
// again with its swept value: the rest stays as init loaded it.
func AdoptRecorded(ctx context.Context, s Spec) error {
	opts, err := s.Conn.Options(s.Workload.Meta().DatabaseName(), 1)
	if err != nil || opts.Driver == sqlx.DriverNull {
		return err
	}
	db, err := sqlx.Open(ctx, opts)
	if err != nil {
		return err
	}
	defer db.Close()
	return workload.AdoptRecorded(ctx, db, s.Workload)
}

// Recorded returns what init recorded of s's workload's data in its
// database, compared with the workload's settings now
// (workload.ReadRecorded): a sweep's --reload skips a step's load when
// the data is already the step's, and says at its end what the database
// holds. nil without a record, and on the null driver.
func Recorded(ctx context.Context, s Spec) (*workload.Recorded, error) {
	opts, err := s.Conn.Options(s.Workload.Meta().DatabaseName(), 1)
	if err != nil || opts.Driver == sqlx.DriverNull {
		return nil, err
	}
	db, err := sqlx.Open(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return workload.ReadRecorded(ctx, db, s.Workload)
}

// reconcileLoad compares the workload's data settings with what init
// recorded (see workload.ReconcileLoad): one given with another value is
// refused, one not given takes the loaded value, with a note.
func (r *Run) reconcileLoad(ctx context.Context, db *sqlx.DB) error {
	return ReconcileLoad(ctx, db, r.spec.Workload, r.spec.Log)
}

// ReconcileLoad compares gen's data settings with what init recorded in db
// (see workload.ReconcileLoad), writing its notes to log: a setting given
// with another value is an error matching ErrInput.
func ReconcileLoad(ctx context.Context, db *sqlx.DB, gen workload.Generator, log interface{ Write([]byte) (int, error) }) error {
	notes, err := workload.ReconcileLoad(ctx, db, gen)
	for _, n := range notes {
		if log != nil && strings.HasPrefix(n, workload.UnreadRecordNote) {
			fmt.Fprintln(log, n)
		} else if log != nil {
			fmt.Fprintf(log, "note: %s\n", n)
		}
	}
	return loadInput(err)
}

// loadInput marks err as matching ErrInput when it says that the run's
// settings differ from what init loaded (workload.ErrLoadMismatch,
// *workload.LoadMismatchError) or that the load is unfinished
// (workload.ErrUnfinishedLoad): the command line's to change, as check
// says it, whether the workload's Ops, its check or ReconcileLoad found it;
// and a table the run would write into that is not the workload's
// (workload.ErrTablesExist, workload.ErrForeign: bulk_insert's run over a
// table of another shape), refused as init refuses it.
func loadInput(err error) error {
	var mismatch *workload.LoadMismatchError
	if errors.As(err, &mismatch) || errors.Is(err, workload.ErrLoadMismatch) || errors.Is(err, workload.ErrUnfinishedLoad) || errors.Is(err, workload.ErrUsage) ||
		errors.Is(err, workload.ErrTablesExist) || errors.Is(err, workload.ErrForeign) {
		return asInput(err)
	}
	return err
}

// fleetSource is a fleet run's part of the source.
type fleetSource struct {
	run              *fleet.Run
	spec             fleet.Spec
	first, last      int
	active, wpt, cpt int
	rotate           bool
	cpu0             float64
	wall0            time.Time
}

// openFleet opens the active tenant workloads of a fleet run.
func (r *Run) openFleet(ctx context.Context) (*source, error) {
	s := &r.spec
	f := *s.Fleet
	gen := s.Workload
	if f.Active == 0 {
		f.Active = f.Spec.Tenants
	}
	// The data flags init recorded, as a single database's run takes them.
	recordOpts, err := s.Conn.Options(gen.Meta().DatabaseName(), 1)
	if err != nil {
		return nil, err
	}
	recordTarget := fleet.Target{Spec: f.Spec, Base: recordOpts, Workload: gen.Meta().Name}
	// A user's databases or schemas that the pattern merely matches are
	// never run on: their rows would be rewritten.
	// A client of a split run reads its own share of the tenants, each
	// once, and the flags from the first of them.
	survey, err := fleet.SurveyTenants(ctx, recordTarget, "run runs on", fleetTables(gen, f.Spec), f.First, f.Last)
	if err != nil {
		return nil, foreignTenants(err)
	}
	unread, err := adoptFleetFlags(recordTarget, survey, gen, r.log)
	if err != nil {
		return nil, err
	}
	wpt, cpt, err := TenantSizes(gen, f)
	if err != nil {
		return nil, err
	}
	f.ConnsPerTenant = cpt
	if f.Pick == "" {
		f.Pick = fleet.PickRandom
	}
	newGen, err := TenantGenerators(gen, f.Spec)
	if err != nil {
		return nil, err
	}
	if err := CheckWorkersOf(fmt.Sprintf("--active %d × %s per tenant =", f.Active, plural(wpt, "worker")), f.Active*wpt, false, gen); err != nil {
		return nil, err
	}
	base, err := s.Conn.Options(gen.Meta().DatabaseName(), f.ConnsPerTenant)
	if err != nil {
		return nil, err
	}
	base.StatementTimeout = s.OpTimeout
	if f.Rotate {
		s.TolerateErrors = true // a failing tenant is replaced, not fatal
	}
	target := fleet.Target{Spec: f.Spec, Base: base, Workload: gen.Meta().Name}
	if err := fleet.CheckShares(ctx, target); err != nil {
		return nil, loadInput(err)
	}
	login, err := fleet.Logins(ctx, target)
	if err != nil {
		return nil, loadInput(err)
	}
	if login != nil {
		r.notef("the fleet has tenant roles (init --tenant-roles): each tenant's connections log in as its own role")
	}
	r.notef("opening %s: %s and %s each", plural(f.Active, "tenant workload"), plural(wpt, "worker"), plural(f.ConnsPerTenant, "connection"))
	opened := time.Now()
	fr, err := fleet.Open(ctx, fleet.RunConfig{
		Spec:             f.Spec,
		Base:             base,
		Active:           f.Active,
		ConnsPerTenant:   f.ConnsPerTenant,
		WorkersPerTenant: wpt,
		Pick:             f.Pick,
		Rotate:           f.Rotate,
		TenantDuration:   f.TenantDuration,
		First:            f.First,
		Last:             f.Last,
		Seed:             r.seed,
		NewGen:           newGen,
		MarkerUnread:     unread,
		Warn:             r.warnf,
		Login:            login,
	})
	if err != nil {
		return nil, loadInput(err)
	}
	r.notef("opened %s in %s", plural(f.Active, "tenant workload"), time.Since(opened).Round(time.Millisecond))
	where := fmt.Sprintf("%s, %d active", TenantsSummary(f.Spec), f.Active)
	if f.Last != 0 {
		where = fmt.Sprintf("%s: tenants %d..%d, %d active", TenantsSummary(f.Spec), f.First, f.Last, f.Active)
	}
	if login != nil {
		where += ", as tenant roles"
	}
	if f.Rotate {
		where += ", rotating"
		if f.TenantDuration > 0 {
			where += " every " + f.TenantDuration.String()
		}
	}
	database := f.Spec.Pattern
	if f.Spec.Mode != fleet.ModeDatabase {
		database = base.Database
	}
	return &source{
		load:          fr.Load(),
		workers:       f.Active * wpt,
		endpoints:     fr.Endpoints(),
		database:      database,
		serverVersion: fr.ServerVersion(ctx),
		where:         where,
		reconnects:    fr.Reconnects,
		close:         fr.Close,
		abandon:       fr.Abandon,
		rampDone:      fr.MarkRampEnd,
		fleet: &fleetSource{run: fr, spec: f.Spec, first: f.First, last: f.Last, active: f.Active, wpt: wpt, cpt: f.ConnsPerTenant, rotate: f.Rotate,
			cpu0: processCPU(), wall0: time.Now()},
	}, nil
}

// TenantGenerators returns a function that makes tenant id's generator: a
// new generator of gen's workload with gen's flags (those given) and, in
// column mode, the tenant's id. It is safe to call from several
// goroutines.
func TenantGenerators(gen workload.Generator, spec fleet.Spec) (func(id int) (workload.Generator, error), error) {
	args := GivenFlags(gen)
	if _, ok := gen.(workload.TenantColumner); !ok && spec.Mode == fleet.ModeColumn {
		return nil, inputf("workload %s cannot share its tables between tenants: use --tenant-mode database or schema", gen.Meta().Name)
	}
	meta := gen.Meta()
	return func(id int) (workload.Generator, error) {
		g, err := workload.FromFlags(meta, args...)
		if err != nil {
			return nil, err
		}
		if c, ok := g.(workload.TenantColumner); ok && spec.Mode == fleet.ModeColumn {
			c.SetTenant(id)
		}
		return g, nil
	}, nil
}

// GivenFlags returns the workload flags given (parsed and changed from
// their defaults) as arguments that configure a fresh generator the same
// way.
func GivenFlags(gen workload.Generator) []string {
	f, ok := gen.(workload.Flagser)
	if !ok {
		return nil
	}
	var args []string
	// VisitAll and Changed: a command's flag set may have parsed the
	// workload's flags, and then the workload's own set has none "actual".
	f.Flags().VisitAll(func(fl *pflag.Flag) {
		if !fl.Changed {
			return
		}
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				args = append(args, "--"+fl.Name+"="+v)
			}
			return
		}
		args = append(args, "--"+fl.Name+"="+fl.Value.String())
	})
	return args
}

// terminalsPerWarehouse is TPC-C's number of terminals per warehouse
// (clause 4.2.2): with keying and think times, a warehouse's full load.
const terminalsPerWarehouse = 10

// TenantSizes returns each active tenant's workers and connections in
// fleet f (0 in f: the default). A workload at its own rates (lambda's
// paths) gets a connection per worker, one path's statements never
// waiting for another's connection; a workload that runs one loop per
// connection (churn: workload.RunDefaults.WorkersFromConns) gets as many
// workers as connections, either setting both, and two different counts
// are refused, as --conns and --concurrency are outside a fleet; one
// whose workers each hold a connection (run sql's:
// workload.RunDefaults.ConnPerWorker) gets a connection per worker, and
// fewer are refused; others get 1 connection.
func TenantSizes(gen workload.Generator, f Fleet) (wpt, cpt int, err error) {
	var rd workload.RunDefaults
	if d, ok := gen.(workload.RunDefaulter); ok {
		rd = d.RunDefaults()
	}
	wpt, cpt = f.WorkersPerTenant, f.ConnsPerTenant
	if rd.WorkersFromConns {
		if wpt > 0 && cpt > 0 && wpt != cpt {
			return 0, 0, inputf("--conns-per-tenant %d and --concurrency %d: workload %s runs one loop per connection, so each tenant's two are the same: give one of them, or both equal",
				cpt, wpt, gen.Meta().Name)
		}
		wpt = max(wpt, cpt)
		cpt = wpt
	}
	if wpt == 0 {
		wpt = DefaultWorkersPerTenant(gen)
	}
	if cpt == 0 {
		cpt = 1
		if rd.MaxRate > 0 || rd.WorkersFromConns || rd.ConnPerWorker {
			cpt = wpt
		}
	}
	if rd.ConnPerWorker && cpt < wpt {
		return 0, 0, inputf("--conns-per-tenant %d is fewer than each tenant's %s: workload %s keeps a connection per worker (its operations span several statements): give --conns-per-tenant %d or more, or leave it out",
			cpt, plural(wpt, "worker"), gen.Meta().Name, wpt)
	}
	return wpt, cpt, nil
}

// DefaultWorkersPerTenant returns what one tenant of gen's workload needs
// on its own: for a workload with --warehouses and --wait (TPC-C), 10
// workers per warehouse as the spec's terminals; for a workload that
// schedules at its own rates (lambda's paths), its own default
// concurrency; otherwise 1.
func DefaultWorkersPerTenant(gen workload.Generator) int {
	if d, ok := gen.(workload.RunDefaulter); ok {
		if rd := d.RunDefaults(); rd.MaxRate > 0 && rd.Concurrency > 0 {
			return rd.Concurrency
		}
	}
	f, ok := gen.(workload.Flagser)
	if !ok {
		return 1
	}
	wait, wh := f.Flags().Lookup("wait"), f.Flags().Lookup("warehouses")
	if wait == nil || wh == nil || wait.Value.String() != "true" {
		return 1
	}
	n, err := strconv.Atoi(wh.Value.String())
	if err != nil || n < 1 {
		return 1
	}
	return terminalsPerWarehouse * n
}

// TenantsSummary is "200 tenants (database mode, bank_%d)".
func TenantsSummary(s fleet.Spec) string {
	if s.Mode == fleet.ModeColumn {
		return fmt.Sprintf("%d tenants (column mode)", s.Tenants)
	}
	return fmt.Sprintf("%d tenants (%s mode, %s)", s.Tenants, s.Mode, s.Pattern)
}

// plural is "1 worker" or "10 workers".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
