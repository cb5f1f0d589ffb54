package runlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Kinds of events written by this package or commonly used by callers. Event
// kinds are open-ended; these are constants and thus safe for concurrent use.
const (
	EventError     = "error"
	EventReconnect = "reconnect"
	EventPhase     = "phase"
)

// PhaseRampEnd is the Code of the "phase" event recorded by
// Writer.SetRampEnd. It is a constant and thus safe for concurrent use.
const PhaseRampEnd = "ramp_end"

// maxEventBuffer bounds the events buffered between two flushes; events
// beyond it are counted and replaced by one "dropped" event.
const maxEventBuffer = 16 << 20

// ErrClosed is returned by Writer methods called after Finish or Close. It is
// never modified and thus safe for concurrent use.
var ErrClosed = errors.New("run writer is already finished or closed")

// Event is one line of events.ndjson: something noteworthy that happened at
// a point in time, such as an error, a reconnect or a phase change. An Event
// is a plain value; as with any Go value, concurrent reads are safe and
// writes need external synchronization.
type Event struct {
	// Time is when the event happened; Writer.Event uses time.Now() if it is
	// zero.
	Time time.Time `json:"time"`
	// Kind is "error", "reconnect", "phase" or another caller-defined word.
	Kind string `json:"kind"`
	// Op is the operation or series concerned, if any.
	Op string `json:"op,omitempty"`
	// Code is a machine-readable code, such as an SQLSTATE or a phase name.
	Code string `json:"code,omitempty"`
	// Message is a human-readable description.
	Message string `json:"message,omitempty"`
	// Value is the event's number, if it has one (a "figure" event's).
	Value float64 `json:"value,omitempty"`
}

// IntervalSeries is the measurement of one series during one interval, as
// given to Writer.WriteInterval. It is a plain value; as with any Go value,
// concurrent reads are safe and writes need external synchronization.
type IntervalSeries struct {
	// Name is the series name; it becomes the histogram's tag in
	// intervals.hlog.
	Name string
	// Hist holds the latencies of the interval's successful operations in
	// nanoseconds. It (or Packed) must not be nil; an empty histogram is
	// written too.
	Hist *hdrhistogram.Histogram
	// Packed holds them instead of Hist, sparse: it is written as the
	// dense histogram of the same counts is, to the byte.
	Packed *hdrhistogram.PackedHistogram
	// Count is the number of operations, normally Hist.TotalCount().
	Count int64
	// Errors is the number of failed operations, whose latencies are not in
	// Hist.
	Errors int64
}

// Writer writes one run directory. Create it with Create, call WriteInterval
// once per measurement interval, and end it with Finish (or, if the run
// cannot be finished properly, Close).
//
// A Writer is not safe for concurrent use, except for Event, which may be
// called from any number of goroutines at any time, concurrently with each
// other and with every other method.
type Writer struct {
	dir       string
	endBeside string          // EndFile, when the run's end was recorded there
	info      RunInfo         // as in run.json
	rampEnd   *time.Time      // for the final run.json
	series    map[string]bool // allowed series names; nil allows all
	baseMs    int64           // BaseTime of intervals.hlog, in ms since the epoch

	hlog, ivl, events *os.File
	telemetry         *os.File // created by the first WriteTelemetry
	telErr            error    // sticky error writing telemetry.ndjson
	hlogBuf           bytes.Buffer
	empty             map[histConfig][]byte // encodings of empty histograms (see writeEmpty)
	enc               histEncoder           // encodes the others (stored: see intervalEncoding)
	line              []byte                // an interval line of intervals.hlog, built by WriteInterval
	ivErr             error                 // sticky error writing intervals.hlog/intervals.ndjson
	intervals         int
	done              bool
	evSpare           []byte // owned by the flushing (non-concurrent) side

	mu        sync.Mutex // guards the fields below
	evBuf     []byte
	evDropped int64
	evErr     error // errors deferred to Finish and Close
	evBroken  bool  // a write to events.ndjson failed; stop writing
	evClosed  bool
}

