package run

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/stampede-bench/stampede/engine"
	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/limit"
	"github.com/stampede-bench/stampede/results/store"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// Spec says what a run does. Its zero values are the defaults the
// command line has: one connection per worker, intended latency under a
// rate, client threads under SCHED_BATCH, a 64 MiB heap headroom,
// telemetry on, no limits, results in $STAMPEDE_RESULTS_DIR or
// ~/.stampede/runs. A Spec is a plain value; Start copies what it needs.
type Spec struct {
	// Workload is the workload's generator, its flags parsed (see
	// workload.FromFlags). Required.
	Workload workload.Generator
	// Conn says where to connect.
	Conn Conn

	// Concurrency is the number of workers; at least 1.
	Concurrency int
	// Duration limits the measured run, after the ramp; 0 means until
	// MaxOps or the context's end.
	Duration time.Duration
	// MaxOps stops the run after this many operations in total; 0 means
	// no limit. It is split evenly among the workers, unless SharedOps.
	MaxOps int64
	// SharedOps makes MaxOps one count every worker draws from, an
	// operation at a time, as sysbench's --events does (see
	// engine.Config.SharedOps).
	SharedOps bool
	// Ramp starts the workers gradually over this time; its operations
	// are left out of the final figures.
	Ramp time.Duration
	// MaxRate is the total operations per second, scheduled open loop;
	// latency is then counted from each operation's intended start. 0
	// runs closed loop.
	MaxRate float64
	// Poisson spaces each worker's intended starts under MaxRate by
	// exponential gaps (Poisson arrivals, pgbench's -R) instead of evenly.
	Poisson bool
	// ScheduleGroups, under MaxRate, deals the workers to this many
	// groups that each share one schedule, as pgbench's -R schedules per
	// thread (see engine.Config.ScheduleGroups); 0 gives each worker its
	// own. Under Part, each client deals its own workers.
	ScheduleGroups int
	// SkipLate, under MaxRate, skips an operation whose turn comes more
	// than this after its intended start, and counts it (pgbench's
	// --latency-limit under -R); 0 runs every one.
	SkipLate time.Duration
	// QueueRate is sysbench's --rate, instead of MaxRate: events arrive
	// at this mean rate per second, with exponential gaps, in one queue
	// the workers share, and latency counts from each event's arrival in
	// the queue (see engine.Config.QueueRate). 0 means none.
	QueueRate float64
	// DisplayEvery is the length of an interval; 0 means 1s.
	DisplayEvery time.Duration
	// TolerateErrors keeps the run going after an operation fails.
	TolerateErrors bool
	// AbortWorker makes an error end its worker only, as it aborts one of
	// pgbench's clients (engine.Config.AbortWorker): the run goes on
	// with the others and then returns ErrAborted.
	AbortWorker bool
	// ClientsOption names the option that sets Concurrency in advice
	// ("-c" in the pgbench form, which has no --conns); empty:
	// --concurrency, with --conns offered beside it.
	ClientsOption string
	// OpTimeout bounds each operation: the server's statement_timeout and
	// a client deadline; 0 means none.
	OpTimeout time.Duration
	// Grace is how long operations in flight at the run's end may take
	// before the run ends without them: 0 means 5s, a negative Grace no
	// limit (sysbench's --forced-shutdown=off; a Ctrl-C still waits 5s at
	// most).
	Grace time.Duration
	// Seed seeds the operation sequence; 0 picks one (Info.Seed says
	// which).
	Seed uint64
	// Pacer says how workers wait for each operation's scheduled start
	// under MaxRate: "precise" ("" too: sleep on the kernel's
	// high-resolution clock, then spin) or "coarse" (Go's timers).
	Pacer string
	// Latency says which latency the headline series show under MaxRate:
	// "intended" (from the scheduled start; "" too), "service" or
	// "both".
	Latency string
	// IOMode is how workers wait for the server: "auto" ("" too),
	// "thread" or "poller" (see sqlx.Options.ThreadIO).
	IOMode string
	// ClientSched is the Linux scheduling policy of the client's threads
	// during the run: "batch" ("" too) or "normal".
	ClientSched string
	// GCHeadroom is how much the client's Go heap may grow between
	// collections during the run, in bytes: 0 means the default (64
	// MiB), a negative value Go's own pacing.
	GCHeadroom int64
	// SkipChecks skips the workload's consistency checks after the run
	// (workloads that check after runs: tpcc).
	SkipChecks bool
	// SplitBy breaks each operation's figures down by the endpoint that
	// served it (ByEndpoint) or by its locality (ByLocality), in the
	// interval lines, the final block, summary.json and the run log
	// (series OP@ENDPOINT); "" does not. Not for fleet runs.
	SplitBy string

	// Telemetry says what the run samples besides the host.
	Telemetry Telemetry
	// Limits are cgroup limits on the system under test for the run.
	Limits Limits
	// Fleet, when set, runs the workload over a fleet of tenants.
	Fleet *Fleet
	// Part, when its Count is set, makes the run one of several clients
	// of one benchmark (see Part): MaxRate, QueueRate and MaxOps are then
	// the benchmark's totals, of which it runs its share.
	Part Part

	// ResultsDir is where the run directory is written; "" means
	// $STAMPEDE_RESULTS_DIR, else ~/.stampede/runs.
	ResultsDir string
	// ResultsURL is the results store the run is indexed in; "" means
	// $STAMPEDE_RESULTS_URL, else index.sqlite in ResultsDir.
	ResultsURL string
	// Tags label the run; passwords in them are masked before run.json
	// records them: those of connection strings and password= pairs they
	// quote, and the passwords of Conn's URLs and $PGPASSWORD wherever
	// they appear (redact.Tags).
	Tags map[string]string
	// MaskedTags names the tags the caller masked a password in, as
	// saved ("key=xxxxx"): the run warns about them with those it masks.
	MaskedTags []string
	// Command and Flags are the command line and the flag values, as
	// run.json records them (redacted by the caller).
	Command []string
	Flags   map[string]string
	// PrometheusListen, when set, serves live metrics at
	// http://PrometheusListen/metrics during the run.
	PrometheusListen string
	// PrometheusFlag is the flag that gave PrometheusListen, for its
	// messages: "--prometheus-listen", or "" for stampede's
	// --prometheus-port (a bare ":PORT"; the advice names
	// --prometheus-listen), or "--prometheus-port" for the cockroach
	// form's, which takes a port or host:port (the advice names it).
	PrometheusFlag string

	// Observers see the run as it goes (see Observer).
	Observers []Observer
	// Log receives notes and warnings, one per line (stderr on the
	// command line); nil discards them.
	Log io.Writer
	// Checks receives the output of the consistency checks after the
	// run; nil discards it (the checks still run).
	Checks io.Writer
	// Warnings, when set, receives the warnings that must be seen even
	// where Log is nil (a sweep's steps, which print a table instead):
	// the cgroups of killed runs that the run removed, or could not.
	// Without it they go to Log.
	Warnings io.Writer
}

