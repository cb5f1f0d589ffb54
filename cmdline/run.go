package cmdline

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/stampede-bench/stampede/output"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// RunArgs is everything `run` parsed.
type RunArgs struct {
	Gen   workload.Generator
	Conn  *Conn
	Flags *RunFlags
	FS    *pflag.FlagSet
	URLs  []string
	// Tenants and Fleet are the fleet flags (nil: no fleet).
	Tenants *Tenants
	Fleet   *FleetRun
}

// Env is what a command line runs in: its arguments (recorded, redacted),
// the secrets to scrub from what it records, where it prints, and how the
// commands its messages suggest are completed.
type Env struct {
	Args           []string
	Secrets        []string
	Stdout, Stderr io.Writer
	Hint           func(string) string
}

// Run turns the parsed flags into a run.Spec, runs it with the
// printer the flags choose, and returns its result.
func Run(ctx context.Context, spec RunArgs, env Env) (*run.Result, error) {
	if !spec.Flags.dryRun {
		if _, err := adoptWarehouses(ctx, spec); err != nil {
			return nil, err
		}
	}
	s, err := runSpec(spec, env)
	if err != nil {
		return nil, err
	}
	rf := spec.Flags
	if rf.dryRun {
		if err := run.Validate(s); err != nil {
			return nil, err
		}
		fmt.Fprintln(env.Stdout, dryRunLine(s))
		return nil, nil
	}
	stop, err := rf.startProfiles(env)
	if err != nil {
		return nil, err
	}
	defer stop()
	r, err := run.Start(ctx, s)
	if err != nil {
		return nil, err
	}
	res, err := r.Wait()
	if err == nil && rf.forcedAt > 0 && res.Engine.Unfinished > 0 && !res.Engine.Interrupted {
		// sysbench exits with an error when it forces the shutdown.
		err = fmt.Errorf("--forced-shutdown: %d events were still running %d s after the start, and were abandoned; the results are saved", res.Engine.Unfinished, rf.forcedAt)
	}
	return res, err
}

// dryRunLine says what a run of s would do, for --dry-run.
func dryRunLine(s run.Spec) string {
	var b strings.Builder
	fmt.Fprintf(&b, "dry run: %s", s.Workload.Meta().Name)
	if d, ok := s.Workload.(interface{ WorkersAtStart() bool }); ok && d.WorkersAtStart() {
		b.WriteString(", its workers counted when it starts")
	} else if s.Concurrency > 0 {
		fmt.Fprintf(&b, ", %s", plural(s.Concurrency, "worker"))
	}
	if s.MaxRate > 0 {
		fmt.Fprintf(&b, ", %g ops/s in all", s.MaxRate)
	}
	if p := s.Part; p.Count > 0 {
		fmt.Fprintf(&b, ", client %d of %d (its share of the rate and operations)", p.Index, p.Count)
		if s.Fleet != nil {
			if f, err := run.FleetShare(*s.Fleet, p.Index, p.Count); err == nil {
				fmt.Fprintf(&b, ", tenants %d..%d of %d, %d active", f.First, f.Last, f.Spec.Tenants, f.Active)
			}
		}
		if c, ok := s.Workload.(interface{ ClientShare() string }); ok && c.ClientShare() != "" {
			fmt.Fprintf(&b, ", %s", c.ClientShare())
		}
		if !p.StartAt.IsZero() {
			fmt.Fprintf(&b, ", starting at %s", p.StartAt.UTC().Format(time.RFC3339))
		}
	}
	b.WriteString(": the command line is valid; nothing was run")
	return b.String()
}

// startProfiles starts the profiles the flags ask for; the function it
// returns writes them.
func (rf *RunFlags) startProfiles(env Env) (func(), error) {
	stopCPU := func() {}
	if rf.cpuProfile != "" {
		var err error
		if stopCPU, err = startCPUProfile(rf.cpuProfile); err != nil {
			return nil, err
		}
	}
	return func() {
		stopCPU()
		if rf.memProfile != "" {
			writeAllocProfile(rf.memProfile, env.Stderr)
		}
	}, nil
}

