package stats_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/stampede-bench/stampede/stats"
)

// sameFigures fails t unless h holds exactly the counts of the dense
// histogram want, at every bucket, with the same figures to the bit.
func sameFigures(t *testing.T, what string, h *stats.Hist, want *hdrhistogram.Histogram) {
	t.Helper()
	if got := h.Dense(); !got.Equals(want) || got.TotalCount() != want.TotalCount() {
		t.Errorf("%s: %d values, want %d (or the buckets differ)", what, got.TotalCount(), want.TotalCount())
		return
	}
	gotBars, wantBars := h.Dense().Distribution(), want.Distribution()
	for i := range wantBars {
		if gotBars[i] != wantBars[i] {
			t.Errorf("%s: bucket %d is %+v, want %+v", what, i, gotBars[i], wantBars[i])
			return
		}
	}
	if h.TotalCount() != want.TotalCount() || h.Max() != want.Max() || h.Min() != want.Min() ||
		h.Mean() != want.Mean() || h.StdDev() != want.StdDev() {
		t.Errorf("%s: count %d max %d min %d mean %v stddev %v, want %d %d %d %v %v", what,
			h.TotalCount(), h.Max(), h.Min(), h.Mean(), h.StdDev(),
			want.TotalCount(), want.Max(), want.Min(), want.Mean(), want.StdDev())
	}
	for _, q := range []float64{0, 1, 25, 50, 90, 95, 99, 99.9, 99.99, 100} {
		if want.TotalCount() > 0 && h.ValueAtQuantile(q) != want.ValueAtQuantile(q) {
			t.Errorf("%s: p%v %d, want %d", what, q, h.ValueAtQuantile(q), want.ValueAtQuantile(q))
		}
	}
	if got, w := stats.Summarize(h, 1, time.Second), stats.Summarize(want, 1, time.Second); got != w {
		t.Errorf("%s: Summarize\n got %+v\nwant %+v", what, got, w)
	}
	if got, w := stats.Capped(h), stats.Capped(want); got != w {
		t.Errorf("%s: Capped %d, want %d", what, got, w)
	}
	merged, direct := stats.NewHistogram(), stats.NewHistogram()
	stats.Merge(merged, h)
	direct.Merge(want)
	if !merged.Equals(direct) {
		t.Errorf("%s: Merge into a dense histogram differs from the dense Merge", what)
	}
}

// histValues are value sets of the shapes runs record: none, one, the
// extremes and the cap, a few values (a sparse histogram throughout),
// and enough spread ones to turn it dense.
func histValues() map[string][]int64 {
	r := rand.New(rand.NewPCG(29, 10))
	draw := func(n int, f func() float64) []int64 {
		vs := make([]int64, n)
		for i := range vs {
			vs[i] = stats.Clamp(time.Duration(f()))
		}
		return vs
	}
	return map[string][]int64{
		"empty":   nil,
		"one":     {1_234_567},
		"extreme": {0, 1, stats.Lowest, stats.Highest, stats.Highest},
		"few":     draw(50, func() float64 { return 2e5 + r.ExpFloat64()*1e6 }),
		"128":     draw(128, func() float64 { return 2e5 + r.ExpFloat64()*1e6 }),
		"129":     draw(129, func() float64 { return 2e5 + r.ExpFloat64()*1e6 }),
		"1500":    draw(1500, func() float64 { return 1e6 + r.ExpFloat64()*1e6 }),
		"wide":    draw(20_000, func() float64 { return float64(r.Int64N(int64(time.Second))) }),
		"tpcc": draw(30_000, func() float64 {
			if r.IntN(20) == 0 {
				return 2e8 + r.ExpFloat64()*3e8
			}
			return 3e5 + r.ExpFloat64()*2e7
		}),
	}
}

