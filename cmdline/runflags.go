package cmdline

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/stampede-bench/stampede/engine"
	"github.com/stampede-bench/stampede/internal/clientsched"
	"github.com/stampede-bench/stampede/internal/gcpace"
	"github.com/stampede-bench/stampede/limit"
	"github.com/stampede-bench/stampede/output"
	"github.com/stampede-bench/stampede/redact"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/runlog"
)

// RunFlags are the flags of `stampede run`: the run options, its outputs,
// telemetry and limits.
type RunFlags struct {
	concurrency    int
	threads        int
	duration       time.Duration
	maxOps         int64
	events         int64
	ramp           time.Duration
	maxRate        float64
	displayEvery   time.Duration
	tolerateErrors bool
	seed           uint64
	format         string
	resultsDir     string
	resultsURL     string
	// warnings are what resolve found given but unused; the run prints
	// them before it starts.
	warnings []string
	tags     []string
	latency  string
	pacer    string
	arrivals string
	// schedGroups is --schedule-groups (engine.Config.ScheduleGroups).
	schedGroups int
	skipLate    time.Duration
	cpuProfile  string
	memProfile  string
	// sysbench's general options.
	timeSecs       int
	rate           float64
	reportInterval int
	percentile     float64
	histogram      bool
	randSeed       uint64
	outputStyle    string
	promPort       int
	promListen     string
	promFlag       string // "--prometheus-listen" when it gave promListen
	opTimeout      time.Duration
	ioMode         string
	clientSched    string
	gcHeadroom     string
	// sched and headroom are --client-sched and --gc-headroom as
	// resolve parsed them.
	sched      clientsched.Policy
	headroom   int64
	skipChecks bool
	// forceDrop is run's --force-drop (RegisterForceDrop).
	forceDrop bool
	tel       Telemetry
	lim       Limits
	split     SplitFlags
	clients   ClientFlags
	dryRun    bool
	// sysbench's syntax (see SysbenchSyntax) and its options that
	// stampede's own syntax takes too.
	sysbenchSyntax bool
	forcedShutdown string
	verbosity      int
	// pgbench's options that only its report shows (set by the pgbench
	// form, cmdline/pgbench).
	pgbench output.PgbenchOptions
	// Resolved: --events as one shared count, --rate as sysbench's queue,
	// the grace after the run's end (--forced-shutdown) and when sysbench's
	// header says the shutdown is forced (seconds from the start, 0: off).
	sharedOps bool
	queueRate float64
	grace     time.Duration
	forcedAt  int
}

// RegisterForceDrop defines run's --force-drop on fs (not sweep's, whose
// --force-drop is its --reload's).
func (r *RunFlags) RegisterForceDrop(fs *pflag.FlagSet) {
	fs.BoolVar(&r.forceDrop, "force-drop", false, "let what a run drops before it starts (churn's --fresh) drop it even where a user made something on it (an index, a view) or the database is a copy stampede did not make; without it the run refuses")
}

