package results

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

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

// ReconnectsExtra is the per-interval extra, in intervals.ndjson, holding
// the run's cumulative number of reconnects.
const ReconnectsExtra = "reconnects"

// View is the recomputed figures of one or more runs over a window. A View
// is a plain value; as with any Go value, concurrent reads are safe and
// writes need external synchronization.
type View struct {
	// Runs are the IDs of the runs merged, in the order given.
	Runs []string `json:"runs"`
	// From and To delimit the period covered: the union of the runs'
	// windows, clipped to the intervals they hold.
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	// Seconds is the length of the period; rates are per second of it.
	Seconds float64 `json:"seconds"`
	// Intervals is the number of intervals merged, over all runs.
	Intervals int `json:"intervals"`
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
	// Reconnects is the number of reconnects during the period, summed
	// over the runs; nil when the runs did not record it.
	Reconnects *int64 `json:"reconnects,omitempty"`
	// Telemetry holds, per run ID, the averages and peaks of the run's
	// telemetry samples within the period; absent for runs without
	// telemetry.
	Telemetry map[string]*telemetry.Summary `json:"telemetry,omitempty"`
	// Warnings describe what could not be read (a damaged or truncated
	// run) and runs with no interval in the window; the view covers what
	// could.
	Warnings []string `json:"warnings,omitempty"`
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
	hist   *hdrhistogram.Histogram
	errors int64
	count  int64 // from intervals.ndjson, for a consistency check
}

// Recompute merges the intervals of runs that fall in w into a View. The
// runs are taken to be parts of one benchmark run at the same time (for
// example by several client machines): histograms are merged exactly, counts
// and errors summed, and the period is the union of the runs' windows.
//
// Damage that leaves part of a run readable is a warning: a truncated
// intervals log (a killed run) contributes its complete intervals, and a run
// with no interval in the window contributes nothing. Warnings are returned
// and also listed in View.Warnings. Recompute fails if a run cannot be read
// at all, if the window is empty, or if no run has an interval in it.
// It never modifies a run directory and is safe for concurrent use.
func Recompute(runs []*runlog.Run, w Window) (View, []error, error) {
	if len(runs) == 0 {
		return View{}, nil, errors.New("no run to report")
	}
	var (
		view     View
		warnings []error
		order    []string
		series   = map[string]*acc{}
		reconn   int64
		hasRecon bool
	)
	warn := func(err error) { warnings = append(warnings, err) }
	for _, run := range runs {
		id := run.Info.ID
		view.Runs = append(view.Runs, id)
		for _, name := range run.Info.Series {
			if series[name] == nil {
				series[name] = &acc{hist: stats.NewHistogram()}
				order = append(order, name)
			}
		}
		from, to, err := bounds(run, w, warn)
		if err != nil {
			return View{}, nil, err
		}
		ivs, err := run.Intervals()
		var trunc *runlog.TruncatedError
		if errors.As(err, &trunc) {
			warn(fmt.Errorf("run %s: %w", id, trunc))
		} else if err != nil {
			return View{}, nil, err
		}
		kept, before := 0, -1
		var first, last *runlog.Interval
		for i := range ivs {
			iv := &ivs[i]
			if !iv.End.After(from) {
				before = i
				continue
			}
			if !to.IsZero() && !iv.Start.Before(to) {
				break
			}
			if first == nil {
				first = iv
			}
			last = iv
			kept++
			for _, name := range sortedKeys(iv.Series) {
				d := iv.Series[name]
				a := series[name]
				if a == nil {
					a = &acc{hist: stats.NewHistogram()}
					series[name] = a
					order = append(order, name)
				}
				d.MergeInto(a.hist)
				a.errors += d.Errors
				a.count += d.Count
			}
		}
		if kept == 0 {
			warn(fmt.Errorf("run %s: no complete interval in the window %s", id, describe(run, ivs, from, to)))
			continue
		}
		view.Intervals += kept
		start, end := first.Start, last.End
		if from.After(start) {
			start = from
		}
		if !to.IsZero() && to.Before(end) {
			end = to
		}
		if view.From.IsZero() || start.Before(view.From) {
			view.From = start
		}
		if end.After(view.To) {
			view.To = end
		}
		if v, ok := last.Extra[ReconnectsExtra]; ok {
			hasRecon = true
			base := 0.0
			if before >= 0 {
				base = ivs[before].Extra[ReconnectsExtra]
			}
			reconn += int64(v - base)
		}
	}
	for _, e := range warnings {
		view.Warnings = append(view.Warnings, e.Error())
	}
	if view.Intervals == 0 {
		if len(runs) == 1 {
			return View{}, nil, warnings[len(warnings)-1]
		}
		return View{}, nil, fmt.Errorf("none of the %d runs has a complete interval in the window", len(runs))
	}
	if hasRecon {
		view.Reconnects = &reconn
	}
	period := view.To.Sub(view.From)
	view.Seconds = period.Seconds()
	total, totalErrs := stats.NewHistogram(), int64(0)
	_, transactions := series[TransactionSeries]
	for _, name := range order {
		a := series[name]
		if a.count != a.hist.TotalCount() {
			w := fmt.Errorf("series %s: the intervals count %d operations but their histograms hold %d; the figures use the histograms", name, a.count, a.hist.TotalCount())
			warnings = append(warnings, w)
			view.Warnings = append(view.Warnings, w.Error())
		}
		if !IsOp(name) {
			if a.hist.TotalCount() > 0 {
				view.Series = append(view.Series, OpView{Name: name, Summary: stats.Summarize(a.hist, a.errors, period)})
			}
			continue
		}
		if a.hist.TotalCount() == 0 && a.errors == 0 {
			continue
		}
		view.Ops = append(view.Ops, OpView{Name: name, Summary: stats.Summarize(a.hist, a.errors, period)})
		if (!transactions || name == TransactionSeries) && !IsPart(name) {
			stats.Merge(total, a.hist)
			totalErrs += a.errors
		}
	}
	view.Total = stats.Summarize(total, totalErrs, period)
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

// IsOp reports whether a series is an operation, rather than the service
// time (".service") or schedule lag (".lag") of one.
func IsOp(series string) bool {
	return !strings.HasSuffix(series, ServiceSuffix) && !strings.HasSuffix(series, LagSuffix)
}

// IsPart reports whether an operation series, named OP/PART, holds part of
// what an operation did (YCSB's failed reads, read/not_found; the read of a
// read-modify-write, read-modify-write/read): it is listed with the
// operations but never counted in the total, which counts each operation
// once, as the live figures do.
func IsPart(series string) bool { return strings.Contains(series, "/") }

// bounds returns the instants delimiting run's window; to is zero for no
// upper bound.
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
		if !to.After(from) {
			return from, to, fmt.Errorf("run %s: the window is empty: it ends at %s, not after its start at %s", run.Info.ID, offset(start, to), offset(start, from))
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

// describe explains a window that holds no interval of a run.
func describe(run *runlog.Run, ivs []runlog.Interval, from, to time.Time) string {
	start := run.Info.Start
	s := "from " + offset(start, from)
	if !to.IsZero() {
		s += " to " + offset(start, to)
	}
	if len(ivs) == 0 {
		return s + " (the run has no complete interval)"
	}
	return fmt.Sprintf("%s (its intervals span %s to %s)", s, offset(start, ivs[0].Start), offset(start, ivs[len(ivs)-1].End))
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