// Create creates the run directory root/info.ID and returns a Writer for it.
// root is created if needed; the run directory itself must not exist yet.
//
// info.ID must consist of ASCII letters, digits, '.', '_' and '-', starting
// with a letter or digit (NewID produces such IDs); info.Start must be set;
// info.Series must be valid, unique series names (see ValidSeriesName). If
// info.Series is not empty, WriteInterval accepts only those names. Create
// sets FormatVersion to FormatVersion and Status to "running", clears End and
// Error, converts times to UTC and writes run.json after the (empty)
// measurement files. The Writer keeps its own copy of info. If Create fails
// it removes the run directory it created.
//
// Create is safe for concurrent use; concurrent calls with the same ID
// create the directory at most once and the others fail.
func Create(root string, info RunInfo) (*Writer, error) {
	return create(root, info)
}

func create(root string, info RunInfo) (_ *Writer, err error) {
	info = cloneInfo(info)
	info.FormatVersion = FormatVersion
	info.Status = StatusRunning
	info.End = nil
	info.Error = ""
	normalize(&info)
	if err := validateInfo(&info); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(root, dirPerm); err != nil {
		return nil, fmt.Errorf("create run root: %w", err)
	}
	dir := filepath.Join(root, info.ID)
	if err := os.Mkdir(dir, dirPerm); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("run directory %s already exists: %w", dir, fs.ErrExist)
		}
		return nil, fmt.Errorf("create run directory: %w", err)
	}
	startMs := info.Start.UnixMilli()
	w := &Writer{
		dir:     dir,
		info:    info,
		rampEnd: info.RampEnd,
		baseMs:  startMs - startMs%1000,
		enc:     histEncoder{stored: intervalEncoding == storedEncoding},
	}
	if len(info.Series) > 0 {
		w.series = make(map[string]bool, len(info.Series))
		for _, s := range info.Series {
			w.series[s] = true
		}
	}
	defer func() {
		if err != nil {
			for _, f := range []*os.File{w.hlog, w.ivl, w.events} {
				if f != nil {
					_ = f.Close()
				}
			}
			_ = os.RemoveAll(dir)
		}
	}()

	if w.hlog, err = createAppend(dir, HlogFile); err != nil {
		return nil, err
	}
	// Held until the writer closes, or the process dies: readers tell a
	// killed run from a running one by it (see StatusKilled).
	_ = lockLive(w.hlog)
	var hdr bytes.Buffer
	lw := hdrhistogram.NewHistogramLogWriter(&hdr)
	_ = lw.OutputLogFormatVersion() // writes to a bytes.Buffer cannot fail
	_ = lw.OutputComment(fmt.Sprintf("[stampede run %s: values in nanoseconds, Interval_Max in milliseconds]", info.ID))
	_ = lw.OutputStartTime(w.baseMs)
	_ = lw.OutputBaseTime(w.baseMs)
	_ = lw.OutputLegend()
	if _, err = w.hlog.Write(hdr.Bytes()); err != nil {
		return nil, fmt.Errorf("write %s: %w", HlogFile, err)
	}
	if err = w.hlog.Sync(); err != nil {
		return nil, fmt.Errorf("sync %s: %w", HlogFile, err)
	}
	if w.ivl, err = createAppend(dir, IntervalsFile); err != nil {
		return nil, err
	}
	if w.events, err = createAppend(dir, EventsFile); err != nil {
		return nil, err
	}
	data, err := marshalIndent(info)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", RunFile, err)
	}
	if err = writeFileAtomic(dir, RunFile, data); err != nil {
		return nil, fmt.Errorf("write %s: %w", RunFile, err)
	}
	if err = syncDir(root); err != nil {
		return nil, fmt.Errorf("sync run root: %w", err)
	}
	w.reserve()
	return w, nil
}

// reserveFile holds disk space for the end of a run, and reserveSize is
// how much: Finish removes it before it writes summary.json and the final
// run.json, so that a run that filled its results disk can still record
// how it ended (and that its run log is incomplete) instead of being left
// "running", which readers take for killed. It is far more than either
// file takes (a few KiB; tens for a run of many series).
const (
	reserveFile = ".reserve"
	reserveSize = 512 << 10
)

