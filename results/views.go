package results

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/stampede-bench/stampede/runlog"
)

// SaveViews writes the batch views of run, a completed run, into its
// directory: totals.json (see SaveTotals) and series.ndjson (see
// SaveSeries), from one read of its intervals that feeds both. Its memory
// does not grow with the run's length: the totals hold one merged
// histogram per series, and series.ndjson is written as the intervals
// stream by, each point once the intervals it merges have been read (see
// Series: a short interval joins its neighbour), so that at most one
// group of intervals is being merged at a time. Beyond that it keeps one
// bit per interval (where the groups start) and, while it reads the
// intervals' records before the histograms, their lengths. Each file is
// written atomically, 0600; a run that is not completed, or whose reading
// warns, gets no file (nil error), as SaveTotals and SaveSeries say.
// SaveViews is not safe for concurrent use on the same directory.
func SaveViews(run *runlog.Run) error {
	return saveViews(run, true, true)
}

// SaveTotals writes totals.json into the directory of run, a completed
// run: its figures over the default Window, so that Recompute of that
// window merges one histogram per series instead of decoding every
// interval. A run that is not completed, or whose reading warns (a
// truncated log) or takes no interval, gets no file (nil error): it is
// streamed as before. The file is written atomically. SaveTotals is not
// safe for concurrent use on the same directory.
func SaveTotals(run *runlog.Run) error {
	return saveViews(run, true, false)
}

// SaveSeries writes series.ndjson into the directory of run, a completed
// run: the operations' and endpoints' points of TimeSeries, so that
// TimeSeries of the run need not decode every interval. A run that is
// not completed, or whose intervals log warns (truncated), gets no file
// (nil error). The file is written atomically, as the intervals are read
// (see SaveViews). SaveSeries is not safe for concurrent use on the same
// directory.
func SaveSeries(run *runlog.Run) error {
	return saveViews(run, false, true)
}

// viewsProbe, when set (by tests), is called after each interval a
// series writer has taken, with the writer.
var viewsProbe func(sw *seriesWriter, index int)

// saveViews writes totals.json (totals) and series.ndjson (series) of
// run from one read of its intervals.
func saveViews(run *runlog.Run, totals, series bool) error {
	if run.Info.Status != runlog.StatusCompleted || !severalIntervals(run) {
		return nil
	}
	hlogBytes, ivlBytes, err := fileSizes(run.Dir)
	if err != nil {
		return err
	}
	var ts *totalsScan
	accs := accSet{}
	if totals {
		ts = newTotalsScan(run, Window{}, accs)
		if ts.p.err != nil {
			return ts.p.err
		}
	}
	var sw *seriesWriter
	if series {
		if sw, err = newSeriesWriter(run, hlogBytes, ivlBytes); err != nil {
			return err
		}
		if sw != nil {
			defer sw.abort()
		}
	}
	if ts == nil && sw == nil {
		return nil
	}
	var swErr error // the series writer failed: the totals go on
	scanErr := run.Scan(func(iv *runlog.ScanInterval) error {
		if ts != nil {
			if err := ts.add(iv); err != nil {
				return err
			}
		}
		if sw != nil && swErr == nil {
			swErr = sw.add(iv)
			if viewsProbe != nil {
				viewsProbe(sw, iv.Index)
			}
		}
		return nil
	})
	var errs []error
	if ts != nil {
		errs = append(errs, writeTotals(run, ts.end(scanErr), ts.from, accs, hlogBytes, ivlBytes))
	}
	if sw != nil {
		if swErr == nil {
			swErr = sw.finish(scanErr)
		}
		errs = append(errs, swErr)
	}
	return errors.Join(errs...)
}

// severalIntervals reports whether run recorded more than one interval
// (or its intervals could not be counted, which the views' read reports):
// a run of one interval gets no views, which would hold that interval
// again, as fast to read as they are, and cost the short run that wrote
// them a tenth of its CPU (stampede pgbench -t 1 -c 1: ~7 ms of ~85).
func severalIntervals(run *runlog.Run) bool {
	n := 0
	err := run.Records(func(*runlog.ScanInterval) error {
		n++
		return nil
	})
	return err != nil || n > 1
}

