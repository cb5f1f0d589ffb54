package workload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/sqlx"
)

// Meta describes a registered workload.
type Meta struct {
	// Name is the workload's name on the command line (`stampede run NAME`).
	Name string
	// Description is a one-line summary shown by `stampede workloads`.
	Description string
	// Details is longer help text, shown by `stampede run NAME --help`; it
	// should contain real examples.
	Details string
	// Version identifies the initial data; bump it whenever the rows a given
	// set of flags produces change.
	Version string
	// Database is the default database name; "" means the workload's
	// name (sysbench's workloads use "sbtest", as sysbench does).
	Database string
	// NoAnalyze says that `init` leaves the loaded tables without planner
	// statistics unless asked (--analyze), because the tool the workload
	// reproduces does so (sysbench's prepare): the same work on the
	// server, and a load time that compares. Autovacuum gathers them later.
	NoAnalyze bool
	// New returns a fresh, unconfigured Generator with its flags at their
	// defaults.
	New func() Generator
}

// Generator is the one interface every workload implements.
type Generator interface {
	// Meta returns the workload's registration record.
	Meta() Meta
	// Tables returns the tables the workload creates and loads, in creation
	// order. It is called after flags are parsed.
	Tables() []Table
}

// Flags is a workload's flag set plus metadata about individual flags.
type Flags struct {
	*pflag.FlagSet
	// Meta holds per-flag metadata, keyed by flag name.
	Meta map[string]FlagMeta
}

// FlagMeta is metadata about one workload flag.
type FlagMeta struct {
	// RuntimeOnly flags do not change the loaded data (only what a run does).
	RuntimeOnly bool
	// Check says a RuntimeOnly flag also changes what `stampede check`
	// does (tpcc's --expensive-checks), so check does not call it ignored.
	Check bool
	// LoadOnly flags change only what init creates (tpcc's --fks,
	// sysbench's --secondary): a run of the loaded data ignores them.
	LoadOnly bool
	// Only names the one command that uses the flag ("init", "check",
	// "cleanup": sql's --init-file, --check-file, --cleanup-file); the
	// others warn that they ignore it.
	Only string
	// PerClient flags differ between the clients of one benchmark by
	// design (tpcc's --warehouse-range): a merge of the clients' runs
	// neither compares them nor sets them (see ClientMerger).
	PerClient bool
	// NotData flags change how a run calls the objects init made, not
	// the data (tpcc --profile hammerdb's --stored-procs: procedures or
	// functions): the clients of one benchmark may differ in them, as
	// two HammerDB instances against two nodes may.
	NotData bool
	// KeepsData flags make init keep the data loaded and make only what
	// is missing beside it (tpcc's --routines-only): init refuses them
	// with --drop, and a suggested reload (a hint with --drop) leaves
	// them out.
	KeepsData bool
}

// Flagser is a Generator with flags of its own.
type Flagser interface {
	Generator
	// Flags returns the workload's flags; the same value on every call.
	Flags() Flags
}

// Hooks are optional lifecycle callbacks. Any field may be nil; adding a
// field breaks no workload.
type Hooks struct {
	// Validate checks the parsed flags. Its error is a usage error.
	Validate func() error
	// NoChecks, set on a workload without CheckConsistency that has
	// nothing to check by design (as the tool it follows), is the line
	// check prints before it exits 0.
	NoChecks string
	// PreLoad runs after the tables are created and before data is loaded.
	PreLoad func(ctx context.Context, db *sqlx.DB) error
	// PostLoad runs after the initial data is loaded (indexes, analyze).
	PostLoad func(ctx context.Context, db *sqlx.DB) error
	// PreRun checks, before a run, that the database holds what the run
	// needs (tables loaded with matching flags). Its error should say what
	// to do, for example run `stampede init`.
	PreRun func(ctx context.Context, db *sqlx.DB) error
	// CheckConsistency verifies the workload's invariants (`stampede check`).
	CheckConsistency func(ctx context.Context, db *sqlx.DB, w Reporter) error
	// RunTables lists the tables of db that runs of the workload make
	// beyond its Tables (sysbench's bulk_insert makes one per thread,
	// marked with RunMark); `stampede cleanup` drops them with Tables,
	// those that carry stampede's mark only (unless --force-drop).
	RunTables func(ctx context.Context, db *sqlx.DB) ([]string, error)
	// PrepareRun creates, at a load that asks for it
	// (LoadOptions.PrepareRun), the tables a run of workers workers
	// writes, as sysbench's bulk_insert prepare creates sbtest1..--threads;
	// it reports each table's creation to step (StepCreate) when step is
	// set.
	PrepareRun func(ctx context.Context, db *sqlx.DB, workers int, step func(LoadStep)) error
}

// Reporter receives human-readable check results line by line.
type Reporter interface {
	Printf(format string, args ...any)
}

