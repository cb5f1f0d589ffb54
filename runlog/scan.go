package runlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
	recs := &recordReader{lr: newLineReader(ivf), path: ivPath}
	hr := &hlogReader{lr: newLineReader(hf)}
	hlogTrunc := func(line int, reason string, complete int) *TruncatedError {
		return &TruncatedError{File: HlogFile, Line: line, Reason: reason, Complete: complete}
	}
	var (
		dec   histDecoder
		iv    ScanInterval
		lines []hlogLine
		hists []*Hist
	)
	for k := 0; ; k++ {
		rec, trunc, err := recs.next()
		if err != nil {
			return fmt.Errorf("read intervals of run %s: %w", r.Dir, err)
		}
		if trunc != nil {
			trunc.Complete = k
			return trunc
		}
		if rec == nil {
			break
		}
		iv.Index, iv.Start, iv.End, iv.Extra = k, rec.Start.UTC(), rec.End.UTC(), rec.Extra
		iv.Series = iv.Series[:0]
		lines = lines[:0]
		startMs, endMs := rec.Start.UnixMilli(), rec.End.UnixMilli()
		for range len(rec.Series) {
			hl, reason, err := hr.next()
			if err == io.EOF {
				return hlogTrunc(hr.lr.line+1, fmt.Sprintf("file ends before the histograms of interval %d", k+1), k)
			}
			if err != nil {
				return fmt.Errorf("read intervals of run %s: %w", r.Dir, err)
			}
			if reason != "" {
				return hlogTrunc(hl.line, reason, k)
			}
			c, ok := rec.Series[hl.tag]
			if !ok || iv.Get(hl.tag) != nil {
				return hlogTrunc(hl.line, fmt.Sprintf("unexpected series %q for interval %d (%s line %d)", hl.tag, k+1, IntervalsFile, k+1), k)
			}
			if hl.startMs != startMs || hl.lenMs != endMs-startMs {
				return hlogTrunc(hl.line, fmt.Sprintf("timestamps do not match interval %d (%s line %d)", k+1, IntervalsFile, k+1), k)
			}
			iv.Series = append(iv.Series, ScanSeries{Name: hl.tag, Count: c.Count, Errors: c.Errors})
			lines = append(lines, hl)
		}
		if opt.Decode == nil || opt.Decode(k) {
			for i, hl := range lines {
				if i == len(hists) {
					hists = append(hists, &Hist{})
				}
				if err := dec.decode(hl.raw, hists[i]); err != nil {
					return hlogTrunc(hl.line, fmt.Sprintf("cannot decode histogram: %v", err), k)
				}
				iv.Series[i].Hist = hists[i]
			}
		}
		if err := fn(&iv); err != nil {
			return err
		}
	}
	hl, reason, err := hr.next()
	switch {
	case err == io.EOF:
		return nil
	case err != nil:
		return fmt.Errorf("read intervals of run %s: %w", r.Dir, err)
	case reason != "":
		return hlogTrunc(hl.line, reason, recs.n)
	default:
		return hlogTrunc(hl.line, fmt.Sprintf("histogram of an interval without a commit record in %s", IntervalsFile), recs.n)
	}
}

// recordReader reads intervals.ndjson one record at a time, as
// readNDJSON does.
type recordReader struct {
	lr   *lineReader
	path string
	n    int // records returned
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
		var rec intervalRecord
		if err := json.Unmarshal(line, &rec); err != nil {
			return nil, trunc(fmt.Sprintf("invalid JSON: %v", err)), nil
		}
		if rec.Start.IsZero() || rec.End.IsZero() {
			return nil, trunc("interval without start or end"), nil
		}
		rr.n++
		return &rec, nil, nil
	}
}
