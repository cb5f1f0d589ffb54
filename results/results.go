package results

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/telemetry"
)

// Suffixes of the series that are not operations but views of them: the
// raw service time and the schedule lag recorded under a target rate. They
// are the same as engine.ServiceSuffix and engine.LagSuffix, repeated here
// so that results stays a leaf over runlog and stats.
const (
	ServiceSuffix = ".service"
	LagSuffix     = ".lag"
)

// TransactionSeries is the series name of whole transactions in workloads
// that also record the statements inside them (the sysbench family). When a
// run has it, the total counts it alone, as the live figures do.
const TransactionSeries = "transaction"

// Prefixes of the per-interval extras holding an interval's counts of
// failed operations by code (errors_40001) and of the failures workers
// retried or ignored (retries_40001). They equal engine.FailedPrefix and
// engine.RetriedPrefix, repeated so that results stays a leaf.
const (
	ErrorsExtraPrefix  = "errors_"
	RetriesExtraPrefix = "retries_"
)

// IsCodeCount reports whether an interval extra is a count by error code.
func IsCodeCount(extra string) bool {
	return strings.HasPrefix(extra, ErrorsExtraPrefix) || strings.HasPrefix(extra, RetriesExtraPrefix)
}

// ReconnectsExtra is the per-interval extra, in intervals.ndjson, holding
// the run's cumulative number of reconnects.
const ReconnectsExtra = "reconnects"

// SkippedExtra is the per-interval extra, in intervals.ndjson, holding the
// run's count so far of operations skipped under --skip-late (recorded
// only under it).
const SkippedExtra = "skipped"

// View is the recomputed figures of one or more runs over a window. A View
// is a plain value; as with any Go value, concurrent reads are safe and
// writes need external synchronization.
type View struct {
	// Runs are the IDs of the runs merged, in the order given.
	Runs []string `json:"runs"`
	// Window is the window asked for, as on the command line: "--from 30s
	// --to 2m", "after the ramp-up" (see Window.String).
	Window string `json:"window"`
	// From is the start of the first interval taken and To the end of the
	// last, over all runs.
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	// Seconds is the time the intervals taken cover: the length of the
	// union of their spans over all runs (for one run, To - From). Every
	// rate is per second of it.
	Seconds float64 `json:"seconds"`
	// Intervals is the number of intervals taken, over all runs.
	Intervals int `json:"intervals"`
	// Taken says which intervals were taken from each run that had any in
	// the window, in the order of Runs.
	Taken []Taken `json:"taken"`
	// Ops are the operation series that saw an operation or an error, in
	// the order of the runs' series.
	Ops []OpView `json:"ops"`
	// Total merges the operations: the "transaction" series alone when
	// there is one, otherwise every operation series but the parts
	// (IsPart).
	Total stats.Summary `json:"total"`
	// Series are the other series that saw an operation: under a target
	// rate, each operation's "<op>.service" and "<op>.lag".
	Series []OpView `json:"series,omitempty"`
	// Endpoints are the operations split by the endpoint that served them
	// (series OP@ENDPOINT, see SplitSep), when the runs recorded them
	// (--by-endpoint, --by-locality); they are parts of Ops, never counted
	// in Total.
	Endpoints []OpView `json:"endpoints,omitempty"`
	// Localities merges Endpoints by the endpoints' localities (OP@LOCALITY,
	// from the runs' endpoint events); absent when no endpoint had one.
	Localities []OpView `json:"localities,omitempty"`
	// Reconnects is the number of reconnects during the period, summed
	// over the runs; nil when the runs did not record it.
	Reconnects *int64 `json:"reconnects,omitempty"`
	// Skipped is the number of operations skipped under --skip-late
	// during the period, summed over the runs; nil when the runs did not
	// skip late operations.
	Skipped *int64 `json:"skipped,omitempty"`
	// EndpointReconnects is Reconnects by endpoint, when the runs split
	// their figures by endpoint (extras reconnects@ENDPOINT).
	EndpointReconnects map[string]int64 `json:"reconnects_by_endpoint,omitempty"`
	// ErrorCodes counts, during the period and over the runs, the failed
	// operations by code ("errors_40001", "errors_conn") and the failures
	// workers retried or ignored ("retries_40001"), summed over the
	// intervals taken (each records its own); absent when there were
	// none.
	ErrorCodes map[string]int64 `json:"error_codes,omitempty"`
	// Telemetry holds, per run ID, the averages and peaks of the run's
	// telemetry samples within the period; absent for runs without
	// telemetry.
	Telemetry map[string]*telemetry.Summary `json:"telemetry,omitempty"`
	// Warnings describe what could not be read (a damaged or truncated
	// run) and runs with no interval in the window; the view covers what
	// could.
	Warnings []string `json:"warnings,omitempty"`
}

