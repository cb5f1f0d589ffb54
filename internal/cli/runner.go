package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/engine"
	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/internal/clientsched"
	"github.com/stampede-bench/stampede/internal/gcpace"
	"github.com/stampede-bench/stampede/promexport"
	"github.com/stampede-bench/stampede/report"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/telemetry"
	"github.com/stampede-bench/stampede/workload"
)

// runSpec is everything `run` needs.
type runSpec struct {
	gen   workload.Generator
	conn  *connFlags
	flags *runFlags
	fs    *pflag.FlagSet
	urls  []string
	// tenants and fleet are the fleet flags (nil: no fleet).
	tenants *tenantFlags
	fleet   *fleetRunFlags
	// opErrors receives the failed operations a workload handles itself
	// (workload.OpsConfig.Error).
	opErrors func(worker int, op string, err error)
}

// errorSink passes the failed operations a workload handles itself on to
// the run's errorLog, once the run log that holds it exists (the workload
// is prepared before). It is safe for concurrent use.
type errorSink struct {
	log atomic.Pointer[errorLog]
}

func (s *errorSink) record(worker int, op string, err error) {
	if l := s.log.Load(); l != nil {
		l.record(worker, op, err)
	}
}

// runOutcome is what a finished run leaves.
type runOutcome struct {
	dir     string
	summary runSummary
}

// runSummary is summary.json: the final figures of a run.
type runSummary struct {
	Workload    string            `json:"workload"`
	Seed        uint64            `json:"seed"`
	Concurrency int               `json:"concurrency"`
	MaxRate     float64           `json:"max_rate,omitempty"`
	ElapsedSec  float64           `json:"elapsed_s"`
	Ops         []namedSummary    `json:"ops"`
	Total       stats.Summary     `json:"total"`
	Series      []namedSummary    `json:"series"`
	Errors      map[string]int64  `json:"errors_by_code,omitempty"`
	Reconnects  int64             `json:"reconnects"`
	Status      string            `json:"status"`
	Error       string            `json:"error,omitempty"`
	Extra       map[string]string `json:"extra,omitempty"`
	// Figures are the workload's own results (tpmC, efficiency).
	Figures map[string]float64 `json:"figures,omitempty"`
	// Telemetry is the averages and peaks of the run's telemetry samples.
	Telemetry *telemetry.Summary `json:"telemetry,omitempty"`
	// Tenants and Fleet are a fleet run's tenant workloads and figures.
	Tenants []fleet.TenantResult `json:"tenants,omitempty"`
	Fleet   *fleetSummary        `json:"fleet,omitempty"`
}

type namedSummary struct {
	Name string `json:"name"`
	stats.Summary
}

// errorLog counts failed operations by error code and records the first
// few of each code as events.
type errorLog struct {
	mu     sync.Mutex
	counts map[string]int64
	w      *runlog.Writer
}

// maxEventsPerCode bounds the events log under a storm of errors.
const maxEventsPerCode = 1000

func (e *errorLog) record(worker int, op string, err error) {
	code := sqlx.ErrorCode(err)
	e.mu.Lock()
	e.counts[code]++
	n := e.counts[code]
	e.mu.Unlock()
	if n <= maxEventsPerCode && e.w != nil {
		e.w.Event(runlog.Event{Time: time.Now(), Kind: "error", Op: op, Code: code, Message: fmt.Sprintf("worker %d: %v", worker, err)})
	}
}

func (e *errorLog) snapshot() map[string]int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.counts) == 0 {
		return nil
	}
	out := make(map[string]int64, len(e.counts))
	for k, v := range e.counts {
		out[k] = v
	}
	return out
}

// display says which registry series the progress lines show.
type display struct {
	idx     []int    // series indexes shown, in order
	names   []string // their labels
	primary []bool   // whether each counts towards the total
	nOps    int
}

// newDisplay lays out the progress lines. When the workload classifies
// its operations, only whole transactions (ClassTransaction) count towards
// the total: the statements inside them are shown but not counted twice.
// Nor does a series named OP/PART (results.IsPart: a failure status, a
// part of a larger operation). The statements, recorded through the
// Recorder, hold service times: under a rate they have no service series
// of their own, and are shown from their own whatever the mode.
func newDisplay(ops []string, classes []workload.OpClass, rated bool, mode string) display {
	d := display{nOps: len(ops)}
	classified := len(classes) == len(ops)
	counts := func(i int) bool {
		return (!classified || classes[i] == workload.ClassTransaction) && !results.IsPart(ops[i])
	}
	statement := func(i int) bool { return classified && classes[i] != workload.ClassTransaction }
	add := func(i int, name string, primary bool) {
		d.idx = append(d.idx, i)
		d.names = append(d.names, name)
		d.primary = append(d.primary, primary)
	}
	for i, op := range ops {
		switch {
		case !rated || mode == "" || mode == "intended" || statement(i):
			add(i, op, counts(i))
		case mode == "service":
			add(len(ops)+i, op, counts(i))
		default: // both
			add(i, op, counts(i))
			add(len(ops)+i, op+engine.ServiceSuffix, false)
		}
	}
	return d
}

