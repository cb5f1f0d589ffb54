package runlog_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/runlog"
)

// sameIntervals fails unless got and want hold the same intervals: bounds,
// extras, and per series the counts and every histogram bucket.
func sameIntervals(t *testing.T, got, want []runlog.Interval) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d intervals, want %d", len(got), len(want))
	}
	for k := range want {
		g, w := got[k], want[k]
		if !g.Start.Equal(w.Start) || !g.End.Equal(w.End) || len(g.Series) != len(w.Series) || len(g.Extra) != len(w.Extra) {
			t.Fatalf("interval %d: got %v-%v %d series, want %v-%v %d series", k, g.Start, g.End, len(g.Series), w.Start, w.End, len(w.Series))
		}
		for name, wd := range w.Series {
			gd := g.Series[name]
			if gd == nil || gd.Count != wd.Count || gd.Errors != wd.Errors || !gd.Histogram().Equals(wd.Histogram()) {
				t.Fatalf("interval %d series %s differs", k, name)
			}
		}
	}
}

// TestFollowAsAppended copies a finished run's interval files into a new
// run directory a few bytes at a time, cutting lines anywhere, as a live
// writer's appends look to a reader, and checks that the intervals a
// Follower returns along the way are, in the end, exactly those Intervals
// reads from the finished run, each once, and that none is returned
// before its commit record is complete.
func TestFollowAsAppended(t *testing.T) {
	src := t.TempDir()
	w, err := runlog.Create(src, testInfo("20261122-103512-ycsb-fo01", t0))
	if err != nil {
		t.Fatal(err)
	}
	writeIntervals(t, w, 0, 7)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	from, err := runlog.Open(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	want, err := from.Intervals()
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []int{1, 7, 100, 1 << 20} {
		dst := t.TempDir()
		for _, name := range []string{runlog.RunFile} {
			if err := os.WriteFile(filepath.Join(dst, name), readFile(t, filepath.Join(w.Dir(), name)), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		hlog := readFile(t, filepath.Join(w.Dir(), runlog.HlogFile))
		ivs := readFile(t, filepath.Join(w.Dir(), runlog.IntervalsFile))
		for _, name := range []string{runlog.HlogFile, runlog.IntervalsFile} {
			if err := os.WriteFile(filepath.Join(dst, name), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		run, err := runlog.Open(dst)
		if err != nil {
			t.Fatal(err)
		}
		f := run.Follow()
		var got []runlog.Interval
		// The histograms first, as the writer appends them, then the
		// commit records; a call to Next after every step.
		for _, file := range []struct {
			name string
			data []byte
		}{{runlog.HlogFile, hlog}, {runlog.IntervalsFile, ivs}} {
			for off := 0; off < len(file.data); off += step {
				appendFile(t, filepath.Join(dst, file.name), file.data[off:min(off+step, len(file.data))])
				next, err := f.Next()
				if err != nil {
					t.Fatalf("step %d: %v", step, err)
				}
				committed := countLines(t, filepath.Join(dst, runlog.IntervalsFile))
				got = append(got, next...)
				if len(got) != committed {
					t.Fatalf("step %d: %d intervals returned with %d commit records complete", step, len(got), committed)
				}
			}
		}
		sameIntervals(t, got, want)
		if f.Pending() {
			t.Errorf("step %d: histogram lines left without a commit record", step)
		}
	}
}

// TestFollowDamaged checks that a damaged line stops a Follower as it stops
// Intervals: the intervals before it, then a *TruncatedError naming the
// file and line, again at every later call.
func TestFollowDamaged(t *testing.T) {
	root := t.TempDir()
	w, err := runlog.Create(root, testInfo("20261122-103512-ycsb-fo02", t0))
	if err != nil {
		t.Fatal(err)
	}
	writeIntervals(t, w, 0, 3)
	run, err := runlog.Open(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	f := run.Follow()
	first, err := f.Next()
	if err != nil || len(first) != 3 {
		t.Fatalf("%d intervals, %v", len(first), err)
	}
	writeIntervals(t, w, 3, 5)
	appendFile(t, filepath.Join(w.Dir(), runlog.IntervalsFile), []byte("{not json\n"))
	next, err := f.Next()
	var trunc *runlog.TruncatedError
	if !errors.As(err, &trunc) || trunc.File != runlog.IntervalsFile || trunc.Line != 6 || trunc.Complete != 5 || len(next) != 2 {
		t.Fatalf("got %d intervals, %v; want 2 more, then the damage at %s line 6 after 5 intervals", len(next), err, runlog.IntervalsFile)
	}
	if _, err2 := f.Next(); !errors.As(err2, &trunc) {
		t.Errorf("second call: %v, want the same damage", err2)
	}
	_, want := run.Intervals()
	if !errors.As(want, &trunc) || trunc.Line != 6 {
		t.Errorf("Intervals says %v", want)
	}
	w.Close()
}

// TestFinishNeverReadsKilled reads a run over and over while its writer
// finishes it: the reader must see it running, then completed, never
// killed (the writer released its lock before it wrote its final
// run.json, and a reader between the two took the run for killed).
func TestFinishNeverReadsKilled(t *testing.T) {
	for i := range 20 {
		root := t.TempDir()
		w, err := runlog.Create(root, testInfo(fmt.Sprintf("20261122-103512-ycsb-k%03d", i), t0))
		if err != nil {
			t.Fatal(err)
		}
		writeIntervals(t, w, 0, 2)
		seen := make(chan []string)
		reading := make(chan struct{})
		go func() {
			var statuses []string
			for {
				run, err := runlog.Open(w.Dir())
				if err != nil {
					continue // run.json being replaced
				}
				if n := len(statuses); n == 0 || statuses[n-1] != run.Info.Status {
					statuses = append(statuses, run.Info.Status)
					if n == 0 {
						close(reading)
					}
				}
				if run.Info.Status != runlog.StatusRunning {
					seen <- statuses
					return
				}
			}
		}()
		<-reading
		if err := w.Finish(t0.Add(2*time.Second), runlog.StatusCompleted, "", map[string]int{"n": 1}); err != nil {
			t.Fatal(err)
		}
		if got := <-seen; strings.Join(got, ",") != "running,completed" {
			t.Fatalf("a reader saw %v while the run finished", got)
		}
	}
}

// TestMemoize checks that a memoized run reads its intervals once: the
// same intervals as Intervals, and the same again after the files are
// gone; the run it was made from still reads the files.
func TestMemoize(t *testing.T) {
	root := t.TempDir()
	w, err := runlog.Create(root, testInfo("20261122-103512-ycsb-memo", t0))
	if err != nil {
		t.Fatal(err)
	}
	writeIntervals(t, w, 0, 4)
	w.Close()
	run, err := runlog.Open(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	want, err := run.Intervals()
	if err != nil {
		t.Fatal(err)
	}
	m := run.Memoize()
	first, err := m.Intervals()
	if err != nil {
		t.Fatal(err)
	}
	sameIntervals(t, first, want)
	if err := os.Remove(filepath.Join(w.Dir(), runlog.HlogFile)); err != nil {
		t.Fatal(err)
	}
	again, err := m.Intervals()
	if err != nil || len(again) != len(first) || &again[0] != &first[0] {
		t.Errorf("second call: %d intervals, %v; want the same %d", len(again), err, len(first))
	}
	if _, err := run.Intervals(); err == nil {
		t.Errorf("the run it was made from did not read the files again")
	}
}
