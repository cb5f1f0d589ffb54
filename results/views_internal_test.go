package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
)

// seriesFileReference is series.ndjson as SaveSeries wrote it before it
// streamed: the whole series of the run computed in memory
// (streamSeries), then encoded; nil when it wrote no file. Kept as the
// oracle of the streaming writer's bytes.
func seriesFileReference(run *runlog.Run) ([]byte, error) {
	if run.Info.Status != runlog.StatusCompleted {
		return nil, nil
	}
	hlogBytes, ivlBytes, err := fileSizes(run.Dir)
	if err != nil {
		return nil, err
	}
	s, err := streamSeries(run, nil)
	if err != nil || len(s.Warnings) > 0 {
		return nil, err
	}
	h := seriesHeader{Version: seriesVersion, HlogBytes: hlogBytes, IntervalsBytes: ivlBytes, RampEnd: s.RampEnd, Ops: []string{}, Endpoints: []string{}}
	all := append(append([]OpSeries{}, s.Ops...), s.Endpoints...)
	for _, op := range s.Ops {
		h.Ops = append(h.Ops, op.Name)
	}
	for _, op := range s.Endpoints {
		h.Endpoints = append(h.Endpoints, op.Name)
	}
	if len(all) > 0 {
		h.Points = len(all[0].Points)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	if err := enc.Encode(h); err != nil {
		return nil, err
	}
	n := len(all)
	line := seriesLine{Count: make([]int64, n), Errors: make([]int64, n), Rate: make([]float64, n),
		P50: make([]float64, n), P95: make([]float64, n), P99: make([]float64, n), Max: make([]float64, n)}
	for k := range h.Points {
		for i, op := range all {
			p := op.Points[k]
			line.From, line.To = p.From, p.To
			line.Count[i], line.Errors[i], line.Rate[i] = p.Count, p.Errors, p.Rate
			line.P50[i], line.P95[i], line.P99[i], line.Max[i] = p.P50, p.P95, p.P99, p.Max
		}
		if err := enc.Encode(line); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// writeLongRun writes a completed run of n intervals of the given
// length (the last one short) with the series given, each with a few
// latencies and, now and then, errors, under root.
func writeLongRun(t testing.TB, root string, n int, length time.Duration, series []string) *runlog.Run {
	t.Helper()
	start := time.Date(2026, 11, 22, 10, 35, 12, 0, time.UTC)
	info := runlog.RunInfo{FormatVersion: runlog.FormatVersion, ID: fmt.Sprintf("20261122-103512-long-%d", n), Workload: "long",
		Series: series, Start: start, StampedeVersion: "test"}
	w, err := runlog.Create(root, info)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(uint64(n), 7))
	ss := make([]runlog.IntervalSeries, len(series))
	for i := range ss {
		ss[i] = runlog.IntervalSeries{Name: series[i], Hist: stats.NewHistogram()}
	}
	at := start
	for k := range n {
		for i := range ss {
			h := ss[i].Hist
			h.Reset()
			for range 5 + r.IntN(20) {
				_ = h.RecordValue(stats.Clamp(time.Duration(r.ExpFloat64() * float64(time.Millisecond) * float64(i+1))))
			}
			ss[i].Count, ss[i].Errors = h.TotalCount(), int64(r.IntN(10)/9)
		}
		d := length + time.Duration(r.IntN(100))*time.Microsecond
		if k == n-1 {
			d = length / 10
		}
		if err := w.WriteInterval(at, at.Add(d), ss, nil); err != nil {
			t.Fatal(err)
		}
		at = at.Add(d)
	}
	if err := w.Finish(at, runlog.StatusCompleted, "", nil); err != nil {
		t.Fatal(err)
	}
	run, err := runlog.Open(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// TestSeriesWriterBounded: the end's series writer holds no more for a
// long run than for a short one. Its live heap, measured after a
// collection as it takes the last interval of runs of 200 and 1,600
// intervals of four series, grows by less than 64 KB (the run's whole
// series held in memory, as SaveSeries held it before it streamed, is
// about 300 bytes an interval here: 400 KB more); the writer keeps no
// slice that grows with the intervals but its bit per interval; and
// series.ndjson is the reference's byte for byte.
func TestSeriesWriterBounded(t *testing.T) {
	series := []string{"read", "update", "insert", "scan"}
	heap := map[int]uint64{}
	for _, n := range []int{200, 1600} {
		run := writeLongRun(t, t.TempDir(), n, 10*time.Millisecond, series)
		var live uint64
		probes := 0
		viewsProbe = func(sw *seriesWriter, k int) {
			probes++
			if len(sw.mergers) != len(series) || len(sw.line.Count) != len(series) || len(sw.starts) != (n+63)/64 {
				t.Errorf("the writer holds %d mergers, %d columns, %d words of group starts for %d intervals", len(sw.mergers), len(sw.line.Count), len(sw.starts), n)
			}
			if k == n-1 {
				// Twice: a sync.Pool's objects (zlib readers) survive one
				// collection in its victim cache.
				runtime.GC()
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				live = ms.HeapAlloc
			}
		}
		err := SaveViews(run)
		viewsProbe = nil
		if err != nil {
			t.Fatal(err)
		}
		if probes != n {
			t.Fatalf("probed %d intervals of %d", probes, n)
		}
		heap[n] = live
		want, err := seriesFileReference(run) // after: its result is the run's whole series
		if err != nil || want == nil {
			t.Fatalf("reference: %v (%d bytes)", err, len(want))
		}
		got, err := os.ReadFile(filepath.Join(run.Dir, runlog.SeriesFile))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%d intervals: series.ndjson differs from the reference (%d bytes, %d)", n, len(got), len(want))
		}
		if bytes.Count(got, []byte("\n")) != n { // header + n-1 points: the short last interval merged
			t.Fatalf("%d intervals: %d lines", n, bytes.Count(got, []byte("\n")))
		}
	}
	t.Logf("live heap at the last interval: %d bytes (200 intervals), %d bytes (1,600)", heap[200], heap[1600])
	if heap[1600] > heap[200]+64<<10 {
		t.Errorf("live heap at the last interval grew from %d to %d bytes with 8x the intervals", heap[200], heap[1600])
	}
}

// TestSeriesFileSameAsReference: series.ndjson written as the intervals
// stream by is, byte for byte, the file SaveSeries wrote from the whole
// series held in memory (seriesFileReference), and totals.json from the
// same read equals SaveTotals' alone: random runs with short first,
// middle and last intervals, series missing from intervals (met late),
// series with errors only or nothing at all, endpoints' parts, a run
// whose run.json names no series, a ramp-up, telemetry, and runs that
// get no file (an intervals log cut short, damaged telemetry).
func TestSeriesFileSameAsReference(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	start := time.Date(2026, 11, 22, 10, 35, 12, 0, time.UTC)
	all := []string{"read", "update", "read.lag", "read@a:1", "read@b:1", "insert"}
	for round := range 16 {
		t.Run(fmt.Sprint(round), func(t *testing.T) {
			info := runlog.RunInfo{FormatVersion: runlog.FormatVersion, ID: fmt.Sprintf("20261122-103512-sf-%04d", round), Workload: "sf",
				Series: all, Start: start, StampedeVersion: "test"}
			if round%4 == 1 {
				info.Series = nil // the series as the intervals meet them
			}
			w, err := runlog.Create(t.TempDir(), info)
			if err != nil {
				t.Fatal(err)
			}
			if round%3 == 0 {
				if err := w.SetRampEnd(start.Add(1500 * time.Millisecond)); err != nil {
					t.Fatal(err)
				}
			}
			n := 1 + r.IntN(14)
			at := start
			for i := range n {
				length := time.Second
				if (i == 0 && r.IntN(2) == 0) || (i == n-1 && r.IntN(3) > 0) || r.IntN(6) == 0 {
					length = time.Duration(1+r.IntN(300)) * time.Millisecond // short
				}
				var ss []runlog.IntervalSeries
				for j, name := range all {
					if r.IntN(4) == 0 || (name == "insert" && i < n/2) {
						continue
					}
					h := stats.NewHistogram()
					if name != "update" || round%2 == 0 { // update: errors only in odd rounds
						for range r.IntN(300) {
							_ = h.RecordValue(stats.Clamp(time.Duration(r.ExpFloat64() * float64(time.Millisecond) * float64(1+j))))
						}
					}
					var errs int64
					if name != "read@b:1" { // never an operation or an error in even rounds
						errs = r.Int64N(3)
					} else if round%2 == 0 {
						h.Reset()
					}
					ss = append(ss, runlog.IntervalSeries{Name: name, Hist: h, Count: h.TotalCount(), Errors: errs})
				}
				if err := w.WriteInterval(at, at.Add(length), ss, map[string]float64{"reconnects": float64(i)}); err != nil {
					t.Fatal(err)
				}
				if round%5 == 2 {
					line := fmt.Sprintf(`{"start":%q,"end":%q,"cpu":{"cores":2,"user_pct":%d,"idle_pct":50}}`, at.Format(time.RFC3339Nano), at.Add(length).Format(time.RFC3339Nano), i)
					if err := w.WriteTelemetry(json.RawMessage(line)); err != nil {
						t.Fatal(err)
					}
				}
				at = at.Add(length)
			}
			if err := w.Finish(at, runlog.StatusCompleted, "", nil); err != nil {
				t.Fatal(err)
			}
			dir := w.Dir()
			noFile := false
			switch round % 8 {
			case 3: // the intervals log cut in its last histogram line
				path := filepath.Join(dir, runlog.HlogFile)
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, data[:len(data)-10], 0o600); err != nil {
					t.Fatal(err)
				}
				noFile = true
			case 7: // damaged telemetry
				if err := os.WriteFile(filepath.Join(dir, runlog.TelemetryFile), []byte("{\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				noFile = true
			}
			run, err := runlog.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			want, err := seriesFileReference(run)
			if err != nil {
				t.Fatal(err)
			}
			if (want == nil) != noFile {
				t.Fatalf("the case does not hold what it tests: reference of %d bytes, no file expected: %v", len(want), noFile)
			}
			if err := SaveTotals(run); err != nil {
				t.Fatal(err)
			}
			totals, _ := os.ReadFile(filepath.Join(dir, runlog.TotalsFile))
			_ = os.Remove(filepath.Join(dir, runlog.TotalsFile))
			if err := SaveViews(run); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(dir, runlog.SeriesFile))
			if noFile {
				if err == nil {
					t.Fatalf("a file of %d bytes where the reference writes none", len(got))
				}
			} else if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%v: series.ndjson differs from the reference:\n%s\n%s", err, got, want)
			}
			if both, _ := os.ReadFile(filepath.Join(dir, runlog.TotalsFile)); !bytes.Equal(both, totals) {
				t.Fatalf("totals.json from the shared read differs from SaveTotals' alone:\n%s\n%s", both, totals)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if e.Name()[0] == '.' {
					t.Errorf("temporary file %s left", e.Name())
				}
				if fi, err := e.Info(); err == nil && (e.Name() == runlog.SeriesFile || e.Name() == runlog.TotalsFile) && fi.Mode().Perm() != 0o600 {
					t.Errorf("%s is %v, not 0600", e.Name(), fi.Mode().Perm())
				}
			}
		})
	}
}

// TestSeriesFileCountsDisagree: a run whose intervals.ndjson counts
// operations of a series whose histograms hold none, or the reverse (the
// writer's Count is the caller's), gets no series.ndjson (the columns,
// chosen from the counts before the histograms are read, would not be
// the stream's) and an error naming the series; its totals.json is
// written, and TimeSeries streams the run.
func TestSeriesFileCountsDisagree(t *testing.T) {
	start := time.Date(2026, 11, 22, 10, 35, 12, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		values int   // recorded into update's histograms
		count  int64 // update's count in intervals.ndjson
	}{
		{"counted, histograms empty", 0, 5},
		{"histograms filled, not counted", 7, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info := runlog.RunInfo{FormatVersion: runlog.FormatVersion, ID: "20261122-103512-cd-0001", Workload: "cd",
				Series: []string{"read", "update"}, Start: start, StampedeVersion: "test"}
			w, err := runlog.Create(t.TempDir(), info)
			if err != nil {
				t.Fatal(err)
			}
			at := start
			for range 3 {
				read, update := stats.NewHistogram(), stats.NewHistogram()
				_ = read.RecordValue(1_000_000)
				for range tc.values {
					_ = update.RecordValue(2_000_000)
				}
				ss := []runlog.IntervalSeries{{Name: "read", Hist: read, Count: 1}, {Name: "update", Hist: update, Count: tc.count}}
				if err := w.WriteInterval(at, at.Add(time.Second), ss, nil); err != nil {
					t.Fatal(err)
				}
				at = at.Add(time.Second)
			}
			if err := w.Finish(at, runlog.StatusCompleted, "", nil); err != nil {
				t.Fatal(err)
			}
			run, err := runlog.Open(w.Dir())
			if err != nil {
				t.Fatal(err)
			}
			stream, err := TimeSeries(run)
			if err != nil {
				t.Fatal(err)
			}
			err = SaveViews(run)
			if err == nil || !strings.Contains(err.Error(), "series update") || !strings.Contains(err.Error(), "disagree") {
				t.Fatalf("SaveViews: %v, want an error naming series update", err)
			}
			if _, err := os.Stat(filepath.Join(w.Dir(), runlog.SeriesFile)); err == nil {
				t.Error("series.ndjson written")
			}
			if _, err := os.Stat(filepath.Join(w.Dir(), runlog.TotalsFile)); err != nil {
				t.Errorf("no totals.json: %v", err)
			}
			if got, err := TimeSeries(run); err != nil || !reflect.DeepEqual(got, stream) {
				t.Errorf("TimeSeries after: %v, differs: %v", err, !reflect.DeepEqual(got, stream))
			}
		})
	}
}

// TestEmptySeriesShareOneHistogram: reading a run of 40 series of which
// two see operations (as a workload's error kinds and .lag series stay
// empty) makes two dense histograms, not 40 (156 kB each: 6 MB at a
// run's end); the shared empty one is never written, through a report,
// a saved totals.json read back and a merge of two runs; the figures
// are those of the two series.
func TestEmptySeriesShareOneHistogram(t *testing.T) {
	var series []string
	for i := range 38 {
		series = append(series, fmt.Sprintf("op%d/error", i))
	}
	series = append(series, "read", "update")
	root := t.TempDir()
	var runs []*runlog.Run
	for _, id := range []string{"20261122-103512-es-0001", "20261122-103512-es-0002"} {
		start := time.Date(2026, 11, 22, 10, 35, 12, 0, time.UTC)
		w, err := runlog.Create(root, runlog.RunInfo{FormatVersion: runlog.FormatVersion, ID: id, Workload: "es", Series: series, Start: start, StampedeVersion: "test"})
		if err != nil {
			t.Fatal(err)
		}
		for k := range 4 {
			var ss []runlog.IntervalSeries
			for _, name := range series {
				h := stats.NewHistogram()
				if name == "read" || name == "update" {
					_ = h.RecordValue(int64(k+1) * 1_000_000)
				}
				ss = append(ss, runlog.IntervalSeries{Name: name, Hist: h, Count: h.TotalCount()})
			}
			at := start.Add(time.Duration(k) * time.Second)
			if err := w.WriteInterval(at, at.Add(time.Second), ss, nil); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Finish(start.Add(4*time.Second), runlog.StatusCompleted, "", nil); err != nil {
			t.Fatal(err)
		}
		run, err := runlog.Open(w.Dir())
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, run)
	}
	accs := accSet{}
	ts := newTotalsScan(runs[0], Window{}, accs)
	if p := ts.end(runs[0].Scan(ts.add)); p.err != nil || len(p.warnings) > 0 {
		t.Fatal(p.err, p.warnings)
	}
	dense := 0
	for _, a := range accs {
		if a.hist != emptyHist {
			dense++
		}
	}
	if len(accs) != len(series) || dense != 2 {
		t.Fatalf("%d accumulators, %d dense histograms; want %d and 2", len(accs), dense, len(series))
	}
	stream, _, err := Recompute(runs, Window{})
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range runs {
		if err := SaveViews(run); err != nil {
			t.Fatal(err)
		}
	}
	saved, _, err := Recompute(runs, Window{})
	if err != nil {
		t.Fatal(err)
	}
	if len(stream.Ops) != 2 || stream.Total.Count != 16 || !reflect.DeepEqual(saved, stream) {
		t.Fatalf("figures %+v, from the saved totals %+v", stream.Ops, saved.Ops)
	}
	if emptyHist.TotalCount() != 0 {
		t.Fatalf("the shared empty histogram holds %d values", emptyHist.TotalCount())
	}
}