// latencyHeader says which latency the headline figures are, for the run
// header on stderr.
func latencyHeader(rate float64, mode string) string {
	if rate <= 0 {
		return "closed loop: latency is each operation's service time (from its start; no schedule, so intended = service)"
	}
	head := fmt.Sprintf("open loop at %.0f ops/s: ", rate)
	switch mode {
	case "service":
		return head + "latency shown is the service time, from each operation's actual start (YCSB's measurement.interval=op); from the scheduled start in OP (intended)"
	case "both":
		return head + "latency shown from each operation's scheduled start (OP, YCSB's intended) and its actual start (OP.service, YCSB's op)"
	}
	return head + "latency counts from each operation's scheduled start (intended; the service time is in OP.service)"
}

func (a *app) runWorkload(ctx context.Context, spec runSpec) (*runOutcome, error) {
	gen, rf := spec.gen, spec.flags
	opser, ok := gen.(workload.Opser)
	if !ok {
		return nil, usagef("workload %s cannot be run", gen.Meta().Name)
	}
	if d, ok := gen.(workload.RunDefaulter); ok {
		rd := d.RunDefaults()
		if rd.MaxOps > 0 && !spec.fs.Changed("max-ops") && !spec.fs.Changed("events") {
			rf.maxOps = rd.MaxOps
		}
		if rf.latency == "" {
			rf.latency = rd.Latency
		} else if rd.Latency != "" && rd.Latency != rf.latency {
			a.warnf("--latency %s overrides the workload's own, %s (YCSB's measurement.interval)", rf.latency, rd.Latency)
		}
	}
	if rf.outputStyle == "ycsb" && rf.latency == "" {
		rf.latency = "service" // YCSB's measurement.interval=op
	}
	seed := pickSeed(rf.seed)
	sink := &errorSink{}
	spec.opErrors = sink.record
	src, err := a.openRunSource(ctx, spec, opser, seed)
	if err != nil {
		return nil, err
	}
	defer src.close()
	if src.threadIO {
		// Each worker holds its processor while it waits for the
		// server, so each needs one; more would leave idle processors
		// whose threads the runtime keeps waking for timers.
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(src.workers))
	}
	load := src.load
	cleanupCtx := context.WithoutCancel(ctx)
	var closeOnce sync.Once
	closeLoad := func() {
		if load.Close != nil {
			closeOnce.Do(func() { _ = load.Close(cleanupCtx) })
		}
	}
	defer closeLoad()
	if len(load.Workers) != src.workers {
		return nil, fmt.Errorf("workload %s returned %d workers for --concurrency %d", gen.Meta().Name, len(load.Workers), src.workers)
	}

	cfg := rf.engineConfig()
	series := engine.Series{Ops: load.Ops, Rated: cfg.MaxRate > 0}
	names := series.Names()
	start := time.Now()
	reg := stats.NewRegistry(names, stats.ShardsFor(src.workers, runtime.GOMAXPROCS(0)), start)

	tel, err := startTelemetry(&rf.tel)
	if err != nil {
		return nil, err
	}
	root, err := resultsRoot(rf.resultsDir)
	if err != nil {
		return nil, err
	}
	info := runlog.RunInfo{
		Telemetry:       rf.tel.info(cfg.DisplayEvery),
		FormatVersion:   runlog.FormatVersion,
		ID:              runlog.NewID(gen.Meta().Name, start),
		Workload:        gen.Meta().Name,
		WorkloadVersion: gen.Meta().Version,
		Command:         redactArgs(a.args),
		Flags:           flagValues(spec.fs, a.secrets),
		Tags:            rf.tagMap(),
		Series:          names,
		StampedeVersion: versionString(),
		ServerVersion:   src.serverVersion,
		Endpoints:       src.endpoints,
		Database:        src.database,
		Seed:            seed,
		Host:            runlog.HostFacts(),
		Start:           start,
	}
	// The client's threads run under --client-sched from here to the
	// end of the run (see package clientsched); the run records the
	// policy they got.
	sched, restoreSched, err := clientsched.Apply(rf.sched)
	if err != nil {
		fmt.Fprintf(a.stderr, "warning: %v: the client's threads keep the default scheduling policy\n", err)
	}
	defer restoreSched()
	info.Flags["client-sched"] = string(sched.Policy)
	// Garbage collection is paced by --gc-headroom from here to the end
	// of the run (see package gcpace); the run records the GOGC it got.
	gc, restoreGC := gcpace.Apply(rf.headroom)
	defer restoreGC()
	info.Flags["gc-percent"] = strconv.Itoa(gc.Percent)
	info.Flags["io-mode"] = ioPoller // what --io-mode resolved to
	if src.threadIO {
		info.Flags["io-mode"] = ioThread
	}
	lims, err := applyLimits(&rf.lim, &rf.tel, info.ID, a.stderr)
	if err != nil {
		return nil, err
	}
	defer lims.remove(nil, a.stderr)
	if lims != nil {
		info.Limits = lims.record
		if tel != nil {
			tel.extra = lims.stats
		}
	}
	rw, err := runlog.Create(root, info)
	if err != nil {
		return nil, fmt.Errorf("cannot save results under %s: %w; pass --results-dir", root, err)
	}
	errs := &errorLog{counts: map[string]int64{}, w: rw}
	sink.log.Store(errs)
	fmt.Fprintf(a.stderr, "stampede %s: %s on %s (%s), %d workers, seed %d\n",
		versionString(), gen.Meta().Name, strings.Join(src.endpoints, ","), src.where, src.workers, seed)
	if cfg.MaxRate > 0 || rf.latency != "" {
		fmt.Fprintln(a.stderr, latencyHeader(cfg.MaxRate, rf.latency))
	}

	disp := newDisplay(load.Ops, load.Classes, series.Rated, rf.latency)
	var prom *promexport.Exporter
	if rf.promListen != "" {
		prom = promexport.New(gen.Meta().Name)
		srv, err := promexport.Serve(rf.promListen, prom)
		if err != nil {
			return nil, fmt.Errorf("cannot serve Prometheus metrics on %s: %w", rf.promListen, err)
		}
		defer srv.Close()
		fmt.Fprintf(a.stderr, "Prometheus metrics at http://%s/metrics\n", srv.Addr())
	}
	var out output
	textOutput := rf.outputStyle == "stampede" && rf.format != "json"
	switch {
	case rf.outputStyle == "sysbench":
		out = newSysbenchOutput(a.stdout, rf, load, seed, start)
	case rf.outputStyle == "ycsb":
		out = newYCSBOutput(a.stdout, a.stderr, rf, gen, load, start)
	case rf.format == "json":
		out = &stampedeOutput{f: &report.JSON{W: a.stdout}, disp: disp, start: start}
	default:
		out = &stampedeOutput{f: &report.Text{W: a.stdout}, disp: disp, start: start, w: a.stdout, histogram: rf.histogram,
			quiet: spec.fs.Changed("report-interval") && rf.reportInterval == 0}
	}
	out.header()
	var last stats.Tick
	var writeErr error
	hooks := engine.Hooks{
		Error: errs.record,
		RampDone: func(at time.Time) {
			if cfg.Ramp > 0 && src.rampDone != nil {
				src.rampDone()
			}
			if cfg.Ramp > 0 {
				if err := rw.SetRampEnd(at); err != nil && writeErr == nil {
					writeErr = err
				}
			}
		},
		Tick: func(t stats.Tick, final bool) {
			last = t
			if err := writeInterval(rw, t, src.reconnects()); err != nil && writeErr == nil {
				writeErr = err
				fmt.Fprintf(a.stderr, "warning: cannot write the run log: %v\n", err)
			}
			if prom != nil {
				prom.Update(promSnapshot(t, load.Ops, src.reconnects()))
			}
			var sample telemetry.Sample
			sampled := false
			if tel != nil {
				sample, sampled = tel.tick(t.End, rw, a.stderr)
			}
			if final {
				return
			}
			out.interval(t, src.reconnects())
			if sampled && rf.tel.display && textOutput {
				fmt.Fprintln(a.stdout, report.TelemetryLine(sample))
			}
		},
	}
	if rf.cpuProfile != "" {
		stopProfile, err := startCPUProfile(rf.cpuProfile)
		if err != nil {
			return nil, err
		}
		defer stopProfile()
	}
	if rf.memProfile != "" {
		defer writeAllocProfile(rf.memProfile, a.stderr)
	}
	res := engine.Run(ctx, cfg, load, reg, hooks)
	restoreSched()
	restoreGC()
	lims.remove(rw, a.stderr)

	sum := summarize(last, disp, gen.Meta().Name, seed, rf, errs.snapshot(), src.reconnects())
	status := "completed"
	var runErr error
	switch {
	case res.Err != nil:
		status = "failed"
		sum.Error = res.Err.Error()
		hint := "pass --tolerate-errors to keep going"
		if errors.Is(res.Err, workload.ErrLoadMismatch) {
			hint = "the run does not match the load"
		}
		runErr = fmt.Errorf("run stopped by an error: %s: %s; results saved in %s", res.Err.Error(), hint, rw.Dir())
	case res.Interrupted:
		status = "interrupted"
		runErr = errInterrupted
	}
	sum.Status = status
	extra := []report.Extra{{Name: "reconnects", Value: float64(sum.Reconnects), Text: fmt.Sprint(sum.Reconnects)}}
	for _, code := range sortedKeys(sum.Errors) {
		extra = append(extra, report.Extra{Name: "errors_" + code, Value: float64(sum.Errors[code]), Text: fmt.Sprintf("%d (error code %s)", sum.Errors[code], code)})
	}
	if f, ok := gen.(workload.Figurer); ok && !src.tenantFigures {
		counts := map[string]int64{}
		for _, op := range sum.Ops {
			counts[op.Name] = op.Count
		}
		for _, fig := range f.Figures(counts, last.End.Sub(last.CumStart)) {
			extra = append(extra, report.Extra{Name: fig.Name, Value: fig.Value, Text: fig.Text})
			if sum.Figures == nil {
				sum.Figures = map[string]float64{}
			}
			sum.Figures[fig.Name] = fig.Value
		}
	}
	if series.Rated {
		for _, s := range sum.Series[len(load.Ops):] {
			if s.Count > 0 {
				extra = append(extra, report.Extra{Name: s.Name + "_p99_ms", Value: s.P99,
					Text: fmt.Sprintf("%s: p50 %.2fms p99 %.2fms max %.2fms", s.Name, s.P50, s.P99, s.Max)})
			}
		}
	}
	out.final(last, res, extra)
	if textOutput && !src.tenantFigures {
		printAudits(a.stdout, gen, load.Ops, last)
	}
	sum.Telemetry = tel.summary()
	if textOutput {
		printTelemetrySummary(a.stdout, sum.Telemetry)
	}
	if t := sum.Telemetry; t != nil && len(t.Procs) > 0 && src.serverCPU == nil {
		// The watched processes are the system under test.
		var cores float64
		for _, g := range t.Procs {
			cores += g.CPUCores.Avg
		}
		src.serverCPU = func() (float64, bool) { return cores, true }
	}
	if src.finish != nil {
		src.finish(&sum, a.stdout, rf.format)
	}
	if err := rw.Finish(time.Now(), status, sum.Error, sum); err != nil && writeErr == nil {
		writeErr = err
	}
	if writeErr != nil {
		fmt.Fprintf(a.stderr, "warning: the run log in %s may be incomplete: %v\n", rw.Dir(), writeErr)
	}
	fmt.Fprintf(a.stderr, "results saved in %s\n", rw.Dir())
	if err := indexRun(ctx, root, rw.Dir(), ""); err != nil {
		fmt.Fprintf(a.stderr, "warning: cannot index the run in the results store: %s (`stampede runs --rebuild` rebuilds it)\n", sqlx.Scrub(oneLine(err.Error()), a.secrets))
	}
	if res.Interrupted {
		fmt.Fprintln(a.stderr, "interrupted")
	}
	if c, ok := gen.(workload.AfterRunChecker); ok && runErr == nil && !rf.skipChecks && c.CheckAfterRun() && src.check != nil {
		closeLoad() // the workers' connections go back to the pool the checks use
		fmt.Fprintln(a.stdout, "\nconsistency checks (--skip-checks skips them):")
		if err := src.check(cleanupCtx, printer{a.stdout}); err != nil {
			runErr = fmt.Errorf("consistency check failed after the run: %w; results saved in %s", err, rw.Dir())
		}
	}
	return &runOutcome{dir: rw.Dir(), summary: sum}, runErr
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