// reserve writes the reserve file, reserveSize bytes or, on a disk with
// less free, half of what it holds: the run's end needs a few KiB, which
// whatever could be reserved is more likely to hold than nothing (an
// all-or-nothing reserve left a run started on a nearly full disk
// without any, and its end was never recorded). Only when nothing at all
// can be written does the run go on without one (its writes will fail
// soon anyway, and say so). Where the file system can, the blocks are
// preallocated (fallocate) instead of written and synced: a tenth of the
// run directory's creation cost.
func (w *Writer) reserve() {
	path := filepath.Join(w.dir, reserveFile)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, filePerm)
	if err != nil {
		return
	}
	if preallocate(f, reserveSize) == nil {
		if f.Close() != nil {
			_ = os.Remove(path)
		}
		return
	}
	chunk := make([]byte, 16<<10) // written, not sparse: it holds real blocks
	n := 0
	for n < reserveSize {
		k, err := f.Write(chunk[:min(len(chunk), reserveSize-n)])
		n += k
		if err != nil {
			// The disk is full: keep half of what it held, and leave
			// the run the other half for its first intervals.
			n /= 2
			_ = f.Truncate(int64(n))
			break
		}
	}
	_ = f.Sync()
	if cerr := f.Close(); n == 0 || cerr != nil {
		_ = os.Remove(path)
	}
}

// unreserve frees the reserve file's space.
func (w *Writer) unreserve() { _ = os.Remove(filepath.Join(w.dir, reserveFile)) }

func createAppend(dir, name string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, filePerm)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", name, err)
	}
	return f, nil
}

// Dir returns the run directory. It is safe for concurrent use.
func (w *Writer) Dir() string { return w.dir }

// Info returns a copy of the RunInfo as currently stored in run.json (after
// Finish, including End, Status, Error and RampEnd). It is not safe for
// concurrent use with the other methods except Event.
func (w *Writer) Info() RunInfo { return cloneInfo(w.info) }

// WriteInterval appends one measurement interval [start, end): one line per
// element of series to intervals.hlog, which is then fsynced, and then the
// interval's commit record to intervals.ndjson, which is fsynced too. It
// also flushes and fsyncs the events recorded so far.
//
// Every element of series is written, including those with empty histograms,
// in the given order; callers should pass every series in every interval so
// that each interval has a line for each series. Series names must be valid
// (see ValidSeriesName), unique within the call and, if RunInfo.Series was not
// empty, among RunInfo.Series. Hist must not be nil and holds nanoseconds;
// WriteInterval does not modify or retain the histograms. Count and Errors
// must not be negative. extra holds arbitrary finite per-interval numbers,
// such as reconnects; it may be nil. end must be after start and start must
// not be before the run's start truncated to whole seconds. Intervals are
// expected in chronological order.
//
// Invalid arguments are reported without writing anything. If writing fails,
// the interval files may end in an incomplete interval, so every later call
// returns an error as well; Finish can still record the run's end. Errors
// writing events are not returned here but by Finish or Close.
//
// WriteInterval is not safe for concurrent use with the other methods except
// Event.
func (w *Writer) WriteInterval(start, end time.Time, series []IntervalSeries, extra map[string]float64) error {
	if w.done {
		return ErrClosed
	}
	if w.ivErr != nil {
		return fmt.Errorf("run %s: cannot write intervals after an earlier write error: %w", w.info.ID, w.ivErr)
	}
	if start.IsZero() || end.IsZero() {
		return fmt.Errorf("run %s: interval start and end must be set", w.info.ID)
	}
	if !end.After(start) {
		return fmt.Errorf("run %s: interval end %s is not after its start %s", w.info.ID, end.UTC().Format(time.RFC3339Nano), start.UTC().Format(time.RFC3339Nano))
	}
	startMs, endMs := start.UnixMilli(), end.UnixMilli()
	if startMs < w.baseMs {
		return fmt.Errorf("run %s: interval start %s is before the run's start %s", w.info.ID, start.UTC().Format(time.RFC3339Nano), w.info.Start.Format(time.RFC3339Nano))
	}
	rec := intervalRecord{
		Start:  start.UTC(),
		End:    end.UTC(),
		Series: make(map[string]seriesCounts, len(series)),
		Extra:  extra,
	}
	for k, v := range extra {
		if k == "" {
			return fmt.Errorf("run %s: empty extra name", w.info.ID)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("run %s: extra %q is %v, which JSON cannot represent", w.info.ID, k, v)
		}
	}
	w.hlogBuf.Reset()
	for _, s := range series {
		if err := ValidSeriesName(s.Name); err != nil {
			return fmt.Errorf("run %s: %w", w.info.ID, err)
		}
		if w.series != nil && !w.series[s.Name] {
			return fmt.Errorf("run %s: unknown series %q (not in RunInfo.Series)", w.info.ID, s.Name)
		}
		if _, dup := rec.Series[s.Name]; dup {
			return fmt.Errorf("run %s: series %q given twice in one interval", w.info.ID, s.Name)
		}
		if s.Hist == nil && s.Packed == nil {
			return fmt.Errorf("run %s: series %q has no histogram", w.info.ID, s.Name)
		}
		if s.Count < 0 || s.Errors < 0 {
			return fmt.Errorf("run %s: series %q has a negative count", w.info.ID, s.Name)
		}
		rec.Series[s.Name] = seriesCounts{Count: s.Count, Errors: s.Errors}
		var h histogram = s.Packed
		if s.Hist != nil {
			h = s.Hist
		}
		if h.TotalCount() == 0 {
			if err := w.writeEmpty(s.Name, h, startMs, endMs); err != nil {
				return fmt.Errorf("run %s: encode histogram of series %q: %w", w.info.ID, s.Name, err)
			}
			continue
		}
		if err := w.writeHist(s.Name, h, startMs, endMs); err != nil {
			return fmt.Errorf("run %s: encode histogram of series %q: %w", w.info.ID, s.Name, err)
		}
	}
	line, err := marshalLine(rec)
	if err != nil {
		return fmt.Errorf("run %s: encode interval: %w", w.info.ID, err)
	}

	if err := w.appendSync(w.hlog, HlogFile, w.hlogBuf.Bytes()); err != nil {
		return err
	}
	if err := w.appendSync(w.ivl, IntervalsFile, line); err != nil {
		return err
	}
	w.intervals++
	w.flushEvents()
	return nil
}

