package run

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/stampede-bench/stampede/engine"
	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/internal/clientsched"
	"github.com/stampede-bench/stampede/internal/exposed"
	"github.com/stampede-bench/stampede/internal/gcpace"
	"github.com/stampede-bench/stampede/promexport"
	"github.com/stampede-bench/stampede/redact"
	"github.com/stampede-bench/stampede/report"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/results/store"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/telemetry"
	"github.com/stampede-bench/stampede/workload"
)

// Observer sees a run as it goes. Its methods are called in order from
// one goroutine, and must return quickly: the run's next interval waits
// for them.
type Observer interface {
	// Start is called once the run is set up, before its first
	// operation.
	Start(Info)
	// Interval is called as each interval closes (the speed layer),
	// the run's last, shorter one too (Interval.Final). The histograms in
	// it are valid only during the call.
	Interval(Interval)
	// Final is called once with the final figures, before the run's
	// results are saved and its consistency checks run.
	Final(*Result)
}

// Info describes a run that is set up.
type Info struct {
	// ID and Dir are the run's id and directory.
	ID, Dir string
	// Workload is the workload's name.
	Workload string
	// Endpoints are the servers (host:port), Database the database, and
	// Where says what the run works on ("database \"ycsb\"", a fleet).
	Endpoints []string
	Database  string
	Where     string
	// Workers is the number of workers and Seed the operation sequence's
	// seed.
	Workers int
	Seed    uint64
	// Start is when the run started.
	Start time.Time
	// MaxRate is the scheduled rate (0: closed loop), QueueRate the rate
	// of sysbench's event queue (see Spec.QueueRate).
	MaxRate   float64
	QueueRate float64
	// Ops and Classes are the workload's operations and their classes
	// (see workload.QueryLoad); Display the headline series.
	Ops     []string
	Classes []workload.OpClass
	Display Display
	// ThreadIO says the workers wait for the server in thread I/O.
	ThreadIO bool
	// MaxOps is the number of operations the run stops after (0: none).
	MaxOps int64
	// Connections is the number of connections opened for the workers
	// before the run's clock started (0 with the null driver and for a
	// fleet, whose tenants connect as they start), and ConnectTime how
	// long opening them took: pgbench's "initial connection time", in no
	// interval and not in the run's duration.
	Connections int
	ConnectTime time.Duration
}

// ConnectParallel is how many of the workers' connections a run opens at
// once before it starts (sqlx.DB.Connect): as many as cockroach
// workload's warm-up, few enough that a connection does not wait behind
// hundreds of backend starts. A variable so that tests can change it.
var ConnectParallel = 100

// connectNote is the run log's line about the connections opened before
// the clock started.
func connectNote(conns int, d time.Duration) string {
	return fmt.Sprintf("%s opened in %s before the clock started (not in the measured interval)", plural(conns, "connection"), d.Round(time.Millisecond))
}

// Interval is one closed interval of a run.
type Interval struct {
	stats.Tick
	// Final marks the run's last interval, cut short by the run's end
	// (the printers leave it to the final block).
	Final bool
	// Reconnects is the run's count of reconnects so far.
	Reconnects int64
	// Queue is the event queue's state at the interval's end, under
	// Spec.QueueRate.
	Queue engine.QueueState
	// Skipped is the run's count so far of operations skipped under
	// Spec.SkipLate.
	Skipped int64
	// Aborted is the run's count so far of workers an error ended under
	// Spec.AbortWorker (their failed operations count in the Tick too).
	Aborted int64
	// Telemetry is the interval's sample; nil without telemetry or when
	// the sample failed.
	Telemetry *telemetry.Sample
}

// Result is a finished run: the figures `stampede report` recomputes from
// its directory, and what the command line prints.
type Result struct {
	// Info describes the run.
	Info Info
	// Summary is summary.json.
	Summary Summary
	// Final is the last tick: its cumulative histograms hold the run
	// after the ramp (valid until the Result is dropped).
	Final stats.Tick
	// Engine is the engine's result: workers' counts and busy times,
	// interruption, the error that ended the run.
	Engine engine.Result
	// Extra are the figures printed under the total: reconnects, failures
	// by code, the workload's figures, service and lag times under a rate.
	Extra []report.Extra
	// Audits are the workload's run-time audits (TPC-C), judged on the
	// run; none for a fleet (its tenants are judged apart).
	Audits []report.Audit
}

// Run is a run in progress. Its methods are safe for concurrent use.
type Run struct {
	// skipped counts the operations skipped under Spec.SkipLate.
	skipped atomic.Int64
	spec    Spec
	seed    uint64
	log     io.Writer
	src     *source
	load    workload.QueryLoad
	reg     *stats.Registry
	cfg     engine.Config
	info    Info
	rw      *runlog.Writer
	tel     *runTelemetry
	cpu0    float64 // the process's CPU seconds when the engine started (processCPU)
	lims    *runLimits
	errs    *errorLog
	prom    *promexport.Exporter
	split   *splitter // nil: figures not split by endpoint
	known   int       // series the run log knows
	parts   int       // series number of the first part (see Split): parts follow the engine's series
	root    string
	// tempRoot: root is a temporary directory (--results-dir none),
	// removed once the results store holds the run.
	tempRoot          bool
	shipURL, shipFrom string   // the PostgreSQL store the run is copied into, and the flag that named it
	ship              *shipper // nil when the run is not copied into a store
	cleanup           []func() // undone in reverse order at the end, or on a failed Start
	restoreGC         func()   // puts back the collector's pacing (runStartGC): undo calls it last
	done              chan struct{}

	closeOnce sync.Once
	// stuck says that workers the engine abandoned still had not
	// returned when the load was to be closed (see closeLoad).
	stuck bool

	// Set by the engine's goroutine before done is closed.
	last     stats.Tick
	engRes   engine.Result
	writeErr error

	waitOnce sync.Once
	result   *Result
	err      error
}

// Validate checks spec as Start does, without connecting or starting
// anything (the command line's --dry-run): its fields, the workload's
// defaults, and its part of several clients.
func Validate(spec Spec) error { return prepare(&spec) }

