package runlog_test

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/internal/golden"
	"github.com/stampede-bench/stampede/runlog"
)

// TestGolden pins the layout of the files of a run directory. Only the
// header of intervals.hlog is pinned, because the compressed histograms
// depend on the zlib implementation.
func TestGolden(t *testing.T) {
	info := testInfo("20261122-103512-ycsb-3f9a", t0)
	w, err := runlog.Create(t.TempDir(), info)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "run.running.golden.json"), readFile(t, filepath.Join(w.Dir(), runlog.RunFile)))

	w.Event(runlog.Event{Time: t0.Add(500 * time.Millisecond), Kind: runlog.EventError, Op: "read", Code: "40001", Message: `could not serialize access due to "concurrent update"`})
	w.Event(runlog.Event{Time: t0.Add(700 * time.Millisecond), Kind: runlog.EventReconnect, Message: "conn <1> & <2>"})
	if err := w.SetRampEnd(t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	writeIntervals(t, w, 0, 2)
	if err := w.Finish(t0.Add(2*time.Second), runlog.StatusCompleted, "", map[string]any{"ops": 440, "p99_ms": 1.25}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct{ file, golden string }{
		{runlog.RunFile, "run.finished.golden.json"},
		{runlog.IntervalsFile, "intervals.golden.ndjson"},
		{runlog.EventsFile, "events.golden.ndjson"},
		{runlog.SummaryFile, "summary.golden.json"},
	} {
		golden.Check(t, filepath.Join("testdata", f.golden), readFile(t, filepath.Join(w.Dir(), f.file)))
	}

	hlog := readFile(t, filepath.Join(w.Dir(), runlog.HlogFile))
	lines := bytes.SplitAfter(hlog, []byte("\n"))
	var header []byte
	for _, l := range lines[:hlogHeaderLines] {
		header = append(header, l...)
	}
	// Pin the fields before the histogram of each line, too.
	for _, l := range lines[hlogHeaderLines:] {
		if i := bytes.LastIndexByte(l, ','); i >= 0 {
			header = append(header, l[:i+1]...)
			header = append(header, "...\n"...)
		}
	}
	golden.Check(t, filepath.Join("testdata", "intervals.golden.hlog"), header)
}