// writeInterval appends one tick to the run log.
func writeInterval(rw *runlog.Writer, t stats.Tick, reconnects int64) error {
	series := make([]runlog.IntervalSeries, len(t.Series))
	for i, s := range t.Series {
		series[i] = runlog.IntervalSeries{Name: s.Name, Hist: s.Interval, Count: s.Interval.TotalCount(), Errors: s.Errors}
	}
	return rw.WriteInterval(t.Start, t.End, series, map[string]float64{"reconnects": float64(reconnects)})
}

// intervalOps builds the progress lines of a tick: the displayed series
// that have seen an operation or an error.
func intervalOps(t stats.Tick, d display) []report.Op {
	var ops []report.Op
	iv := t.End.Sub(t.Start)
	cum := t.End.Sub(t.CumStart)
	for k, i := range d.idx {
		s := t.Series[i]
		errSeries := t.Series[i%d.nOps]
		if s.Cumulative.TotalCount() == 0 && s.Interval.TotalCount() == 0 && errSeries.CumErrors == 0 && errSeries.Errors == 0 {
			continue
		}
		ops = append(ops, report.Op{
			Name:       d.names[k],
			Interval:   stats.Summarize(s.Interval, errSeries.Errors, iv),
			Cumulative: stats.Summarize(s.Cumulative, errSeries.CumErrors, cum),
		})
	}
	return ops
}