// adoptWarehouses makes a run given no --warehouses (TPC-C's) run on the
// warehouses init loaded, as check checks them and as a run given no
// ycsb or bank data flag takes what init loaded: the terminals and
// connections follow (10 and 2 per warehouse), and the workload's header
// says so (a client's share, --clients, is taken from them). A fleet's
// tenants keep their own checks. It returns the warehouses taken, 0 when
// it took none.
func adoptWarehouses(ctx context.Context, spec RunArgs) (int, error) {
	gen := spec.Gen
	a, ok := gen.(interface {
		LoadedWarehouses(context.Context, *sqlx.DB) (int, bool)
		AdoptWarehouses(int) error
	})
	f, isFlagser := gen.(workload.Flagser)
	if !ok || !isFlagser || f.Flags().Changed("warehouses") || (spec.Tenants != nil && spec.Tenants.tenants > 0) {
		return 0, nil
	}
	conn, err := spec.Conn.Spec(spec.URLs)
	if err != nil {
		return 0, nil // runSpec says why
	}
	opts, err := conn.Options(gen.Meta().DatabaseName(), 1)
	if err != nil || opts.Driver == sqlx.DriverNull {
		return 0, nil
	}
	db, err := sqlx.Open(ctx, opts)
	if err != nil {
		return 0, nil // the run says why
	}
	n, ok := a.LoadedWarehouses(ctx, db)
	db.Close()
	if !ok || strconv.Itoa(n) == f.Flags().Lookup("warehouses").Value.String() {
		return 0, nil
	}
	return n, a.AdoptWarehouses(n)
}