// prepare fills what spec leaves to the workload's defaults, makes it
// its client's share (Spec.Part), and validates it.
func prepare(spec *Spec) error {
	if p := spec.Part; p.Count > 0 && p.Index >= 0 && p.Index < p.Count && spec.Fleet == nil {
		// The client's share first, so that the workload's defaults are
		// its share's (TPC-C's terminals of the client's warehouses);
		// applyPart checks the part and says what is wrong with it.
		if cp, ok := spec.Workload.(workload.ClientPartitioner); ok {
			_ = cp.PartitionClients(p.Index, p.Count)
		}
	}
	if d, ok := spec.Workload.(workload.RunDefaulter); ok {
		// The workload's defaults fill what the Spec leaves unset.
		rd := d.RunDefaults()
		if spec.MaxOps == 0 {
			spec.MaxOps = rd.MaxOps
		}
		if rd.MaxRate > 0 {
			// The workload's own schedule (lambda's rates): a
			// different rate would change its paths' rates unseen.
			switch {
			case spec.QueueRate > 0:
				return inputf("workload %s schedules at its own rates (%g operations a second in all): give them with its flags, not --rate", spec.Workload.Meta().Name, rd.MaxRate)
			case spec.MaxRate > 0 && spec.MaxRate != rd.MaxRate:
				return inputf("workload %s schedules at its own rates (%g operations a second in all): give them with its flags, not --max-rate %g", spec.Workload.Meta().Name, rd.MaxRate, spec.MaxRate)
			}
			spec.MaxRate = rd.MaxRate
		}
		if spec.Latency == "" {
			spec.Latency = rd.Latency
		} else if rd.Latency != "" && rd.Latency != spec.Latency && spec.Log != nil {
			fmt.Fprintf(spec.Log, "warning: --latency %s overrides the workload's own, %s (YCSB's measurement.interval)\n", spec.Latency, rd.Latency)
		}
		if spec.Concurrency == 0 && rd.Concurrency > 0 {
			spec.Concurrency = rd.Concurrency
			if spec.Conn.Conns == 0 {
				spec.Conn.Conns = rd.Conns
			} else if rd.WorkersFromConns {
				spec.Concurrency = spec.Conn.Conns // a loop per connection
			}
		} else if rd.WorkersFromConns && spec.Conn.Conns > 0 && spec.Concurrency > 0 && spec.Conn.Conns != spec.Concurrency {
			return inputf("--conns %d and --concurrency %d: workload %s runs one loop per connection, so the two are the same: give one of them, or both equal",
				spec.Conn.Conns, spec.Concurrency, spec.Workload.Meta().Name)
		}
	}
	if err := applyPart(spec); err != nil {
		return err
	}
	if d, ok := spec.Workload.(workload.RunDefaulter); ok && spec.Fleet != nil {
		if rd := d.RunDefaults(); rd.MaxRate > 0 {
			// Every active tenant runs the workload's own schedule.
			active := spec.Fleet.Active
			if active == 0 {
				active = spec.Fleet.Spec.Tenants
			}
			spec.MaxRate = rd.MaxRate * float64(active)
		}
	}
	return spec.validate()
}

