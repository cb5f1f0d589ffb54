package runlog

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Errors reported by Open and Find; test for them with errors.Is. They are
// never modified and thus safe for concurrent use.
var (
	// ErrNotRunDir means a directory has no run.json.
	ErrNotRunDir = errors.New("not a stampede run directory")
	// ErrUnsupportedFormat means run.json has a format version this package
	// cannot read.
	ErrUnsupportedFormat = errors.New("unsupported run format version")
	// ErrRunNotFound means no run matches a reference given to Find.
	ErrRunNotFound = errors.New("run not found")
	// ErrAmbiguousRun means several runs match a reference given to Find.
	ErrAmbiguousRun = errors.New("ambiguous run reference")
)

// seriesCounts is one series of an intervals.ndjson record.
type seriesCounts struct {
	Count  int64 `json:"count"`
	Errors int64 `json:"errors"`
}

// intervalRecord is one line of intervals.ndjson.
type intervalRecord struct {
	Start  time.Time               `json:"start"`
	End    time.Time               `json:"end"`
	Series map[string]seriesCounts `json:"series"`
	Extra  map[string]float64      `json:"extra,omitempty"`
}

// TruncatedError reports that a file of a run directory ends, or becomes
// unreadable, before its end, typically because the process writing the run
// was killed in the middle of a write. It is returned together with the
// complete records before the damage, which callers can use after printing a
// warning. It wraps nothing. A TruncatedError is a plain value; as with any
// Go value, concurrent reads are safe and writes need external
// synchronization.
type TruncatedError struct {
	// File is the name of the damaged file within the run directory.
	File string
	// Line is the 1-based line number where reading stopped.
	Line int
	// Reason says what is wrong with that line.
	Reason string
	// Complete is the number of complete records (intervals or events)
	// returned alongside the error.
	Complete int
}

// Error returns, for example, "intervals.hlog is truncated at line 12:
// incomplete last line; showing the 3 complete intervals before it".
func (e *TruncatedError) Error() string {
	noun := "intervals"
	if e.File == EventsFile {
		noun = "events"
	}
	if e.Complete == 1 {
		noun = strings.TrimSuffix(noun, "s")
	}
	return fmt.Sprintf("%s is truncated at line %d: %s; showing the %d complete %s before it", e.File, e.Line, e.Reason, e.Complete, noun)
}

// Run is a run directory opened for reading. Its methods only read the
// directory; they never modify it. A Run is safe for concurrent use as long
// as its fields are not modified.
type Run struct {
	// Dir is the run directory.
	Dir string
	// Info is the content of run.json.
	Info RunInfo
	// Summary is the content of summary.json, or nil if there is none.
	Summary json.RawMessage

	memo *intervalsMemo // set by Memoize
}

// intervalsMemo holds the intervals of a memoized Run, read once.
type intervalsMemo struct {
	once sync.Once
	ivs  []Interval
	err  error
}

// Memoize returns a copy of r whose Intervals reads the run's files once,
// the first time, and then returns the same intervals (and error) to every
// caller, concurrent ones included: for a reader that computes several
// views of a run that no longer changes (a finished run) without decoding
// its histograms each time. The intervals returned are shared: callers must
// not modify them.
func (r *Run) Memoize() *Run {
	c := *r
	c.memo = &intervalsMemo{}
	return &c
}

// Interval is one measurement interval read back from a run directory. It is
// a plain value; as with any Go value, concurrent reads are safe and writes
// need external synchronization.
type Interval struct {
	// Start and End are the interval's exact bounds.
	Start, End time.Time
	// Series holds the interval's data per series name.
	Series map[string]*IntervalData
	// Extra holds the interval's extra numbers; nil if there were none.
	Extra map[string]float64
}

// IntervalData is the data of one series in one interval. It is a plain
// value; as with any Go value, concurrent reads are safe and writes need
// external synchronization.
type IntervalData struct {
	// Packed holds the latencies in nanoseconds, decoded sparse (only the
	// buckets that hold values): a run of hours decodes and merges in a
	// fraction of the time and memory dense histograms would take. Its tag
	// is the series name and its start and end times are the interval's,
	// in milliseconds. Use MergeInto or Histogram to work with it.
	Packed *hdrhistogram.PackedHistogram
	// Count is the number of operations, as given to WriteInterval.
	Count int64
	// Errors is the number of failed operations.
	Errors int64
}

// MergeInto adds the interval's values to dst exactly (dst must have the
// same geometry) and returns how many could not be recorded.
func (d *IntervalData) MergeInto(dst *hdrhistogram.Histogram) int64 {
	return d.Packed.MergeInto(dst)
}