// Conn says where a run connects.
type Conn struct {
	// URLs are libpq connection strings (postgres:// URLs or key=value
	// DSNs); none means the libpq environment variables. With several,
	// workers are spread round-robin over them.
	URLs []string
	// Database replaces the database the URLs name; "" keeps theirs, or
	// the workload's default when they name none.
	Database string
	// Conns is the number of connections in all; 0 means one per
	// worker. With fewer than workers, workers share them.
	Conns int
	// Driver is sqlx.DriverPostgres ("" too) or sqlx.DriverNull, which
	// runs the workload without a server.
	Driver string
	// Localities gives each URL's locality, in order ("" for none), as
	// --locality after a URL does; a URL may give its own with
	// ?locality=.
	Localities []string
	// EndpointsFile names a file of more endpoints, one URL per line with
	// an optional locality, read again every second during a run (see
	// sqlx.Options.EndpointsFile).
	EndpointsFile string
	// TextStatements sends every statement as text, its parameters
	// written into it, over the simple query protocol: nothing is
	// prepared (sysbench's --db-ps-mode=disable; see
	// sqlx.Options.TextStatements).
	TextStatements bool
	// Notices, when set, receives the server's notices as libpq prints
	// them (pgbench -i's form shows them); nil drops them.
	Notices io.Writer
}

// Telemetry says what a run's telemetry samples.
type Telemetry struct {
	// Off turns telemetry off.
	Off bool
	// WatchProcess are regular expressions matched against process
	// names, WatchCmdline against full command lines, and WatchPIDs are
	// processes with their descendants: the system under test, whose CPU,
	// memory and IO are recorded.
	WatchProcess []string
	WatchCmdline []string
	WatchPIDs    []int
}

// Limits are cgroup limits on the system under test for one run.
type Limits struct {
	limit.Limits
	// Processes, Cmdlines and PIDs say which processes the limits apply
	// to (as Telemetry's fields); none means the watched processes.
	Processes []string
	Cmdlines  []string
	PIDs      []int
}