// Taken is the run of consecutive intervals a View took from one run.
type Taken struct {
	// Run is the run's ID.
	Run string `json:"run"`
	// From is the start of the first interval taken, To the end of the
	// last.
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	// FromOffset and ToOffset are From and To in seconds after the run's
	// start.
	FromOffset float64 `json:"from_offset_s"`
	ToOffset   float64 `json:"to_offset_s"`
	// Intervals is the number of intervals taken.
	Intervals int `json:"intervals"`
	// Seconds is the time they cover.
	Seconds float64 `json:"seconds"`
}

// OpView is one series' figures in a View.
type OpView struct {
	// Name is the series name.
	Name string `json:"name"`
	// Summary is the series' figures over the view's period.
	stats.Summary
}

// acc accumulates one series over intervals and runs.
type acc struct {
	// hist is sparse until it fills (see stats.Hist): a script's
	// thousands of statements take a few kB each, not a dense histogram.
	hist   *stats.Hist
	errors int64
	count  int64 // from intervals.ndjson, for a consistency check
	// adder adds a run's histograms into hist, once hist is dense, as they
	// are read (see totalsScan), kept from one run to the next of the
	// goroutine that owns the accumulator: hist holds them all once it is
	// flushed.
	adder *runlog.Adder
}

// Recompute merges the intervals of runs that w takes (see Window) into a
// View. The runs are taken to be parts of one benchmark run at the same
// time (for example by several client machines): histograms are merged
// exactly, counts and errors summed, and rates are per second of the union
// of the intervals taken.
//
// Damage that leaves part of a run readable is a warning: a truncated
// intervals log (a killed run) contributes its complete intervals, and a run
// with no interval in the window contributes nothing. Warnings are returned
// and also listed in View.Warnings. Recompute fails if a run cannot be read
// at all or if no run has an interval in the window; when that is the
// window's doing (it is empty, outside the runs, or too short to hold an
// interval), the error is a *WindowError. It never modifies a run
// directory and is safe for concurrent use.
func Recompute(runs []*runlog.Run, w Window) (View, []error, error) {
	if len(runs) == 0 {
		return View{}, nil, errors.New("no run to report")
	}
	var (
		view     View
		warnings []error
		order    []string
		locs     = map[string]string{}
		reconn   int64
		hasRecon bool
		spans    []span
		firstErr error
	)
	if err := SameLatency(runs); err != nil {
		return View{}, nil, err
	}
	view.Window = w.String()
	warn := func(err error) { warnings = append(warnings, err) }
	for _, run := range runs[1:] {
		if a, b := runs[0].Info, run.Info; a.Workload != b.Workload {
			warn(fmt.Errorf("runs %s (%s) and %s (%s) are of different workloads: their operations are merged as one benchmark's clients; `stampede compare` sets runs side by side",
				a.ID, a.Workload, b.ID, b.Workload))
			break
		}
	}
	parts, series := scanRuns(runs, w, ServiceTimes(runs...))
	known := map[string]bool{}
	addName := func(name string) {
		if !known[name] {
			known[name] = true
			order = append(order, name)
		}
	}
	for i, run := range runs {
		p := &parts[i]
		if p.err != nil {
			return View{}, nil, p.err
		}
		id := run.Info.ID
		view.Runs = append(view.Runs, id)
		for ep, loc := range p.locs {
			locs[ep] = loc
		}
		for _, name := range run.Info.Series {
			addName(name)
		}
		for _, name := range p.met {
			addName(name)
		}
		warnings = append(warnings, p.warnings...)
		if p.intervals == 0 {
			if firstErr == nil {
				firstErr = p.none
			}
			continue
		}
		spans = append(spans, p.spans...)
		start := run.Info.Start
		view.Taken = append(view.Taken, Taken{
			Run: id, From: p.first, To: p.last,
			FromOffset: p.first.Sub(start).Seconds(), ToOffset: p.last.Sub(start).Seconds(),
			Intervals: p.intervals, Seconds: covered(p.spans).Seconds(),
		})
		view.Intervals += p.intervals
		if view.From.IsZero() || p.first.Before(view.From) {
			view.From = p.first
		}
		if p.last.After(view.To) {
			view.To = p.last
		}
		for key, v := range p.lastExtra {
			ep, ok := strings.CutPrefix(key, ReconnectsExtra+SplitSep)
			if !ok {
				continue
			}
			if view.EndpointReconnects == nil {
				view.EndpointReconnects = map[string]int64{}
			}
			view.EndpointReconnects[ep] += int64(v - p.baseExtra[key])
		}
		if v, ok := p.lastExtra[SkippedExtra]; ok {
			n := int64(v - p.baseExtra[SkippedExtra])
			if view.Skipped != nil {
				n += *view.Skipped
			}
			view.Skipped = &n
		}
		if v, ok := p.lastExtra[ReconnectsExtra]; ok {
			hasRecon = true
			reconn += int64(v - p.baseExtra[ReconnectsExtra])
		}
		for key, n := range p.codes {
			if view.ErrorCodes == nil {
				view.ErrorCodes = map[string]int64{}
			}
			view.ErrorCodes[key] += n
		}
	}
	for _, name := range order {
		if series[name] == nil {
			series[name] = &acc{hist: emptyHist}
		}
	}
	warnings = append(warnings, clientWarnings(runs, view.Taken)...)
	for _, e := range warnings {
		view.Warnings = append(view.Warnings, e.Error())
	}
	if view.Intervals == 0 {
		if len(runs) == 1 {
			return View{}, nil, firstErr
		}
		msg := fmt.Sprintf("none of the %d runs has an interval in the window: %v", len(runs), firstErr)
		var we *WindowError
		if errors.As(firstErr, &we) {
			return View{}, nil, &WindowError{msg}
		}
		return View{}, nil, errors.New(msg)
	}
	if hasRecon {
		view.Reconnects = &reconn
	}
	period := covered(spans)
	view.Seconds = period.Seconds()
	total, totalErrs := stats.NewHistogram(), int64(0)
	_, transactions := series[TransactionSeries]
	counted := countedSeries(runs)
	for _, name := range order {
		a := series[name]
		if a.count != a.hist.TotalCount() {
			w := fmt.Errorf("series %s: the intervals count %d operations but their histograms hold %d; the figures use the histograms", name, a.count, a.hist.TotalCount())
			warnings = append(warnings, w)
			view.Warnings = append(view.Warnings, w.Error())
		}
		if IsSplit(name) {
			continue // see splitViews
		}
		if !IsOp(name) {
			if a.hist.TotalCount() > 0 {
				view.Series = append(view.Series, OpView{Name: name, Summary: stats.Summarize(a.hist, a.errors, period)})
			}
			continue
		}
		hist := a.hist // service times when the runs showed them (scanRuns)
		if hist.TotalCount() == 0 && a.errors == 0 {
			continue
		}
		view.Ops = append(view.Ops, OpView{Name: name, Summary: stats.Summarize(hist, a.errors, period)})
		if counts(name, transactions, counted) {
			stats.Merge(total, hist)
			totalErrs += a.errors
		}
	}
	view.Total = stats.Summarize(total, totalErrs, period)
	view.Endpoints, view.Localities = splitViews(order, series, locs, period)
	for _, run := range runs {
		sum, err := TelemetrySummary(run, view.From, view.To)
		if err != nil {
			w := fmt.Errorf("run %s: telemetry: %w", run.Info.ID, err)
			warnings = append(warnings, w)
			view.Warnings = append(view.Warnings, w.Error())
		}
		if sum != nil {
			if view.Telemetry == nil {
				view.Telemetry = map[string]*telemetry.Summary{}
			}
			view.Telemetry[run.Info.ID] = sum
		}
	}
	return view, warnings, nil
}

