package runlog_test

import (
	"math/rand/v2"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/stampede-bench/stampede/runlog"
)

// BenchmarkWriteInterval measures what a run pays each interval to keep
// its master dataset: five series (YCSB's operations) of a busy interval
// encoded, appended and fsynced. Divided by the interval (1 s) and the
// CPUs, it is the share of the machine the run log takes.
func BenchmarkWriteInterval(b *testing.B) {
	start := time.Now().Truncate(time.Second)
	info := runlog.RunInfo{FormatVersion: runlog.FormatVersion, ID: "20261122-100000-bench-0002", Workload: "bench",
		Series: []string{"read", "update", "insert", "scan", "readmodifywrite"}, Start: start, StampedeVersion: "bench"}
	w, err := runlog.Create(b.TempDir(), info)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	r := rand.New(rand.NewPCG(1, 2))
	series := make([]runlog.IntervalSeries, len(info.Series))
	for i, name := range info.Series {
		h := hdrhistogram.New(1000, 100_000_000_000, 3)
		for k := 0; k < 100_000; k++ {
			_ = h.RecordValue(int64(r.ExpFloat64() * 1e6))
		}
		series[i] = runlog.IntervalSeries{Name: name, Hist: h, Count: h.TotalCount()}
	}
	i := 0
	for b.Loop() {
		s := start.Add(time.Duration(i) * time.Second)
		if err := w.WriteInterval(s, s.Add(time.Second), series, nil); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