// Fleet runs a workload over a fleet of tenants.
type Fleet struct {
	// Spec names the tenants.
	Spec fleet.Spec
	// Active is the number of tenant workloads run at once; 0 means every
	// tenant.
	Active int
	// ConnsPerTenant is each active tenant's connections; 0 means 1 (a
	// connection per worker for a workload at its own rates, lambda).
	ConnsPerTenant int
	// WorkersPerTenant is each active tenant's workers; 0 means what one
	// tenant of the workload needs (10 per warehouse for TPC-C with
	// waits, lambda's own default concurrency, else 1).
	WorkersPerTenant int
	// Pick chooses the active tenants: fleet.PickRandom ("" too) or
	// fleet.PickRoundRobin.
	Pick string
	// Rotate replaces a tenant workload that fails, or that ran
	// TenantDuration, by the next tenant; it tolerates errors.
	Rotate         bool
	TenantDuration time.Duration
	// First and Last are the tenants this run picks from: set by
	// Spec.Part to the client's contiguous share of the fleet (0 and 0:
	// every tenant).
	First, Last int
}

// Options returns the sqlx options of c for a workload whose default
// database is defaultDB, with conns connections unless c.Conns says
// otherwise. The database is c.Database, else the one a URL names (or,
// without URLs, a URL of the endpoints file), else $PGDATABASE without
// URLs, else defaultDB.
func (c Conn) Options(defaultDB string, conns int) (sqlx.Options, error) {
	opts := sqlx.Options{URLs: c.URLs, Driver: c.Driver, MaxConns: conns, AppName: "stampede",
		Localities: c.Localities, EndpointsFile: c.EndpointsFile, TextStatements: c.TextStatements, Notices: c.Notices}
	if opts.Driver == "" {
		opts.Driver = sqlx.DriverPostgres
	}
	switch {
	case c.Conns < 0:
		return opts, inputf("Conns %d is negative", c.Conns)
	case c.Conns > 0:
		opts.MaxConns = c.Conns
	}
	switch opts.Driver {
	case sqlx.DriverPostgres, sqlx.DriverNull:
	default:
		return opts, inputf("unknown driver %q: use postgres or null", c.Driver)
	}
	db := c.Database
	urls := c.URLs
	if c.EndpointsFile != "" {
		// Read before anything connects (init creates the database),
		// so that a bad file is refused first, URLs given or not; with
		// none, the endpoints file's URLs name the database.
		fileURLs, err := sqlx.EndpointsFileURLs(c.EndpointsFile)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			return opts, inputf("%v: give --endpoints-file a readable file of endpoints, one URL per line", err)
		} else if err != nil {
			return opts, asInput(err)
		}
		if len(urls) == 0 {
			urls = fileURLs
		}
	}
	if db == "" && len(urls) > 0 {
		cfgs, err := sqlx.ParseConfigs(sqlx.Options{URLs: urls})
		if err != nil {
			return opts, asInput(err)
		}
		for _, u := range urls {
			if urlNamesDatabase(u) {
				db = cfgs[0].ConnConfig.Database
				break
			}
		}
	}
	if db == "" && len(c.URLs) == 0 && c.EndpointsFile == "" {
		db = os.Getenv("PGDATABASE")
	}
	if db == "" {
		db = defaultDB
	}
	opts.Database = db
	if _, err := sqlx.ParseConfigs(opts); err != nil {
		return opts, asInput(err)
	}
	return opts, nil
}

// urlNamesDatabase reports whether a connection string names a database
// explicitly (a URL path, or dbname= in a DSN).
func urlNamesDatabase(u string) bool {
	if rest, ok := strings.CutPrefix(u, "postgresql://"); ok {
		u = rest
	} else if rest, ok := strings.CutPrefix(u, "postgres://"); ok {
		u = rest
	} else {
		return strings.Contains(u, "dbname=")
	}
	u, _, _ = strings.Cut(u, "?")
	_, path, ok := strings.Cut(u, "/")
	return ok && path != ""
}