// TestHistExact: a Hist fed the same values as a dense histogram built
// directly holds the same count at every bucket and gives the same
// figures, sparse and after it turned dense; and so do the interval and
// cumulative views of a registry whose values were recorded by workers
// over several shards and merged over several intervals (Tick), for a
// registry of a few series and one of many, and a part's parent.
func TestHistExact(t *testing.T) {
	for name, vals := range histValues() {
		t.Run(name, func(t *testing.T) {
			h, want := stats.NewHist(), stats.NewHistogram()
			for _, v := range vals {
				h.RecordValue(v)
				_ = want.RecordValue(v)
			}
			if dense := len(vals) > 128; h.IsDense() != dense {
				t.Errorf("%d values: dense %v, want %v", len(vals), h.IsDense(), dense)
			}
			sameFigures(t, "recorded", h, want)

			// The same values recorded as a histogram read back gives
			// them (a count per bucket), and merged from sparse and
			// dense Hists.
			back, merged := stats.NewHist(), stats.NewHist()
			for _, bar := range want.Distribution() {
				if bar.Count > 0 {
					_ = back.RecordValues(bar.From, bar.Count)
				}
			}
			sameFigures(t, "recorded back", back, want)
			half := len(vals) / 2
			a, b := stats.NewHist(), stats.HistOf(stats.NewHistogram())
			for _, v := range vals[:half] {
				a.RecordValue(v)
			}
			for _, v := range vals[half:] {
				b.RecordValue(v)
			}
			merged.Merge(a)
			merged.Merge(b)
			sameFigures(t, "merged", merged, want)
			packed := stats.NewHist()
			packed.MergePacked(h.Packed())
			sameFigures(t, "merged packed", packed, want)

			for _, series := range []int{2, 3000} {
				t.Run(fmt.Sprint("series=", series), func(t *testing.T) {
					names := make([]string, series)
					for i := range names {
						names[i] = fmt.Sprint("s", i)
					}
					start := time.Now()
					reg := stats.NewRegistry(names, 4, start)
					part := reg.AddSeries("s0@ep", 0)
					hs := []*stats.Handle{reg.Handle(0), reg.Handle(1), reg.Handle(2), reg.Handle(3)}
					cum := stats.NewHistogram()
					// Three intervals, each a third of the values, spread
					// over the workers and over series 0 and its part.
					for k := range 3 {
						iv := stats.NewHistogram()
						for i, v := range vals[k*len(vals)/3 : (k+1)*len(vals)/3] {
							s := 0
							if i%3 == 0 {
								s = part
							}
							hs[i%len(hs)].Record(s, time.Duration(v))
							_ = iv.RecordValue(v)
							_ = cum.RecordValue(v)
						}
						for _, h := range hs {
							h.Flush()
						}
						tick := reg.Tick(start.Add(time.Duration(k+1) * time.Second))
						sameFigures(t, fmt.Sprint("interval ", k), tick.Series[0].Interval, iv)
						sameFigures(t, fmt.Sprint("cumulative ", k), tick.Series[0].Cumulative, cum)
						if n := tick.Series[1].Cumulative.TotalCount(); n != 0 {
							t.Errorf("series 1 holds %d values, want none", n)
						}
					}
				})
			}
		})
	}
}

// TestManySeriesSparse: a registry of 5,000 series (a script's
// statements) recorded 16 times each by 8 workers over three intervals
// holds its histograms in a few tens of MB, where dense ones took four of
// 155 kB each per series (3.1 GB), and Tick's views count every value.
func TestManySeriesSparse(t *testing.T) {
	names := make([]string, 5000)
	for i := range names {
		names[i] = fmt.Sprint("stmt", i)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	reg := stats.NewRegistry(names, 8, start)
	r := rand.New(rand.NewPCG(5000, 8))
	var tick stats.Tick
	for k := range 3 {
		for w := range 8 {
			h := reg.Handle(w)
			for i := range names {
				for range 2 {
					h.Record(i, time.Duration(1e5+r.Int64N(5e6)))
				}
			}
			h.Flush()
		}
		tick = reg.Tick(start.Add(time.Duration(k+1) * time.Second))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	for i, s := range tick.Series {
		if s.Interval.TotalCount() != 16 || s.Cumulative.TotalCount() != 48 {
			t.Fatalf("series %d: %d values in the interval, %d cumulative: want 16 and 48", i, s.Interval.TotalCount(), s.Cumulative.TotalCount())
		}
	}
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 100<<20 {
		t.Errorf("5,000 series hold %d MB of heap, want under 100 MB", grew>>20)
	}
	runtime.KeepAlive(reg)
}
