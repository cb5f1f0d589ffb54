package runlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// TestScanSameAsReference writes runs of random histograms, damages their
// files at random (a file cut anywhere, a byte changed, a line dropped or
// doubled), and checks that Scan, and Intervals built on it, give what
// the reference reader gives (hdrhistogram-go's DecodePacked on every
// histogram): the same intervals, the same buckets and counts, and the
// same *TruncatedError.
func TestScanSameAsReference(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 5))
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	seen := map[string]int{} // the outcomes met: every kind must be
	for round := range 80 {
		dir := writeRandomRun(t, r, t.TempDir(), start, 3+r.IntN(12))
		if round > 0 {
			damage(t, r, dir)
		}
		run, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		want, wantErr := run.readAllReference()
		var wte *TruncatedError
		switch {
		case wantErr == nil:
			seen["intact"]++
		case !errors.As(wantErr, &wte):
			seen["other error"]++
		case bytes.Contains([]byte(wte.Reason), []byte("cannot decode")):
			seen["histogram that does not decode"]++
		default:
			seen[wte.File]++
		}
		var got []Interval
		scanErr := run.Scan(func(s *ScanInterval) error {
			iv := Interval{Start: s.Start, End: s.End, Series: map[string]*IntervalData{}, Extra: s.Extra}
			if s.Index != len(got) {
				t.Fatalf("round %d: index %d for interval %d", round, s.Index, len(got))
			}
			for _, ss := range s.Series {
				iv.Series[ss.Name] = &IntervalData{Packed: ss.Hist.Packed(), Count: ss.Count, Errors: ss.Errors}
			}
			got = append(got, iv)
			return nil
		})
		ivs, ivErr := run.Intervals()
		for name, res := range map[string]struct {
			ivs []Interval
			err error
		}{"Scan": {got, scanErr}, "Intervals": {ivs, ivErr}} {
			if fmt.Sprint(res.err) != fmt.Sprint(wantErr) || reflect.TypeOf(res.err) != reflect.TypeOf(wantErr) {
				t.Fatalf("round %d: %s error %v, reference %v", round, name, res.err, wantErr)
			}
			var te, wte *TruncatedError
			if errors.As(res.err, &te) && errors.As(wantErr, &wte) && *te != *wte {
				t.Fatalf("round %d: %s %+v, reference %+v", round, name, *te, *wte)
			}
			if len(res.ivs) != len(want) {
				t.Fatalf("round %d: %s %d intervals, reference %d", round, name, len(res.ivs), len(want))
			}
			for i := range want {
				checkSameInterval(t, fmt.Sprintf("round %d %s interval %d", round, name, i), &res.ivs[i], &want[i])
			}
		}
	}
	for _, kind := range []string{"intact", "histogram that does not decode", HlogFile, IntervalsFile} {
		if seen[kind] == 0 {
			t.Errorf("no round ended %s: %v", kind, seen)
		}
	}
	t.Logf("outcomes: %v", seen)
}

func checkSameInterval(t *testing.T, what string, got, want *Interval) {
	t.Helper()
	if !got.Start.Equal(want.Start) || !got.End.Equal(want.End) || !reflect.DeepEqual(got.Extra, want.Extra) || len(got.Series) != len(want.Series) {
		t.Fatalf("%s: %v-%v %v %d series, reference %v-%v %v %d", what, got.Start, got.End, got.Extra, len(got.Series), want.Start, want.End, want.Extra, len(want.Series))
	}
	for name, w := range want.Series {
		g := got.Series[name]
		if g == nil || g.Count != w.Count || g.Errors != w.Errors || !slices.Equal(buckets(g.Packed), buckets(w.Packed)) || g.Packed.TotalCount() != w.Packed.TotalCount() {
			t.Fatalf("%s: series %s differs", what, name)
		}
	}
}

func buckets(p *hdrhistogram.PackedHistogram) [][2]int64 {
	var out [][2]int64
	p.ForEachBucket(func(v, c int64) bool { out = append(out, [2]int64{v, c}); return true })
	return out
}

// writeRandomRun writes a run of n intervals of up to four series of
// random histograms (some empty, some missing from an interval) and
// returns its directory.
func writeRandomRun(t *testing.T, r *rand.Rand, root string, start time.Time, n int) string {
	t.Helper()
	names := []string{"read", "update", "insert", "scan"}
	info := RunInfo{FormatVersion: FormatVersion, ID: fmt.Sprintf("20261122-100000-scan-%04x", r.IntN(1<<16)), Workload: "scan",
		Series: names, Start: start, StampedeVersion: "test"}
	w, err := Create(root, info)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		var series []IntervalSeries
		for _, name := range names {
			if r.IntN(6) == 0 {
				continue
			}
			h := randomHist(r, decodeGeoms[0])
			series = append(series, IntervalSeries{Name: name, Hist: h, Count: h.TotalCount(), Errors: r.Int64N(3)})
		}
		s := start.Add(time.Duration(i) * time.Second)
		var extra map[string]float64
		if i%3 == 0 {
			extra = map[string]float64{"reconnects": float64(i)}
		}
		if err := w.WriteInterval(s, s.Add(time.Second), series, extra); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return w.Dir()
}