// span is the time an interval covers, [start, end).
type span struct{ start, end time.Time }

// covered returns the length of the union of spans, which it sorts.
func covered(spans []span) time.Duration {
	spans = slices.Clone(spans)
	slices.SortFunc(spans, func(a, b span) int { return a.start.Compare(b.start) })
	var d time.Duration
	var cur span
	for i, s := range spans {
		switch {
		case i == 0:
			cur = s
		case s.start.After(cur.end):
			d += cur.end.Sub(cur.start)
			cur = s
		case s.end.After(cur.end):
			cur.end = s.end
		}
	}
	if len(spans) > 0 {
		d += cur.end.Sub(cur.start)
	}
	return d
}

// Rated reports whether run ran under a rate (open loop: --max-rate,
// sysbench's --rate, YCSB's target), which its series show: a rated run
// records each operation's service time (OP.service) and schedule lag
// (OP.lag) beside the operation's series, whose latencies count from each
// operation's intended start. A closed-loop run's operation latencies are
// service times.
func Rated(run *runlog.Run) bool {
	for _, s := range run.Info.Series {
		if strings.HasSuffix(s, ServiceSuffix) || strings.HasSuffix(s, LagSuffix) {
			return true
		}
	}
	return false
}

// ServiceTimes reports whether every run showed its operations' service
// times: a closed-loop run, or a rated one run with --latency service
// (YCSB's -target, measurement.interval=op), as run.json's flags record.
// The other rated runs showed latencies from each operation's intended
// start.
func ServiceTimes(runs ...*runlog.Run) bool {
	for _, run := range runs {
		if Rated(run) && run.Info.Flags["latency"] != "service" {
			return false
		}
	}
	return len(runs) > 0
}

