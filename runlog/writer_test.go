package runlog_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/runlog"
)

func TestRoundTrip(t *testing.T) {
	root := filepath.Join(t.TempDir(), "runs") // Create makes it
	info := testInfo("20261122-103512-ycsb-3f9a", t0)
	w, err := runlog.Create(root, info)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, info.ID); w.Dir() != want {
		t.Fatalf("Dir = %q, want %q", w.Dir(), want)
	}

	evs := []runlog.Event{
		{Time: t0.Add(300 * time.Millisecond), Kind: runlog.EventError, Op: "read", Code: "40001", Message: "could not serialize access"},
		{Time: t0.Add(1500 * time.Millisecond), Kind: runlog.EventReconnect, Message: "connection reset"},
	}
	w.Event(evs[0])
	written := writeIntervals(t, w, 0, 1)
	w.Event(evs[1])
	rampEnd := t0.Add(2 * time.Second)
	if err := w.SetRampEnd(rampEnd); err != nil {
		t.Fatal(err)
	}
	written = append(written, writeIntervals(t, w, 1, 3)...)
	final := runlog.Event{Time: t0.Add(3 * time.Second), Kind: runlog.EventPhase, Code: "drain"}
	w.Event(final) // flushed only by Finish

	// The caller's histograms are not modified.
	for _, s := range written[0] {
		if s.Hist.Tag() != "" || s.Hist.StartTimeMs() != 0 || s.Hist.EndTimeMs() != 0 {
			t.Fatalf("WriteInterval modified histogram %s", s.Name)
		}
	}

	end := t0.Add(3*time.Second + 5*time.Millisecond)
	summary := map[string]any{"ops": 1234, "note": "a<b & c"}
	if err := w.Finish(end, runlog.StatusCompleted, "", summary); err != nil {
		t.Fatal(err)
	}

	run, err := runlog.Open(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(run.Info, w.Info()) {
		t.Errorf("Info mismatch:\n got %+v\nwant %+v", run.Info, w.Info())
	}
	want := info
	want.FormatVersion = runlog.FormatVersion
	want.Status = runlog.StatusCompleted
	want.End = &end
	want.RampEnd = &rampEnd
	if !reflect.DeepEqual(run.Info, want) {
		t.Errorf("Info mismatch with input:\n got %+v\nwant %+v", run.Info, want)
	}

	var gotSummary map[string]any
	if err := json.Unmarshal(run.Summary, &gotSummary); err != nil {
		t.Fatalf("summary: %v", err)
	}
	if gotSummary["ops"] != float64(1234) || gotSummary["note"] != "a<b & c" {
		t.Errorf("summary = %s", run.Summary)
	}

	ivs, err := run.Intervals()
	if err != nil {
		t.Fatal(err)
	}
	if len(ivs) != 3 {
		t.Fatalf("got %d intervals, want 3", len(ivs))
	}
	for i, iv := range ivs {
		start, end := intervalBounds(i)
		if !iv.Start.Equal(start) || !iv.End.Equal(end) {
			t.Errorf("interval %d: bounds %v-%v, want %v-%v", i, iv.Start, iv.End, start, end)
		}
		var wantExtra map[string]float64
		if i%2 == 0 {
			wantExtra = map[string]float64{"reconnects": float64(i), "pool_wait_ms": 1.5}
		}
		if !reflect.DeepEqual(iv.Extra, wantExtra) {
			t.Errorf("interval %d: extra %v, want %v", i, iv.Extra, wantExtra)
		}
		if len(iv.Series) != len(written[i]) {
			t.Errorf("interval %d: %d series, want %d", i, len(iv.Series), len(written[i]))
		}
		for _, s := range written[i] {
			d := iv.Series[s.Name]
			if d == nil {
				t.Fatalf("interval %d: series %s missing", i, s.Name)
			}
			if d.Count != s.Count || d.Errors != s.Errors {
				t.Errorf("interval %d %s: count/errors %d/%d, want %d/%d", i, s.Name, d.Count, d.Errors, s.Count, s.Errors)
			}
			if !d.Histogram().Equals(s.Hist) {
				t.Errorf("interval %d %s: histogram differs after decoding", i, s.Name)
			}
			if d.Histogram().TotalCount() != s.Hist.TotalCount() || d.Histogram().Max() != s.Hist.Max() || d.Histogram().Min() != s.Hist.Min() {
				t.Errorf("interval %d %s: total/min/max differ", i, s.Name)
			}
			for _, q := range []float64{50, 90, 99, 99.9, 100} {
				if g, w := d.Histogram().ValueAtQuantile(q), s.Hist.ValueAtQuantile(q); g != w {
					t.Errorf("interval %d %s: p%v = %d, want %d", i, s.Name, q, g, w)
				}
			}
			if d.Histogram().Tag() != s.Name || d.Histogram().StartTimeMs() != start.UnixMilli() || d.Histogram().EndTimeMs() != end.UnixMilli() {
				t.Errorf("interval %d %s: tag/times %q %d %d", i, s.Name, d.Histogram().Tag(), d.Histogram().StartTimeMs(), d.Histogram().EndTimeMs())
			}
		}
	}
	if ivs[1].Series["update"].Histogram().TotalCount() != 0 {
		t.Errorf("interval 1: update histogram should be empty")
	}

	gotEvents, err := run.Events()
	if err != nil {
		t.Fatal(err)
	}
	wantEvents := []runlog.Event{
		evs[0], evs[1],
		{Time: rampEnd, Kind: runlog.EventPhase, Code: runlog.PhaseRampEnd, Message: "ramp-up finished"},
		final,
	}
	if !reflect.DeepEqual(gotEvents, wantEvents) {
		t.Errorf("events:\n got %+v\nwant %+v", gotEvents, wantEvents)
	}

	entries, err := os.ReadDir(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	wantNames := []string{runlog.EventsFile, runlog.HlogFile, runlog.IntervalsFile, runlog.RunFile, runlog.SummaryFile}
	if !slices.Equal(names, wantNames) {
		t.Errorf("run directory holds %v, want %v", names, wantNames)
	}
}

func TestCreateErrors(t *testing.T) {
	root := t.TempDir()
	if _, err := runlog.Create(root, testInfo("taken", t0)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		modify func(*runlog.RunInfo)
		want   string
	}{
		{"empty id", func(i *runlog.RunInfo) { i.ID = "" }, "empty run id"},
		{"path id", func(i *runlog.RunInfo) { i.ID = "../x" }, "invalid run id"},
		{"dot id", func(i *runlog.RunInfo) { i.ID = ".hidden" }, "invalid run id"},
		{"space id", func(i *runlog.RunInfo) { i.ID = "a b" }, "invalid run id"},
		{"zero start", func(i *runlog.RunInfo) { i.Start = time.Time{} }, "start time is not set"},
		{"bad series", func(i *runlog.RunInfo) { i.Series = []string{"read,write"} }, "invalid series name"},
		{"equals series", func(i *runlog.RunInfo) { i.Series = []string{"a=b"} }, "invalid series name"},
		{"space series", func(i *runlog.RunInfo) { i.Series = []string{"a b"} }, "invalid series name"},
		{"empty series", func(i *runlog.RunInfo) { i.Series = []string{""} }, "empty series name"},
		{"duplicate series", func(i *runlog.RunInfo) { i.Series = []string{"a", "a"} }, "duplicate series"},
		{"existing dir", func(i *runlog.RunInfo) { i.ID = "taken" }, "already exists"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info := testInfo("new-run", t0)
			tt.modify(&info)
			w, err := runlog.Create(root, info)
			if err == nil {
				w.Close()
				t.Fatal("Create succeeded")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
			if tt.name == "existing dir" && !errors.Is(err, fs.ErrExist) {
				t.Errorf("error %v does not wrap fs.ErrExist", err)
			}
		})
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 1 {
		t.Errorf("failed Creates left directories behind: %v", entries)
	}
}

func TestWriteIntervalErrors(t *testing.T) {
	w, err := runlog.Create(t.TempDir(), testInfo("r1", t0))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	start, end := intervalBounds(0)
	good := func() []runlog.IntervalSeries { return intervalSeries(t, 0) }
	tests := []struct {
		name       string
		start, end time.Time
		series     []runlog.IntervalSeries
		extra      map[string]float64
		want       string
	}{
		{"unknown series", start, end, []runlog.IntervalSeries{{Name: "delete", Hist: newHist(t)}}, nil, "unknown series"},
		{"comma in name", start, end, []runlog.IntervalSeries{{Name: "re,ad", Hist: newHist(t)}}, nil, "invalid series name"},
		{"duplicate", start, end, append(good(), good()[0]), nil, "given twice"},
		{"nil hist", start, end, []runlog.IntervalSeries{{Name: "read"}}, nil, "no histogram"},
		{"negative count", start, end, []runlog.IntervalSeries{{Name: "read", Hist: newHist(t), Count: -1}}, nil, "negative"},
		{"end before start", end, start, good(), nil, "not after"},
		{"empty interval", start, start, good(), nil, "not after"},
		{"zero start", time.Time{}, end, good(), nil, "must be set"},
		{"before run start", t0.Add(-2 * time.Second), end, good(), nil, "before the run's start"},
		{"NaN extra", start, end, good(), map[string]float64{"x": math.NaN()}, "JSON cannot represent"},
		{"Inf extra", start, end, good(), map[string]float64{"x": math.Inf(1)}, "JSON cannot represent"},
		{"empty extra name", start, end, good(), map[string]float64{"": 1}, "empty extra name"},
	}
	hlog := filepath.Join(w.Dir(), runlog.HlogFile)
	before := readFile(t, hlog)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := w.WriteInterval(tt.start, tt.end, tt.series, tt.extra)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
	if string(readFile(t, hlog)) != string(before) {
		t.Fatal("invalid WriteInterval calls wrote to intervals.hlog")
	}
	// The writer is still usable; a subset of the series is fine.
	if err := w.WriteInterval(start, end, good()[:1], nil); err != nil {
		t.Fatal(err)
	}
	run, err := runlog.Open(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	ivs, err := run.Intervals()
	if err != nil || len(ivs) != 1 || len(ivs[0].Series) != 1 {
		t.Fatalf("Intervals = %v, %v", ivs, err)
	}
}

func TestAnySeriesWithoutDeclaredSeries(t *testing.T) {
	info := testInfo("r1", t0)
	info.Series = nil
	w, err := runlog.Create(t.TempDir(), info)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	start, end := intervalBounds(0)
	if err := w.WriteInterval(start, end, []runlog.IntervalSeries{{Name: "anything", Hist: newHist(t, 5)}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteInterval(end, end.Add(time.Second), nil, map[string]float64{"only_extra": 1}); err != nil {
		t.Fatal(err)
	}
	run, err := runlog.Open(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if run.Info.Series == nil || len(run.Info.Series) != 0 {
		t.Errorf("Series = %#v, want empty", run.Info.Series)
	}
	ivs, err := run.Intervals()
	if err != nil || len(ivs) != 2 || ivs[0].Series["anything"].Histogram().Max() != 5 || len(ivs[1].Series) != 0 {
		t.Fatalf("Intervals = %+v, %v", ivs, err)
	}
}

func TestLifecycle(t *testing.T) {
	root := t.TempDir()

	t.Run("invalid finish keeps writer usable", func(t *testing.T) {
		w, err := runlog.Create(root, testInfo("life1", t0))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Finish(t0.Add(time.Second), "done", "", nil); err == nil {
			t.Fatal("Finish accepted status \"done\"")
		}
		if err := w.Finish(t0.Add(time.Second), runlog.StatusRunning, "", nil); err == nil {
			t.Fatal("Finish accepted status \"running\"")
		}
		if err := w.Finish(time.Time{}, runlog.StatusFailed, "", nil); err == nil {
			t.Fatal("Finish accepted a zero end time")
		}
		writeIntervals(t, w, 0, 1)
		if err := w.Finish(t0.Add(time.Second), runlog.StatusFailed, "connection refused", nil); err != nil {
			t.Fatal(err)
		}
		if err := w.Finish(t0.Add(time.Second), runlog.StatusFailed, "", nil); !errors.Is(err, runlog.ErrClosed) {
			t.Errorf("second Finish: %v, want ErrClosed", err)
		}
		if err := w.Close(); err != nil {
			t.Errorf("Close after Finish: %v", err)
		}
		start, end := intervalBounds(1)
		if err := w.WriteInterval(start, end, intervalSeries(t, 1), nil); !errors.Is(err, runlog.ErrClosed) {
			t.Errorf("WriteInterval after Finish: %v, want ErrClosed", err)
		}
		if err := w.SetRampEnd(t0); !errors.Is(err, runlog.ErrClosed) {
			t.Errorf("SetRampEnd after Finish: %v, want ErrClosed", err)
		}
		w.Event(runlog.Event{Kind: "late"}) // ignored, must not panic
		run, err := runlog.Open(w.Dir())
		if err != nil {
			t.Fatal(err)
		}
		if run.Info.Status != runlog.StatusFailed || run.Info.Error != "connection refused" || run.Info.RampEnd != nil {
			t.Errorf("Info = %+v", run.Info)
		}
		if run.Summary != nil {
			t.Errorf("Summary = %s, want nil", run.Summary)
		}
		if _, err := os.Stat(filepath.Join(w.Dir(), runlog.SummaryFile)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("summary.json exists without a summary: %v", err)
		}
		evs, err := run.Events()
		if err != nil || len(evs) != 0 {
			t.Errorf("Events = %v, %v; want none", evs, err)
		}
	})

	t.Run("close without finish reads as killed", func(t *testing.T) {
		w, err := runlog.Create(root, testInfo("life2", t0))
		if err != nil {
			t.Fatal(err)
		}
		writeIntervals(t, w, 0, 2)
		w.Event(runlog.Event{Kind: runlog.EventError, Message: "boom"})
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
		if err := w.Finish(t0, runlog.StatusCompleted, "", nil); !errors.Is(err, runlog.ErrClosed) {
			t.Errorf("Finish after Close: %v, want ErrClosed", err)
		}
		run, err := runlog.Open(w.Dir())
		if err != nil {
			t.Fatal(err)
		}
		// run.json still says running, but no process holds the run's
		// lock any more: readers see a killed run.
		if run.Info.Status != runlog.StatusKilled || run.Info.End != nil {
			t.Errorf("Info = %+v", run.Info)
		}
		raw, err := os.ReadFile(filepath.Join(w.Dir(), runlog.RunFile))
		if err != nil || !strings.Contains(string(raw), `"status": "running"`) {
			t.Errorf("run.json = %s, %v", raw, err)
		}
		evs, err := run.Events()
		if err != nil || len(evs) != 1 || evs[0].Message != "boom" || evs[0].Time.IsZero() {
			t.Errorf("Events = %+v, %v", evs, err)
		}
		ivs, err := run.Intervals()
		if err != nil || len(ivs) != 2 {
			t.Errorf("Intervals: %d, %v", len(ivs), err)
		}
	})

	t.Run("raw summary", func(t *testing.T) {
		w, err := runlog.Create(root, testInfo("life3", t0))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Finish(t0.Add(time.Second), runlog.StatusInterrupted, "signal: interrupt", json.RawMessage(`{"b":[1,2],"a":"x"}`)); err != nil {
			t.Fatal(err)
		}
		run, err := runlog.Open(w.Dir())
		if err != nil {
			t.Fatal(err)
		}
		var got, want any
		_ = json.Unmarshal(run.Summary, &got)
		_ = json.Unmarshal([]byte(`{"b":[1,2],"a":"x"}`), &want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Summary = %s", run.Summary)
		}
	})

	t.Run("invalid raw summary", func(t *testing.T) {
		w, err := runlog.Create(root, testInfo("life4", t0))
		if err != nil {
			t.Fatal(err)
		}
		err = w.Finish(t0.Add(time.Second), runlog.StatusCompleted, "", json.RawMessage(`{nope`))
		if err == nil {
			t.Fatal("Finish accepted invalid JSON summary")
		}
		// run.json is finished anyway.
		run, err := runlog.Open(w.Dir())
		if err != nil {
			t.Fatal(err)
		}
		if run.Info.Status != runlog.StatusCompleted || run.Summary != nil {
			t.Errorf("Info.Status = %q, Summary = %s", run.Info.Status, run.Summary)
		}
	})
}

func TestConcurrentEvents(t *testing.T) {
	w, err := runlog.Create(t.TempDir(), testInfo("conc", t0))
	if err != nil {
		t.Fatal(err)
	}
	const goroutines, perG = 8, 500
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perG {
				w.Event(runlog.Event{Kind: runlog.EventError, Op: "read", Code: string(rune('a' + g)), Message: strings.Repeat("x", i%17)})
			}
		}()
	}
	for i := range 5 {
		start, end := intervalBounds(i)
		if err := w.WriteInterval(start, end, intervalSeries(t, i), nil); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	if err := w.Finish(t0.Add(10*time.Second), runlog.StatusCompleted, "", nil); err != nil {
		t.Fatal(err)
	}
	run, err := runlog.Open(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	evs, err := run.Events()
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != goroutines*perG {
		t.Errorf("got %d events, want %d", len(evs), goroutines*perG)
	}
}