// writeHist writes the interval line of histogram h of series name to
// hlogBuf: the line HistogramLogWriter.OutputIntervalHistogram writes
// (TestIntervalLinesAsLibrary compares them), encoded by w.enc (see
// histEncoder).
func (w *Writer) writeHist(name string, h histogram, startMs, endMs int64) error {
	payload, maxNs, err := w.enc.encode(h)
	if err != nil {
		return err
	}
	start := (float64(startMs) - float64(w.baseMs)) / 1000.0
	end := (float64(endMs) - float64(w.baseMs)) / 1000.0
	w.line = append(append(append(w.line[:0], "Tag="...), name...), ',')
	w.line = strconv.AppendFloat(w.line, start, 'f', 6, 64)
	w.line = append(w.line, ',')
	w.line = strconv.AppendFloat(w.line, end-start, 'f', 6, 64)
	w.line = append(w.line, ',')
	w.line = strconv.AppendFloat(w.line, float64(maxNs)/hdrhistogram.MsToNsRatio, 'f', 6, 64)
	w.line = append(append(append(w.line, ','), payload...), '\n')
	w.hlogBuf.Write(w.line)
	return nil
}

// histConfig is what an empty histogram's encoding depends on.
type histConfig struct{ lowest, highest, digits int64 }

// writeEmpty writes the interval line of an empty histogram h of series
// name to hlogBuf, the line HistogramLogWriter.OutputIntervalHistogram
// writes (TestEmptyIntervalLines compares them), with the histogram's
// encoding computed once per configuration: the library compresses each
// encoding with a new zlib writer at its best compression, about 1 MB of
// garbage, and most series of a run are empty in most intervals (a rated
// YCSB run has 64 series, of which 4 have values), which at one interval a
// second made 36 MB/s of garbage and a collection every second.
func (w *Writer) writeEmpty(name string, h histogram, startMs, endMs int64) error {
	cfg := histConfig{h.LowestTrackableValue(), h.HighestTrackableValue(), h.SignificantFigures()}
	payload, ok := w.empty[cfg]
	if !ok {
		var err error
		if payload, err = hdrhistogram.New(cfg.lowest, cfg.highest, int(cfg.digits)).Encode(hdrhistogram.V2CompressedEncodingCookieBase); err != nil {
			return err
		}
		if w.empty == nil {
			w.empty = make(map[histConfig][]byte)
		}
		w.empty[cfg] = payload
	}
	start := (float64(startMs) - float64(w.baseMs)) / 1000.0
	end := (float64(endMs) - float64(w.baseMs)) / 1000.0
	_, err := fmt.Fprintf(&w.hlogBuf, "Tag=%s,%f,%f,%f,%s\n", name, start, end-start, float64(h.Max())/hdrhistogram.MsToNsRatio, payload)
	return err
}