// Register defines the flags on fs.
func (r *RunFlags) Register(fs *pflag.FlagSet) {
	defer r.split.Register(fs)
	fs.IntVar(&r.concurrency, "concurrency", 8, "number of concurrent workers")
	fs.IntVar(&r.threads, "threads", 0, "alias of --concurrency (sysbench's name)")
	_ = fs.MarkHidden("threads")
	fs.DurationVar(&r.duration, "duration", 0, "how long to run after the ramp, such as 60s or 10m (0: until --max-ops or Ctrl-C)")
	fs.Int64Var(&r.maxOps, "max-ops", 0, "stop after this many operations in total (0: no limit)")
	fs.Int64Var(&r.events, "events", 0, "alias of --max-ops (sysbench's name)")
	_ = fs.MarkHidden("events")
	fs.DurationVar(&r.ramp, "ramp", 0, "start workers gradually over this time; the ramp is excluded from the final figures")
	fs.Float64Var(&r.maxRate, "max-rate", 0, "total operations per second, scheduled open-loop; latency is then measured from each operation's intended start (0: as fast as possible)")
	fs.DurationVar(&r.displayEvery, "display-every", time.Second, "interval between progress lines")
	fs.BoolVar(&r.tolerateErrors, "tolerate-errors", false, "keep running when an operation fails (errors are counted); otherwise the first error ends the run")
	fs.Uint64Var(&r.seed, "seed", 0, "random seed for the operation sequence (0: pick one and print it)")
	fs.StringVar(&r.format, "format", "text", "output format: text or json (newline-delimited JSON)")
	fs.StringVar(&r.resultsDir, "results-dir", "", "where run directories are written (default $STAMPEDE_RESULTS_DIR or ~/.stampede/runs)")
	fs.StringVar(&r.resultsURL, "results-url", "", "results store the run is indexed in: sqlite:PATH, postgres://... or postgresql://... (default $STAMPEDE_RESULTS_URL, or index.sqlite in the results directory)")
	fs.StringArrayVar(&r.tags, "tag", nil, "key=value label stored with the run (repeatable)")
	fs.StringVar(&r.latency, "latency", "", "under --max-rate, which latency the progress lines, the final figures and summary.json show (report and sweeps follow): intended (from the scheduled start, the default), service, or both")
	fs.StringVar(&r.arrivals, "arrivals", "even", "under --max-rate, how each worker's intended starts are spaced: even, or poisson (exponential gaps of the same mean, as pgbench's -R schedules its clients)")
	fs.IntVar(&r.schedGroups, "schedule-groups", 0, "under --max-rate, deal the workers to this many groups that each share one schedule at the rate divided by the groups, as pgbench's -R schedules per thread: a free worker takes its group's next start, so one slow operation delays no start of its own (0: each worker its own schedule)")
	fs.DurationVar(&r.skipLate, "skip-late", 0, "under --max-rate, skip an operation whose turn comes more than this after its intended start, and count it skipped (pgbench's --latency-limit under -R; 0: run every one)")
	fs.StringVar(&r.pacer, "pacer", "precise", "under --max-rate, how workers wait for each operation's scheduled start: precise (one metronome sleeps on the kernel's high-resolution clock, then spins to each start: on time to tens of microseconds, for up to a CPU) or coarse (Go's timers: no spinning, but up to about 1 ms late)")
	fs.StringVar(&r.cpuProfile, "cpuprofile", "", "write a Go CPU profile of stampede itself to this file")
	_ = fs.MarkHidden("cpuprofile")
	fs.StringVar(&r.memProfile, "memprofile", "", "write a Go allocation profile of stampede's run to this file")
	_ = fs.MarkHidden("memprofile")
	fs.BoolVar(&r.skipChecks, "skip-checks", false, "do not run the workload's consistency checks after the run (workloads that check after runs: tpcc)")
	fs.DurationVar(&r.opTimeout, "op-timeout", 0, "bound each operation: the server's statement_timeout and a client deadline (0: none)")
	fs.StringVar(&r.ioMode, "io-mode", ioAuto, "how workers wait for the server: thread (each worker's connection blocks in the kernel on its own thread, as sysbench's do), poller (Go's network poller, for thousands of connections), or auto (thread with up to 4 workers per CPU, each with its own connection)")
	fs.StringVar(&r.clientSched, "client-sched", string(clientsched.Batch), "Linux scheduling policy of stampede's own threads during the run: batch (SCHED_BATCH: a woken client thread never preempts the server, which matters when both share CPUs) or normal (the kernel's default)")
	fs.StringVar(&r.gcHeadroom, "gc-headroom", fmt.Sprintf("%dM", gcpace.DefaultHeadroom>>20), "how much stampede's Go heap may grow between garbage collections during the run, such as 64M or 1G (0: Go's default pacing, GOGC=100); a collection can separate client threads from the server backends they share CPUs with. GOGC in the environment wins")
	fs.IntVar(&r.promPort, "prometheus-port", 0, "serve live metrics at http://HOST:PORT/metrics for Prometheus (all interfaces)")
	fs.StringVar(&r.promListen, "prometheus-listen", "", "like --prometheus-port with a full address, such as 127.0.0.1:9090")
	r.clients.Register(fs)
	fs.BoolVar(&r.dryRun, "dry-run", false, "check the command line as run does and say what it would run, connecting to nothing")
	r.tel.Register(fs)
	r.lim.Register(fs)
	fs.StringVar(&r.outputStyle, "output-style", "stampede", "output style: stampede, sysbench (sysbench's interval lines and final report), ycsb (YCSB's status lines on stderr and its [OVERALL], [READ], ... report) or pgbench (pgbench's progress lines and report; the sql workload only)")
	fs.IntVar(&r.timeSecs, "time", 0, "sysbench's name for --duration, in seconds")
	fs.Float64Var(&r.rate, "rate", 0, "sysbench's name for --max-rate")
	fs.IntVar(&r.reportInterval, "report-interval", 0, "sysbench's intermediate report interval in seconds (0: none); sets --display-every")
	fs.Float64Var(&r.percentile, "percentile", 95, "latency percentile shown by --output-style sysbench")
	fs.BoolVar(&r.histogram, "histogram", false, "print a latency histogram at the end (sysbench's --histogram)")
	fs.Uint64Var(&r.randSeed, "rand-seed", 0, "sysbench's name for --seed")
	fs.BoolVar(&r.sysbenchSyntax, "sysbench-syntax", false, "the command line is sysbench's: its defaults and meanings apply (set by stampede for 'stampede SCRIPT [options] run')")
	fs.StringVar(&r.forcedShutdown, "forced-shutdown", "", "sysbench's: how long events in flight at the end of --time may take, in seconds or a percentage of --time (5%), or off (no limit; sysbench's default)")
	fs.IntVar(&r.verbosity, "verbosity", 3, "sysbench's: 3 prints everything, 2 no report (warnings and errors only), 0-1 errors only")
	p := &r.pgbench
	fs.IntVar(&p.Jobs, "pgbench-jobs", 1, "pgbench's -j, for --output-style pgbench's report")
	fs.Int64Var(&p.PerClient, "pgbench-transactions", 0, "pgbench's -t, for --output-style pgbench's report")
	fs.IntVar(&p.Progress, "pgbench-progress", 0, "pgbench's -P, for --output-style pgbench's progress lines")
	fs.Float64Var(&p.LatencyLimit, "pgbench-latency-limit", 0, "pgbench's -L in ms, for --output-style pgbench's report")
	fs.BoolVar(&p.FailuresDetailed, "pgbench-failures-detailed", false, "pgbench's --failures-detailed, for --output-style pgbench's report")
	fs.BoolVar(&p.Timestamps, "pgbench-progress-timestamp", false, "pgbench's --progress-timestamp, for --output-style pgbench's progress lines")
	for _, name := range []string{"time", "rate", "report-interval", "rand-seed", "sysbench-syntax", "forced-shutdown", "verbosity",
		"pgbench-jobs", "pgbench-transactions", "pgbench-progress", "pgbench-latency-limit", "pgbench-failures-detailed", "pgbench-progress-timestamp"} {
		_ = fs.MarkHidden(name)
	}
}