// finalOps returns the final per-operation figures and their total.
func finalOps(t stats.Tick, d display) ([]report.Op, report.Op) {
	var ops []report.Op
	cum := t.End.Sub(t.CumStart)
	total := stats.NewHistogram()
	var totalErrs int64
	for k, i := range d.idx {
		s := t.Series[i]
		errs := t.Series[i%d.nOps].CumErrors
		if s.Cumulative.TotalCount() == 0 && errs == 0 {
			continue
		}
		ops = append(ops, report.Op{Name: d.names[k], Cumulative: stats.Summarize(s.Cumulative, errs, cum)})
		if d.primary[k] {
			stats.Merge(total, s.Cumulative)
			totalErrs += errs
		}
	}
	return ops, report.Op{Name: "", Cumulative: stats.Summarize(total, totalErrs, cum)}
}

func summarize(t stats.Tick, d display, name string, seed uint64, rf *runFlags, errs map[string]int64, reconnects int64) runSummary {
	ops, total := finalOps(t, d)
	sum := runSummary{
		Workload:    name,
		Seed:        seed,
		Concurrency: rf.concurrency,
		MaxRate:     rf.maxRate,
		ElapsedSec:  t.End.Sub(t.CumStart).Seconds(),
		Total:       total.Cumulative,
		Errors:      errs,
		Reconnects:  reconnects,
	}
	for _, op := range ops {
		sum.Ops = append(sum.Ops, namedSummary{op.Name, op.Cumulative})
	}
	cum := t.End.Sub(t.CumStart)
	for i, s := range t.Series {
		errCount := int64(0)
		if i < d.nOps {
			errCount = s.CumErrors
		}
		sum.Series = append(sum.Series, namedSummary{s.Name, stats.Summarize(s.Cumulative, errCount, cum)})
	}
	return sum
}