// damage changes one of the run's interval files at random.
func damage(t *testing.T, r *rand.Rand, dir string) {
	t.Helper()
	path := filepath.Join(dir, []string{HlogFile, IntervalsFile}[r.IntN(2)])
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	switch r.IntN(5) {
	case 0: // cut anywhere
		data = data[:r.IntN(len(data))]
	case 1: // a byte changed
		data[r.IntN(len(data))] ^= byte(1 + r.IntN(255))
	case 2: // a byte of a histogram changed
		i := len(data) - 2 - r.IntN(len(data)/3)
		data[i] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"[r.IntN(64)]
	case 3: // a line dropped
		i := r.IntN(len(lines))
		data = bytes.Join(slices.Delete(lines, i, i+1), nil)
	case 4: // a line doubled
		i := r.IntN(len(lines))
		data = bytes.Join(slices.Insert(lines, i, lines[i]), nil)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// readAllReference is how Intervals read a run before Scan: every
// histogram decoded by hdrhistogram-go's DecodePacked (in parallel), kept
// here as the reference Scan must agree with.
func (r *Run) readAllReference() ([]Interval, error) {
	var pending []pendingHist
	intervals, err := r.readIntervalsReference(&pending)
	if derr := decodeAll(pending); derr != nil && derr.interval < len(intervals) {
		// Keep the intervals before the first histogram that does not
		// decode; the file is corrupted from there.
		intervals = intervals[:derr.interval]
		return intervals, &TruncatedError{File: HlogFile, Line: derr.line, Reason: derr.reason, Complete: len(intervals)}
	}
	return intervals, err
}

// readIntervalsReference reads both interval files, queueing the histograms in
// pending for decodeAll.
func (r *Run) readIntervalsReference(pending *[]pendingHist) ([]Interval, error) {
	var recs []intervalRecord
	ivTrunc, err := readNDJSON(filepath.Join(r.Dir, IntervalsFile), func(line []byte) error {
		var rec intervalRecord
		if err := json.Unmarshal(line, &rec); err != nil {
			return fmt.Errorf("invalid JSON: %v", err)
		}
		if rec.Start.IsZero() || rec.End.IsZero() {
			return errors.New("interval without start or end")
		}
		recs = append(recs, rec)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read intervals of run %s: %w", r.Dir, err)
	}

	f, err := os.Open(filepath.Join(r.Dir, HlogFile))
	if err != nil {
		return nil, fmt.Errorf("read intervals of run %s: %w", r.Dir, err)
	}
	defer f.Close()
	hr := &hlogReader{lr: newLineReader(f)}
	hlogTrunc := func(line int, reason string, complete int) *TruncatedError {
		return &TruncatedError{File: HlogFile, Line: line, Reason: reason, Complete: complete}
	}

	intervals := make([]Interval, 0, len(recs))
	for k, rec := range recs {
		iv := Interval{
			Start:  rec.Start.UTC(),
			End:    rec.End.UTC(),
			Series: make(map[string]*IntervalData, len(rec.Series)),
			Extra:  rec.Extra,
		}
		startMs, endMs := rec.Start.UnixMilli(), rec.End.UnixMilli()
		for range len(rec.Series) {
			hl, reason, err := hr.next()
			if err == io.EOF {
				return intervals, hlogTrunc(hr.lr.line+1, fmt.Sprintf("file ends before the histograms of interval %d", k+1), len(intervals))
			}
			if err != nil {
				return nil, fmt.Errorf("read intervals of run %s: %w", r.Dir, err)
			}
			if reason != "" {
				return intervals, hlogTrunc(hl.line, reason, len(intervals))
			}
			c, ok := rec.Series[hl.tag]
			if !ok || iv.Series[hl.tag] != nil {
				return intervals, hlogTrunc(hl.line, fmt.Sprintf("unexpected series %q for interval %d (%s line %d)", hl.tag, k+1, IntervalsFile, k+1), len(intervals))
			}
			if hl.startMs != startMs || hl.lenMs != endMs-startMs {
				return intervals, hlogTrunc(hl.line, fmt.Sprintf("timestamps do not match interval %d (%s line %d)", k+1, IntervalsFile, k+1), len(intervals))
			}
			d := &IntervalData{Count: c.Count, Errors: c.Errors}
			iv.Series[hl.tag] = d
			*pending = append(*pending, pendingHist{data: d, payload: string(hl.raw), tag: hl.tag,
				startMs: startMs, endMs: endMs, line: hl.line, interval: len(intervals)})
		}
		intervals = append(intervals, iv)
	}
	if ivTrunc != nil {
		ivTrunc.Complete = len(intervals)
		return intervals, ivTrunc
	}
	hl, reason, err := hr.next()
	switch {
	case err == io.EOF:
		return intervals, nil
	case err != nil:
		return nil, fmt.Errorf("read intervals of run %s: %w", r.Dir, err)
	case reason != "":
		return intervals, hlogTrunc(hl.line, reason, len(intervals))
	default:
		return intervals, hlogTrunc(hl.line, fmt.Sprintf("histogram of an interval without a commit record in %s", IntervalsFile), len(intervals))
	}
}

// TestScanStops checks that a callback's error, or ErrStopScan, ends a
// Scan at once with that error (nil for ErrStopScan), after the intervals
// before it, and that the read's goroutines end with it.
func TestScanStops(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 31))
	dir := writeRandomRun(t, r, t.TempDir(), time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC), 40)
	run, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	stop := errors.New("enough")
	for _, tc := range []struct {
		err, want error
	}{{stop, stop}, {ErrStopScan, nil}} {
		var seen []int
		err := run.Scan(func(iv *ScanInterval) error {
			seen = append(seen, iv.Index)
			if iv.Index == 2 {
				return tc.err
			}
			return nil
		})
		if err != tc.want || !slices.Equal(seen, []int{0, 1, 2}) {
			t.Errorf("callback error %v: Scan returned %v after intervals %v", tc.err, err, seen)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after the scans, %d before", n, before)
	}
}