// sysbenchDefaults gives a sysbench command line (--sysbench-syntax)
// sysbench's defaults for what it leaves out: one thread, --time=10,
// sysbench's output, --forced-shutdown=off.
func (r *RunFlags) sysbenchDefaults(fs *pflag.FlagSet) {
	if !fs.Changed("threads") && !fs.Changed("concurrency") {
		r.concurrency = 1
	}
	if !fs.Changed("time") && !fs.Changed("duration") {
		r.duration = 10 * time.Second
	}
	if !fs.Changed("output-style") {
		r.outputStyle = "sysbench"
	}
	if !fs.Changed("forced-shutdown") {
		r.forcedShutdown = "off"
	}
}

// resolveForcedShutdown turns --forced-shutdown into the run's grace
// after its end: off waits for events in flight without limit, N
// seconds or N% of --time bound it.
func (r *RunFlags) resolveForcedShutdown() error {
	v := r.forcedShutdown
	switch {
	case v == "":
		return nil
	case strings.EqualFold(v, "off"):
		r.grace = -1
		return nil
	}
	n, err := strconv.Atoi(strings.TrimSuffix(v, "%"))
	if err != nil || n < 0 {
		return usagef("invalid --forced-shutdown %q: use off, seconds after the end of --time, or a percentage of --time such as 5%%", v)
	}
	if r.duration == 0 && r.sysbenchSyntax {
		r.grace = -1 // no --time: nothing to force, as in sysbench
		return nil
	}
	secs := n
	if strings.HasSuffix(v, "%") {
		secs = int(r.duration.Seconds()) * n / 100
	}
	r.grace = time.Duration(secs) * time.Second
	if r.grace == 0 {
		r.grace = time.Nanosecond // at once
	}
	if r.duration > 0 {
		r.forcedAt = int(r.duration.Seconds()) + secs
	}
	return nil
}

