package runlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
)

// ScanInterval is one interval as Run.Scan reads it: its bounds, extras
// and, per series, its counts and histogram. Scan reuses it, its Series
// and their histograms from one interval to the next: a callback that
// keeps anything beyond its return copies it (Hist.Packed for a
// histogram).
type ScanInterval struct {
	// Index is the interval's position in the run, from 0.
	Index int
	// Start and End are the interval's exact bounds.
	Start, End time.Time
	// Series holds the interval's data per series, in the order of its
	// histogram lines.
	Series []ScanSeries
	// Extra holds the interval's extra numbers; nil if there were none.
	// It is the callback's to keep.
	Extra map[string]float64
}

// ScanSeries is one series of a ScanInterval.
type ScanSeries struct {
	// Name is the series name.
	Name string
	// Count is the number of operations, as given to WriteInterval, and
	// Errors the number of failed ones.
	Count, Errors int64
	// Hist is the series' histogram; nil when ScanOptions.Decode left the
	// interval undecoded.
	Hist *Hist
}

// Get returns the data of series name in the interval, nil if it has
// none.
func (iv *ScanInterval) Get(name string) *ScanSeries {
	for i := range iv.Series {
		if iv.Series[i].Name == name {
			return &iv.Series[i]
		}
	}
	return nil
}

// ScanOptions adjusts Run.ScanWith.
type ScanOptions struct {
	// Decode, when set, says which intervals (by index) to decode: the
	// others reach the callback without histograms (ScanSeries.Hist nil),
	// and a histogram of theirs that does not decode goes unnoticed. For
	// a reader that already knows the run's complete intervals (a second
	// pass) and wants a few of them.
	Decode func(index int) bool
}

// ErrStopScan, returned by a Scan callback, ends the read early without
// an error.
var ErrStopScan = errors.New("scan stopped")

// Scan reads the intervals of the run one at a time, in order, and calls
// fn with each, as Intervals would return them: only committed intervals
// whose histogram lines are complete and decode (see the package
// documentation). Memory does not grow with the run's length: an
// interval's histograms are decoded into buffers reused for the next.
// Where the files are damaged (an incomplete or unreadable line,
// histogram lines without a commit record, a histogram that does not
// decode), fn has seen every interval before that point and Scan returns
// a *TruncatedError, the same Intervals returns. It returns fn's error if
// fn fails (nil for ErrStopScan), and other errors (such as a missing
// file) as they are. Scan never modifies the run directory and is safe
// for concurrent use (each call reads on its own).
func (r *Run) Scan(fn func(iv *ScanInterval) error) error {
	return r.ScanWith(ScanOptions{}, fn)
}

// ScanWith is Scan with options.
func (r *Run) ScanWith(opt ScanOptions, fn func(iv *ScanInterval) error) error {
	err := r.scan(opt, fn)
	if errors.Is(err, ErrStopScan) {
		return nil
	}
	return err
}

// Records reads intervals.ndjson alone, one record at a time, and calls
// fn with each interval's bounds, extras and per series (sorted by name)
// its counts, without histograms (ScanSeries.Hist nil): intervals.hlog is
// not read, so a damaged histogram goes unnoticed. It is for a reader that
// needs the run's shape (its intervals' lengths, its series) before a
// Scan. Where intervals.ndjson is damaged, fn has seen every record before
// and Records returns a *TruncatedError; it returns fn's error if fn fails
// (nil for ErrStopScan). The ScanInterval and its Series are reused from
// one call to the next. Memory does not grow with the run's length.
// Records never modifies the run directory and is safe for concurrent use.
func (r *Run) Records(fn func(iv *ScanInterval) error) error {
	path := filepath.Join(r.Dir, IntervalsFile)
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read intervals of run %s: %w", r.Dir, err)
	}
	defer f.Close()
	recs := &recordReader{lr: newLineReader(f), path: path, reuse: true}
	recs.lr.shared = true
	var iv ScanInterval
	for k := 0; ; k++ {
		rec, trunc, err := recs.next()
		switch {
		case err != nil:
			return fmt.Errorf("read intervals of run %s: %w", r.Dir, err)
		case trunc != nil:
			trunc.Complete = k
			return trunc
		case rec == nil:
			return nil
		}
		iv.Index, iv.Start, iv.End, iv.Extra = k, rec.Start.UTC(), rec.End.UTC(), rec.Extra
		iv.Series = iv.Series[:0]
		for name, c := range rec.Series {
			iv.Series = append(iv.Series, ScanSeries{Name: name, Count: c.Count, Errors: c.Errors})
		}
		slices.SortFunc(iv.Series, func(a, b ScanSeries) int { return strings.Compare(a.Name, b.Name) })
		if err := fn(&iv); err != nil {
			if errors.Is(err, ErrStopScan) {
				return nil
			}
			return err
		}
	}
}