// validate checks s, naming the field at fault in errors that match
// ErrInput.
func (s *Spec) validate() error {
	switch {
	case s.Workload == nil:
		return inputf("Spec.Workload is nil: give a generator (workload.FromFlags)")
	case s.Concurrency < 1:
		return inputf("Spec.Concurrency %d: need at least 1 worker", s.Concurrency)
	case s.Duration < 0:
		return inputf("Spec.Duration %s is negative: use 0 for no limit", s.Duration)
	case s.MaxOps < 0:
		return inputf("Spec.MaxOps %d is negative: use 0 for no limit", s.MaxOps)
	case s.Ramp < 0:
		return inputf("Spec.Ramp %s is negative", s.Ramp)
	case s.MaxRate < 0:
		return inputf("Spec.MaxRate %g is negative: use 0 for no limit", s.MaxRate)
	case s.QueueRate < 0:
		return inputf("Spec.QueueRate %g is negative: use 0 for no limit", s.QueueRate)
	case s.QueueRate > 0 && s.MaxRate > 0:
		return inputf("Spec.QueueRate and Spec.MaxRate are both set: give one rate")
	case s.DisplayEvery < 0:
		return inputf("Spec.DisplayEvery %s is negative", s.DisplayEvery)
	case s.DisplayEvery > 0 && s.DisplayEvery < engine.MinDisplayEvery:
		return inputf("Spec.DisplayEvery %s is shorter than %s: use %s or more (0 for 1s)", s.DisplayEvery, engine.MinDisplayEvery, engine.MinDisplayEvery)
	case s.OpTimeout < 0:
		return inputf("Spec.OpTimeout %s is negative: use 0 for none", s.OpTimeout)
	}
	switch {
	case s.SplitBy != "" && s.SplitBy != ByEndpoint && s.SplitBy != ByLocality:
		return inputf("Spec.SplitBy %q: use %s or %s", s.SplitBy, ByEndpoint, ByLocality)
	case s.SplitBy != "" && s.Fleet != nil:
		return inputf("--by-%s does not apply to a fleet run (its tenants share the endpoints)", s.SplitBy)
	}
	switch s.Latency {
	case "", LatencyIntended, LatencyService, LatencyBoth:
	default:
		return inputf("Spec.Latency %q: use intended, service or both", s.Latency)
	}
	if _, err := engine.ParsePacer(s.Pacer); err != nil && s.Pacer != "" {
		return inputf("Spec.Pacer %q: use precise or coarse", s.Pacer)
	}
	switch s.IOMode {
	case "", IOAuto, IOThread, IOPoller:
	default:
		return inputf("Spec.IOMode %q: use auto, thread or poller", s.IOMode)
	}
	switch s.ClientSched {
	case "", "batch", "normal":
	default:
		return inputf("Spec.ClientSched %q: use batch or normal", s.ClientSched)
	}
	if err := CheckWorkersOf("Spec.Concurrency", s.Concurrency, s.IOMode == IOThread, s.Workload); err != nil {
		return err
	}
	if f := s.Fleet; f != nil {
		switch {
		case f.Active < 0:
			return inputf("Spec.Fleet.Active %d is negative", f.Active)
		case f.Active > f.Spec.Tenants:
			return inputf("Spec.Fleet.Active %d is more than the fleet's %d tenants", f.Active, f.Spec.Tenants)
		case (f.First != 0 || f.Last != 0) && (f.First < 1 || f.Last < f.First || f.Last > f.Spec.Tenants):
			return inputf("Spec.Fleet.First %d and Last %d: give a range of tenants within 1..%d", f.First, f.Last, f.Spec.Tenants)
		case f.Last != 0 && f.Active > f.Last-f.First+1:
			return inputf("Spec.Fleet.Active %d is more than tenants %d..%d", f.Active, f.First, f.Last)
		case f.ConnsPerTenant < 0 || f.WorkersPerTenant < 0:
			return inputf("Spec.Fleet: ConnsPerTenant %d and WorkersPerTenant %d must not be negative", f.ConnsPerTenant, f.WorkersPerTenant)
		case f.TenantDuration < 0:
			return inputf("Spec.Fleet.TenantDuration %s is negative", f.TenantDuration)
		}
		if err := f.Spec.Validate(); err != nil {
			return asInput(err)
		}
		if err := CheckTenants("Spec.Fleet.Spec.Tenants", f.Spec.Tenants); err != nil {
			return err
		}
	}
	return nil
}

// Values of Spec.Latency.
const (
	LatencyIntended = "intended"
	LatencyService  = "service"
	LatencyBoth     = "both"
)

// Values of Spec.IOMode.
const (
	IOAuto   = "auto"
	IOThread = "thread"
	IOPoller = "poller"
)

// ReadRoot returns the results directory that report, compare, runs and
// serve read, from their --results-dir dir and --results-url url (""
// for $STAMPEDE_RESULTS_URL): "" for NoResultsDir, which reads the results
// store alone (which must then keep the runs' files: PostgreSQL), else
// ResultsRoot(dir).
func ReadRoot(dir, url string) (string, error) {
	if dir != NoResultsDir {
		return ResultsRoot(dir)
	}
	if !store.KeepsFiles(StoreURL("", url)) {
		return "", inputf("--results-dir none reads the runs of the results store alone: give --results-url postgresql://... (a PostgreSQL store, or $STAMPEDE_RESULTS_URL), or a results directory")
	}
	return "", nil
}

// ResultsRoot returns the directory run directories go under: dir, else
// $STAMPEDE_RESULTS_DIR, else ~/.stampede/runs.
func ResultsRoot(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	if env := os.Getenv("STAMPEDE_RESULTS_DIR"); env != "" {
		return env, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", inputf("cannot find a home directory for results: give a results directory (--results-dir)")
	}
	return filepath.Join(home, ".stampede", "runs"), nil
}