// Histogram returns the interval's values as a new dense histogram, with
// the interval's tag and times.
func (d *IntervalData) Histogram() *hdrhistogram.Histogram {
	p := d.Packed
	h := hdrhistogram.New(p.LowestTrackableValue(), p.HighestTrackableValue(), int(p.SignificantFigures()))
	p.MergeInto(h)
	h.SetTag(p.Tag())
	h.SetStartTimeMs(p.StartTimeMs())
	h.SetEndTimeMs(p.EndTimeMs())
	return h
}

// Open opens the run directory dir: it reads run.json and, if present,
// summary.json. It fails with an error wrapping ErrNotRunDir if dir has no
// run.json ("not a stampede run directory: <dir> (no run.json)") and with one
// wrapping ErrUnsupportedFormat if run.json's format version is not
// FormatVersion. Open never modifies the directory and is safe for
// concurrent use.
func Open(dir string) (*Run, error) {
	info, err := readInfo(dir)
	if err != nil {
		return nil, err
	}
	r := &Run{Dir: dir, Info: info}
	data, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("read run %s: %w", dir, err)
	case !json.Valid(data):
		return nil, fmt.Errorf("read run %s: %s is not valid JSON", dir, SummaryFile)
	default:
		r.Summary = json.RawMessage(bytes.TrimSpace(data))
	}
	return r, nil
}