// Hookser is a Generator with lifecycle hooks.
type Hookser interface {
	Generator
	// Hooks returns the workload's hooks.
	Hooks() Hooks
}

// OpsConfig is what the runner tells a workload about the run it is about
// to perform.
type OpsConfig struct {
	// Concurrency is the number of workers; QueryLoad.Workers must have
	// exactly this many entries.
	Concurrency int
	// Seed is the run's random seed; worker w derives its stream from
	// (Seed, w).
	Seed uint64
	// Warn receives non-fatal warnings (for example ignored properties).
	Warn func(format string, args ...any)
	// Ramp and Duration are the run's --ramp and --duration (the
	// measurement interval after the ramp); 0 when there is none or the
	// caller does not say.
	Ramp, Duration time.Duration
}

// Opser is a Generator that can be run.
type Opser interface {
	Generator
	// Ops prepares a run: it returns the names of the operation types and
	// one Worker per worker. Workers obtain connections from db.
	Ops(ctx context.Context, db *sqlx.DB, cfg OpsConfig) (QueryLoad, error)
}

// Result is the outcome of one call of a Worker.
type Result struct {
	// Op is the index in QueryLoad.Ops of the operation performed.
	Op int
	// Err is the operation's error, if any.
	Err error
	// Wait asks the engine to pause this worker before its next call
	// (keying and think times). The pause is not part of any latency.
	Wait time.Duration
	// Tolerated says that Err is a failure the workload expects and goes
	// on after (pgbench's failed transactions: a serialization failure
	// or deadlock that used up --max-tries): it is counted as an error
	// and never ends the run.
	Tolerated bool
	// End, when not 0, is when the operation ended, as Now read it: the
	// engine takes it as the operation's end instead of reading the
	// clock again. Leave it 0 when the worker did anything after it read
	// the clock that belongs to the operation (a disconnect, a wait).
	End time.Duration
}

// ErrLoadMismatch marks an error caused by a run configured differently
// from the load (a YCSB recordcount larger than the table loaded, TPC-C's
// --warehouses other than those loaded): going on would not help, so the
// run's error says what to change rather than suggesting --tolerate-errors.
var ErrLoadMismatch = errors.New("the run's properties do not match the load")

// ErrUsage marks an error of Ops caused by the run's own settings (a
// number of workers the workload cannot run with): front ends report it
// as bad input, exit 2.
var ErrUsage = errors.New("the run's settings do not suit the workload")

// Worker performs one operation per call. A Worker is used by one
// goroutine only; its state lives in the closure.
type Worker func(ctx context.Context) Result

// QueryLoad is what a workload gives the engine for a run.
type QueryLoad struct {
	// Ops are the names of the operation types, indexed by Result.Op and
	// by Recorder calls.
	Ops []string
	// Classes optionally classifies each operation (parallel to Ops) for
	// reports that count queries by kind, as sysbench's read/write/other.
	Classes []OpClass
	// Workers has one entry per worker.
	Workers []Worker
	// Attach, when set, is called once per worker, from that worker's
	// goroutine before its first call, with the Recorder through which
	// the worker may record operations of its own (the statements inside
	// a transaction, say) and errors it tolerated (retried conflicts).
	// It may wait before returning (TPC-C's keying time before a
	// terminal's first transaction): the engine counts the wait in no
	// latency. A workload that waits there must stop waiting when the
	// run ends.
	Attach func(worker int, rec Recorder)
	// Detach, when set, is called once per worker that Attach was called
	// for, from that worker's goroutine after its last call, while its
	// Recorder still counts: a worker that buffers (bulk_insert's rows)
	// sends and records the rest there, as sysbench's thread_done does.
	// A worker abandoned in a call that never returns is not detached.
	Detach func(worker int)
	// Scheduled, when set, is called under a rate (the engine's MaxRate
	// schedule), from the worker's goroutine, before each of its calls
	// with that call's intended start, and for each operation the engine
	// skips as too late (its SkipLate) with skipped set and no call:
	// pgbench's transaction log writes each transaction's schedule lag,
	// and a line for each skipped one.
	Scheduled func(worker int, intended time.Time, skipped bool)
	// RateShares, when set (one entry per worker), divides a rate
	// schedule (the engine's MaxRate) between the workers unevenly:
	// worker w's own schedule runs at MaxRate x RateShares[w] /
	// sum(RateShares) instead of MaxRate/workers, so that workers of
	// different roles keep rates of their own (lambda's ingest, hot path,
	// serving queries and batch recomputes), each one's lateness in its
	// operation's schedule lag. A share must be positive. It applies to
	// per-worker schedules only: ScheduleGroups and QueueRate refuse it.
	RateShares []float64
	// Header holds lines that say how the workload runs (its isolation
	// level, say), printed under the run's first line.
	Header []string
	// Close releases the workload's resources after the run; may be nil.
	Close func(context.Context) error
}

