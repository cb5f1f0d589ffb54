package stats_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/stampede-bench/stampede/stats"
)

// denseSummary is Summarize computed with the dense histogram's own
// methods, each a walk over its buckets: the independent truth the fast
// figures must equal to the bit.
func denseSummary(h *hdrhistogram.Histogram, errors int64, d time.Duration) stats.Summary {
	s := stats.Summary{Count: h.TotalCount(), Errors: errors, Seconds: d.Seconds()}
	if s.Seconds > 0 {
		s.Rate = float64(s.Count) / s.Seconds
	}
	if s.Count == 0 {
		return s
	}
	v := h.ValueAtPercentiles([]float64{50, 90, 95, 99, 99.9})
	s.Mean = h.Mean() / 1e6
	s.Min = stats.Ms(h.Min())
	s.P50, s.P90, s.P95, s.P99, s.P999 = stats.Ms(v[50]), stats.Ms(v[90]), stats.Ms(v[95]), stats.Ms(v[99]), stats.Ms(v[99.9])
	s.Max = stats.Ms(h.Max())
	s.Stdev = h.StdDev() / 1e6
	return s
}

// figureCases are histograms of the shapes runs record: empty, one value,
// the extremes of the range, latencies of one or several modes with long
// tails, and counts beyond 32 bits.
func figureCases() map[string]*hdrhistogram.Histogram {
	rec := func(vals ...int64) *hdrhistogram.Histogram {
		h := stats.NewHistogram()
		for _, v := range vals {
			_ = h.RecordValue(v)
		}
		return h
	}
	r := rand.New(rand.NewPCG(33, 1))
	draw := func(n int, f func() float64) *hdrhistogram.Histogram {
		h := stats.NewHistogram()
		for range n {
			_ = h.RecordValue(stats.Clamp(time.Duration(f())))
		}
		return h
	}
	big := stats.NewHistogram()
	_ = big.RecordValues(250_000, 1<<40)
	_ = big.RecordValues(3_000_000, 1<<33+7)
	_ = big.RecordValues(stats.Highest, 5)
	return map[string]*hdrhistogram.Histogram{
		"empty":   stats.NewHistogram(),
		"zero":    rec(0),
		"one":     rec(1_234_567),
		"extreme": rec(0, 1, stats.Lowest, stats.Highest, stats.Highest),
		"exp 1ms": draw(20_000, func() float64 { return r.ExpFloat64() * 1e6 }),
		"tpcc": draw(50_000, func() float64 { // fast calls, slow stock-levels
			if r.IntN(20) == 0 {
				return 2e8 + r.ExpFloat64()*3e8
			}
			return 3e5 + r.ExpFloat64()*2e7
		}),
		"lognormal": draw(30_000, func() float64 { return math.Exp(13 + 2*r.NormFloat64()) }),
		"huge":      big,
	}
}

// TestFastFigures: Summarize and Merge, which go through a sparse copy of
// the histogram, give exactly what the dense histogram's own methods give,
// into a histogram of stampede's geometry and into one of another (YCSB's
// output merges into microsecond histograms).
func TestFastFigures(t *testing.T) {
	// The values recorded at the highest (Summary.Capped), as figureCases
	// records them.
	capped := map[string]int64{"extreme": 2, "huge": 5}
	for name, h := range figureCases() {
		t.Run(name, func(t *testing.T) {
			want := denseSummary(h, 3, 7*time.Second)
			want.Capped = capped[name]
			if got := stats.Summarize(h, 3, 7*time.Second); got != want {
				t.Errorf("Summarize:\n got %+v\nwant %+v", got, want)
			}
			for _, mk := range []func() *hdrhistogram.Histogram{
				stats.NewHistogram,
				func() *hdrhistogram.Histogram { return hdrhistogram.New(1, stats.Highest/1e3, stats.SigFigs) },
			} {
				got, want := mk(), mk()
				for _, d := range []*hdrhistogram.Histogram{got, want} {
					_ = d.RecordValues(777_777, 3)
				}
				stats.Merge(got, h)
				want.Merge(h)
				if !got.Equals(want) || got.TotalCount() != want.TotalCount() {
					t.Errorf("Merge into %d-%d: %d values, want %d (or the buckets differ)",
						want.LowestTrackableValue(), want.HighestTrackableValue(), got.TotalCount(), want.TotalCount())
				}
			}
		})
	}
	// A histogram of another geometry takes the dense path.
	other := hdrhistogram.New(1, 1e9, 2)
	for v := int64(1); v < 1e9; v *= 3 {
		_ = other.RecordValues(v, v%7+1)
	}
	if got, want := stats.Summarize(other, 0, time.Second), denseSummary(other, 0, time.Second); got != want {
		t.Errorf("Summarize of another geometry:\n got %+v\nwant %+v", got, want)
	}
}

// BenchmarkSummarize compares Summarize with the dense histogram's own
// walks (denseSummary), and Merge with the dense Merge, on a TPC-C-like
// histogram (the cumulative view of a run).
func BenchmarkSummarize(b *testing.B) {
	h := figureCases()["tpcc"]
	for _, f := range []struct {
		name string
		fn   func()
	}{
		{"dense", func() { denseSummary(h, 0, time.Second) }},
		{"stampede", func() { stats.Summarize(h, 0, time.Second) }},
		{"merge/dense", func() { stats.NewHistogram().Merge(h) }},
		{"merge/stampede", func() { stats.Merge(stats.NewHistogram(), h) }},
	} {
		b.Run(f.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				f.fn()
			}
		})
	}
}