// LatencyMixError is the error of merging runs that showed service times
// (closed-loop runs, and rated runs with --latency service) with runs that
// showed latencies from each operation's intended start (rated runs): no
// figure means both.
type LatencyMixError struct {
	// Closed and Rated are the IDs of the runs of each kind: those that
	// showed service times, and those that showed latencies from the
	// intended start.
	Closed, Rated []string
}

func (e *LatencyMixError) Error() string {
	verb := func(ids []string) string {
		if len(ids) == 1 {
			return "showed"
		}
		return "all showed"
	}
	return fmt.Sprintf("the runs measured different latencies, which one figure cannot merge: %s %s each operation's service time (closed loop, or --latency service), %s %s latency from each operation's intended start (under a rate); report them separately: stampede report %s, then stampede report %s",
		strings.Join(e.Closed, " "), verb(e.Closed), strings.Join(e.Rated, " "), verb(e.Rated),
		strings.Join(e.Closed, " "), strings.Join(e.Rated, " "))
}

// ForCompare is the error's text for `stampede compare`, which sets two
// runs side by side rather than merging them, and refuses them as report
// does: no latency of one is comparable with the other's.
func (e *LatencyMixError) ForCompare() string {
	return fmt.Sprintf("the runs measured different latencies, which cannot be set side by side: %s showed each operation's service time (closed loop, or --latency service), %s latency from each operation's intended start (under a rate); compare runs of one kind (both with --max-rate, or both without), or see each with stampede report",
		strings.Join(e.Closed, " "), strings.Join(e.Rated, " "))
}