// Recorder records what a worker measures itself. Latencies recorded
// through it are service times (never corrected to an intended start).
// A Recorder belongs to one worker and is not safe for concurrent use.
type Recorder interface {
	// Record adds the latency of one operation of type op.
	Record(op int, d time.Duration)
	// RecordError counts a failed operation of type op that the worker
	// handled (retried or ignored); it does not end the run. err is the
	// failure, which the run classifies (SQLSTATE, conn, timeout, other)
	// and logs.
	RecordError(op int, err error)
}

// PartErrorRecorder is implemented by the engine's Recorders: it counts a
// failure in the series of op only, a part of an operation (a statement
// of a script) whose own failure is counted apart (by its Result or
// RecordError), so that the part's row shows where the operation failed
// without the failure being counted twice by code or in the total.
type PartErrorRecorder interface {
	RecordPartError(op int)
}

// RetryRecorder is implemented by the engine's Recorders: it counts a
// failure that the workload retried itself and that is no failed
// operation (a try of pgbench's --max-tries before the one that decided
// the transaction) under its class, as retries_CODE, in the run log.
type RetryRecorder interface {
	RecordRetry(err error)
}

// NotFoundCode is the class (sqlx.ErrorCode) of an operation whose key
// has no row, which its workload counts and does not retry (YCSB's
// NOT_FOUND reads, UNEXPECTED_STATE updates and deletes): the run's
// final lines name it apart from failures.
const NotFoundCode = "not_found"

// OpClass is the kind of an operation, for sysbench-style query counts.
type OpClass int

// Operation classes.
const (
	// ClassTransaction is a whole transaction or event (sysbench's "tps").
	ClassTransaction OpClass = iota
	// ClassRead is a query that reads.
	ClassRead
	// ClassWrite is a query that writes.
	ClassWrite
	// ClassOther is any other query (BEGIN, COMMIT).
	ClassOther
)

// Table is a table a workload creates and loads.
type Table struct {
	// Name is the table's name, unquoted; the loader quotes it where SQL
	// needs it, so a table may be named "order".
	Name string
	// Schema is the column and constraint list in parentheses, in the
	// dialect's SQL, for example `(k INT PRIMARY KEY, v TEXT)`.
	Schema string
	// Columns are the column names in the order FillBatch produces values.
	Columns []string
	// Indexes are CREATE INDEX statements run after the load.
	Indexes []string
	// InitialRows produces the table's initial data.
	InitialRows BatchedTuples
}

// BatchedTuples is a table's initial data, split into batches that can be
// produced independently, in any order and in parallel: a batch depends
// only on its index (and the generator's flags and seed).
type BatchedTuples struct {
	// NumBatches is the number of batches; 0 means the table starts empty.
	NumBatches int
	// NumRows is the total number of rows, for progress reporting.
	NumRows int64
	// FillBatch appends batch batchIdx's rows to rows and returns it. It
	// must be safe to call from several goroutines at once.
	FillBatch func(batchIdx int, rows [][]any) [][]any
	// EncodeBatch, if set, writes the same rows as FillBatch (the same
	// values, in the same order) into w: the loader's fast path, which
	// neither boxes values nor looks up how to encode them. It must be
	// safe to call from several goroutines at once (each with its own w).
	EncodeBatch func(batchIdx int, w *sqlx.RowWriter)
	// InsertRows, when positive, has the loader send the rows in INSERT
	// statements of InsertRows rows each rather than COPY, as a client
	// that inserts in batches does (YCSB's JDBC binding with
	// jdbc.batchupdateapi and db.batchsize), for a load that compares
	// with the tool's.
	InsertRows int
}

var (
	registryMu sync.Mutex
	registry   = map[string]Meta{}
)

// Register makes a workload available by name. It panics if the name is
// taken or the Meta is incomplete (programmer errors).
func Register(m Meta) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if m.Name == "" || m.New == nil {
		panic("workload: Register with empty name or nil New")
	}
	if _, ok := registry[m.Name]; ok {
		panic(fmt.Sprintf("workload: %q is registered twice", m.Name))
	}
	registry[m.Name] = m
}

// DatabaseName returns the workload's default database name.
func (m Meta) DatabaseName() string {
	if m.Database != "" {
		return m.Database
	}
	return m.Name
}

// Get returns the registered workload named name.
func Get(name string) (Meta, bool) {
	registryMu.Lock()
	defer registryMu.Unlock()
	m, ok := registry[name]
	return m, ok
}