// Start sets up a run as spec says (connections, telemetry, limits, the
// run directory) and starts it; the run stops at its duration or
// operation budget, at its first error unless errors are tolerated, or
// when ctx is cancelled, keeping everything recorded. Errors in spec
// match ErrInput and name the field at fault.
func Start(ctx context.Context, spec Spec) (_ *Run, err error) {
	if err := prepare(&spec); err != nil {
		return nil, err
	}
	if spec.DisplayEvery == 0 {
		spec.DisplayEvery = time.Second
	}
	r := &Run{spec: spec, done: make(chan struct{})}
	r.log = io.Discard
	if spec.Log != nil {
		r.log = &syncWriter{w: spec.Log}
	}
	gen := spec.Workload
	defer func() {
		if err != nil {
			if r.ship != nil {
				r.ship.finish()
			}
			r.undo()
		}
	}()
	// Garbage collection waits for the set-up's end (see gcpace.Hold),
	// where the run's pacing takes over.
	headroom := spec.GCHeadroom
	switch {
	case headroom == 0:
		headroom = gcpace.DefaultHeadroom
	case headroom < 0:
		headroom = 0
	}
	releaseGC := gcpace.Hold(headroom)
	procs := runtime.GOMAXPROCS(0) // before the run adds its workers' (below)
	defer func() {
		if err != nil {
			releaseGC()
		}
	}()
	r.seed = pickSeed(spec.Seed)
	if spec.Part.Count > 0 && spec.Seed != 0 && spec.Fleet == nil {
		// (A fleet's tenants draw from (seed, tenant) already: its
		// clients' tenants draw what one process's would.)
		r.seed = partSeed(spec.Seed, spec.Part.Index)
	}
	src, err := r.openSource(ctx)
	if err != nil {
		return nil, err
	}
	r.src = src
	r.load = src.load
	r.cleanup = append(r.cleanup, r.closeSource, r.closeLoad) // undone in reverse: the load first
	if src.threadIO {
		// Each worker holds its processor while it waits for the
		// server, so each needs one; more would leave idle processors
		// whose threads the runtime keeps waking for timers.
		prev := runtime.GOMAXPROCS(src.workers)
		r.cleanup = append(r.cleanup, func() { runtime.GOMAXPROCS(prev) })
	}
	if err := checkLoadWorkers(gen, r.load, src.workers); err != nil {
		return nil, err
	}
	s := &r.spec
	pacer := engine.PacerPrecise
	if s.Pacer != "" {
		pacer, _ = engine.ParsePacer(s.Pacer) // checked by validate
	}
	r.cfg = engine.Config{Duration: s.Duration, MaxOps: s.MaxOps, SharedOps: s.SharedOps, Ramp: s.Ramp, MaxRate: s.MaxRate,
		QueueRate: s.QueueRate, QueueSeed: r.seed, Pacer: pacer, ThreadIO: src.threadIO,
		NetPoller: !src.threadIO && src.db != nil && !src.db.Null(), DisplayEvery: s.DisplayEvery, TolerateErrors: s.TolerateErrors, AbortWorker: s.AbortWorker,
		OpTimeout: s.OpTimeout, Grace: s.Grace, Poisson: s.Poisson, SkipLate: s.SkipLate, ScheduleGroups: s.ScheduleGroups}
	if err := r.cfg.Validate(src.workers); err != nil {
		return nil, asInput(err)
	}
	if err := r.cfg.ValidateLoad(r.load); err != nil {
		return nil, asInput(fmt.Errorf("workload %s: %w", gen.Meta().Name, err))
	}
	r.cleanup = append(r.cleanup, pacerProcs(r.cfg, src.workers))
	series := engine.Series{Ops: r.load.Ops, Rated: r.cfg.Rated()}
	names := series.Names()
	shards := stats.ShardsFor(src.workers, runtime.GOMAXPROCS(0))
	if err := checkSeries(len(names), shards); err != nil {
		return nil, err
	}
	// The workers' connections are made before the clock starts, and
	// their set-up is reported apart (see sqlx.DB.Connect): timed as the
	// first operations, 1,000 backend starts were seconds of latency
	// inside the measured interval, and the last of them timed out as
	// failed operations.
	var conns int
	var connectTime time.Duration
	if src.db != nil {
		t0 := time.Now()
		if conns, err = src.db.Connect(ctx, ConnectParallel); err != nil {
			if ctx.Err() != nil {
				return nil, ErrInterrupted
			}
			return nil, err
		}
		connectTime = time.Since(t0)
	}
	if !s.Part.StartAt.IsZero() {
		// Set up, connected: the clients start together from here.
		if err := waitForStart(ctx, s.Part.StartAt, func(f string, a ...any) { fmt.Fprintf(r.log, f+"\n", a...) }); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	r.reg = stats.NewRegistry(names, shards, start)
	r.parts = len(names)
	var split *Split
	if s.SplitBy != "" && src.db != nil {
		split = &Split{By: s.SplitBy}
		r.split = newSplitter(split, r.reg, r.load.Ops)
		src.db.OnEndpoint(r.split.endpoint)
		names = r.reg.Names()
		if s.SplitBy == ByLocality {
			r.warnNoLocality(src.db)
		}
	}
	r.known = len(names)

	if r.tel, err = startTelemetry(s.Telemetry); err != nil {
		return nil, err
	}
	storeURL, from := s.ResultsURL, "--results-url"
	if storeURL == "" {
		storeURL, from = os.Getenv("STAMPEDE_RESULTS_URL"), "$STAMPEDE_RESULTS_URL"
	}
	if s.ResultsDir == NoResultsDir {
		if !store.KeepsFiles(storeURL) {
			return nil, inputf("--results-dir none keeps the run only in its results store: give --results-url postgresql://... (a PostgreSQL store), or a results directory")
		}
		if r.root, err = os.MkdirTemp("", "stampede-run-"); err != nil {
			return nil, fmt.Errorf("cannot create a temporary directory for the run: %w", err)
		}
		r.tempRoot = true
	} else if r.root, err = ResultsRoot(s.ResultsDir); err != nil {
		return nil, err
	}
	if store.KeepsFiles(storeURL) {
		// A PostgreSQL store gets the run's files as the run writes
		// them; one it cannot reach now is said once, and the run goes
		// on in its directory (startShipper).
		if _, err := url.Parse(storeURL); err != nil {
			return nil, inputf("%s: malformed results store URL: %v", from, strings.ReplaceAll(err.Error(), storeURL, "<url>"))
		}
		if err := sqlx.CheckUserinfo(storeURL); err != nil {
			// A URL that can never name the store is refused, not taken
			// for a store that is down.
			return nil, inputf("%s: malformed results store URL %s: %v", from, sqlx.HideUserinfo(storeURL), err)
		}
		r.shipURL, r.shipFrom = storeURL, from
	} else if storeURL != "" {
		// Refuse a store that cannot index the run before the run, not
		// after it (the default store, in the results directory, is
		// created at the run's end).
		st, err := store.Open(ctx, storeURL)
		if err != nil {
			if errors.Is(err, store.ErrBadURL) {
				return nil, inputf("%s: %w", from, err)
			}
			return nil, fmt.Errorf("%s: %w", from, err)
		}
		_ = st.Close()
	}
	flags := map[string]string{}
	for k, v := range s.Flags {
		flags[k] = v
	}
	// The caller may have masked the tags already (the command line knows
	// more passwords: a config file's, db.passwd); the run masks those of
	// its own connections and $PGPASSWORD in any case.
	tags := redact.Tags(s.Tags, redact.Secrets(s.Conn.URLs, os.Getenv))
	r.warnMaskedTags(s.MaskedTags, redact.ChangedTags(s.Tags, tags))
	info := runlog.RunInfo{
		Telemetry:       s.Telemetry.info(r.cfg.DisplayEvery),
		FormatVersion:   runlog.FormatVersion,
		ID:              runlog.NewID(gen.Meta().Name, start),
		Workload:        gen.Meta().Name,
		WorkloadVersion: gen.Meta().Version,
		Command:         s.Command,
		Flags:           flags,
		Tags:            tags,
		Series:          names,
		Counted:         countedOps(r.load.Ops, r.load.Classes),
		StampedeVersion: VersionString(),
		ServerVersion:   src.serverVersion,
		Endpoints:       src.endpoints,
		Database:        src.database,
		Seed:            r.seed,
		Host:            runlog.HostFacts(),
		Start:           start,
	}
	// The client's threads run under ClientSched from here to the end
	// of the run (see package clientsched); the run records the policy
	// they got.
	policy := clientsched.Batch
	if s.ClientSched != "" {
		policy = clientsched.Policy(s.ClientSched)
	}
	sched, restoreSched, err := clientsched.Apply(policy)
	if err != nil {
		r.warnf("%v: the client's threads keep the default scheduling policy", err)
	}
	r.cleanup = append(r.cleanup, restoreSched)
	flags["client-sched"] = string(sched.Policy)
	// Garbage collection is paced by GCHeadroom from here to the end of
	// the run (see package gcpace); the run records the GOGC it got.
	// The collection runs on the process's own processors, not on those
	// the run added for its workers: with the added ones idle, the
	// runtime's background sweeper spun on its lock beside the
	// collection's own sweep (Go 1.26, goschedIfBusy returns at once
	// while a processor is idle), 20-40 ms of CPU per run on 2 CPUs,
	// a third of a short run's fixed cost (runStartGC).
	gc, restoreGC := runStartGC(headroom, procs)
	// Put back last (undo), once the results are computed and saved: put
	// back with the run's other settings, Go's pacing at once collected
	// the heap the run grew, a tenth of a short stampede pgbench's CPU
	// in its last moments (7-36 ms on 2 CPUs); the results' work grows
	// the heap by no more than the run's headroom allowed during it.
	r.restoreGC = restoreGC
	flags["gc-percent"] = strconv.Itoa(gc.Percent)
	flags["pacer"] = r.cfg.RunPacer(src.workers).String()
	flags["io-mode"] = IOPoller // what the I/O mode resolved to
	if src.threadIO {
		flags["io-mode"] = IOThread
	}
	warnings := r.log
	if s.Warnings != nil {
		warnings = s.Warnings
	}
	removeAbandonedLimits(warnings)
	if r.lims, err = applyLimits(s.Limits, s.Telemetry, info.ID, r.log); err != nil {
		return nil, err
	}
	if r.lims != nil {
		info.Limits = r.lims.record
		if r.tel != nil {
			r.tel.extra = r.lims.stats
		}
		r.cleanup = append(r.cleanup, func() { r.lims.remove(nil, r.log) })
	}
	for try := 0; ; try++ {
		// Clients of one benchmark starting in the same second on one
		// shared volume (--clients) can draw the same id: draw again.
		if r.rw, err = runlog.Create(r.root, info); err == nil || !errors.Is(err, fs.ErrExist) || try == 8 {
			break
		}
		info.ID = runlog.NewID(gen.Meta().Name, start)
	}
	if err != nil {
		return nil, saveRootError(r.root, err)
	}
	r.errs = newErrorLog(r.rw)
	if r.shipURL != "" {
		r.ship = startShipper(ctx, r.shipURL, r.shipFrom, r.rw.Dir(), r.cfg.DisplayEvery, r.tempRoot, r.log)
	}
	if r.split != nil {
		r.split.attach(r.rw)
	}
	r.info = Info{
		ID: info.ID, Dir: r.rw.Dir(), Workload: gen.Meta().Name, Endpoints: src.endpoints, Database: src.database,
		Where: src.where, Workers: src.workers, Seed: r.seed, Start: start, MaxRate: r.cfg.MaxRate, QueueRate: r.cfg.QueueRate,
		Ops: r.load.Ops, Classes: r.load.Classes, Display: newDisplay(r.load.Ops, r.load.Classes, series.Rated, s.Latency),
		ThreadIO: src.threadIO, Connections: conns, ConnectTime: connectTime,
	}
	r.info.Display.Split = split
	fmt.Fprintf(r.log, "stampede %s: %s on %s (%s), %s, seed %d\n",
		VersionString(), gen.Meta().Name, strings.Join(src.endpoints, ","), src.where, plural(src.workers, "worker"), r.seed)
	if conns > 0 {
		fmt.Fprintln(r.log, connectNote(conns, connectTime))
	}
	r.info.MaxOps = r.cfg.MaxOps
	for _, l := range r.load.Header {
		fmt.Fprintln(r.log, l)
	}
	fmt.Fprintln(r.log, latencyBanner(r.cfg, r.cfg.RunPacer(src.workers), s.Latency))
	if note := pacerFallbackNote(r.cfg, src.workers); note != "" {
		fmt.Fprintln(r.log, note)
	}
	if s.PrometheusListen != "" {
		r.prom = promexport.New(gen.Meta().Name)
		srv, err := promexport.Serve(s.PrometheusListen, r.prom)
		if err != nil {
			return nil, fmt.Errorf("cannot serve Prometheus metrics on %s: %w", s.PrometheusListen, err)
		}
		r.cleanup = append(r.cleanup, func() { srv.Close() })
		fmt.Fprintf(r.log, "Prometheus metrics at http://%s/metrics\n", srv.Addr())
		flag, given := promFlag(s.PrometheusListen)
		advise := "--prometheus-listen"
		switch s.PrometheusFlag {
		case "":
		case "--prometheus-port":
			// The cockroach form's, which takes a port or host:port.
			flag, given, advise = s.PrometheusFlag, strings.TrimPrefix(s.PrometheusListen, ":"), s.PrometheusFlag
		default:
			flag, given, advise = s.PrometheusFlag, s.PrometheusListen, s.PrometheusFlag
		}
		if w := exposed.WarningAdvising(flag, given, advise, srv.ListenAddr(), "read the run's metrics"); w != "" {
			fmt.Fprintln(r.log, w)
		}
	}
	for _, o := range s.Observers {
		o.Start(r.info)
	}
	go r.engine(ctx)
	return r, nil
}

// runStartGC paces the run's garbage collection (gcpace.Apply, which
// collects the set-up's garbage once) with GOMAXPROCS at procs for the
// collection, then puts back the processors the run set.
func runStartGC(headroom int64, procs int) (gcpace.Applied, func()) {
	set := runtime.GOMAXPROCS(procs)
	defer runtime.GOMAXPROCS(set)
	if beforeStartGC != nil {
		beforeStartGC()
	}
	return gcpace.Apply(headroom)
}

// beforeStartGC, when set (by tests), runs just before runStartGC
// collects.
var beforeStartGC func()

// Info describes the run.
func (r *Run) Info() Info { return r.info }

// engine runs the engine and records its intervals; it closes r.done.
func (r *Run) engine(ctx context.Context) {
	defer close(r.done)
	src := r.src
	// The workload's own measurement interval (workload.Measurer) starts
	// with the engine's: at the ramp's end, or before any worker starts.
	meas := workload.NewMeasurement(nil)
	if src.fleet == nil {
		meas = workload.NewMeasurement(r.spec.Workload)
	}
	startMeasurement := func(at time.Time) {
		r.lims.mark(false) // the CPU limit's counters, from here
		if err := meas.Start(ctx, at); err != nil {
			r.warnf("%v", err)
		}
	}
	if r.cfg.Ramp == 0 {
		startMeasurement(time.Now())
	}
	defer func() {
		if err := meas.End(context.WithoutCancel(ctx)); err != nil {
			r.warnf("%v", err)
		}
	}()
	var queue engine.QueueState
	var aborted atomic.Int64
	skipped := &r.skipped
	rampEnded := false // set and read on the engine's ticking goroutine
	hooks := engine.Hooks{
		Queue:    func(q engine.QueueState) { queue = q },
		Skip:     func() { skipped.Add(1) },
		Abort:    func() { aborted.Add(1) },
		Error:    r.errs.record,
		Handled:  r.errs.retried,
		Classify: sqlx.ErrorCode,
		RampDone: func(at time.Time) {
			rampEnded = true
			if r.cfg.Ramp > 0 && src.rampDone != nil {
				src.rampDone()
			}
			if r.cfg.Ramp > 0 {
				startMeasurement(at)
				if err := r.rw.SetRampEnd(at); err != nil && r.writeErr == nil {
					r.writeErr = err
				}
			}
		},
		Tick: func(t stats.Tick, final bool) {
			if src.fleet != nil && r.cfg.Ramp > 0 && !rampEnded {
				src.fleet.run.SnapshotCounts() // before the hook's slow part (see SnapshotCounts)
			}
			r.last = t
			if err := r.writeInterval(t); err != nil && r.writeErr == nil {
				r.writeErr = err
				r.warnf("cannot write the run log: %v", err)
			}
			if r.prom != nil {
				r.prom.Update(promSnapshot(t, r.load.Ops, src.reconnects()))
			}
			iv := Interval{Tick: t, Reconnects: src.reconnects(), Queue: queue, Skipped: skipped.Load(), Aborted: aborted.Load()}
			if r.tel != nil {
				if sample, ok := r.tel.tick(t.Start, t.End, r.rw, r.warnf); ok {
					iv.Telemetry = &sample
				}
			}
			iv.Final = final
			for _, o := range r.spec.Observers {
				o.Interval(iv)
			}
		},
	}
	var split *engine.Split
	if r.split != nil {
		split = r.split.engineSplit(src.db)
	}
	if r.tel != nil {
		r.tel.rebase()
	}
	r.cpu0 = processCPU()
	r.engRes = engine.RunSplit(ctx, r.cfg, r.load, r.reg, hooks, split)
	r.lims.mark(true)
	if src.fleet != nil {
		// The tenants' figures end where the engine's did, not when
		// the run gets to compute them (after its final interval,
		// telemetry and closing, seconds later on a busy server).
		src.fleet.run.MarkEnd(r.engRes.End)
	}
}

// Wait waits for the run to end, then computes its final figures, passes
// them to the observers, saves them, indexes the run in the results store
// and runs the workload's consistency checks (unless SkipChecks). Its
// error says why the run ended early: an operation failed (without
// TolerateErrors), ErrInterrupted, or a check failed; the result is there
// in every case but a failure to set up.
func (r *Run) Wait() (*Result, error) {
	r.waitOnce.Do(func() { r.result, r.err = r.finish() })
	return r.result, r.err
}

func (r *Run) finish() (*Result, error) {
	<-r.done
	defer r.undo()
	s, src, gen, res, last := &r.spec, r.src, r.spec.Workload, r.engRes, r.last
	// The client's threads get their defaults back, and the limits go,
	// before the results are computed (the collector its pacing after
	// them: see restoreGC).
	if r.lims != nil {
		r.lims.remove(r.rw, r.log) // with its event in the run log
	}
	for i := len(r.cleanup) - 1; i >= 2; i-- { // all but closing the load and the source
		r.cleanup[i]()
	}
	r.cleanup = r.cleanup[:2]
	sum := summarize(last, r.info.Display, gen.Meta().Name, r.seed, src.workers, r.cfg.MaxRate+r.cfg.QueueRate, src.reconnects())
	status := "completed"
	var runErr error
	switch {
	case res.Err != nil && s.AbortWorker:
		// Its workers' errors were said by the observer (pgbench's
		// form), each as its client's abort.
		status = "failed"
		sum.Error = res.Err.Error()
		runErr = ErrAborted
	case res.Err != nil:
		status = "failed"
		sum.Error = res.Err.Error()
		hint := stopHint(res.Err)
		// Where the results went is said once they are written (below).
		runErr = fmt.Errorf("run stopped by an error: %s: %s", res.Err.Error(), hint)
	case res.Interrupted:
		status = "interrupted"
		runErr = ErrInterrupted
	}
	sum.Status = status
	extra := []report.Extra{{Name: "reconnects", Value: float64(sum.Reconnects), Text: fmt.Sprint(sum.Reconnects)}}
	if n := r.info.Connections; n > 0 {
		// Said when the clock started, and kept in summary.json; not in
		// the final block, which report recomputes from the run log.
		sum.Connections, sum.ConnectSec = n, r.info.ConnectTime.Seconds()
	}
	if r.split != nil {
		by := map[string]float64{}
		r.split.reconnectExtras(src.db, by)
		counts := map[string]int64{}
		for name, v := range by {
			counts[name] = int64(v)
		}
		for _, name := range sortedKeys(counts) {
			n := counts[name]
			extra = append(extra, report.Extra{Name: name, Value: float64(n), Text: fmt.Sprint(n)})
			if sum.EndpointReconnects == nil {
				sum.EndpointReconnects = map[string]int64{}
			}
			_, ep, _ := strings.Cut(name, results.SplitSep)
			sum.EndpointReconnects[ep] = n
		}
	}
	extra = append(extra, CodeExtras(sum.Errors, sum.Retries)...)
	if r.cfg.SkipLate > 0 {
		extra = append(extra, SkippedLine(res.Skipped, sum.Total.Count+sum.Total.Errors, r.cfg.SkipLate.String()))
	}
	for _, line := range r.errs.messageExtras() {
		// The failures' messages: in report's final block too, from the
		// run log, as the end line.
		extra = append(extra, line)
		r.rw.Event(runlog.Event{Kind: EndEvent, Op: line.Name, Message: line.Text, Value: line.Value})
	}
	if line, ok := endLine(res); ok {
		extra = append(extra, line)
		r.rw.Event(runlog.Event{Kind: EndEvent, Op: line.Name, Message: line.Text, Value: line.Value}) // for report's final block
	}
	if f, ok := gen.(workload.Figurer); ok && src.fleet == nil {
		counts, errs := map[string]int64{}, map[string]int64{}
		for _, op := range sum.Ops {
			counts[op.Name], errs[op.Name] = op.Count, op.Errors
		}
		if ew, ok := gen.(workload.EndWaitFigurer); ok {
			ew.SetFigureEndWait(endWait(res))
		}
		for _, fig := range workload.AllFigures(f, counts, errs, last.End.Sub(last.CumStart)) {
			extra = append(extra, report.Extra{Name: fig.Name, Value: fig.Value, Text: fig.Text})
			if fig.Observed {
				// Not recomputable from the counts: the run log keeps it.
				r.rw.Event(runlog.Event{Kind: FigureEvent, Op: fig.Name, Message: fig.Text, Value: fig.Value})
			}
			if sum.Figures == nil {
				sum.Figures = map[string]float64{}
			}
			sum.Figures[fig.Name] = fig.Value
		}
	}
	if rr, ok := gen.(workload.RunRecorder); ok && src.fleet == nil {
		// What a merge of several clients' runs needs besides their
		// histograms (TPC-C's reads of sum(d_next_o_id), its audit
		// counters).
		for _, rec := range rr.RunRecords() {
			r.rw.Event(runlog.Event{Time: rec.At, Kind: RecordEvent, Op: rec.Name, Value: rec.Value})
		}
	}
	if r.cfg.Rated() {
		for _, ss := range sum.Series[len(r.load.Ops):] {
			if ss.Count > 0 {
				extra = append(extra, SeriesExtra(ss))
			}
		}
	}
	result := &Result{Info: r.info, Final: last, Engine: res, Extra: extra}
	if src.fleet == nil {
		result.Audits = audits(gen, r.load.Ops, last)
	}
	sum.Telemetry = r.tel.summary(last.CumStart)
	sum.CPULimit = r.lims.cpuBound(sum.Telemetry)
	sum.NotLimited = r.lims.notLimited()
	clientKnown := false
	if cpu := processCPU(); cpu >= 0 && r.cpu0 >= 0 {
		cores := runtime.NumCPU()
		if sum.Telemetry != nil && sum.Telemetry.Cores > 0 {
			cores = sum.Telemetry.Cores
		}
		// None for a run shorter than the CPU's clock ticks allow.
		if sum.ClientCPU, clientKnown = telemetry.ClientCores(cpu-r.cpu0, res.End.Sub(res.Start), cores); clientKnown {
			r.rw.Event(runlog.Event{Kind: ClientCPUEvent, Value: sum.ClientCPU})
		}
	}
	if sum.Telemetry != nil && src.fleet == nil {
		client := sum.ClientCPU
		if !clientKnown {
			client = -1
		}
		sum.Bottleneck = telemetry.Bottleneck(*sum.Telemetry, client)
	}
	if src.fleet != nil {
		sum.Concurrency = src.workers
		sum.Tenants, sum.Fleet = src.fleet.summary(&sum)
		for _, fig := range fleetFigures(gen, sum.Tenants) {
			result.Extra = append(result.Extra, report.Extra{Name: fig.Name, Value: fig.Value, Text: fig.Text})
			r.rw.Event(runlog.Event{Kind: FigureEvent, Op: fig.Name, Message: fig.Text, Value: fig.Value})
			if sum.Figures == nil {
				sum.Figures = map[string]float64{}
			}
			sum.Figures[fig.Name] = fig.Value
		}
	}
	sum.Skipped = res.Skipped
	sum.Unfinished = res.Unfinished
	sum.EndWaitSec = endWait(res).Seconds()
	sum.Audits = result.Audits
	result.Summary = sum
	for _, o := range s.Observers {
		o.Final(result)
	}
	if note := latePacerNote(sum.Series, len(r.load.Ops)); note != "" && r.cfg.MaxRate > 0 {
		fmt.Fprintln(r.log, note)
	}
	if note := shortRateNote(r.cfg.MaxRate, sum.Total, sum.Skipped); note != "" {
		fmt.Fprintln(r.log, note)
	}
	if res.Unfinished > 0 {
		// Also said where a report has no line for it (pgbench's, whose
		// form passes warnings on).
		fmt.Fprintf(r.log, "warning: %d operations still running %.1f s after the run's end were abandoned with their connections, not counted\n",
			res.Unfinished, endWait(res).Seconds())
	}
	end := time.Now()
	// The consistency checks run before the run's end is recorded, so
	// that summary.json keeps them (the run reads as running meanwhile).
	var checkErr error
	c, checker := gen.(workload.AfterRunChecker)
	if checker && runErr == nil && !s.SkipChecks && !c.CheckAfterRun() && src.check != nil && s.Checks != nil {
		// Another client (client 0) checks, on the database it ran on.
		info := r.rw.Info()
		fmt.Fprintf(s.Checks, "\nconsistency checks: client 0 runs them after its run, on its own database; this client's (database %s on %s) is checked only if it is the same: otherwise, stampede check of this run's URL checks it\n",
			info.Database, strings.Join(info.Endpoints, ","))
	}
	if checker && runErr == nil && !s.SkipChecks && c.CheckAfterRun() && src.check != nil {
		r.closeLoad() // the workers' connections go back to the pool the checks use
		out := s.Checks
		if out == nil {
			out = io.Discard
		}
		fmt.Fprintln(out, "\nconsistency checks (--skip-checks skips them):")
		p := &checkPrinter{printer: printer{out}}
		checkErr = src.check(context.Background(), p)
		sum.Checks = p.checks
		if checkErr != nil {
			sum.ChecksError = checkErr.Error()
		}
	}
	errMsg := sum.Error
	if err := r.rw.Err(); err != nil {
		r.writeErr = errors.Join(r.writeErr, err)
	}
	if r.writeErr != nil {
		// Recorded, so that the run is not taken for a complete one.
		errMsg = strings.TrimPrefix(errMsg+"; ", "; ") + runlog.IncompletePrefix + writeFailure(r.writeErr)
	}
	finishErr := r.rw.Finish(end, status, errMsg, sum)
	if finishErr == nil && r.writeErr == nil && status == runlog.StatusCompleted {
		r.saveViews()
	}
	saveErr := r.saved(finishErr)
	shipped := r.ship != nil && r.ship.finish()
	if saveErr == nil && r.tempRoot && shipped {
		fmt.Fprintf(r.log, "results saved in the results store (run %s)\n", r.rw.Info().ID)
		if err := indexRun(context.Background(), r.root, r.rw.Dir(), s.ResultsURL); err != nil {
			r.warnf("cannot index the run in the results store: %s (`stampede runs upload` of the run indexes it)", oneLine(err.Error()))
		}
		_ = os.RemoveAll(r.root)
	} else if saveErr == nil {
		fmt.Fprintf(r.log, "results saved in %s\n", r.rw.Dir())
		if r.ship != nil && !shipped {
			// The store was lost, and said so once: `runs upload`
			// indexes the run with its files.
		} else if err := indexRun(context.Background(), r.root, r.rw.Dir(), s.ResultsURL); err != nil {
			hint := "`stampede runs --rebuild` rebuilds it"
			if store.Unwritable(err) {
				hint = "`stampede runs` lists the runs from their directories meanwhile; free space on its disk (or make it writable), then `stampede runs --rebuild` updates it"
			}
			if errors.Is(err, store.ErrDamaged) {
				hint = "" // its message gives the advice
			} else {
				hint = " (" + hint + ")"
			}
			r.warnf("cannot index the run in the results store: %s%s", oneLine(err.Error()), hint)
		}
	} else if runErr != nil {
		fmt.Fprintf(r.log, "%v\n", saveErr) // else it is the run's error
	}
	// where says where the results are, for the errors below.
	where := func() string {
		if saveErr != nil {
			if runErr != nil {
				return "results not saved (above)"
			}
			return saveErr.Error()
		}
		return "results saved in " + r.rw.Dir()
	}
	if runErr != nil && status == "failed" && runErr != ErrAborted {
		runErr = fmt.Errorf("%w; %s", runErr, where())
	}
	if res.Interrupted {
		fmt.Fprintln(r.log, "interrupted")
	}
	if checkErr != nil {
		runErr = fmt.Errorf("consistency check failed after the run: %w; %s", checkErr, where())
		saveErr = nil // said
	}
	if runErr == nil {
		runErr = saveErr
	}
	return result, runErr
}

// saveViews writes the finished run's totals.json and series.ndjson
// (results.SaveViews, one read of its intervals), before the last copy into the store,
// so that reports and charts of the run need not decode its every
// interval. Failing to write them only warns: reports then read the
// intervals, as of runs made before the files existed.
func (r *Run) saveViews() {
	run, err := runlog.Open(r.rw.Dir())
	if err == nil {
		err = results.SaveViews(run)
	}
	if err != nil {
		r.warnf("cannot save %s and %s: %s (reports and charts of the run read its intervals instead)", runlog.TotalsFile, runlog.SeriesFile, oneLine(err.Error()))
	}
}

// saved says what became of the run's results, nil when they were all
// saved: its run directory removed during the run, its end not recorded
// (finishErr, from Finish: run.json would say "running", which readers
// take for a killed run), or its run log incomplete (a write failed
// during the run). The run's figures were printed either way.
func (r *Run) saved(finishErr error) error {
	dir := r.rw.Dir()
	if _, err := os.Stat(filepath.Join(dir, runlog.RunFile)); errors.Is(err, fs.ErrNotExist) {
		return &NotSavedError{fmt.Sprintf("results not saved: the run directory %s was removed during the run (the figures above are all that is left of it)", dir)}
	}
	if beside := r.rw.EndBeside(); beside != "" {
		return &NotSavedError{fmt.Sprintf("results incomplete in %s: its directory could not be written at the run's end (%s); the end is recorded beside it, in %s, so `stampede runs` lists it as completed, results incomplete, and `stampede report` of it covers what was saved; the figures above are the run's", dir, writeFailure(errors.Join(r.writeErr, finishErr)), beside)}
	}
	if r.rw.Info().Status == runlog.StatusRunning {
		return &NotSavedError{fmt.Sprintf("results not saved in %s: the run's end could not be recorded (%s), so `stampede runs` lists it as killed; the figures above are the run's", dir, writeFailure(errors.Join(r.writeErr, finishErr)))}
	}
	if err := errors.Join(r.writeErr, finishErr); err != nil {
		return &NotSavedError{fmt.Sprintf("results saved in %s, but incomplete (%s); the figures above are the run's, and `stampede report` of it covers only what was saved", dir, writeFailure(err))}
	}
	return nil
}

// writeFailure says in a few words which files of a run directory could
// not be written and why ("events.ndjson, telemetry.ndjson: no space left
// on device"), from the errors err joins or wraps.
func writeFailure(err error) string {
	var names, causes []string
	var walk func(error)
	walk = func(e error) {
		if joined, ok := e.(interface{ Unwrap() []error }); ok {
			for _, e := range joined.Unwrap() {
				walk(e)
			}
			return
		}
		var pe *fs.PathError
		var le *os.LinkError // a rename
		if errors.As(e, &le) {
			pe = &fs.PathError{Path: le.New, Err: le.Err}
		}
		if pe != nil || errors.As(e, &pe) {
			if n := filepath.Base(pe.Path); !slices.Contains(names, n) {
				names = append(names, n)
			}
			if c := pe.Err.Error(); !slices.Contains(causes, c) {
				causes = append(causes, c)
			}
			return
		}
		if c := oneLine(e.Error()); !slices.Contains(causes, c) {
			causes = append(causes, c)
		}
	}
	walk(err)
	if len(names) == 0 {
		return strings.Join(causes, "; ")
	}
	return "cannot write " + strings.Join(names, ", ") + ": " + strings.Join(causes, "; ")
}

// cannotSave is the error of a run that cannot create its run directory
// under root (the results disk full, or not writable): one line, naming
// the files and the cause once (not Go's doubled path errors).
func cannotSave(root string, err error) error {
	what := "give --results-dir a directory you can write"
	if errors.Is(err, syscall.ENOSPC) {
		what = "free space on its disk, or give --results-dir a directory on another"
	}
	cause := oneLine(err.Error())
	var pe *fs.PathError
	if errors.As(err, &pe) {
		cause = pe.Op + " " + pe.Path + ": " + pe.Err.Error()
	}
	return fmt.Errorf("cannot save results under %s (%s): %s", root, cause, what)
}

// NotSavedError says that a run's results were not saved, or only in
// part; the run itself went on to its end.
type NotSavedError struct{ msg string }

// Error implements the error interface.
func (e *NotSavedError) Error() string { return e.msg }

// summary completes a fleet run's summary: its tenants' figures and the
// fleet's line of the field report's table.
func (f *fleetSource) summary(sum *Summary) ([]fleet.TenantResult, *FleetSummary) {
	tenants := f.run.Tenants()
	fs := &FleetSummary{
		Summary:          f.run.Summary(f.active, tenants),
		Tenants:          f.spec.Tenants,
		Mode:             string(f.spec.Mode),
		Pattern:          f.spec.Pattern,
		First:            f.first,
		Last:             f.last,
		Rotate:           f.rotate,
		WorkersPerTenant: f.wpt,
		ConnsPerTenant:   f.cpt,
		QPS:              sum.Total.Rate,
		P99:              sum.Total.P99,
	}
	if wall := time.Since(f.wall0).Seconds(); wall > 0 {
		if cpu := processCPU(); cpu >= 0 && f.cpu0 >= 0 {
			fs.ClientCPU = (cpu - f.cpu0) / wall
		}
	}
	if t := sum.Telemetry; t != nil && len(t.Procs) > 0 {
		// The watched processes are the system under test.
		var cores float64
		for _, g := range t.Procs {
			cores += g.CPUCores.Avg
		}
		fs.ServerCPU = &cores
	}
	return tenants, fs
}

// abandonWait bounds how long closeLoad waits for the workers the engine
// abandoned to return once their connections are closed: one blocked on
// its connection returns at once, one busy elsewhere may not.
const abandonWait = 5 * time.Second

// closeLoad closes the workload's operations once. Workers the engine
// abandoned at the end of the grace (engine.Result.Abandoned) are still
// using their connections, which no other goroutine may touch (releasing
// one under its worker, pgx panicked "slow write timer already active"):
// the source closes those connections first, from under them (see
// sqlx.DB.Abandon: their sockets, and a cancel request for the
// statements they wait for), which makes them return, and the load is
// closed once every worker has. Should one still be busy after
// abandonWait, the load is left open: its connections go with the
// process (see closeSource).
func (r *Run) closeLoad() {
	r.closeOnce.Do(func() {
		if !r.endAbandoned() {
			r.stuck = true
			return
		}
		if r.load.Close != nil {
			_ = r.load.Close(context.Background())
		}
	})
}

// endAbandoned closes the connections of the workers the engine
// abandoned and waits, up to abandonWait, for every worker to return;
// it reports whether they all did.
func (r *Run) endAbandoned() bool {
	res := r.engRes
	if len(res.Abandoned) == 0 {
		return true
	}
	if r.src != nil && r.src.abandon != nil {
		r.src.abandon(res.Abandoned)
	}
	select {
	case <-res.WorkersDone:
		return true
	case <-time.After(abandonWait):
		r.warnf("workers abandoned at the run's end were still running %s after their connections were closed: their connections are left to the end of the process", abandonWait)
		return false
	}
}

// closeSource closes the source's connections: in the background when
// abandoned workers never returned (closeLoad), as closing a pool waits
// for the connections taken from it.
func (r *Run) closeSource() {
	if r.stuck {
		go r.src.close()
		return
	}
	r.src.close()
}

// undo runs the cleanups left, in reverse order.
func (r *Run) undo() {
	for i := len(r.cleanup) - 1; i >= 0; i-- {
		r.cleanup[i]()
	}
	r.cleanup = nil
	if r.restoreGC != nil {
		r.restoreGC()
		r.restoreGC = nil
	}
}

// warnMaskedTags warns once, naming the tags saved masked (by the
// caller, and by the run: redact.ChangedTags), when a tag held a password
// of the run: the saved tag is not the one given, and `runs --tag` finds
// the run under the masked value only.
func (r *Run) warnMaskedTags(byCaller, byRun []string) {
	masked := slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(byCaller), byRun...))))
	if len(masked) == 0 {
		return
	}
	r.warnf("--tag %s: saved with the password of the run's connections masked (`runs --tag` finds the run under the masked value)",
		strings.Join(masked, " --tag "))
}