// writeTotals writes totals.json from p and accs, what a totalsScan of
// the default window, from from, read; nothing if the reading warned or
// took no interval.
func writeTotals(run *runlog.Run, p runPart, from time.Time, accs accSet, hlogBytes, ivlBytes int64) error {
	if p.err != nil {
		return p.err
	}
	if len(p.warnings) > 0 || p.intervals == 0 {
		return nil
	}
	doc := totalsDoc{
		Version: totalsVersion, HlogBytes: hlogBytes, IntervalsBytes: ivlBytes,
		From: from, Met: p.met, Intervals: p.intervals, First: p.first, Last: p.last,
		LastExtra: p.lastExtra, BaseExtra: p.baseExtra, Codes: p.codes,
	}
	for _, s := range p.spans {
		doc.Spans = append(doc.Spans, [2]time.Time{s.start, s.end})
	}
	var he runlog.HistEncoder // one zlib writer for every series (a sweep's steps end the faster)
	// Most series of a run saw no operation (a workload's error kinds, its
	// .lag and .service series when unused) and share emptyHist: encoded
	// once. Each encoding copies the dense counts (156 kB): YCSB's 64
	// series made 10 MB of garbage at the run's end, most of the live
	// heap's rise over the run's steady state (scripts/bench runend).
	var empty string
	for _, name := range sortedKeys(accs) {
		a := accs[name]
		var enc string
		if a.hist != emptyHist || empty == "" {
			var b []byte
			var err error
			if p := a.hist.Sparse(); p != nil {
				b, err = he.EncodePacked(p)
			} else {
				b, err = he.Encode(a.hist.Dense())
			}
			if err != nil {
				return fmt.Errorf("run %s: encode %s's histogram: %w", run.Info.ID, name, err)
			}
			enc = string(b)
			if a.hist == emptyHist {
				empty = enc
			}
		} else {
			enc = empty
		}
		doc.Series = append(doc.Series, totalsSeries{Name: name, Count: a.count, Errors: a.errors, Hist: enc})
	}
	f, err := createAtomic(run.Dir, runlog.TotalsFile)
	if err != nil {
		return err
	}
	defer f.abort()
	data, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("run %s: encode %s: %w", run.Info.ID, runlog.TotalsFile, err)
	}
	if _, err := f.w.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", runlog.TotalsFile, err)
	}
	return f.commit()
}

// seriesWriter writes series.ndjson as a run's intervals stream by (see
// SaveViews). Its columns and the groups of intervals each line merges
// (mergeShort's) are known before the histograms are read, from the
// intervals' records; it then holds the group being merged, one merger
// per column, and nothing of the intervals before.
type seriesWriter struct {
	run   *runlog.Run
	start time.Time
	f     *atomicFile
	enc   *json.Encoder
	// cols are the names of the file's series: the used operations', then
	// the used endpoints' parts (as streamSeries keeps them); col indexes
	// them.
	cols []string
	col  map[string]int
	// n is the number of intervals; starts has bit k set when interval k
	// begins a group of intervals merged into one point.
	n      int
	starts []uint64
	// The group being read: from its first interval's start, its
	// mergers (one per column, eager) and whether it began.
	groupStart time.Time
	mergers    []merger
	scratch    merger
	// seen[c] is set when column c has had a point with operations or
	// errors; next is the index of the interval expected next.
	seen []bool
	next int
	line seriesLine
}

