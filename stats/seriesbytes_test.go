package stats_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/stats"
)

// TestSeriesBytes: a registry of many series records into fewer shards,
// so its histograms grow with the series alone (4 per series at one
// shard), and a few series keep every shard asked for; each histogram is
// counted at its largest while sparse (SparseBytes), a tenth of a dense
// one's.
func TestSeriesBytes(t *testing.T) {
	hb := stats.HistogramBytes
	if hb != int64(stats.NewHistogram().ByteSize()) || hb < 100<<10 {
		t.Fatalf("HistogramBytes %d, a histogram is %d", hb, stats.NewHistogram().ByteSize())
	}
	sb := stats.SparseBytes
	if sb > hb/5 || sb < 1024*12 {
		t.Fatalf("SparseBytes %d: want 1,024 buckets of 12 bytes at least and at most a fifth of a dense histogram's %d", sb, hb)
	}
	for _, c := range []struct {
		series, shards int
		hists          int64 // per series
	}{
		{2, 8, 18},    // 8 shards kept
		{30, 32, 66},  // a built-in workload on 8 CPUs: 32 shards kept
		{200, 8, 12},  // 5 shards: 1,024 / 200
		{1001, 8, 4},  // 1 shard
		{5001, 64, 4}, // 1 shard
		{10, 0, 4},    // at least 1
	} {
		if got, want := stats.SeriesBytes(c.series, c.shards), int64(c.series)*c.hists*sb; got != want {
			t.Errorf("SeriesBytes(%d, %d) = %d, want %d (%d histograms per series)", c.series, c.shards, got, want, c.hists)
		}
	}
	// The script: 5,000 statements at 8 workers, under 500 MB.
	if got := stats.SeriesBytes(5001, 8); got > 500<<20 {
		t.Errorf("SeriesBytes(5001, 8) = %d MB, want under 500 MB", got>>20)
	}
}

// TestManySeriesExact: 2,000 series recorded by 8 workers into the one
// shard they share count every value, in the interval and cumulative
// views.
func TestManySeriesExact(t *testing.T) {
	names := make([]string, 2000)
	for i := range names {
		names[i] = fmt.Sprint("s", i)
	}
	start := time.Now()
	reg := stats.NewRegistry(names, 8, start)
	for w := range 8 {
		h := reg.Handle(w)
		for i := range names {
			h.Record(i, time.Duration(w+1)*time.Millisecond)
		}
		h.Flush()
	}
	tick := reg.Tick(start.Add(time.Second))
	for i, s := range tick.Series {
		if s.Interval.TotalCount() != 8 || s.Cumulative.TotalCount() != 8 || s.Interval.Max() < int64(8*time.Millisecond)*999/1000 {
			t.Fatalf("series %d: %d values in the interval, %d cumulative, max %d: want 8 up to 8 ms", i, s.Interval.TotalCount(), s.Cumulative.TotalCount(), s.Interval.Max())
		}
	}
}
