package results

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
)

// runPart is what Recompute takes from one run, read as it streams by
// (runlog.Run.Scan): everything but the histograms, which go into the
// accumulators of the goroutine that read it.
type runPart struct {
	err      error   // the run cannot be read (or its window is wrong): Recompute fails
	warnings []error // in the order Recompute lists them
	locs     map[string]string
	// met holds the series of the intervals taken, in the order they were
	// first met (each interval's sorted by name).
	met []string
	// intervals is the number of intervals from the first taken to the
	// last; first and last bound them.
	intervals   int
	first, last time.Time
	spans       []span // the intervals taken, contiguous ones joined
	// lastExtra is the extras of the last interval taken, baseExtra those
	// of the interval before the first (nil for none).
	lastExtra, baseExtra map[string]float64
	codes                map[string]int64 // error codes summed over the intervals
	none                 error            // why no interval was taken
}

// accSet is the accumulators of one reading goroutine, by series.
type accSet map[string]*acc

// get returns the accumulator of series name, made empty if there was
// none.
func (s accSet) get(name string) *acc {
	a := s[name]
	if a == nil {
		a = &acc{hist: emptyHist}
		s[name] = a
	}
	return a
}

// emptyHist is the histogram of every accumulator that has merged no
// value yet: shared and never written (reads are safe from any
// goroutine). A run's many series that see no operation (a workload's
// error kinds, its .lag and .service series when unused) then cost no
// dense histogram (156 kB each) in a report or a run's end.
var emptyHist = stats.NewHist()

// merge adds the values of src to a's histogram, made its own first.
func (a *acc) merge(src *stats.Hist) {
	if src.TotalCount() == 0 {
		return
	}
	a.own().Merge(src)
}

// own returns a's histogram, a new one in place of the shared empty one.
func (a *acc) own() *stats.Hist {
	if a.hist == emptyHist {
		a.hist = stats.NewHist()
	}
	return a.hist
}

// add adds the values of the run log's histogram h to a's: bucket by
// bucket while a's is sparse, through a's Adder once it is dense.
func (a *acc) add(h *runlog.Hist) {
	own := a.own()
	if !own.IsDense() {
		for v, c := range h.ForEachBucket {
			_ = own.RecordValues(v, c) // as Hist.MergeInto records them
		}
		return
	}
	if a.adder == nil {
		a.adder = runlog.NewAdder(own.Dense())
	}
	a.adder.Add(h)
}

// scanRuns reads the runs, several at once (one per CPU), each as it
// streams by: memory holds one accumulator per series and reading
// goroutine, whatever the number and length of the runs. It returns each
// run's part, in the order of runs, and the accumulators merged.
//
// With serviceOps (the runs showed service times, see ServiceTimes), a
// rated run's operations are read from their service-time series (OP.service),
// so that they merge with closed-loop runs' operations, which are service
// times.
func scanRuns(runs []*runlog.Run, w Window, serviceOps bool) ([]runPart, accSet) {
	parts := make([]runPart, len(runs))
	workers := min(runtime.GOMAXPROCS(0), len(runs))
	sets := make([]accSet, workers)
	var next atomic.Int64
	var wg sync.WaitGroup
	for g := range workers {
		sets[g] = accSet{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(runs) {
					return
				}
				if !serviceOps || !Rated(runs[i]) {
					parts[i] = scanRun(runs[i], w, sets[g])
					continue
				}
				own := accSet{}
				parts[i] = scanRun(runs[i], w, own)
				for name, a := range own {
					if svc := own[name+ServiceSuffix]; IsOp(name) && svc != nil && svc.count > 0 {
						// The operation's service times, with its own
						// errors (its service series records none).
						a = &acc{hist: svc.hist, count: svc.count, errors: a.errors}
					}
					m := sets[g].get(name)
					m.merge(a.hist)
					m.errors += a.errors
					m.count += a.count
				}
			}
		}()
	}
	wg.Wait()
	merged := sets[0]
	for _, s := range sets[1:] {
		for name, a := range s {
			m := merged.get(name)
			m.merge(a.hist)
			m.errors += a.errors
			m.count += a.count
		}
	}
	return parts, merged
}

// scanRun reads run's intervals in the window w into accs and returns
// the rest of what Recompute needs of it.
func scanRun(run *runlog.Run, w Window, accs accSet) runPart {
	var ignored []error
	if defaultWindow(w) && run.Info.Status == runlog.StatusCompleted {
		saved, err := loadTotals(run, accs)
		if err == nil {
			return saved
		}
		if !errors.Is(err, errNoTotals) {
			ignored = append(ignored, fmt.Errorf("run %s: %w (ignored: the run's intervals were read instead)", run.Info.ID, err))
		}
	}
	ts := newTotalsScan(run, w, accs)
	ts.p.warnings = append(ignored, ts.p.warnings...)
	if ts.p.err != nil {
		return ts.p
	}
	return ts.end(run.Scan(ts.add))
}