// scanJob is one interval on its way through scan's pipeline: read,
// decoded, handed to the callback, then reused.
type scanJob struct {
	iv    ScanInterval
	lines []hlogLine
	raw   []byte // the lines' payloads, one after the other
	hists []*Hist
	err   error // the interval's histograms do not decode
	end   bool  // no interval: the read ended, with err (nil at the end of the files)
}

// scanDecoders is how many goroutines decode a run's histograms at once,
// and scanInFlight how many intervals may be read ahead of the callback.
var (
	scanDecoders = min(runtime.GOMAXPROCS(0), 4)
	scanInFlight = 4 * scanDecoders
)

// scan reads the intervals in one goroutine, decodes them in
// scanDecoders others and hands them to fn in order in the caller's:
// decoding, most of the work, uses the CPUs, and at most scanInFlight
// intervals are in memory at once.
func (r *Run) scan(opt ScanOptions, fn func(iv *ScanInterval) error) error {
	ivPath := filepath.Join(r.Dir, IntervalsFile)
	ivf, err := os.Open(ivPath)
	if err != nil {
		return fmt.Errorf("read intervals of run %s: %w", r.Dir, err)
	}
	defer ivf.Close()
	hf, err := os.Open(filepath.Join(r.Dir, HlogFile))
	if err != nil {
		return fmt.Errorf("read intervals of run %s: %w", r.Dir, err)
	}
	defer hf.Close()
	free := make(chan *scanJob, scanInFlight)
	for range scanInFlight {
		free <- &scanJob{}
	}
	toDecode := make(chan *scanJob, scanInFlight)
	decoded := make(chan *scanJob, scanInFlight)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(toDecode)
		r.readJobs(ivPath, ivf, hf, free, toDecode, quit)
	}()
	var workers sync.WaitGroup
	for range scanDecoders {
		workers.Add(1)
		go func() {
			defer workers.Done()
			var dec histDecoder
			for j := range toDecode {
				if !j.end && (opt.Decode == nil || opt.Decode(j.iv.Index)) {
					j.decode(&dec)
				}
				select {
				case decoded <- j:
				case <-quit:
					return
				}
			}
		}()
	}
	defer func() {
		close(quit)
		workers.Wait()
		wg.Wait()
	}()
	pending := map[int]*scanJob{}
	for next := 0; ; {
		j := pending[next]
		if j == nil {
			j = <-decoded
			if j.iv.Index != next {
				pending[j.iv.Index] = j
				continue
			}
		} else {
			delete(pending, next)
		}
		switch {
		case j.end:
			return j.err
		case j.err != nil:
			return j.err
		}
		if err := fn(&j.iv); err != nil {
			return err
		}
		next++
		free <- j
	}
}

// decode decodes the job's histogram lines, or sets its error.
func (j *scanJob) decode(dec *histDecoder) {
	for i, hl := range j.lines {
		if i == len(j.hists) {
			j.hists = append(j.hists, &Hist{})
		}
		if err := dec.decode(hl.raw, j.hists[i]); err != nil {
			j.err = &TruncatedError{File: HlogFile, Line: hl.line, Reason: fmt.Sprintf("cannot decode histogram: %v", err), Complete: j.iv.Index}
			return
		}
		j.iv.Series[i].Hist = j.hists[i]
	}
}

