package results_test

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
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