// readInfo reads and checks dir/run.json.
func readInfo(dir string) (RunInfo, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return RunInfo{}, fmt.Errorf("open run: %w", err)
	}
	if !fi.IsDir() {
		return RunInfo{}, fmt.Errorf("%w: %s (not a directory)", ErrNotRunDir, dir)
	}
	data, err := os.ReadFile(filepath.Join(dir, RunFile))
	if errors.Is(err, fs.ErrNotExist) {
		return RunInfo{}, fmt.Errorf("%w: %s (no %s)", ErrNotRunDir, dir, RunFile)
	}
	if err != nil {
		return RunInfo{}, fmt.Errorf("open run: %w", err)
	}
	var v struct {
		FormatVersion *int `json:"format_version"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return RunInfo{}, fmt.Errorf("%s: invalid %s: %w", dir, RunFile, err)
	}
	if v.FormatVersion == nil {
		return RunInfo{}, fmt.Errorf("%s: %w: %s has no format_version", dir, ErrUnsupportedFormat, RunFile)
	}
	if *v.FormatVersion != FormatVersion {
		return RunInfo{}, fmt.Errorf("%s: %w %d (this stampede reads version %d)", dir, ErrUnsupportedFormat, *v.FormatVersion, FormatVersion)
	}
	var info RunInfo
	if err := json.Unmarshal(data, &info); err != nil {
		return RunInfo{}, fmt.Errorf("%s: invalid %s: %w", dir, RunFile, err)
	}
	normalize(&info)
	if info.Status == StatusRunning && !liveCopy(dir) && writerGone(dir) {
		// The writer records the run's end before it releases its lock:
		// a run.json read before the end, with the lock found free
		// after it, is read again (else a run that just finished reads
		// as killed).
		info.Status = StatusKilled
		if data, err := os.ReadFile(filepath.Join(dir, RunFile)); err == nil {
			var again RunInfo
			if json.Unmarshal(data, &again) == nil && again.Status != StatusRunning && again.ID == info.ID {
				normalize(&again)
				info = again
			}
		}
		// A run whose directory could not take its end (made read-only
		// during the run) recorded it beside the directory.
		if info.Status == StatusKilled {
			if data, err := os.ReadFile(EndFile(dir)); err == nil {
				var end RunInfo
				if json.Unmarshal(data, &end) == nil && end.Status != StatusRunning && end.ID == info.ID {
					normalize(&end)
					info = end
				}
			}
		}
	}
	return info, nil
}

// LiveCopyFile marks a copy of a run directory made while its run was
// live, by a reader that knows it from elsewhere (a run fetched from a
// results store, whose store records when its writer last wrote it): no
// process holds the writer's lock on a copy, so without the mark a
// run.json that says "running" reads as killed. The name starts with "."
// so that listings and comparisons of a run's files skip it.
const LiveCopyFile = ".live-copy"

// MarkLiveCopy marks the run directory dir, a copy of a run made while
// its writer was alive, as such (LiveCopyFile): readers take its
// run.json's "running" for running, not killed. Never call it on a run
// directory a writer writes: its lock says whether it runs.
func MarkLiveCopy(dir string) error {
	return os.WriteFile(filepath.Join(dir, LiveCopyFile), nil, 0o600)
}

// IsLiveCopy reports whether dir is a copy of a run whose writer was
// alive when it was made (MarkLiveCopy): a run read from a results store
// that knew its writer alive.
func IsLiveCopy(dir string) bool { return liveCopy(dir) }

// liveCopy reports whether dir is marked as a live run's copy.
func liveCopy(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, LiveCopyFile))
	return err == nil
}

// Find resolves a run reference to a run directory. ref is, in this order of
// precedence: a directory path (if it contains a path separator or starts
// with "."), a run ID (the name of a directory under root), a prefix of
// exactly one run ID under root, or the path of a run directory relative to
// the working directory. It fails with an error wrapping ErrRunNotFound if
// nothing matches and with one wrapping ErrAmbiguousRun, listing the
// candidates, if a prefix matches several runs. Find is safe for concurrent
// use.
func Find(root, ref string) (string, error) {
	if ref == "" {
		return "", fmt.Errorf("%w: empty run reference", ErrRunNotFound)
	}
	if strings.ContainsRune(ref, '/') || strings.ContainsRune(ref, filepath.Separator) || strings.HasPrefix(ref, ".") || filepath.IsAbs(ref) {
		return findDir(ref)
	}
	if dir := filepath.Join(root, ref); isRunDir(dir) {
		return dir, nil
	}
	entries, err := os.ReadDir(root)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("find run %q: %w", ref, err)
	}
	var matches []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ref) && isRunDir(filepath.Join(root, name)) {
			matches = append(matches, name)
		}
	}
	switch len(matches) {
	case 1:
		return filepath.Join(root, matches[0]), nil
	case 0:
		if isRunDir(ref) {
			return ref, nil
		}
		return "", fmt.Errorf("%w: no run %q under %s", ErrRunNotFound, ref, root)
	}
	slices.Sort(matches)
	const maxShown = 10
	shown := strings.Join(matches[:min(len(matches), maxShown)], ", ")
	if len(matches) > maxShown {
		shown += fmt.Sprintf(", and %d more", len(matches)-maxShown)
	}
	return "", fmt.Errorf("%w %q: matches %d runs under %s: %s", ErrAmbiguousRun, ref, len(matches), root, shown)
}

func findDir(dir string) (string, error) {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%w: %s does not exist", ErrRunNotFound, dir)
	}
	if err != nil {
		return "", fmt.Errorf("find run: %w", err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%w: %s (not a directory)", ErrNotRunDir, dir)
	}
	if !isRunDir(dir) {
		return "", fmt.Errorf("%w: %s (no %s)", ErrNotRunDir, dir, RunFile)
	}
	return filepath.Clean(dir), nil
}

// List returns the RunInfo of every run directory directly under root,
// sorted by Start (then ID). Entries without run.json, and names starting
// with ".", are skipped; a missing root yields no runs and no error. If some
// run directories cannot be read (for example because of an unsupported
// format version), List returns the others together with an error describing
// the unreadable ones. List never modifies anything and is safe for
// concurrent use.
func List(root string) ([]RunInfo, error) {
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	var runs []RunInfo
	var errs error
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		dir := filepath.Join(root, e.Name())
		if !isRunDir(dir) {
			continue
		}
		info, err := readInfo(dir)
		if err != nil {
			joinErr(&errs, err)
			continue
		}
		runs = append(runs, info)
	}
	slices.SortStableFunc(runs, func(a, b RunInfo) int {
		if c := a.Start.Compare(b.Start); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return runs, errs
}

// lineReader reads a file line by line, keeping count of line numbers and
// telling complete lines (ending in a newline) from an incomplete last line.
type lineReader struct {
	r    *bufio.Reader
	line int
	// shared, when set, makes each line valid only until the next call
	// (no line is copied unless longer than the buffer, then into long):
	// for a reader that keeps no line, or copies what it keeps.
	shared bool
	long   []byte
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next line without its newline. complete is false for a
// last line without a newline; err is io.EOF at the end of the file.
func (lr *lineReader) next() (line []byte, complete bool, err error) {
	if lr.shared {
		line, err = lr.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			lr.long = append(lr.long[:0], line...)
			for err == bufio.ErrBufferFull {
				line, err = lr.r.ReadSlice('\n')
				lr.long = append(lr.long, line...)
			}
			line = lr.long
		}
	} else {
		line, err = lr.r.ReadBytes('\n')
	}
	if len(line) == 0 && err != nil {
		return nil, false, err
	}
	lr.line++
	if err == io.EOF {
		return line, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return line[:len(line)-1], true, nil
}

// readNDJSON calls fn with each complete, non-empty line of file until fn
// fails or a line is incomplete. It returns the number of lines accepted and
// a *TruncatedError (with Complete unset) for the line where it stopped, or
// another error if the file cannot be read at all.
func readNDJSON(path string, fn func(line []byte) error) (*TruncatedError, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	lr := newLineReader(f)
	for {
		line, complete, err := lr.next()
		if err == io.EOF {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		if !complete {
			return &TruncatedError{File: filepath.Base(path), Line: lr.line, Reason: "incomplete last line"}, nil
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := fn(line); err != nil {
			return &TruncatedError{File: filepath.Base(path), Line: lr.line, Reason: err.Error()}, nil
		}
	}
}

// Events reads events.ndjson. If the file ends in an incomplete or
// unreadable line (a run killed in the middle of a write), Events returns
// the events before it together with a *TruncatedError. It never modifies
// the run directory and is safe for concurrent use.
func (r *Run) Events() ([]Event, error) {
	var events []Event
	trunc, err := readNDJSON(filepath.Join(r.Dir, EventsFile), func(line []byte) error {
		var e Event
		if err := json.Unmarshal(line, &e); err != nil {
			return fmt.Errorf("invalid JSON: %v", err)
		}
		if e.Time.IsZero() {
			return errors.New("event without time")
		}
		events = append(events, e)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read events of run %s: %w", r.Dir, err)
	}
	if trunc != nil {
		trunc.Complete = len(events)
		return events, trunc
	}
	return events, nil
}

// Telemetry calls fn with each line of telemetry.ndjson (one sample in
// JSON, as given to Writer.WriteTelemetry), in order. A run without
// telemetry has no lines. If the file ends in an incomplete line or fn
// rejects a line, reading stops there and a *TruncatedError says where,
// after fn has seen every line before it. It never modifies the run
// directory.
func (r *Run) Telemetry(fn func(line []byte) error) error {
	n := 0
	trunc, err := readNDJSON(filepath.Join(r.Dir, TelemetryFile), func(line []byte) error {
		if err := fn(line); err != nil {
			return err
		}
		n++
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read telemetry of run %s: %w", r.Dir, err)
	}
	if trunc != nil {
		trunc.Complete = n
		return trunc
	}
	return nil
}

// hlogLine is a parsed histogram line of intervals.hlog.
type hlogLine struct {
	line           int
	tag            string
	startMs, lenMs int64
	raw            []byte // the payload (base64)
}

// hlogReader reads the histogram lines of intervals.hlog, skipping the
// header, comments and legend and tracking BaseTime. A line's raw is
// valid only until the next call when its lineReader is shared.
type hlogReader struct {
	lr      *lineReader
	baseSec float64
	tags    map[string]string // the tags met, each made a string once
}

// maxTags bounds hlogReader.tags: a run has a few dozen series; a
// damaged log cannot make the map grow without bound.
const maxTags = 1024

// tag returns b as a string, the one made before for the same tag.
func (hr *hlogReader) tag(b []byte) string {
	if s, ok := hr.tags[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(hr.tags) < maxTags {
		if hr.tags == nil {
			hr.tags = map[string]string{}
		}
		hr.tags[s] = s
	}
	return s
}

// next returns the next histogram line, io.EOF at the end of the file, or a
// line with reason set if it is incomplete or malformed.
func (hr *hlogReader) next() (hl hlogLine, reason string, err error) {
	for {
		raw, complete, err := hr.lr.next()
		if err != nil {
			return hlogLine{}, "", err
		}
		hl = hlogLine{line: hr.lr.line}
		if !complete {
			return hl, "incomplete last line", nil
		}
		// Only the lines that are not histograms are made strings whole.
		if !bytes.HasPrefix(raw, []byte("Tag=")) {
			s := strings.TrimSuffix(string(raw), "\r")
			switch {
			case strings.TrimSpace(s) == "":
				continue
			case strings.HasPrefix(s, "#[BaseTime: "):
				f := strings.Fields(strings.TrimPrefix(s, "#[BaseTime: "))
				if len(f) == 0 {
					return hl, "malformed BaseTime", nil
				}
				v, err := strconv.ParseFloat(f[0], 64)
				if err != nil {
					return hl, "malformed BaseTime", nil
				}
				hr.baseSec = v
				continue
			case strings.HasPrefix(s, "#"), strings.HasPrefix(s, `"StartTimestamp"`):
				continue
			}
			return hl, "histogram line without a tag", nil
		}
		// The four fields before the payload, the payload (most of the
		// line; base64 has no comma) left in raw's bytes.
		rest := raw[len("Tag="):]
		var parts [4][]byte
		payload := rest
		for i := range parts {
			j := bytes.IndexByte(payload, ',')
			if j < 0 {
				payload = nil
				break
			}
			parts[i], payload = payload[:j], payload[j+1:]
		}
		if payload == nil || bytes.IndexByte(payload, ',') >= 0 {
			return hl, fmt.Sprintf("histogram line has %d comma-separated fields, want 5", bytes.Count(rest, []byte(","))+1), nil
		}
		start, err1 := strconv.ParseFloat(string(parts[1]), 64)
		length, err2 := strconv.ParseFloat(string(parts[2]), 64)
		_, err3 := strconv.ParseFloat(string(parts[3]), 64)
		if err1 != nil || err2 != nil || err3 != nil || math.IsNaN(start) || math.IsNaN(length) {
			return hl, "malformed timestamps", nil
		}
		hl.tag = hr.tag(parts[0])
		hl.startMs = int64(math.Round(hr.baseSec*1000)) + int64(math.Round(start*1000))
		hl.lenMs = int64(math.Round(length * 1000))
		hl.raw = bytes.TrimSuffix(payload, []byte("\r"))
		return hl, "", nil
	}
}

// Intervals reads the intervals of the run from intervals.hlog and
// intervals.ndjson. Only committed intervals are returned (see the package
// documentation): if either file ends in, or contains, an incomplete or
// unreadable line, or intervals.hlog holds histogram lines without a commit
// record (a run killed in the middle of an interval), Intervals returns the
// complete intervals before that point together with a *TruncatedError.
// Other errors (such as a missing file) are returned without intervals.
// It holds every interval's histograms in memory: a reader of whole runs
// (whose memory must not grow with their length) uses Scan, which reads
// the same intervals one at a time. Intervals never modifies the run
// directory and is safe for concurrent use.
func (r *Run) Intervals() ([]Interval, error) {
	if m := r.memo; m != nil {
		m.once.Do(func() { m.ivs, m.err = r.readAll() })
		return m.ivs, m.err
	}
	return r.readAll()
}

// readAll is Intervals without a memo.
func (r *Run) readAll() ([]Interval, error) {
	var intervals []Interval
	err := r.Scan(func(s *ScanInterval) error {
		iv := Interval{Start: s.Start, End: s.End, Series: make(map[string]*IntervalData, len(s.Series)), Extra: s.Extra}
		startMs, endMs := s.Start.UnixMilli(), s.End.UnixMilli()
		for _, ss := range s.Series {
			p := ss.Hist.Packed()
			p.SetTag(ss.Name)
			p.SetStartTimeMs(startMs)
			p.SetEndTimeMs(endMs)
			iv.Series[ss.Name] = &IntervalData{Packed: p, Count: ss.Count, Errors: ss.Errors}
		}
		intervals = append(intervals, iv)
		return nil
	})
	var trunc *TruncatedError
	if err != nil && !errors.As(err, &trunc) {
		return nil, err
	}
	return intervals, err
}

// pendingHist is a histogram read from intervals.hlog, decoded after the
// files are read so that decoding, which dominates reading a long run,
// uses every CPU.
type pendingHist struct {
	data     *IntervalData
	payload  string
	tag      string
	startMs  int64
	endMs    int64
	line     int
	interval int // index of its interval
}

// decodeError is the first histogram that did not decode.
type decodeError struct {
	interval, line int
	reason         string
}

// decodeAll decodes the pending histograms in parallel and returns the
// earliest failure, if any.
func decodeAll(pending []pendingHist) *decodeError {
	workers := min(runtime.GOMAXPROCS(0), max(1, len(pending)/64))
	errs := make([]error, len(pending))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(pending) {
					return
				}
				p := &pending[i]
				h, err := decodePacked([]byte(p.payload))
				if err != nil {
					errs[i] = err
					continue
				}
				h.SetTag(p.tag)
				h.SetStartTimeMs(p.startMs)
				h.SetEndTimeMs(p.endMs)
				p.data.Packed = h
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return &decodeError{interval: pending[i].interval, line: pending[i].line, reason: fmt.Sprintf("cannot decode histogram: %v", err)}
		}
	}
	return nil
}