// warnf writes a warning line to the run's log.
func (r *Run) warnf(format string, args ...any) {
	fmt.Fprintf(r.log, "warning: "+format+"\n", args...)
}

// notef writes a line to the run's log.
func (r *Run) notef(format string, args ...any) {
	fmt.Fprintf(r.log, format+"\n", args...)
}

// writeInterval appends one tick to the run log, with the run's
// cumulative reconnects (and each endpoint's, reconnects@ENDPOINT, when
// the figures are split) and the interval's failures by code
// (errors_CODE, retries_CODE). Series that began since the last tick (an
// endpoint's, added during the run) are added to the run log's first.
func (r *Run) writeInterval(t stats.Tick) error {
	if len(t.Series) > r.known {
		var added []string
		for _, s := range t.Series[r.known:] {
			added = append(added, s.Name)
		}
		if err := r.rw.AddSeries(added...); err != nil {
			return err
		}
		r.known = len(t.Series)
	}
	series := make([]runlog.IntervalSeries, 0, len(t.Series))
	for i, s := range t.Series {
		if i >= r.parts && s.Interval.TotalCount() == 0 && s.Errors == 0 {
			// An endpoint's part with nothing this interval: readers
			// take a missing series as empty, and encoding every
			// endpoint's empty histograms would cost the client more
			// than recording them.
			continue
		}
		is := runlog.IntervalSeries{Name: s.Name, Count: s.Interval.TotalCount(), Errors: s.Errors}
		if is.Packed = s.Interval.Sparse(); is.Packed == nil {
			is.Hist = s.Interval.Dense()
		}
		series = append(series, is)
	}
	extra := map[string]float64{"reconnects": float64(r.src.reconnects())}
	if r.cfg.SkipLate > 0 {
		extra[results.SkippedExtra] = float64(r.skipped.Load())
	}
	for label, n := range t.Labels {
		extra[label] = float64(n)
	}
	if r.split != nil {
		r.split.reconnectExtras(r.src.db, extra)
	}
	err := r.rw.WriteInterval(t.Start, t.End, series, extra)
	if r.ship != nil {
		r.ship.interval()
	}
	return err
}

