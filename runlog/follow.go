package runlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Follower reads the intervals of a run as its writer appends them: each
// call to Next returns the intervals committed since the last call, read
// from where the last call stopped, so following a run of hours costs what
// its new intervals cost, not a re-reading of the whole log. It applies the
// commit protocol of Intervals (see the package documentation): an
// interval is returned once its intervals.ndjson line is complete, with its
// histogram lines. A Follower never modifies the run directory. It is not
// safe for concurrent use.
type Follower struct {
	run *Run
	// Offsets and line numbers of the complete lines read so far.
	ivOff, hlogOff   int64
	ivLine, hlogLine int
	baseSec          float64
	recs             []intervalRecord // committed, waiting for their histogram lines
	hls              []hlogLine       // histogram lines read, not yet taken by a record
	n                int              // intervals returned so far
	err              error            // sticky: the log is damaged from there
}

// Follow returns a Follower over r's intervals, starting at its first.
func (r *Run) Follow() *Follower { return &Follower{run: r} }

// Next returns the intervals committed since the last call (none when the
// writer has committed nothing new). When the log is damaged (a line that
// is not what the writer writes, a histogram that does not decode), Next
// returns the complete intervals before the damage with a
// *TruncatedError, and from then on only that error: like Intervals, it
// shows what is readable and says where it stops. An incomplete last line
// is not damage here: the writer is still writing it. Other errors (a
// missing file: the run directory removed) are returned as they are.
func (f *Follower) Next() ([]Interval, error) {
	if f.err != nil {
		return nil, f.err
	}
	// The commit record is read first: the histograms it commits were
	// written, and fsynced, before it.
	ivBytes, err := readComplete(filepath.Join(f.run.Dir, IntervalsFile), &f.ivOff)
	if err != nil {
		return nil, fmt.Errorf("read intervals of run %s: %w", f.run.Dir, err)
	}
	// A damaged commit record ends the log there; the records before it
	// are still returned, with their histograms.
	var ivDamage *TruncatedError
	for _, line := range bytes.SplitAfter(ivBytes, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		f.ivLine++
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var rec intervalRecord
		if err := json.Unmarshal(line, &rec); err != nil {
			ivDamage = &TruncatedError{File: IntervalsFile, Line: f.ivLine, Reason: fmt.Sprintf("invalid JSON: %v", err)}
			break
		}
		if rec.Start.IsZero() || rec.End.IsZero() {
			ivDamage = &TruncatedError{File: IntervalsFile, Line: f.ivLine, Reason: "interval without start or end"}
			break
		}
		f.recs = append(f.recs, rec)
	}
	hlBytes, err := readComplete(filepath.Join(f.run.Dir, HlogFile), &f.hlogOff)
	if err != nil {
		return nil, fmt.Errorf("read intervals of run %s: %w", f.run.Dir, err)
	}
	var hlDamage *TruncatedError
	if len(hlBytes) > 0 {
		hr := &hlogReader{lr: newLineReader(bytes.NewReader(hlBytes)), baseSec: f.baseSec}
		hr.lr.line = f.hlogLine
		for {
			hl, reason, err := hr.next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("read intervals of run %s: %w", f.run.Dir, err)
			}
			if reason != "" {
				// Only complete lines are read: this one is damaged.
				// The records whose histograms came before it are
				// still returned.
				hlDamage = &TruncatedError{File: HlogFile, Line: hl.line, Reason: reason}
				break
			}
			f.hls = append(f.hls, hl)
		}
		f.hlogLine, f.baseSec = hr.lr.line, hr.baseSec
	}
	var (
		out     []Interval
		pending []pendingHist
	)
	for len(f.recs) > 0 && len(f.hls) >= len(f.recs[0].Series) {
		rec := f.recs[0]
		k := f.n + len(out)
		iv := Interval{Start: rec.Start.UTC(), End: rec.End.UTC(), Series: make(map[string]*IntervalData, len(rec.Series)), Extra: rec.Extra}
		startMs, endMs := rec.Start.UnixMilli(), rec.End.UnixMilli()
		for _, hl := range f.hls[:len(rec.Series)] {
			c, ok := rec.Series[hl.tag]
			if !ok || iv.Series[hl.tag] != nil {
				return f.fail(out, &TruncatedError{File: HlogFile, Line: hl.line, Reason: fmt.Sprintf("unexpected series %q for interval %d (%s line %d)", hl.tag, k+1, IntervalsFile, k+1)})
			}
			if hl.startMs != startMs || hl.lenMs != endMs-startMs {
				return f.fail(out, &TruncatedError{File: HlogFile, Line: hl.line, Reason: fmt.Sprintf("timestamps do not match interval %d (%s line %d)", k+1, IntervalsFile, k+1)})
			}
			d := &IntervalData{Count: c.Count, Errors: c.Errors}
			iv.Series[hl.tag] = d
			pending = append(pending, pendingHist{data: d, payload: string(hl.raw), tag: hl.tag, startMs: startMs, endMs: endMs, line: hl.line, interval: len(out)})
		}
		f.hls = f.hls[len(rec.Series):]
		f.recs = f.recs[1:]
		out = append(out, iv)
	}
	if derr := decodeAll(pending); derr != nil {
		return f.fail(out[:derr.interval], &TruncatedError{File: HlogFile, Line: derr.line, Reason: derr.reason})
	}
	// As Intervals: damaged histograms that a committed record needs stop
	// the log there, before a damaged record after them; damaged
	// histograms after every record stop it too.
	switch {
	case hlDamage != nil && len(f.recs) > 0:
		return f.fail(out, hlDamage)
	case ivDamage != nil:
		return f.fail(out, ivDamage)
	case hlDamage != nil:
		return f.fail(out, hlDamage)
	}
	f.n += len(out)
	return out, nil
}

// fail records the damage trunc (its Complete counting every interval
// returned, these included) and returns the intervals before it with it.
func (f *Follower) fail(ivs []Interval, trunc *TruncatedError) ([]Interval, error) {
	f.n += len(ivs)
	trunc.Complete = f.n
	f.err = trunc
	return ivs, trunc
}

// Pending reports whether a histogram line has been read that no commit
// record has taken yet: once the writer has finished, such lines mean the
// run was killed in the middle of an interval.
func (f *Follower) Pending() bool { return len(f.hls) > 0 }

// readComplete reads path from *off to its last complete line (ending in a
// newline) and moves *off past it; an incomplete last line is left for the
// next call.
func readComplete(path string, off *int64) ([]byte, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() < *off {
		return nil, errors.New("the file shrank: it is append-only, so it was replaced")
	}
	if fi.Size() == *off {
		return nil, nil
	}
	buf := make([]byte, fi.Size()-*off)
	n, err := file.ReadAt(buf, *off)
	if err != nil && err != io.EOF {
		return nil, err
	}
	buf = buf[:n]
	end := bytes.LastIndexByte(buf, '\n') + 1
	*off += int64(end)
	return buf[:end], nil
}