// SameLatency returns a *LatencyMixError when runs mix runs that showed
// service times with runs that showed latencies from the intended start
// (see ServiceTimes), and nil otherwise. It decides by the latency each
// run recorded, not by its series alone: a YCSB -target run is rated but
// showed service times.
func SameLatency(runs []*runlog.Run) error {
	var e LatencyMixError
	for _, run := range runs {
		if ServiceTimes(run) {
			e.Closed = append(e.Closed, run.Info.ID)
		} else {
			e.Rated = append(e.Rated, run.Info.ID)
		}
	}
	if len(e.Closed) > 0 && len(e.Rated) > 0 {
		return &e
	}
	return nil
}

// IsOp reports whether a series is an operation, rather than the service
// time (".service") or schedule lag (".lag") of one, or the part of one
// that an endpoint served (IsSplit).
func IsOp(series string) bool {
	return !strings.HasSuffix(series, ServiceSuffix) && !strings.HasSuffix(series, LagSuffix) && !IsSplit(series)
}

// countedSeries returns the operation series runs record as counted in
// their total (RunInfo.Counted), nil when none records them.
func countedSeries(runs []*runlog.Run) map[string]bool {
	var out map[string]bool
	for _, r := range runs {
		for _, name := range r.Info.Counted {
			if out == nil {
				out = map[string]bool{}
			}
			out[name] = true
		}
	}
	return out
}

// counts reports whether operation series name counts towards the total:
// the series the runs record as counted when they do, else the
// "transaction" series alone when the runs have it (transactions), else
// every operation that is not part of one (IsPart).
func counts(name string, transactions bool, counted map[string]bool) bool {
	if counted != nil {
		return counted[name]
	}
	return (!transactions || name == TransactionSeries) && !IsPart(name)
}

// IsPart reports whether an operation series, named OP/PART, holds part of
// what an operation did (YCSB's failed reads, read/not_found; the read of a
// read-modify-write, read-modify-write/read): it is listed with the
// operations but never counted in the total, which counts each operation
// once, as the live figures do.
func IsPart(series string) bool {
	op, _, _ := strings.Cut(series, SplitSep)
	return strings.Contains(op, "/")
}

// bounds returns the instants delimiting run's window; to is zero for no
// upper bound. A window given as --from not before --to is a *WindowError.
func bounds(run *runlog.Run, w Window, warn func(error)) (from, to time.Time, err error) {
	start := run.Info.Start
	from = start
	switch {
	case w.From.IsSet():
		from = w.From.resolve(start)
	case !w.IncludeRamp:
		if t, ok := RampEnd(run, warn); ok {
			from = t
		}
	}
	if w.To.IsSet() {
		to = w.To.resolve(start)
		if w.From.IsSet() && !to.After(from) {
			prefix := ""
			if w.From.absolute() != w.To.absolute() {
				prefix = fmt.Sprintf("run %s: ", run.Info.ID)
			}
			return from, to, windowErrorf("%sthe window is empty: --from %s is not before --to %s; give a --to after --from",
				prefix, boundText(w.From, start, from), boundText(w.To, start, to))
		}
	}
	return from, to, nil
}

// RampEnd returns when run's ramp-up ended: run.json's ramp_end, or for a
// run killed before it was finished, the "phase" event with code
// "ramp_end". ok is false if the run had no ramp-up (or was killed before
// recording its end). A damaged events log is reported through warn, which
// may be nil.
func RampEnd(run *runlog.Run, warn func(error)) (t time.Time, ok bool) {
	if run.Info.RampEnd != nil {
		return *run.Info.RampEnd, true
	}
	if run.Info.End != nil {
		// A finished run without ramp_end had no ramp-up.
		return time.Time{}, false
	}
	events, err := run.Events()
	if err != nil && warn != nil {
		warn(fmt.Errorf("run %s: %w", run.Info.ID, err))
	}
	for _, e := range events {
		if e.Kind == runlog.EventPhase && e.Code == runlog.PhaseRampEnd {
			return e.Time, true
		}
	}
	return time.Time{}, false
}