// AddSeries allows more series names in WriteInterval, for series that
// begin during the run (the operations of an endpoint added to it). Their
// names must be valid and new; run.json lists them when the run finishes
// (and readers take series from intervals.ndjson before that). Without
// RunInfo.Series every name is allowed already. Like WriteInterval, it is
// not safe for concurrent use with the other methods except Event.
func (w *Writer) AddSeries(names ...string) error {
	if w.done {
		return ErrClosed
	}
	for _, n := range names {
		if err := ValidSeriesName(n); err != nil {
			return fmt.Errorf("run %s: %w", w.info.ID, err)
		}
		if w.series != nil && w.series[n] {
			return fmt.Errorf("run %s: duplicate series %q", w.info.ID, n)
		}
	}
	if w.series == nil {
		return nil
	}
	for _, n := range names {
		w.series[n] = true
		w.info.Series = append(w.info.Series, n)
	}
	return nil
}

// WriteTelemetry appends one telemetry sample, encoded as one line of JSON,
// to telemetry.ndjson (created by the first call) and fsyncs it, so that a
// killed run keeps every sample it took. A write failure is sticky: later
// calls return it too, and the interval files are not affected.
//
// WriteTelemetry is not safe for concurrent use with the other methods
// except Event.
func (w *Writer) WriteTelemetry(sample any) error {
	if w.done {
		return ErrClosed
	}
	if w.telErr != nil {
		return w.telErr
	}
	line, err := marshalLine(sample)
	if err != nil {
		return fmt.Errorf("run %s: encode telemetry sample: %w", w.info.ID, err)
	}
	if w.telemetry == nil {
		f, err := createAppend(w.dir, TelemetryFile)
		if err != nil {
			w.telErr = err
			return err
		}
		w.telemetry = f
	}
	if _, err = w.telemetry.Write(line); err == nil {
		err = w.telemetry.Sync()
	}
	if err != nil {
		w.telErr = fmt.Errorf("write %s: %w", filepath.Join(w.dir, TelemetryFile), err)
		return w.telErr
	}
	return nil
}

// appendSync appends data to f and fsyncs it; a failure breaks the interval
// files for good.
func (w *Writer) appendSync(f *os.File, name string, data []byte) error {
	_, err := f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		w.ivErr = fmt.Errorf("write %s: %w", filepath.Join(w.dir, name), err)
		return w.ivErr
	}
	return nil
}

// Event records an event. It only appends to an in-memory buffer (never
// blocking on I/O); the buffer is appended to events.ndjson and fsynced by
// WriteInterval, Finish and Close. A zero e.Time is replaced by time.Now();
// times are stored in UTC. If more than 16 MiB of events accumulate between
// two flushes, further events are counted and recorded as a single event of
// kind "dropped". Errors are remembered and returned by Finish or Close.
// Events recorded after Finish or Close are ignored.
//
// Event is safe for concurrent use, with itself and with all other methods.
func (w *Writer) Event(e Event) {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	e.Time = e.Time.UTC()
	line, err := marshalLine(e)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.evClosed {
		return
	}
	if err != nil {
		w.evErr = errors.Join(w.evErr, fmt.Errorf("encode %s event: %w", e.Kind, err))
		return
	}
	if len(w.evBuf)+len(line) > maxEventBuffer {
		w.evDropped++
		return
	}
	w.evBuf = append(w.evBuf, line...)
}