// runSpec turns the parsed flags into a run.Spec with the printer the
// flags choose.
func runSpec(spec RunArgs, env Env) (run.Spec, error) {
	gen, rf := spec.Gen, spec.Flags
	if _, ok := gen.(workload.Opser); !ok {
		if gen.Meta().Name == "pgbench" {
			// Its tables are run by pgbench's transactions, which
			// have two forms of their own.
			return run.Spec{}, usagef("workload pgbench cannot be run itself: run pgbench's transactions on its tables with `stampede run sql -b tpcb-like`, or with pgbench's own command line, `stampede pgbench`")
		}
		return run.Spec{}, usagef("workload %s cannot be run", gen.Meta().Name)
	}
	if fd, ok := gen.(workload.ForceDropSetter); ok {
		fd.SetForceDrop(rf.forceDrop)
	} else if rf.forceDrop {
		return run.Spec{}, usagef("--force-drop applies to the drops of a run that drops tables (run churn --fresh); %s's run drops none: drop --force-drop", gen.Meta().Name)
	}
	if p := rf.clients.part; p.Count > 0 && (spec.Tenants == nil || spec.Tenants.tenants == 0) {
		// (A fleet's clients split its tenants, each tenant's data whole.)
		// The client's share before the workload's defaults, which are
		// then the share's (TPC-C's terminals of the client's
		// warehouses); run checks the part and says what is wrong.
		if cp, ok := gen.(workload.ClientPartitioner); ok {
			_ = cp.PartitionClients(p.Index, p.Count)
		}
	}
	if d, ok := gen.(workload.RunDefaulter); ok && rf.latency == "" {
		rf.latency = d.RunDefaults().Latency // YCSB's measurement.interval
	}
	if rf.outputStyle == "ycsb" && rf.latency == "" {
		rf.latency = run.LatencyService // YCSB's measurement.interval=op
	}
	status := env.Stderr // pgbench's progress lines, unfiltered
	if rf.outputStyle == "pgbench" {
		// pgbench's stderr: its own lines, and of stampede's only the
		// warnings, the search path's note and where the results went.
		env.Stderr = pgbenchLog{env.Stderr}
	}
	switch rf.verbosity {
	case 0, 1:
		env.Stderr = io.Discard // sysbench's --verbosity: errors only (the command line prints those)
	case 2:
		env.Stderr = warningsOnly{env.Stderr} // warnings and errors, no notices
	}
	for _, w := range rf.warnings {
		fmt.Fprintf(env.Stderr, "warning: %s\n", w)
	}
	conn, err := spec.Conn.Spec(spec.URLs)
	if err != nil {
		return run.Spec{}, err
	}
	splitBy, err := rf.split.By()
	if err != nil {
		return run.Spec{}, err
	}
	if splitBy != "" && (rf.outputStyle == "ycsb" || rf.outputStyle == "sysbench") {
		fmt.Fprintf(env.Stderr, "warning: --by-%s: --output-style %s prints no lines by %s; the run log keeps them (`stampede report RUN --by-%s`)\n",
			splitBy, rf.outputStyle, splitBy, splitBy)
	}
	concurrency := rf.concurrency
	if err := refuseFleetConns(spec); err != nil {
		return run.Spec{}, err
	}
	if d, ok := gen.(workload.RunDefaulter); ok && d.RunDefaults().WorkersFromConns && spec.FS.Changed("conns") && conn.Conns == 0 {
		// --conns 0 elsewhere means one per worker; here the loops are
		// the connections.
		return run.Spec{}, usagef("--conns 0: workload %s runs one loop per connection: give 1 or more (default %d)", gen.Meta().Name, d.RunDefaults().Conns)
	}
	if d, ok := gen.(workload.RunDefaulter); ok && !spec.FS.Changed("concurrency") && !spec.FS.Changed("threads") && d.RunDefaults().Concurrency > 0 {
		concurrency = 0 // the workload's default (TPC-C's 10 terminals per warehouse)
	}
	tags, maskedTags := rf.tagMap(env.Secrets)
	s := run.Spec{
		Workload:         gen,
		Conn:             conn,
		Concurrency:      concurrency,
		Duration:         rf.duration,
		MaxOps:           rf.maxOps,
		SharedOps:        rf.sharedOps,
		Ramp:             rf.ramp,
		MaxRate:          rf.maxRate,
		Poisson:          rf.arrivals == "poisson",
		ScheduleGroups:   rf.schedGroups,
		SkipLate:         rf.skipLate,
		QueueRate:        rf.queueRate,
		Grace:            rf.grace,
		DisplayEvery:     rf.displayEvery,
		TolerateErrors:   rf.tolerateErrors,
		AbortWorker:      rf.outputStyle == "pgbench", // an error aborts a client, as in pgbench
		ClientsOption:    pgbenchClients(spec.FS),
		OpTimeout:        rf.opTimeout,
		Seed:             rf.seed,
		Latency:          rf.latency,
		Pacer:            rf.pacer,
		IOMode:           rf.ioMode,
		ClientSched:      string(rf.sched),
		GCHeadroom:       rf.headroom,
		SkipChecks:       rf.skipChecks,
		SplitBy:          splitBy,
		Telemetry:        rf.tel.spec(),
		Limits:           rf.lim.spec(),
		ResultsDir:       rf.resultsDir,
		ResultsURL:       rf.resultsURL,
		Tags:             tags,
		MaskedTags:       maskedTags,
		Command:          RedactArgs(env.Args),
		Flags:            FlagValues(spec.FS, env.Secrets),
		PrometheusListen: rf.promListen, PrometheusFlag: rf.promFlag,
		Part:   rf.clients.part,
		Log:    env.Stderr,
		Checks: env.Stdout,
	}
	if rf.headroom == 0 {
		s.GCHeadroom = -1 // --gc-headroom 0: Go's own pacing
	}
	if l, err := rf.lim.Limits(); err != nil {
		return run.Spec{}, usagef("%v", err)
	} else {
		s.Limits.Limits = l
	}
	if spec.Tenants != nil {
		f, err := fleetSpec(spec, env)
		if err != nil {
			return run.Spec{}, err
		}
		s.Fleet = f
	}
	if s.Fleet == nil {
		// The workload's own buffers per worker (YCSB's fields), named by
		// the flag that sets the workers, before any is made.
		name, n := "--concurrency", rf.concurrency
		if spec.FS.Changed("threads") {
			name = "--threads"
		}
		if concurrency == 0 {
			n = gen.(workload.RunDefaulter).RunDefaults().Concurrency // TPC-C's 10 per warehouse
			if gen.(workload.RunDefaulter).RunDefaults().WorkersFromConns && conn.Conns > 0 {
				n = conn.Conns // churn's loop per connection
			}
			// run.json records the workers that ran, not the flag's
			// default, which the workload's replaced.
			s.Flags["concurrency"] = strconv.Itoa(n)
		}
		if err := run.CheckWorkersOf(name, n, rf.ioMode == ioThread, gen); err != nil {
			return run.Spec{}, err
		}
	}
	switch {
	case rf.outputStyle == "ycsb":
		o := &output.YCSB{W: env.Stdout, Status: env.Stderr, Workload: gen, Latency: rf.latency}
		if m, ok := gen.(workload.YCSBCleanupMeasurer); ok {
			m.MeasureCleanup() // YCSB's [CLEANUP]
		}
		if spec.FS.Changed("report-interval") && rf.reportInterval == 0 {
			o.Status = nil // YCSB's status lines only with -s (cmdline/ycsb)
		}
		s.Observers = []run.Observer{o}
	case rf.outputStyle == "sysbench":
		s.Observers = []run.Observer{&output.Sysbench{W: env.Stdout, Version: run.VersionString(), ReportEvery: rf.reportInterval,
			Percentile: rf.percentile, Histogram: rf.histogram, ForcedShutdown: rf.forcedAt, Quiet: rf.verbosity < 3}}
	case rf.outputStyle == "pgbench":
		o, err := pgbenchOutput(Env{Stdout: env.Stdout, Stderr: status}, rf, gen, spec.FS)
		if err != nil {
			return run.Spec{}, err
		}
		s.Observers = []run.Observer{o}
	default:
		s.Observers = []run.Observer{&output.Stampede{W: env.Stdout, JSON: rf.format == "json", Histogram: rf.histogram,
			Telemetry: rf.tel.display, Quiet: spec.FS.Changed("report-interval") && rf.reportInterval == 0}}
	}
	return s, nil
}