// warnNoLocality warns, once per endpoint, that an endpoint has no
// locality when the figures are split by locality: its operations count
// under "none".
func (r *Run) warnNoLocality(db *sqlx.DB) {
	for _, e := range db.AllEndpoints() {
		if e.Locality == "" {
			r.warnf("--by-locality: endpoint %s has no locality (give --locality after its URL, or ?locality= in it): its operations count under @none", e.Name)
		}
	}
}

// promSnapshot computes the cumulative figures of each operation for the
// Prometheus exporter.
func promSnapshot(t stats.Tick, ops []string, reconnects int64) promexport.Snapshot {
	s := promexport.Snapshot{Reconnects: uint64(max(reconnects, 0))}
	for i, name := range ops {
		c := t.Series[i]
		buckets, sum := stats.CumulativeCounts(c.Cumulative, promexport.Buckets)
		s.Ops = append(s.Ops, promexport.Op{Name: name, Count: uint64(c.Cumulative.TotalCount()), Errors: uint64(c.CumErrors),
			Buckets: buckets, SumSeconds: sum})
	}
	return s
}

// indexRun indexes the finished run directory dir, under the results
// directory root, into the results store of resultsURL ("" for
// $STAMPEDE_RESULTS_URL or the default store of root). It fails only
// after a minute: an interrupted run is indexed too.
func indexRun(ctx context.Context, root, dir string, resultsURL string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	st, err := store.Open(ctx, StoreURL(root, resultsURL))
	if err != nil {
		return err
	}
	defer st.Close()
	return st.Index(ctx, dir)
}