// flushEvents appends the buffered events to events.ndjson and fsyncs it. It
// is called only by the non-concurrent methods; Event may run concurrently.
func (w *Writer) flushEvents() {
	w.mu.Lock()
	data, dropped, broken := w.evBuf, w.evDropped, w.evBroken
	w.evBuf, w.evDropped = w.evSpare[:0], 0
	w.evSpare = nil
	w.mu.Unlock()
	if dropped > 0 {
		line, _ := marshalLine(Event{
			Time:    time.Now().UTC(),
			Kind:    "dropped",
			Message: fmt.Sprintf("%d events dropped: more than %d MiB of events in one interval", dropped, maxEventBuffer>>20),
		})
		data = append(data, line...)
	}
	if len(data) > 0 && !broken {
		_, err := w.events.Write(data)
		if err == nil {
			err = w.events.Sync()
		}
		if err != nil {
			w.mu.Lock()
			w.evBroken = true
			w.evErr = errors.Join(w.evErr, fmt.Errorf("write %s: %w", filepath.Join(w.dir, EventsFile), err))
			w.mu.Unlock()
		}
	}
	w.evSpare = data[:0]
}

// Err returns the errors of the writes that failed so far (interval
// files, telemetry, events), nil if none: the run log lacks what they
// were writing. It does not clear them, and is not safe for concurrent use
// with the other methods except Event.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return errors.Join(w.ivErr, w.telErr, w.evErr)
}

// SetRampEnd records the end of the ramp-up phase: it records a "phase"
// event with code "ramp_end" at t (written with the next flush) and
// remembers t for RunInfo.RampEnd in the final run.json. Until the run is
// finished, run.json does not contain it. It is not safe for concurrent use
// with the other methods except Event.
func (w *Writer) SetRampEnd(t time.Time) error {
	if w.done {
		return ErrClosed
	}
	if t.IsZero() {
		return fmt.Errorf("run %s: zero ramp end time", w.info.ID)
	}
	t = t.UTC()
	w.rampEnd = &t
	w.Event(Event{Time: t, Kind: EventPhase, Code: PhaseRampEnd, Message: "ramp-up finished"})
	return nil
}

// finalStatus reports whether s is a status Finish accepts.
func finalStatus(s string) bool {
	return s == StatusCompleted || s == StatusInterrupted || s == StatusFailed
}

// Finish ends the run: it flushes the buffered events, syncs and closes the
// measurement files, writes summary.json (atomically, two-space indented) if
// summary is not nil, and finally replaces run.json atomically with End,
// Status, Error and RampEnd filled in. status must be "completed",
// "interrupted" or "failed"; otherwise, or if end is zero, Finish returns an
// error and does nothing else. summary may be a json.RawMessage or any value
// that encoding/json accepts; a nil summary (including a nil
// json.RawMessage, map or pointer) writes no summary.json.
//
// Finish performs every step even if an earlier one fails and returns all
// errors, including those remembered from Event. After Finish, the other
// methods return ErrClosed, except Close, which returns nil, and Event,
// which does nothing. Finish is not safe for concurrent use with the other
// methods except Event.
func (w *Writer) Finish(end time.Time, status, errMsg string, summary any) error {
	if w.done {
		return ErrClosed
	}
	if !finalStatus(status) {
		return fmt.Errorf("run %s: invalid final status %q (want %q, %q or %q)", w.info.ID, status, StatusCompleted, StatusInterrupted, StatusFailed)
	}
	if end.IsZero() {
		return fmt.Errorf("run %s: zero end time", w.info.ID)
	}
	var errs error
	var sum []byte
	if !isNil(summary) {
		var err error
		if sum, err = marshalIndent(summary); err != nil {
			joinErr(&errs, fmt.Errorf("encode %s: %w", SummaryFile, err))
		}
	}
	w.done = true
	joinErr(&errs, w.closeFiles())
	w.unreserve()
	if sum != nil {
		// Its name is made durable by run.json's fsync of the directory,
		// below: one directory fsync for both.
		if err := replaceFile(w.dir, SummaryFile, sum); err != nil {
			joinErr(&errs, fmt.Errorf("write %s: %w", SummaryFile, err))
		}
	}
	info := cloneInfo(w.info)
	end = end.UTC()
	info.End = &end
	info.Status = status
	info.Error = errMsg
	if w.rampEnd != nil {
		t := *w.rampEnd
		info.RampEnd = &t
	}
	if data, err := marshalIndent(info); err != nil {
		joinErr(&errs, fmt.Errorf("encode %s: %w", RunFile, err))
		joinErr(&errs, syncDir(w.dir)) // summary.json's name
	} else if err := writeFileAtomic(w.dir, RunFile, data); err != nil {
		joinErr(&errs, fmt.Errorf("write %s: %w", RunFile, err))
		w.recordEndBeside(info, err)
	} else {
		w.info = info
	}
	// The run's lock goes last, with intervals.hlog: a reader that found
	// it free while run.json still said "running" took the run for killed.
	joinErr(&errs, w.closeHlog())
	w.mu.Lock()
	joinErr(&errs, w.evErr)
	w.evErr = nil
	w.mu.Unlock()
	return errs
}