// readJobs reads the intervals' records and histogram lines into jobs
// taken from free and sends them on out, in order, then a job marking the
// end (with the error that ended the read, if any), unless quit closes.
func (r *Run) readJobs(ivPath string, ivf, hf *os.File, free <-chan *scanJob, out chan<- *scanJob, quit <-chan struct{}) {
	// Lines are read in the readers' buffers; the histograms' payloads
	// are copied into their job's (reused from one interval to another).
	recs := &recordReader{lr: newLineReader(ivf), path: ivPath, reuse: true}
	recs.lr.shared = true
	hr := &hlogReader{lr: newLineReader(hf)}
	hr.lr.shared = true
	hlogTrunc := func(line int, reason string, complete int) *TruncatedError {
		return &TruncatedError{File: HlogFile, Line: line, Reason: reason, Complete: complete}
	}
	send := func(j *scanJob) bool {
		select {
		case out <- j:
			return true
		case <-quit:
			return false
		}
	}
	take := func() *scanJob {
		select {
		case j := <-free:
			return j
		case <-quit:
			return nil
		}
	}
	var held *scanJob // taken for the interval being read
	end := func(k int, err error) {
		j := held
		if j == nil {
			j = take()
		}
		if j != nil {
			j.end, j.err, j.iv.Index = true, err, k
			send(j)
		}
	}
	for k := 0; ; k++ {
		rec, trunc, err := recs.next()
		if err != nil {
			end(k, fmt.Errorf("read intervals of run %s: %w", r.Dir, err))
			return
		}
		if trunc != nil {
			trunc.Complete = k
			end(k, trunc)
			return
		}
		if rec == nil {
			break
		}
		j := take()
		if j == nil {
			return
		}
		held = j
		j.end, j.err = false, nil
		iv := &j.iv
		iv.Index, iv.Start, iv.End, iv.Extra = k, rec.Start.UTC(), rec.End.UTC(), rec.Extra
		iv.Series = iv.Series[:0]
		j.lines, j.raw = j.lines[:0], j.raw[:0]
		startMs, endMs := rec.Start.UnixMilli(), rec.End.UnixMilli()
		for range len(rec.Series) {
			hl, reason, err := hr.next()
			if err == io.EOF {
				end(k, hlogTrunc(hr.lr.line+1, fmt.Sprintf("file ends before the histograms of interval %d", k+1), k))
				return
			}
			if err != nil {
				end(k, fmt.Errorf("read intervals of run %s: %w", r.Dir, err))
				return
			}
			if reason != "" {
				end(k, hlogTrunc(hl.line, reason, k))
				return
			}
			c, ok := rec.Series[hl.tag]
			if !ok || iv.Get(hl.tag) != nil {
				end(k, hlogTrunc(hl.line, fmt.Sprintf("unexpected series %q for interval %d (%s line %d)", hl.tag, k+1, IntervalsFile, k+1), k))
				return
			}
			if hl.startMs != startMs || hl.lenMs != endMs-startMs {
				end(k, hlogTrunc(hl.line, fmt.Sprintf("timestamps do not match interval %d (%s line %d)", k+1, IntervalsFile, k+1), k))
				return
			}
			iv.Series = append(iv.Series, ScanSeries{Name: hl.tag, Count: c.Count, Errors: c.Errors})
			// The payload's copy: where j.raw grows into a new array,
			// the lines before keep the old one, which nothing writes
			// again.
			at := len(j.raw)
			j.raw = append(j.raw, hl.raw...)
			hl.raw = j.raw[at:len(j.raw):len(j.raw)]
			j.lines = append(j.lines, hl)
		}
		held = nil
		if !send(j) {
			return
		}
	}
	hl, reason, err := hr.next()
	switch {
	case err == io.EOF:
		end(recs.n, nil)
	case err != nil:
		end(recs.n, fmt.Errorf("read intervals of run %s: %w", r.Dir, err))
	case reason != "":
		end(recs.n, hlogTrunc(hl.line, reason, recs.n))
	default:
		end(recs.n, hlogTrunc(hl.line, fmt.Sprintf("histogram of an interval without a commit record in %s", IntervalsFile), recs.n))
	}
}

// recordReader reads intervals.ndjson one record at a time, as
// readNDJSON does.
type recordReader struct {
	lr   *lineReader
	path string
	n    int // records returned
	// reuse, when set, decodes every record into rec, whose Series map
	// is cleared and refilled (Extra is always a new map): a record is
	// then valid until the next call.
	reuse bool
	rec   intervalRecord
}

// next returns the next record; nil at the end of the file, or with a
// *TruncatedError (Complete unset) where the file is damaged.
func (rr *recordReader) next() (*intervalRecord, *TruncatedError, error) {
	for {
		line, complete, err := rr.lr.next()
		if err == io.EOF {
			return nil, nil, nil
		}
		if err != nil {
			return nil, nil, err
		}
		trunc := func(reason string) *TruncatedError {
			return &TruncatedError{File: filepath.Base(rr.path), Line: rr.lr.line, Reason: reason}
		}
		if !complete {
			return nil, trunc("incomplete last line"), nil
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		rec := &intervalRecord{}
		if rr.reuse {
			clear(rr.rec.Series)
			rr.rec = intervalRecord{Series: rr.rec.Series}
			rec = &rr.rec
		}
		if err := json.Unmarshal(line, rec); err != nil {
			return nil, trunc(fmt.Sprintf("invalid JSON: %v", err)), nil
		}
		if rec.Start.IsZero() || rec.End.IsZero() {
			return nil, trunc("interval without start or end"), nil
		}
		rr.n++
		return rec, nil, nil
	}
}