// explain returns why the window [from, to) of run holds none of its
// intervals ivs: a *WindowError when the window was given (--from or --to),
// a plain error otherwise (a run with no interval, or none after its
// ramp-up).
func explain(run *runlog.Run, ivs []runlog.Interval, w Window, from, to time.Time) error {
	id, start := run.Info.ID, run.Info.Start
	if len(ivs) == 0 {
		return fmt.Errorf("run %s: the run has no complete interval", id)
	}
	first, last := ivs[0].Start, ivs[len(ivs)-1].End
	runSpan := fmt.Sprintf("its intervals span %s to %s", offset(start, first), offset(start, last))
	if t, ok := RampEnd(run, nil); ok {
		runSpan += fmt.Sprintf(", its ramp-up ended at %s", offset(start, t))
	}
	window := "the window " + windowText(w, start, from, to)
	if !w.From.IsSet() && !w.To.IsSet() {
		// The default window: the run ended with its ramp-up.
		return fmt.Errorf("run %s: no interval after the ramp-up (%s); --include-ramp reports the ramp-up", id, runSpan)
	}
	switch {
	case !to.IsZero() && !to.After(from):
		hint := "give --from, or --include-ramp, to start it earlier"
		if from.Equal(start) {
			hint = "give a --to after the run's start"
		}
		return windowErrorf("run %s: %s is empty: %s; %s", id, window, runSpan, hint)
	case !to.IsZero() && !to.After(first):
		return windowErrorf("run %s: %s lies before the run: %s", id, window, runSpan)
	case !from.Before(last):
		return windowErrorf("run %s: %s lies after the run: %s", id, window, runSpan)
	}
	// The window overlaps the run but holds no interval's start: name the
	// interval it overlaps most.
	end := to
	if end.IsZero() || end.After(last) {
		end = last
	}
	k, most := 0, time.Duration(-1)
	for i := range ivs {
		if o := overlap(ivs[i].Start, ivs[i].End, from, end); o > most {
			k, most = i, o
		}
	}
	length := shortDuration(ivs[k].End.Sub(ivs[k].Start))
	why := fmt.Sprintf("is shorter than the run's intervals there (%s)", length)
	if end.Sub(from) >= ivs[k].End.Sub(ivs[k].Start) {
		why = fmt.Sprintf("falls between the starts of the run's intervals there (%s long)", length)
	}
	return windowErrorf("run %s: %s %s and holds none: an interval counts when it starts in the window; the nearest exact window is %s",
		id, window, why, nearestWindow(start, ivs, k, w))
}

// windowText renders w, which resolves to [from, to) for a run that
// started at start: "--from 1.5s --to 1.6s", "--to 1s (starting at the
// ramp-up's end, +1.5s)".
func windowText(w Window, start, from, to time.Time) string {
	var parts []string
	if w.From.IsSet() {
		parts = append(parts, "--from "+boundText(w.From, start, from))
	}
	if w.To.IsSet() {
		parts = append(parts, "--to "+boundText(w.To, start, to))
	}
	switch {
	case w.From.IsSet():
	case !w.IncludeRamp && !from.Equal(start):
		parts = append(parts, "(starting at the ramp-up's end, "+offset(start, from)+")")
	default:
		parts = append(parts, "(starting at the run's start)")
	}
	return strings.Join(parts, " ")
}

// boundText renders b, which resolves to t for a run that started at
// start, as given, with its offset if it is an absolute time.
func boundText(b Bound, start, t time.Time) string {
	if b.absolute() {
		return b.flag() + " (" + offset(start, t) + ")"
	}
	return b.flag()
}

// overlap returns how long [a0, a1) and [b0, b1) overlap.
func overlap(a0, a1, b0, b1 time.Time) time.Duration {
	lo, hi := a0, a1
	if b0.After(lo) {
		lo = b0
	}
	if b1.Before(hi) {
		hi = b1
	}
	return max(hi.Sub(lo), 0)
}

// offset renders t as an offset from start, such as "+12.5s".
func offset(start, t time.Time) string {
	d := t.Sub(start)
	if d < 0 {
		return "-" + (-d).String()
	}
	return "+" + d.String()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