// newSeriesWriter reads run's interval records (not its histograms) and
// returns a writer of its series.ndjson, its header written; nil (and
// nil error) when the file would not be written: the series of the run
// would carry a warning (a truncated intervals log, a ramp-up end or
// telemetry that cannot be read).
func newSeriesWriter(run *runlog.Run, hlogBytes, ivlBytes int64) (*seriesWriter, error) {
	start := run.Info.Start
	warned := false
	h := seriesHeader{Version: seriesVersion, HlogBytes: hlogBytes, IntervalsBytes: ivlBytes, Ops: []string{}, Endpoints: []string{}}
	if t, ok := RampEnd(run, func(error) { warned = true }); ok {
		h.RampEnd = t.Sub(start).Seconds()
	}
	if warned || telemetryErr(run) != nil {
		return nil, nil
	}
	// The run's series in streamSeries' order (run.json's, then as met,
	// each interval's sorted by name), whether each has a point with
	// operations or errors, and the intervals' lengths.
	var (
		names []string
		used  = map[string]bool{}
		lens  []time.Duration
	)
	known := map[string]bool{}
	add := func(name string) {
		if !known[name] {
			known[name] = true
			names = append(names, name)
		}
	}
	for _, name := range run.Info.Series {
		add(name)
	}
	err := run.Records(func(iv *runlog.ScanInterval) error {
		lens = append(lens, iv.End.Sub(iv.Start))
		for _, s := range iv.Series { // sorted by name
			add(s.Name)
			if s.Count > 0 || s.Errors > 0 {
				used[s.Name] = true
			}
		}
		return nil
	})
	var trunc *runlog.TruncatedError
	if errors.As(err, &trunc) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	sw := &seriesWriter{run: run, start: start, n: len(lens), col: map[string]int{}}
	var endpoints []string
	for _, name := range names {
		switch {
		case !used[name]:
		case IsSplit(name):
			endpoints = append(endpoints, name)
		case IsOp(name):
			h.Ops = append(h.Ops, name)
		}
	}
	h.Endpoints = endpoints
	if h.Endpoints == nil {
		h.Endpoints = []string{}
	}
	sw.cols = append(slices.Clone(h.Ops), h.Endpoints...)
	for i, name := range sw.cols {
		sw.col[name] = i
	}
	// The groups, as mergeShort makes them.
	sw.starts = make([]uint64, (len(lens)+63)/64)
	eachGroupStart(lens, func(i int, begins bool) {
		if begins {
			sw.starts[i/64] |= 1 << (i % 64)
		}
	})
	lens = nil
	if len(sw.cols) > 0 {
		h.Points = sw.groups()
	}
	m := len(sw.cols)
	sw.mergers = make([]merger, m)
	for i := range sw.mergers {
		sw.mergers[i].eager = true
	}
	sw.seen = make([]bool, m)
	sw.line = seriesLine{Count: make([]int64, m), Errors: make([]int64, m), Rate: make([]float64, m),
		P50: make([]float64, m), P95: make([]float64, m), P99: make([]float64, m), Max: make([]float64, m)}
	if sw.f, err = createAtomic(run.Dir, runlog.SeriesFile); err != nil {
		return nil, err
	}
	sw.enc = json.NewEncoder(sw.f.w)
	if err := sw.enc.Encode(h); err != nil {
		sw.abort()
		return nil, fmt.Errorf("run %s: encode %s: %w", run.Info.ID, runlog.SeriesFile, err)
	}
	return sw, nil
}

// begins reports whether interval k begins a group.
func (sw *seriesWriter) begins(k int) bool {
	return k < sw.n && sw.starts[k/64]&(1<<(k%64)) != 0
}

// groups returns the number of groups.
func (sw *seriesWriter) groups() int {
	n := 0
	for _, w := range sw.starts {
		n += bits.OnesCount64(w)
	}
	return n
}

// mismatch is the error of a run whose intervals' records and histograms
// disagree about which series saw operations.
func (sw *seriesWriter) mismatch(name string) error {
	return fmt.Errorf("run %s: %s not saved: %s and %s disagree on whether series %s saw operations (its counts and its histograms' counts differ)",
		sw.run.Info.ID, runlog.SeriesFile, runlog.IntervalsFile, runlog.HlogFile, name)
}

// add takes the next interval: it adds its histograms to the group's
// mergers and writes the group's line once the group is complete.
func (sw *seriesWriter) add(iv *runlog.ScanInterval) error {
	k := iv.Index
	if k != sw.next || k >= sw.n {
		return fmt.Errorf("run %s: %s changed while it was read (interval %d of %d)", sw.run.Info.ID, runlog.IntervalsFile, k+1, sw.n)
	}
	sw.next++
	for _, s := range iv.Series {
		if _, ok := sw.col[s.Name]; !ok && (IsOp(s.Name) || IsSplit(s.Name)) && (s.Hist.TotalCount() > 0 || s.Errors > 0) {
			return sw.mismatch(s.Name)
		}
	}
	if len(sw.cols) == 0 {
		return nil
	}
	first, last := sw.begins(k), k == sw.n-1 || sw.begins(k+1)
	if first && last {
		// An interval alone: its own figures, as streamSeries' first read
		// computes them.
		span := Span{From: iv.Start.Sub(sw.start).Seconds(), To: iv.End.Sub(sw.start).Seconds()}
		secs := iv.End.Sub(iv.Start).Seconds()
		for c, name := range sw.cols {
			sw.scratch.reset()
			if d := iv.Get(name); d != nil {
				sw.scratch.add(d.Hist, d.Errors)
			}
			sw.put(c, sw.scratch.point(span, secs))
		}
		return sw.write(span)
	}
	if first {
		sw.groupStart = iv.Start
		for c := range sw.mergers {
			sw.mergers[c].reset()
		}
	}
	for c, name := range sw.cols {
		if d := iv.Get(name); d != nil {
			sw.mergers[c].add(d.Hist, d.Errors)
		}
	}
	if !last {
		return nil
	}
	span := Span{From: sw.groupStart.Sub(sw.start).Seconds(), To: iv.End.Sub(sw.start).Seconds()}
	secs := iv.End.Sub(sw.groupStart).Seconds()
	for c := range sw.cols {
		sw.put(c, sw.mergers[c].point(span, secs))
	}
	return sw.write(span)
}