func sortedKeys(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// redactArgs returns argv with connection secrets replaced.
func redactArgs(args []string) []string {
	out := make([]string, len(args))
	secrets := sqlx.Secrets(connArgs(args), os.Getenv)
	for i, a := range args {
		out[i] = sqlx.Scrub(sqlx.Redact(a), secrets)
	}
	return out
}

// flagValues returns every flag's effective value, secrets scrubbed.
func flagValues(fs *pflag.FlagSet, secrets []string) map[string]string {
	m := map[string]string{}
	fs.VisitAll(func(f *pflag.Flag) {
		v := f.Value.String()
		if strings.Contains(f.Name, "password") && v != "" {
			v = "xxxxx"
		}
		m[f.Name] = sqlx.Scrub(v, secrets)
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

// printAudits prints the workload's run-time audits (TPC-C's clause 9.2
// and response-time criteria), judged on the run's cumulative histograms.
func printAudits(w io.Writer, gen workload.Generator, ops []string, last stats.Tick) {
	au, ok := gen.(workload.Auditor)
	if !ok {
		return
	}
	latency := func(op string, q float64) time.Duration {
		for i, name := range ops {
			if name == op && i < len(last.Series) {
				if h := last.Series[i].Cumulative; h.TotalCount() > 0 {
					return time.Duration(h.ValueAtQuantile(q * 100))
				}
			}
		}
		return 0
	}
	var ra []report.Audit
	for _, x := range au.Audits(last.End.Sub(last.CumStart), latency) {
		ra = append(ra, report.Audit{Name: x.Name, Result: x.Result, Detail: x.Detail})
	}
	if len(ra) > 0 {
		fmt.Fprintln(w)
		_ = report.Audits(w, ra)
	}
}