// Resolve applies aliases and validates; fs tells which flags were set.
func (r *RunFlags) Resolve(fs *pflag.FlagSet) error {
	if r.sysbenchSyntax {
		r.sysbenchDefaults(fs)
	}
	if fs.Changed("threads") {
		if fs.Changed("concurrency") && r.threads != r.concurrency {
			return usagef("--threads %d and --concurrency %d disagree: give one of them", r.threads, r.concurrency)
		}
		r.concurrency = r.threads
	}
	if fs.Changed("events") {
		if fs.Changed("max-ops") && r.events != r.maxOps {
			return usagef("--events %d and --max-ops %d disagree: give one of them", r.events, r.maxOps)
		}
		r.maxOps = r.events
		r.sharedOps = r.sysbenchSyntax // sysbench's: one count for all threads
	}
	if fs.Changed("time") {
		if fs.Changed("duration") {
			return usagef("give --time or --duration, not both")
		}
		if r.timeSecs < 0 {
			return usagef("--time=%d is negative: use 0 for no limit", r.timeSecs)
		}
		r.duration = time.Duration(r.timeSecs) * time.Second
	}
	if fs.Changed("rate") {
		if fs.Changed("max-rate") {
			return usagef("give --rate or --max-rate, not both")
		}
		if r.sysbenchSyntax {
			r.queueRate = r.rate // sysbench's: one generator, one queue
		} else {
			r.maxRate = r.rate
		}
	}
	if err := r.resolveForcedShutdown(); err != nil {
		return err
	}
	if r.verbosity < 0 || r.verbosity > 3 {
		return usagef("--verbosity=%d: use 0 to 3 (3 prints everything, 2 warnings and errors, 0-1 errors only); stampede has no debug log", r.verbosity)
	}
	if r.sysbenchSyntax && r.duration == 0 && r.maxOps == 0 {
		r.warnings = append(r.warnings, "Both event and time limits are disabled, running an endless test")
	}
	if fs.Changed("rand-seed") {
		if fs.Changed("seed") && r.seed != r.randSeed {
			return usagef("--rand-seed and --seed disagree: give one of them")
		}
		r.seed = r.randSeed
	}
	if fs.Changed("report-interval") {
		if r.reportInterval < 0 {
			return usagef("--report-interval=%d is negative", r.reportInterval)
		}
		if r.reportInterval > 0 && !fs.Changed("display-every") {
			r.displayEvery = time.Duration(r.reportInterval) * time.Second
		}
	}
	if r.promPort < 0 || r.promPort > 65535 {
		return usagef("--prometheus-port %d is not a port number", r.promPort)
	}
	if fs.Changed("prometheus-listen") {
		r.promFlag = "--prometheus-listen"
		if err := checkListenAddr(r.promListen); err != nil {
			return usagef("--prometheus-listen %q: %v: give host:port, such as 127.0.0.1:9090 (or :9090 for every interface)", r.promListen, err)
		}
	}
	if r.promPort > 0 && r.promListen == "" {
		r.promListen = fmt.Sprintf(":%d", r.promPort)
	}
	switch r.ioMode {
	case ioAuto, ioThread, ioPoller:
	default:
		return usagef("unknown --io-mode %q: use auto, thread or poller", r.ioMode)
	}
	var err error
	if r.sched, err = clientsched.Parse(r.clientSched); err != nil {
		return usagef("unknown --client-sched %q: use batch or normal", r.clientSched)
	}
	if r.headroom, err = r.gcHeadroomBytes(); err != nil {
		return usagef("bad --gc-headroom: %v (0 keeps Go's default pacing)", err)
	}
	switch r.arrivals {
	case "even", "poisson":
	default:
		return usagef("unknown --arrivals %q: use even or poisson", r.arrivals)
	}
	if (r.arrivals == "poisson" || r.skipLate != 0) && r.maxRate <= 0 && r.rate <= 0 {
		return usagef("--arrivals and --skip-late shape a schedule: give --max-rate too")
	}
	switch {
	case r.schedGroups < 0:
		return usagef("--schedule-groups %d is negative: give 0 for one schedule per worker, or a number of groups of workers that share one", r.schedGroups)
	case r.schedGroups > 0 && r.maxRate <= 0:
		return usagef("--schedule-groups shares a schedule of --max-rate: give --max-rate too")
	case r.schedGroups > r.concurrency && r.concurrency >= 1 && (fs.Changed("concurrency") || fs.Changed("threads")):
		// (A workload's own default concurrency is checked by the run;
		// fewer than 1 worker is said below.)
		return usagef("--schedule-groups %d is more than the %d workers (--concurrency): give at most %d, a group needs a worker", r.schedGroups, r.concurrency, r.concurrency)
	}
	if r.skipLate < 0 {
		return usagef("--skip-late %s is negative: give how late an operation may start, such as 10ms, or 0 to run every one", r.skipLate)
	}
	switch r.outputStyle {
	case "stampede", "sysbench", "ycsb", "pgbench":
	default:
		return usagef("unknown --output-style %q: use stampede, sysbench, ycsb or pgbench", r.outputStyle)
	}
	if r.outputStyle != "stampede" && r.format == "json" {
		return usagef("--output-style %s is text: drop --format json", r.outputStyle)
	}
	if err := r.tel.check(); err != nil {
		return err
	}
	if ec := fs.Lookup("expensive-checks"); ec != nil && ec.Changed && ec.Value.String() == "true" && r.skipChecks {
		return usagef("--expensive-checks adds checks that --skip-checks skips: give one of them")
	}
	if r.percentile < 0 || r.percentile > 100 {
		return usagef("--percentile %g must be in (0, 100], or 0 with --output-style sysbench", r.percentile)
	}
	if r.percentile == 0 && r.outputStyle != "sysbench" {
		return usagef("--percentile=0 disables sysbench's percentile: only with --output-style sysbench (stampede's output shows p50, p95, p99 and pMax)")
	}
	if fs.Changed("percentile") && r.outputStyle != "sysbench" {
		r.warnings = append(r.warnings, fmt.Sprintf("--percentile=%g only chooses the percentile of --output-style sysbench's report; stampede's output shows p50, p95, p99 and pMax: ignored", r.percentile))
	}
	if r.displayEvery < engine.MinDisplayEvery {
		return usagef("--display-every %s is shorter than %s: use %s or more", r.displayEvery, engine.MinDisplayEvery, engine.MinDisplayEvery)
	}
	name := "--concurrency"
	if fs.Changed("threads") {
		name = "--threads"
	}
	if r.concurrency < 1 {
		return usagef("%s %d: need at least 1 worker", name, r.concurrency)
	}
	if err := run.CheckWorkers(name, r.concurrency, r.ioMode == ioThread); err != nil {
		return err
	}
	switch r.format {
	case "text", "json":
	default:
		return usagef("unknown --format %q: use text or json", r.format)
	}
	switch r.latency {
	case "", "intended", "service", "both":
	default:
		return usagef("unknown --latency %q: use intended, service or both", r.latency)
	}
	if _, err := engine.ParsePacer(r.pacer); err != nil {
		return usagef("unknown --pacer %q: use precise or coarse", r.pacer)
	}
	// Without a rate both would do nothing: say so rather than ignore them.
	if r.maxRate == 0 && r.queueRate == 0 && fs.Changed("latency") {
		return usagef("--latency only applies with --max-rate: without a rate, latency is each operation's service time")
	}
	if r.maxRate == 0 && r.queueRate == 0 && fs.Changed("pacer") {
		return usagef("--pacer only applies with --max-rate: without a rate, workers do not wait between operations")
	}
	if _, err := runlog.ParseTags(r.tags); err != nil {
		return usagef("%v", err)
	}
	if err := r.checkLimits(fs); err != nil {
		return err
	}
	if err := r.clients.Resolve(fs, time.Now()); err != nil {
		return err
	}
	if n := int64(r.clients.clients); n > 0 && r.maxOps > 0 && r.maxOps < n {
		return usagef("--max-ops %d is fewer than --clients %d: each client needs at least one operation", r.maxOps, n)
	}
	return asUsage(engine.Config{Duration: r.duration, MaxOps: r.maxOps, SharedOps: r.sharedOps, Ramp: r.ramp, MaxRate: r.maxRate,
		QueueRate: r.queueRate, DisplayEvery: r.displayEvery, OpTimeout: r.opTimeout}.Validate(r.concurrency))
}