// put sets column c of the line to p.
func (sw *seriesWriter) put(c int, p OpPoint) {
	l := &sw.line
	l.Count[c], l.Errors[c], l.Rate[c] = p.Count, p.Errors, p.Rate
	l.P50[c], l.P95[c], l.P99[c], l.Max[c] = p.P50, p.P95, p.P99, p.Max
	if p.Count > 0 || p.Errors > 0 {
		sw.seen[c] = true
	}
}

// write writes the line, over span.
func (sw *seriesWriter) write(span Span) error {
	sw.line.From, sw.line.To = span.From, span.To
	if err := sw.enc.Encode(&sw.line); err != nil {
		return fmt.Errorf("run %s: write %s: %w", sw.run.Info.ID, runlog.SeriesFile, err)
	}
	return nil
}

// finish ends the file after a Scan that returned scanErr: renamed into
// place when every interval was read, removed (nil error) when the read
// ended at a truncation, as streamSeries would warn.
func (sw *seriesWriter) finish(scanErr error) error {
	var trunc *runlog.TruncatedError
	if errors.As(scanErr, &trunc) {
		return nil
	}
	if scanErr != nil {
		return scanErr
	}
	if sw.next != sw.n {
		return fmt.Errorf("run %s: %s changed while it was read (%d intervals, %d before)", sw.run.Info.ID, runlog.IntervalsFile, sw.next, sw.n)
	}
	for c, ok := range sw.seen {
		if !ok {
			return sw.mismatch(sw.cols[c])
		}
	}
	return sw.f.commit()
}

// abort removes the file unless it was committed.
func (sw *seriesWriter) abort() {
	if sw.f != nil {
		sw.f.abort()
	}
}

// telemetryErr returns the error reading run's telemetry as readTelemetry
// would meet it, without keeping the samples.
func telemetryErr(run *runlog.Run) error {
	return run.Telemetry(func(line []byte) error {
		_, _, err := parseTelemetryLine(line)
		return err
	})
}

// atomicFile is a file written through a temporary file in the same
// directory, whose name starts with "." (which readers and the store
// ignore), then synced and renamed over its name by commit.
type atomicFile struct {
	f    *os.File
	w    *bufio.Writer
	dir  string
	name string
	done bool
}

// createAtomic starts dir/name's temporary file.
func createAtomic(dir, name string) (*atomicFile, error) {
	f, err := os.CreateTemp(dir, "."+name+"-*")
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", name, err)
	}
	return &atomicFile{f: f, w: bufio.NewWriterSize(f, 64<<10), dir: dir, name: name}, nil
}

// commit flushes, syncs and renames the file into place, 0600 as every
// file of a run directory.
func (a *atomicFile) commit() error {
	err := a.w.Flush()
	if err == nil {
		err = a.f.Chmod(0o600)
	}
	if err == nil {
		err = a.f.Sync()
	}
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(a.f.Name(), filepath.Join(a.dir, a.name))
	}
	a.done = true
	if err != nil {
		_ = os.Remove(a.f.Name())
		return fmt.Errorf("write %s: %w", a.name, err)
	}
	return nil
}

// abort closes and removes the temporary file, unless committed.
func (a *atomicFile) abort() {
	if a.done {
		return
	}
	a.done = true
	_ = a.f.Close()
	_ = os.Remove(a.f.Name())
}
