package results_test

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
)

// writeHourRun writes a one-hour run: 3,600 one-second intervals of ten
// operation types with realistic latency spreads.
func writeHourRun(b *testing.B, root string) string {
	b.Helper()
	ops := make([]string, 10)
	for i := range ops {
		ops[i] = fmt.Sprintf("op%d", i)
	}
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	info := runlog.RunInfo{FormatVersion: runlog.FormatVersion, ID: "20261122-100000-bench-0001", Workload: "bench",
		Series: ops, Start: start, Host: runlog.HostFacts(), StampedeVersion: "bench"}
	w, err := runlog.Create(root, info)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	hists := make([]runlog.IntervalSeries, len(ops))
	for i := range hists {
		hists[i] = runlog.IntervalSeries{Name: ops[i], Hist: stats.NewHistogram()}
	}
	for iv := 0; iv < 3600; iv++ {
		for i := range hists {
			h := hists[i].Hist
			h.Reset()
			for k := 0; k < 200; k++ {
				_ = h.RecordValue(int64(r.ExpFloat64() * float64(time.Millisecond) * float64(i+1)))
			}
			hists[i].Count = h.TotalCount()
		}
		s := start.Add(time.Duration(iv) * time.Second)
		if err := w.WriteInterval(s, s.Add(time.Second), hists, map[string]float64{"reconnects": 0}); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Finish(start.Add(time.Hour), runlog.StatusCompleted, "", nil); err != nil {
		b.Fatal(err)
	}
	return filepath.Join(root, info.ID)
}

// BenchmarkReportHour measures `stampede report`'s work on a one-hour run
// of ten operation types (3,600 intervals): open, read, merge, summarize.
// The target is under 1 s per report.
func BenchmarkReportHour(b *testing.B) {
	dir := writeHourRun(b, b.TempDir())
	b.ResetTimer()
	for b.Loop() {
		run, err := runlog.Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		v, _, err := results.Recompute([]*runlog.Run{run}, results.Window{})
		if err != nil || len(v.Ops) != 10 {
			b.Fatalf("%v %d", err, len(v.Ops))
		}
	}
}

// BenchmarkRunEndViews measures a run's end's batch views of a one-hour
// run of ten operation types (3,600 intervals): totals.json and
// series.ndjson written by SaveTotals then SaveSeries (each reading the
// intervals), and by SaveViews (one read feeding both). Beside the wall
// time it reports the process's CPU time (user + system, all the
// decoding goroutines') per end as cpu-ms/op.
func BenchmarkRunEndViews(b *testing.B) {
	dir := writeHourRun(b, b.TempDir())
	run, err := runlog.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		save func(*runlog.Run) error
	}{
		{"totals-then-series", func(run *runlog.Run) error { return errors.Join(results.SaveTotals(run), results.SaveSeries(run)) }},
		{"one-read", results.SaveViews},
	} {
		b.Run(bc.name, func(b *testing.B) {
			cpu0 := cpuTime(b)
			n := 0
			for b.Loop() {
				// As at a run's end: no view saved yet (SaveTotals would
				// read the one saved before).
				for _, f := range []string{runlog.TotalsFile, runlog.SeriesFile} {
					if err := os.Remove(filepath.Join(dir, f)); err != nil && !errors.Is(err, fs.ErrNotExist) {
						b.Fatal(err)
					}
				}
				if err := bc.save(run); err != nil {
					b.Fatal(err)
				}
				n++
			}
			b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(time.Millisecond)/float64(n), "cpu-ms/op")
		})
	}
}

// cpuTime returns the process's CPU time so far, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkReportTag measures `report --tag job=bench --from 0s`'s merge,
// as scripts/bench reporttag times it for 100 clients, on 4 clients: each
// a one-hour run of ten operation types at 50 operations a second each,
// in 10 s intervals (360 intervals, 3,600 histograms a client), as
// scripts/benchruns writes them. --from 0s makes Recompute read every
// interval's histogram (not the saved totals). Beside the wall time it
// reports the CPU time (user + system, every goroutine's) per histogram
// as cpu-us/hist.
func BenchmarkReportTag(b *testing.B) {
	root := b.TempDir()
	const clients, intervals, ops = 4, 360, 10
	names := make([]string, ops)
	for i := range names {
		names[i] = fmt.Sprintf("op%d", i)
	}
	start := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	var runs []*runlog.Run
	for c := range clients {
		info := runlog.RunInfo{FormatVersion: runlog.FormatVersion, ID: fmt.Sprintf("20261122-100000-bench-%04d", c), Workload: "bench",
			Series: names, Start: start, Host: runlog.HostFacts(), StampedeVersion: "bench",
			Tags: map[string]string{"job": "bench", "client": fmt.Sprintf("%d/%d", c, clients)}}
		w, err := runlog.Create(root, info)
		if err != nil {
			b.Fatal(err)
		}
		r := rand.New(rand.NewPCG(uint64(c), 31))
		series := make([]runlog.IntervalSeries, ops)
		for i := range series {
			series[i] = runlog.IntervalSeries{Name: names[i], Hist: stats.NewHistogram()}
		}
		for k := range intervals {
			for i := range series {
				h := series[i].Hist
				h.Reset()
				mean := float64(time.Millisecond) * (0.5 + float64(i)*0.5)
				for range 500 {
					_ = h.RecordValue(stats.Clamp(time.Duration(r.ExpFloat64() * mean)))
				}
				series[i].Count = h.TotalCount()
			}
			at := start.Add(time.Duration(k) * 10 * time.Second)
			if err := w.WriteInterval(at, at.Add(10*time.Second), series, nil); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Finish(start.Add(intervals*10*time.Second), runlog.StatusCompleted, "", nil); err != nil {
			b.Fatal(err)
		}
		run, err := runlog.Open(filepath.Join(root, info.ID))
		if err != nil {
			b.Fatal(err)
		}
		runs = append(runs, run)
	}
	from, err := results.ParseBound("0s")
	if err != nil {
		b.Fatal(err)
	}
	cpu0 := cpuTime(b)
	n := 0
	for b.Loop() {
		v, _, err := results.Recompute(runs, results.Window{From: from})
		if err != nil || len(v.Ops) != ops || v.Intervals != clients*intervals {
			b.Fatalf("%v: %d operations, %d intervals", err, len(v.Ops), v.Intervals)
		}
		n++
	}
	b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(time.Microsecond)/float64(n*clients*intervals*ops), "cpu-us/hist")
}