// Registered returns every registered workload, sorted by name.
func Registered() []Meta {
	registryMu.Lock()
	defer registryMu.Unlock()
	out := make([]Meta, 0, len(registry))
	for _, m := range registry {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// FromFlags returns a new Generator of the given workload with args parsed
// into its flags; meant for tests (`FromFlags(meta, "--rows=10")`).
func FromFlags(m Meta, args ...string) (Generator, error) {
	g := m.New()
	if f, ok := g.(Flagser); ok {
		if err := f.Flags().Parse(args); err != nil {
			return nil, err
		}
		if rest := f.Flags().Args(); len(rest) > 0 { // nothing is silently ignored
			return nil, fmt.Errorf("unexpected %q: give the workload's flags only, as --name value", strings.Join(rest, " "))
		}
	} else if len(args) > 0 {
		return nil, fmt.Errorf("workload %s takes no flags", m.Name)
	}
	if h, ok := g.(Hookser); ok {
		if v := h.Hooks().Validate; v != nil {
			if err := v(); err != nil {
				return nil, err
			}
		}
	}
	return g, nil
}

// Seeder is a Generator whose initial data depends on the seed. The
// runner calls SetSeed with the --seed of `init` before calling Tables.
type Seeder interface {
	Generator
	// SetSeed sets the seed that data batches derive their streams from.
	SetSeed(seed uint64)
}

// DropFirster is a Generator whose own flags ask init to drop its tables
// before creating them (pgbench's step d), as --drop does: under the same
// rule, only what stampede made (workload.ForeignTables) unless
// --force-drop.
type DropFirster interface {
	Generator
	// DropsFirst reports whether init drops the tables first.
	DropsFirst() bool
}

// SelfLoader is a Generator whose init, as asked, is its own: run.Load
// opens the database and hands it to LoadItself instead of creating,
// marking, loading and recording the tables itself. It is pgbench -i's
// form (stampede pgbench -i), which takes pgbench's steps as pgbench
// takes them, and marks the tables it makes (a comment), so that its
// own -i and stampede's cleanup and --drop know them from a user's or
// the real pgbench's.
type SelfLoader interface {
	Generator
	// LoadsItself reports whether this init is the generator's own.
	LoadsItself() bool
	// LoadItself takes the init's steps on db.
	LoadItself(ctx context.Context, db *sqlx.DB) error
}

// LoadLogger is a SelfLoader whose init, its own or run.Load's, says what
// it did beyond the tables (TPC-C's routines): run.Load gives it the
// init's log before it loads.
type LoadLogger interface {
	SelfLoader
	// SetLoadLog sets where LoadItself writes its lines.
	SetLoadLog(w io.Writer)
}

// RunLogger is a Generator whose Hooks.PreRun says what it did (churn's
// --fresh names the tables it keeps): a run gives it the run's log before
// PreRun.
type RunLogger interface {
	// SetRunLog sets where PreRun writes its lines.
	SetRunLog(w io.Writer)
}

// ForceDropSetter is a Generator whose load must know whether
// --force-drop was given, beyond the tables run.Load drops: the pgbench
// form's -i (a SelfLoader), which drops pgbench's tables that stampede
// did not make only with it, and tpcc's HammerDB profile, which replaces
// routines of HammerDB's names that stampede did not make only with it.
type ForceDropSetter interface {
	Generator
	// SetForceDrop says whether --force-drop was given.
	SetForceDrop(force bool)
}

// RunTablesDropper is a Generator whose init --drop drops, with its own
// tables, the tables its runs made (Hooks.RunTables): churn's, which its
// own table (the bookkeeping of their rows) accounts for, and which a new
// bookkeeping would not.
type RunTablesDropper interface {
	Generator
	// DropsRunTables reports whether init --drop drops them.
	DropsRunTables() bool
}

// RunCreator is a Generator whose runs create tables of their own
// (churn's random tables, bulk_insert's sbtestN): a fleet's tenant roles
// (init --tenant-roles) then get CREATE on their own tenant's schema, and
// only there.
type RunCreator interface {
	Generator
	// CreatesAtRun reports whether its runs create tables.
	CreatesAtRun() bool
}

// ClientPartitioner is a Generator that can run as one of several
// clients of one benchmark (run.Spec.Part) without the clients' writes
// colliding: YCSB gives each client its own range of keys to insert, as
// YCSB's insertstart and insertcount do; TPC-C its own range of home
// warehouses. Workloads whose operations pick keys at random over the
// whole data need nothing and run as they are.
type ClientPartitioner interface {
	Generator
	// PartitionClients makes the generator client index (from 0) of
	// count; an error says why it cannot (properties that set the range
	// already, more clients than warehouses, say). It may be called
	// more than once with the same part.
	PartitionClients(index, count int) error
}

// RunDefaulter is a Generator whose own configuration supplies defaults
// for run flags the user did not give (YCSB's operationcount and
// measurement.interval properties, for example).
type RunDefaulter interface {
	Generator
	// RunDefaults returns the defaults.
	RunDefaults() RunDefaults
}

// RunDefaults are defaults a workload supplies for run flags.
type RunDefaults struct {
	// MaxOps is the default --max-ops; 0 leaves it unset.
	MaxOps int64
	// MaxRate is the workload's own rate schedule, in operations per
	// second (lambda's, from its --ingest-rate and the rates of its
	// paths, divided between its workers by QueryLoad.RateShares): the
	// run's --max-rate, which the user may not give apart (run refuses a
	// different one, and sysbench's --rate); 0 for none.
	MaxRate float64
	// Latency is the default --latency (intended, service or both); ""
	// leaves it unset.
	Latency string
	// Concurrency is the default --concurrency (TPC-C's 10 terminals per
	// warehouse with keying and think times) and Conns the default
	// --conns, the connections the workers share; 0 leaves each unset.
	Concurrency, Conns int
	// Warnings are messages about the configuration (ignored properties)
	// for commands that do not call Ops, which reports them itself.
	Warnings []string
	// WorkersFromConns says each worker is one connection's loop
	// (churn's): --conns given without --concurrency sets the workers
	// too, one per connection.
	WorkersFromConns bool
	// ConnPerWorker says each worker holds a connection of its own
	// through an operation (run sql's scripts, whose transactions span
	// their statements): a fleet gives each tenant a connection per
	// worker unless told, and refuses fewer.
	ConnPerWorker bool
}

// Figurer is a Generator with figures of its own computed from a run's
// totals, printed under the summary and saved with it (TPC-C's tpmC and
// efficiency, say).
type Figurer interface {
	Generator
	// Figures returns the figures for a run that completed counts[op]
	// operations of each type (failures excluded) in elapsed, after the
	// ramp.
	Figures(counts map[string]int64, elapsed time.Duration) []Figure
}

// SweepFigurer is a Figurer whose figures a sweep's table shows per
// step, a column each (TPC-C's tpmC and efficiency).
type SweepFigurer interface {
	Figurer
	// SweepFigures returns the columns' headers: a figure's name, with
	// its unit in parentheses when it has one (efficiency(%)).
	SweepFigures() []string
}

// ErrorFigurer is a Figurer with figures of the failed operations the
// engine counted: errors the workload returned rather than recorded by
// status (YCSB's Return=ERROR under --stop-on-error --tolerate-errors).
type ErrorFigurer interface {
	Figurer
	// ErrorFigures returns the figures of errors[op] failed operations
	// of each type (see AllFigures for their place).
	ErrorFigures(errors map[string]int64) []Figure
}

// AllFigures returns f's figures for a run that completed counts[op]
// operations of each type and failed errors[op] in elapsed: Figures'
// computed from the counts, then ErrorFigures' when f is an ErrorFigurer,
// then the Observed ones (the order `stampede report` prints them in).
func AllFigures(f Figurer, counts, errors map[string]int64, elapsed time.Duration) []Figure {
	var figs, observed []Figure
	for _, fig := range f.Figures(counts, elapsed) {
		if fig.Observed {
			observed = append(observed, fig)
		} else {
			figs = append(figs, fig)
		}
	}
	if ef, ok := f.(ErrorFigurer); ok {
		figs = append(figs, ef.ErrorFigures(errors)...)
	}
	return append(figs, observed...)
}

// FleetSummer is a Figurer whose figures add up over the tenants of a
// fleet run (lambda's events ingested a second, its batch views' rows):
// the fleet's figure is the sum of its tenant workloads' own, each
// computed from that tenant's counts over its own time.
type FleetSummer interface {
	Figurer
	// FiguresAddUp reports whether the figures add up.
	FiguresAddUp() bool
}

// WorkerFigurer is a Figurer whose figures depend on the run's number of
// workers (TPC-C's efficiency, meaningful with 10 terminals per
// warehouse). `stampede report`, which rebuilds the workload from
// run.json to recompute its figures, tells it the run's workers first.
type WorkerFigurer interface {
	Figurer
	// SetFigureWorkers says the run had n workers.
	SetFigureWorkers(n int)
}

// EndWaitFigurer is a Figurer whose rates are over the run's scheduled
// time, the measurement interval up to the run's end (its duration
// over), without the wait that follows for the operations still in
// flight (lambda's ingest at its own open-loop rate: the batches in
// flight at the end were scheduled within the duration, and an ingest
// that kept its rate then reads as that rate, not short of it by the
// wait). The engine's own rates (ops/s) keep the wait in their elapsed
// time, as sysbench and pgbench do. The runner, and `stampede report`
// for one whole run, say the wait before Figures; 0 when there was none.
type EndWaitFigurer interface {
	Figurer
	// SetFigureEndWait says the elapsed time Figures is given ends
	// with wait spent waiting for operations in flight.
	SetFigureEndWait(wait time.Duration)
}

// Measurer is a Generator that takes part in the measurement interval of
// a run, the time after the ramp whose operations the final figures
// count: to read figures from the server at its two ends (HammerDB's
// NOPM, the growth of a counter), or to leave the ramp out of counts of
// its own. The runner calls StartMeasurement when the interval starts:
// at the end of the ramp, or before any worker starts when there is no
// ramp. It calls the function StartMeasurement returned once the interval
// has ended and every worker has stopped, before Figures and Audits,
// which then cover the interval. A figure read from the server says so in
// its Text. The runner gives the workload's pool a connection beyond the
// workers' for such reads.
type Measurer interface {
	Generator
	// StartMeasurement marks the start, at, of the measurement interval
	// of the run that Ops last prepared, and returns the function that
	// marks its end. It may query the server (the caller waits). An error
	// of either is a warning: the run goes on, without the figures that
	// needed it.
	StartMeasurement(ctx context.Context, at time.Time) (end func(ctx context.Context) error, err error)
}

// Measurement drives a Measurer through one run: Start, then End, each
// at most once. Both do nothing when the generator is not a Measurer.
type Measurement struct {
	gen     Generator
	started bool
	end     func(ctx context.Context) error
}

// NewMeasurement returns the Measurement of a run of gen (nil: none).
func NewMeasurement(gen Generator) *Measurement { return &Measurement{gen: gen} }

// Start calls StartMeasurement, the first time only.
func (m *Measurement) Start(ctx context.Context, at time.Time) error {
	ms, ok := m.gen.(Measurer)
	if !ok || m.started {
		return nil
	}
	m.started = true
	end, err := ms.StartMeasurement(ctx, at)
	m.end = end
	return err
}

// End calls the end function StartMeasurement returned, the first time
// only.
func (m *Measurement) End(ctx context.Context) error {
	end := m.end
	m.end = nil
	if end == nil {
		return nil
	}
	return end(ctx)
}

// Figure is a labelled result of a run.
type Figure struct {
	// Name is a short snake_case label, such as "tpmC".
	Name string
	// Value is the figure.
	Value float64
	// Text is how it reads in the summary, such as "1,234.5 (97.3% efficiency)".
	Text string
	// Observed says the figure was read from the server during the run
	// (TPC-C's NOPM), not computed from the run's counts: the run keeps it
	// in its run log (an event of kind "figure"), from which `stampede
	// report` prints it for the whole run. Observed figures come after
	// the others (see AllFigures).
	Observed bool
}

// YCSBMeasurer is a Generator whose series map onto YCSB's measurements,
// for --output-style ycsb (without it, each operation is its own
// measurement, its name in upper case, and its errors Return=ERROR).
type YCSBMeasurer interface {
	Generator
	// YCSBMeasure says where series (a name of QueryLoad.Ops) goes in
	// YCSB's output.
	YCSBMeasure(series string) YCSBMeasure
	// YCSBPercentiles are the latency percentiles of the final report
	// (YCSB's hdrhistogram.percentiles; nil for YCSB 0.17.0's 95 and
	// 99).
	YCSBPercentiles() []float64
}

// YCSBCleanupMeasurer is a YCSBMeasurer that can time each worker's
// cleanup at the end of a run, YCSB's [CLEANUP] measurement (one per
// client thread): --output-style ycsb asks for it before the run, and
// the run's series then hold one more, whose YCSBMeasure says CLEANUP.
type YCSBCleanupMeasurer interface {
	YCSBMeasurer
	// MeasureCleanup asks the runs to come to time each worker's cleanup.
	MeasureCleanup()
}

// YCSBMeasure is where a series goes in YCSB's output.
type YCSBMeasure struct {
	// Latency is the measurement its latencies go to, such as "READ" or
	// "READ-FAILED"; "" for none.
	Latency string
	// OpOnly says YCSB measures it from the operation's actual start
	// only, never from its intended start (SCAN-LATENCY-PER-RECORD).
	OpOnly bool
	// Counted and Status are the measurement and status its operations
	// count under in Return= lines ("READ", "NOT_FOUND"); "" for none.
	Counted, Status string
	// Errors is the status its failures that reached the engine (errors
	// the workload returned rather than recorded by status) count under
	// in Counted's Return= lines, such as "ERROR"; "" when the workload
	// records every failure by status itself.
	Errors string
}

// AfterRunChecker is a Generator whose consistency checks run after every
// completed run unless the user passes --skip-checks (TPC-C's, as
// `cockroach workload run tpcc` does).
type AfterRunChecker interface {
	Hookser
	// CheckAfterRun reports whether the checks should run after a run.
	CheckAfterRun() bool
}

// TenantColumn is the column that leads every primary key and index of a
// TenantColumner's tables in tenant column mode.
const TenantColumn = "tenant_id"

// CheckTenantID panics, naming the workload, when id cannot be a tenant
// id: negative, or too large for the INT column TenantColumn. SetTenant
// implementations call it (a bad id is a programmer error).
func CheckTenantID(workload string, id int) {
	if id < 0 || id > math.MaxInt32 {
		panic(fmt.Sprintf("%s: tenant id %d out of range", workload, id))
	}
}

// TenantColumner is a Generator whose tables can hold the rows of many
// tenants side by side (`--tenant-mode column`, one shared set of tables
// with a tenant id leading every primary key).
type TenantColumner interface {
	Generator
	// SetTenant makes the generator work on tenant id's rows: Tables gets
	// a leading tenant_id column (first in every primary key and index,
	// filled with id by FillBatch), and every statement of Ops and of the
	// hooks filters on tenant_id = id. 0, the default, means no tenant
	// column. It is called after flags are parsed, before Tables or Ops.
	SetTenant(id int)
}

// Auditor is a Generator that audits its own run: checks of what the
// workers did (TPC-C's run-time audits of clause 9.2 and response-time
// criteria of clause 5.2.5, say), printed under the summary. The runner
// calls Audits once, after the run, when the workers have stopped.
type Auditor interface {
	Generator
	// Audits returns the audits of the run that Ops last prepared, which
	// lasted elapsed (after the ramp). latency(op, q) is the run's latency
	// of operation op (a name of QueryLoad.Ops) at quantile q in [0, 1],
	// or 0 when op never completed.
	Audits(elapsed time.Duration, latency func(op string, quantile float64) time.Duration) []Audit
}

// Record is a value a workload read or counted during a run that a merge
// of several clients' runs needs and their histograms do not hold (TPC-C's
// sum(D_NEXT_O_ID) at the start and end of the measurement interval, its
// audit counters): the run log keeps each as an event of kind "record".
type Record struct {
	// Name says what the value is; At is when it was read.
	Name  string
	At    time.Time
	Value float64
}

// RunRecorder is a Generator with records of its run (see Record). The
// runner asks for them once, after the run, when the workers have stopped
// and the measurement interval has ended.
type RunRecorder interface {
	Generator
	// RunRecords returns the records of the run that Ops last prepared.
	RunRecords() []Record
}

// SeriesRecorder is a RunRecorder some of whose records are series over
// the run (churn's database size every 5 s), which `stampede report
// --format json`, its --chart page and the dashboard show beside the
// telemetry.
type SeriesRecorder interface {
	RunRecorder
	// RecordSeries describes the records that make series, in the order
	// they are shown.
	RecordSeries() []SeriesSpec
}

// SeriesSpec is one series made of a RunRecorder's records.
type SeriesSpec struct {
	// Record is the records' name (Record.Name).
	Record string
	// Name is the series' name and Unit its unit ("bytes", "rows/s").
	Name, Unit string
	// Rate, when true, says the record is a running total (rows inserted
	// so far): the series is its increase per second between each reading
	// and the one before, at the later one's time.
	Rate bool
}

// ClientRun is what a merge knows of one client's run: its id, the flags
// run.json recorded, its records (RunRecorder) and the database it ran
// on.
type ClientRun struct {
	ID      string
	Flags   map[string]string
	Records []Record
	// Server (its endpoints, "H:P") and Database are where the run ran:
	// figures read from the server (TPC-C's NOPM) count each database
	// once, whatever the number of its clients.
	Server, Database string
	// Status is how the run ended, as its run log says: "completed",
	// "interrupted", "failed", "killed" (its process died, before it
	// recorded what a run records at its end) or "running".
	Status string
}

// ClientMerger is a Figurer whose figures for several clients' runs of
// one benchmark, merged by `stampede report`, need what each client ran
// and recorded (TPC-C: each client's warehouses, the server's
// sum(D_NEXT_O_ID) and the audit counters). `stampede report` rebuilds the
// workload from the runs' common flags and calls MergeClients before
// Figures (and Audits, for an Auditor), which then give the benchmark's.
type ClientMerger interface {
	Figurer
	// MergeClients makes the generator's figures those of runs merged.
	// Its error says why they are not one benchmark's clients (their
	// warehouses overlap, say): the merge is refused.
	MergeClients(runs []ClientRun) error
}

// IntervalMerger is a ClientMerger whose merged figures come from its
// records (churn's rows and the database's size, read every few
// seconds) and are, as the counted figures are, over the clients'
// common measurement interval, the time every one of them measured
// (results.CommonInterval): near the ends of the time the clients'
// runs cover together fewer of them ran. `stampede report` says the
// interval after MergeClients and before Figures.
type IntervalMerger interface {
	ClientMerger
	// SetMergeInterval makes the merged figures those of from to to.
	SetMergeInterval(from, to time.Time)
}

// Audit results.
const (
	AuditPass = "PASS"
	AuditFail = "FAIL"
	// AuditSkip means the audit could not judge (too few operations, or a
	// configuration in which it does not apply); Detail says why.
	AuditSkip = "SKIP"
)

// Audit is the outcome of one audit, or of one consistency check (see
// CheckRecorder).
type Audit struct {
	// Name says what is audited, such as "New-Order rollbacks".
	Name string
	// Required is what the audit requires, such as "0.9-1.1%"; "" when
	// the name says it all.
	Required string
	// Clause is the specification's clause, such as "2.4.1.4"; "" for
	// none.
	Clause string
	// Result is AuditPass, AuditFail or AuditSkip.
	Result string
	// Detail gives the figures behind the result, such as
	// "1.02% of 12,345 New-Orders".
	Detail string
}

// Label is the audit as its line names it: the name, what is required
// and the clause, "New-Order rollbacks 0.9-1.1% (2.4.1.4)".
func (a Audit) Label() string {
	s := a.Name
	if a.Required != "" {
		s += " " + a.Required
	}
	if a.Clause != "" {
		s += " (" + a.Clause + ")"
	}
	return s
}

// CheckRecorder is a Reporter that also keeps each consistency check's
// outcome, as an Audit (Name the condition, Clause its clause, Required
// and Detail the offending rows allowed and found): the runner saves them
// with the run's summary. A workload's checks print their lines through
// Printf either way, and record through Check when the Reporter is one.
type CheckRecorder interface {
	Reporter
	// Check records one check's outcome.
	Check(a Audit)
}

// InitChecker is a Generator that looks at the database before an init
// drops or creates anything, and refuses one that would replace what a
// user made (TPC-C's routines of a user's, in the way of those init
// installs). The refusal is bad input.
type InitChecker interface {
	Generator
	// CheckInit returns why init must not go on, or nil.
	CheckInit(ctx context.Context, db *sqlx.DB) error
}

// FormerDropper is a Generator whose earlier init of the same data may
// have made, in another form, tables and objects that this init does not
// make again (TPC-C's two profiles: stampede's table "order" or
// HammerDB's orders, and each one's routines): init --drop drops those
// that carry stampede's mark, saying each on log, and keeps, saying so,
// those of the same names that a user made.
type FormerDropper interface {
	Generator
	// DropFormer drops them, after the refusals of --drop and before
	// the load.
	DropFormer(ctx context.Context, db *sqlx.DB, log io.Writer) error
}

// ObjectCleaner is a Generator whose init makes objects beyond its tables
// (TPC-C's routines): cleanup drops, after the tables, those that still
// carry stampede's mark, and keeps, saying so in one line on log, those
// of the same names that a user made or replaced.
type ObjectCleaner interface {
	Generator
	// CleanupObjects drops the objects and says on log what it dropped
	// and what it kept.
	CleanupObjects(ctx context.Context, db *sqlx.DB, log io.Writer) error
}

// ScriptLoader is a Generator whose load is a file of the user's that
// its PreLoad hook runs (the sql workload's --init-file): init names the
// file, as it cannot count the rows before, and counts them after.
type ScriptLoader interface {
	Generator
	// LoadScript names what init runs.
	LoadScript() string
	// LoadedRows is the rows the load wrote (COPY and INSERT), after it.
	LoadedRows() int64
}

// SingleStreamer is a Generator whose load is one stream (pgbench's data,
// one transaction with COPY FREEZE), whatever init's --concurrency says:
// init says one stream.
type SingleStreamer interface {
	Generator
	// SingleStream reports whether the load is one stream.
	SingleStream() bool
}

// MadeDropper is a Generator whose init runs a user's file, which may make
// objects of any kind (schemas, tables, views, sequences, types,
// functions), each marked as stampede's: cleanup and init --drop call
// DropMade rather than dropping Tables and Hooks.RunTables.
type MadeDropper interface {
	Generator
	// DropMade drops what the workload's init made, and nothing else,
	// saying each on log (each line prefixed with action: "" for
	// cleanup, "--drop: " for init --drop); for cleanup it first runs
	// the user's own cleanup file, if one was given. An object that
	// something of the user's depends on is kept, and the error says so.
	DropMade(ctx context.Context, db *sqlx.DB, log io.Writer, action string) error
	// RunCleanupFile runs the user's own cleanup file, if one was given:
	// cleanup runs it first, before it surveys what it drops, so that
	// what the file drops is no longer in the way.
	RunCleanupFile(ctx context.Context, db *sqlx.DB, log io.Writer) error
	// RefuseMade returns the refusal that DropMade (by action) would give
	// of what init made (a user's object on it, depending on it or
	// publishing it; one the user renamed), surveyed before anything is
	// dropped, so that one refusal names it beside every other problem
	// of the drop; nil when nothing is refused, and under ForceDropFlag,
	// when DropMade says what goes instead.
	RefuseMade(ctx context.Context, db *sqlx.DB, action string) error
}

// VerbSetter is a Generator whose flags' validation depends on the
// command (init, run, sweep, check, cleanup): SetVerb is called before
// Hooks.Validate, so that a file the command does not use is neither
// read nor required (sql's --init-file on run, its -f on cleanup), and
// one it needs is asked for before anything connects.
type VerbSetter interface {
	Generator
	SetVerb(verb string)
}
