package results_test

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
)

// TestRecomputeSameAsLibrary merges several clients' runs of random
// latencies, over random windows, and checks every figure of every
// operation against the histograms hdrhistogram-go's own interval log
// reader decodes from the runs' intervals.hlog, merged by the library:
// the streaming merge (one interval at a time, several runs at once) and
// its decoder must give exactly what the library gives.
func TestRecomputeSameAsLibrary(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 30))
	root := t.TempDir()
	ops := []string{"read", "update", "insert"}
	var runs []*runlog.Run
	for c := range 5 {
		start := t0.Add(time.Duration(r.IntN(400)) * time.Millisecond)
		info := runlog.RunInfo{FormatVersion: runlog.FormatVersion, ID: fmt.Sprintf("20261122-103512-lib-%04d", c), Workload: "lib",
			Series: ops, Start: start, StampedeVersion: "test", Tags: map[string]string{"client": fmt.Sprintf("%d/5", c)}}
		w, err := runlog.Create(root, info)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 12 + r.IntN(8) {
			var series []runlog.IntervalSeries
			for _, op := range ops {
				h := stats.NewHistogram()
				scale := float64(time.Millisecond) * float64(1+r.IntN(50))
				for range r.IntN(800) {
					_ = h.RecordValue(stats.Clamp(time.Duration(r.ExpFloat64() * scale)))
				}
				series = append(series, runlog.IntervalSeries{Name: op, Hist: h, Count: h.TotalCount(), Errors: r.Int64N(2)})
			}
			s := start.Add(time.Duration(i) * time.Second)
			if err := w.WriteInterval(s, s.Add(time.Second), series, nil); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Finish(start.Add(time.Minute), runlog.StatusCompleted, "", nil); err != nil {
			t.Fatal(err)
		}
		run, err := runlog.Open(w.Dir())
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, run)
	}
	windows := []results.Window{{}}
	for range 6 {
		from := time.Duration(r.IntN(8000)) * time.Millisecond
		windows = append(windows, results.Window{From: results.Offset(from), To: results.Offset(from + time.Duration(2000+r.IntN(10000))*time.Millisecond)})
	}
	for _, w := range windows {
		v, _, err := results.Recompute(runs, w)
		if err != nil {
			t.Fatalf("%s: %v", w, err)
		}
		want := map[string]*hdrhistogram.Histogram{}
		total := stats.NewHistogram()
		for _, run := range runs {
			f, err := os.Open(filepath.Join(run.Dir, runlog.HlogFile))
			if err != nil {
				t.Fatal(err)
			}
			lr := hdrhistogram.NewHistogramLogReader(f)
			for {
				h, err := lr.NextIntervalHistogram()
				if errors.Is(err, io.EOF) || (err == nil && h == nil) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				at := time.UnixMilli(h.StartTimeMs())
				from, to := run.Info.Start, time.Time{}
				if w.From.IsSet() {
					from = run.Info.Start.Add(offsetOf(t, w.From))
					to = run.Info.Start.Add(offsetOf(t, w.To))
				}
				if at.Before(from) || (!to.IsZero() && !at.Before(to)) {
					continue
				}
				if want[h.Tag()] == nil {
					want[h.Tag()] = stats.NewHistogram()
				}
				want[h.Tag()].Merge(h)
				total.Merge(h)
			}
			f.Close()
		}
		for _, op := range v.Ops {
			h := want[op.Name]
			s := stats.Summarize(h, op.Errors, time.Duration(v.Seconds*float64(time.Second)))
			if op.Summary != s {
				t.Errorf("%s: %s\n got %+v\nwant %+v", w, op.Name, op.Summary, s)
			}
		}
		if len(v.Ops) != len(ops) {
			t.Errorf("%s: %d operations", w, len(v.Ops))
		}
		if s := stats.Summarize(total, v.Total.Errors, time.Duration(v.Seconds*float64(time.Second))); v.Total != s {
			t.Errorf("%s: total\n got %+v\nwant %+v", w, v.Total, s)
		}
	}
}

// offsetOf returns the offset a bound was given as.
func offsetOf(t *testing.T, b results.Bound) time.Duration {
	d, err := time.ParseDuration(b.String())
	if err != nil {
		t.Fatalf("bound %s: %v", b, err)
	}
	return d
}