// tagMap returns the run's tags (checked by validate), with the passwords
// they hold masked (redact.Tags): a tag is free text that may quote a
// connection string, or give a password of the run's connection (one of
// secrets) bare, and its passwords never reach run.json, the index,
// `runs`, `report` or `compare`. masked names the tags saved otherwise
// than given (key=value as saved), for the run's warning.
func (r *RunFlags) tagMap(secrets []string) (tags map[string]string, masked []string) {
	given, _ := runlog.ParseTags(r.tags)
	tags = redact.Tags(given, secrets)
	return tags, redact.ChangedTags(given, tags)
}

// The values of --io-mode.
const (
	ioAuto   = run.IOAuto
	ioThread = run.IOThread
	ioPoller = run.IOPoller
)

// gcHeadroomBytes is --gc-headroom in bytes, 0 for Go's default pacing.
func (r *RunFlags) gcHeadroomBytes() (int64, error) {
	if strings.TrimSpace(r.gcHeadroom) == "0" {
		return 0, nil
	}
	return limit.ParseSize(r.gcHeadroom)
}

// checkListenAddr says what is wrong with addr as an address to listen on
// (host:port, the host optional, the port 0-65535), or returns nil.
func checkListenAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New("not host:port")
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("port %q is not a port number (0-65535)", port)
	}
	return nil
}