// recordEndBeside writes the run's end, which its directory could not
// take (made read-only during the run, say: writeErr), into EndFile
// beside it, marked incomplete: readers then show the run as what it
// was, not as killed. The run's message says where it went (EndBeside).
func (w *Writer) recordEndBeside(info RunInfo, writeErr error) {
	if _, err := os.Stat(filepath.Join(w.dir, RunFile)); err != nil {
		return // the directory is gone: nothing to read the end with
	}
	cause := writeErr.Error()
	var pe *fs.PathError
	if errors.As(writeErr, &pe) {
		cause = pe.Err.Error()
	}
	note := IncompletePrefix + "its directory could not be written at its end (" + RunFile + ": " + cause + "), so its files hold the run up to that point and its end is recorded beside it, in " + filepath.Base(EndFile(w.dir))
	if info.Error != "" {
		note = info.Error + "; " + note
	}
	info.Error = note
	data, err := marshalIndent(info)
	if err == nil {
		err = writeFileAtomic(filepath.Dir(w.dir), filepath.Base(EndFile(w.dir)), data)
	}
	if err == nil {
		w.endBeside = EndFile(w.dir)
	}
}

// EndBeside returns the file beside the run directory that recorded the
// run's end when the directory could not (see EndFile), "" when none did.
func (w *Writer) EndBeside() string { return w.endBeside }

// EndFile is the file, beside run directory dir, where a run records its
// end when the directory cannot take its final run.json (read-only):
// .ID.end.json, a run.json marked incomplete, which readers take in place
// of the directory's run.json still saying "running".
func EndFile(dir string) string {
	return filepath.Join(filepath.Dir(dir), "."+filepath.Base(dir)+".end.json")
}

// isNil reports whether v is nil or a nil pointer, map, slice or interface.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	if raw, ok := v.(json.RawMessage); ok {
		return len(raw) == 0
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

// Close ends writing without finishing the run: it flushes the buffered
// events, closes the files and releases the run's lock, leaving run.json
// with status "running" as after a crash, so readers report the run killed. It returns the errors of closing and those remembered from
// Event. Close is idempotent: calls after the first, or after Finish, return
// nil. It is not safe for concurrent use with the other methods except
// Event.
func (w *Writer) Close() error {
	if w.done {
		return nil
	}
	w.done = true
	errs := w.closeFiles()
	joinErr(&errs, w.closeHlog())
	w.unreserve()
	w.mu.Lock()
	joinErr(&errs, w.evErr)
	w.evErr = nil
	w.mu.Unlock()
	return errs
}

// closeHlog closes intervals.hlog, which releases the run's lock.
func (w *Writer) closeHlog() error {
	if err := w.hlog.Close(); err != nil {
		return fmt.Errorf("close %s: %w", HlogFile, err)
	}
	return nil
}

// closeFiles flushes the events, stops accepting new ones and closes the
// measurement files but intervals.hlog, whose file holds the run's lock
// (see closeHlog).
func (w *Writer) closeFiles() error {
	w.mu.Lock()
	w.evClosed = true
	w.mu.Unlock()
	w.flushEvents()
	var errs error
	for _, c := range []struct {
		f    *os.File
		name string
	}{{w.ivl, IntervalsFile}, {w.events, EventsFile}} {
		if err := c.f.Close(); err != nil {
			joinErr(&errs, fmt.Errorf("close %s: %w", c.name, err))
		}
	}
	if w.telemetry != nil {
		if err := w.telemetry.Close(); err != nil {
			joinErr(&errs, fmt.Errorf("close %s: %w", TelemetryFile, err))
		}
	}
	return errs
}