// StoreURL returns the results store's URL: url, else
// $STAMPEDE_RESULTS_URL, else the SQLite file in the results directory
// root.
func StoreURL(root, url string) string {
	if url != "" {
		return url
	}
	if env := os.Getenv("STAMPEDE_RESULTS_URL"); env != "" {
		return env
	}
	return store.DefaultURL(root)
}

// pickSeed returns seed, or a random non-zero seed when it is 0.
func pickSeed(seed uint64) uint64 {
	for seed == 0 {
		var b [8]byte
		_, _ = rand.Read(b[:])
		seed = binary.LittleEndian.Uint64(b[:]) >> 1
	}
	return seed
}

// syncWriter serializes the writes of the run's goroutines to one writer.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// printer adapts an io.Writer to workload.Reporter.
type printer struct{ w io.Writer }

// Printf implements workload.Reporter: one line per call.
func (p printer) Printf(format string, args ...any) {
	fmt.Fprintf(p.w, format, args...)
	if !strings.HasSuffix(format, "\n") {
		fmt.Fprintln(p.w)
	}
}

// checkPrinter is a printer that keeps the consistency checks' outcomes
// (workload.CheckRecorder) for summary.json.
type checkPrinter struct {
	printer
	checks []report.Audit
}

// Check implements workload.CheckRecorder.
func (p *checkPrinter) Check(a workload.Audit) { p.checks = append(p.checks, reportAudit(a)) }

// promFlag names the flag that chose the Prometheus address, and its
// value as typed: a bare ":PORT" is --prometheus-port's.
func promFlag(listen string) (flag, value string) {
	if port, ok := strings.CutPrefix(listen, ":"); ok {
		return "--prometheus-port", port
	}
	return "--prometheus-listen", listen
}

// endWait is how long the run waited after its end (its duration over,
// or stopped) for the operations in flight: 0 when the workers ran out
// of operations themselves.
func endWait(res engine.Result) time.Duration {
	if res.Stop.IsZero() || !res.End.After(res.Stop) {
		return 0
	}
	return res.End.Sub(res.Stop)
}

// stopHint is the remedy a run stopped by err names: the workload's own
// (workload.HintedError), none for a run that does not match its load,
// --tolerate-errors otherwise.
func stopHint(err error) string {
	var he *workload.HintedError
	switch {
	case errors.Is(err, workload.ErrLoadMismatch):
		return "the run does not match the load"
	case errors.As(err, &he):
		return he.Hint
	}
	return "pass --tolerate-errors to keep going"
}