// pgbenchLog passes on, of the lines written to it, the warnings (as
// pgbench's, "pgbench: warning: ..."), the note that the run uses the
// load's tables where the search path finds others first (as
// "pgbench: note: ...") and where the results were saved,
// each written whole: the rest of stampede's lines (its run's header)
// are not pgbench's.
type pgbenchLog struct{ w io.Writer }

// Write implements io.Writer.
func (f pgbenchLog) Write(p []byte) (int, error) {
	for _, line := range bytes.SplitAfter(p, []byte("\n")) {
		var err error
		switch {
		case bytes.HasPrefix(line, []byte("warning: ")), bytes.HasPrefix(line, []byte("note: search_path ")):
			// The note says the run uses the load's tables, not those
			// the search path finds first (a user's of pgbench's names).
			_, err = f.w.Write(append([]byte("pgbench: "), line...))
		case bytes.HasPrefix(line, []byte("results saved in ")):
			_, err = f.w.Write(line)
		}
		if err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// warningsOnly passes on the lines written to it that are warnings
// (sysbench's --verbosity=2), each written whole, as the run's log does.
type warningsOnly struct{ w io.Writer }

// Write implements io.Writer.
func (f warningsOnly) Write(p []byte) (int, error) {
	for _, line := range bytes.SplitAfter(p, []byte("\n")) {
		if bytes.HasPrefix(line, []byte("warning: ")) {
			if _, err := f.w.Write(line); err != nil {
				return 0, err
			}
		}
	}
	return len(p), nil
}

// RedactArgs returns argv with connection secrets replaced (see
// redactWord): the password of every URL and key=value DSN, every other
// part of them kept as written, so that the command recorded runs as the
// user's did.
func RedactArgs(args []string) []string {
	out := make([]string, len(args))
	secrets := Secrets(args)
	for i, a := range args {
		out[i] = redactWord(a, secrets)
	}
	return out
}

// FlagValues returns every flag's effective value, secrets scrubbed, but
// for flags not given whose default depends on other flags
// (workload.HasDependentDefault), whose pflag default is not the value used.
func FlagValues(fs *pflag.FlagSet, secrets []string) map[string]string {
	m := map[string]string{}
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Changed && workload.HasDependentDefault(f) {
			return
		}
		v := f.Value.String()
		if strings.Contains(f.Name, "password") && v != "" {
			v = "xxxxx"
		}
		m[f.Name] = redactWord(v, secrets)
	})
	return m
}

// startCPUProfile writes a CPU profile of the run to path.
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cannot write the CPU profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// writeAllocProfile writes the process's allocation profile (every
// allocation since it started, sampled by the runtime) to path; a failure
// is reported on stderr, as the run's results are saved either way.
func writeAllocProfile(path string, stderr io.Writer) {
	f, err := os.Create(path)
	if err == nil {
		err = pprof.Lookup("allocs").WriteTo(f, 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "cannot write the allocation profile: %v\n", err)
	}
}

// pgbenchClients is the option that sets the clients in advice: -c in
// the pgbench form (which always passes pgbench's -j in --pgbench-jobs),
// else "" (--concurrency).
func pgbenchClients(fs *pflag.FlagSet) string {
	if f := fs.Lookup("pgbench-jobs"); f != nil && f.Changed {
		return "-c"
	}
	return ""
}

// pgbenchOutput is --output-style pgbench's observer, for the sql
// workload's scripts.
func pgbenchOutput(env Env, rf *RunFlags, gen workload.Generator, fs *pflag.FlagSet) (*output.Pgbench, error) {
	src, ok := gen.(output.PgbenchSource)
	f, flagser := gen.(workload.Flagser)
	if !ok || !flagser {
		return nil, usagef("--output-style pgbench prints pgbench's report of the sql workload's scripts: run `stampede run sql` (or `stampede pgbench`)")
	}
	if e, ok := gen.(interface{ SetErrorOutput(io.Writer) }); ok {
		e.SetErrorOutput(env.Stderr) // --verbose-errors' lines
	}
	if k, ok := gen.(interface{ KeepMoments() }); ok {
		k.KeepMoments() // the report's latency average and stddev, exact
	}
	if r, ok := gen.(interface{ AsPgbench() }); ok {
		r.AsPgbench() // a statement the server refuses aborts its client; every notice printed
	}
	value := func(name string) string {
		if fl := f.Flags().Lookup(name); fl != nil {
			return fl.Value.String()
		}
		return ""
	}
	return &output.Pgbench{W: env.Stdout, Status: env.Stderr, Version: run.VersionString(), Source: src, PgbenchOptions: rf.pgbench,
		Protocol: value("protocol"), Duration: int(rf.duration / time.Second), PerCommand: value("report-per-command") == "true",
		Vacuum: value("vacuum-first") == "true", VacuumAccounts: value("vacuum-accounts") == "true",
		Rated: rf.maxRate > 0, Skipping: rf.skipLate > 0}, nil
}