// totalsScan is scanRun's reading of one run's intervals, one at a time
// (add), as they stream by, so that another reader of the same intervals
// (the run's end's series, see SaveViews) can share the read.
type totalsScan struct {
	run      *runlog.Run
	w        Window
	accs     accSet
	p        runPart
	from, to time.Time
	lo       int
	prev     map[string]float64 // the extras of the interval before
	pending  map[string]int64   // error codes of intervals after the last taken
	skipped  []runlog.Interval  // bounds of the intervals before the first taken, for explain
	names    []string
	metNames map[string]bool
}

// newTotalsScan starts the reading of run in the window w into accs;
// its p.err is set when the window's bounds cannot be found.
func newTotalsScan(run *runlog.Run, w Window, accs accSet) *totalsScan {
	ts := &totalsScan{run: run, w: w, accs: accs, lo: -1, metNames: map[string]bool{}}
	ts.p.locs = Localities(run)
	ts.from, ts.to, ts.p.err = bounds(run, w, func(err error) { ts.p.warnings = append(ts.p.warnings, err) })
	return ts
}

// addCodes adds the error codes among extra to those pending.
func (ts *totalsScan) addCodes(extra map[string]float64) {
	for key, v := range extra {
		if !IsCodeCount(key) || v <= 0 {
			continue
		}
		if ts.pending == nil {
			ts.pending = map[string]int64{}
		}
		ts.pending[key] += int64(v)
	}
}

// add takes one interval, a runlog.Run.Scan callback.
func (ts *totalsScan) add(iv *runlog.ScanInterval) error {
	p := &ts.p
	defer func() { ts.prev = iv.Extra }()
	if !takes(iv.Start, ts.from, ts.to) {
		if ts.lo < 0 {
			ts.skipped = append(ts.skipped, runlog.Interval{Start: iv.Start, End: iv.End})
		} else {
			ts.addCodes(iv.Extra)
		}
		return nil
	}
	if ts.lo < 0 {
		ts.lo, p.first, p.baseExtra, ts.skipped = iv.Index, iv.Start, ts.prev, nil
	}
	p.intervals = iv.Index + 1 - ts.lo
	p.last, p.lastExtra = iv.End, iv.Extra
	if n := len(p.spans); n > 0 && !iv.Start.After(p.spans[n-1].end) && !iv.Start.Before(p.spans[n-1].start) {
		if iv.End.After(p.spans[n-1].end) {
			p.spans[n-1].end = iv.End
		}
	} else {
		p.spans = append(p.spans, span{iv.Start, iv.End})
	}
	ts.names = ts.names[:0]
	for _, s := range iv.Series {
		ts.names = append(ts.names, s.Name)
	}
	slices.Sort(ts.names)
	for _, name := range ts.names {
		s := iv.Get(name)
		a := ts.accs.get(name)
		if !ts.metNames[name] {
			ts.metNames[name] = true
			p.met = append(p.met, name)
		}
		if s.Hist.TotalCount() > 0 {
			a.add(s.Hist)
		}
		a.errors += s.Errors
		a.count += s.Count
	}
	ts.addCodes(iv.Extra)
	for key, n := range ts.pending {
		if p.codes == nil {
			p.codes = map[string]int64{}
		}
		p.codes[key] += n
	}
	ts.pending = nil
	return nil
}

// end finishes the reading, whose Scan returned scanErr, and returns the
// run's part.
func (ts *totalsScan) end(scanErr error) runPart {
	for _, a := range ts.accs {
		if a.adder != nil {
			a.adder.Flush()
		}
	}
	p := ts.p
	id := ts.run.Info.ID
	warn := func(err error) { p.warnings = append(p.warnings, err) }
	var trunc *runlog.TruncatedError
	if errors.As(scanErr, &trunc) {
		warn(fmt.Errorf("run %s: %w", id, trunc))
	} else if scanErr != nil {
		p.err = scanErr
		return p
	}
	if ts.lo < 0 {
		err := explain(ts.run, ts.skipped, ts.w, ts.from, ts.to)
		if len(ts.skipped) == 0 && trunc != nil {
			err = fmt.Errorf("run %s: no complete interval to report: %s is truncated at line %d (%s) before its first complete interval; was the run killed within its first interval?",
				id, filepath.Join(ts.run.Dir, trunc.File), trunc.Line, trunc.Reason)
		}
		p.none = err
		warn(err)
	}
	return p
}
