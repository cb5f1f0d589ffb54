package stats

import (
	"math"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Merge adds every value of src into dst exactly and returns dst. It is
// dst.Merge(src)'s result at a fraction of its cost (see packedOf).
func Merge[H Histograms](dst *hdrhistogram.Histogram, from H) *hdrhistogram.Histogram {
	var src *hdrhistogram.Histogram
	switch x := any(from).(type) {
	case *Hist:
		if x.dense == nil {
			x.sparse.MergeInto(dst)
			return dst
		}
		src = x.dense
	case *hdrhistogram.Histogram:
		src = x
	}
	if src.TotalCount() == 0 {
		return dst
	}
	p := packedOf(src)
	if p == nil {
		dst.Merge(src)
		return dst
	}
	p.MergeInto(dst)
	packedPool.Put(p)
	return dst
}

// packedPool holds sparse histograms of stampede's geometry, reused by
// packedOf.
var packedPool = sync.Pool{New: func() any { return hdrhistogram.NewPacked(Lowest, Highest, SigFigs) }}

// geometry is the geometry of stampede's histograms.
var geometry = NewHistogram()

// packedOf returns a sparse copy of h, from packedPool (Put it back), or
// nil when h does not have stampede's geometry.
//
// The dense histogram's own Merge, Mean, StdDev and Max walk its ~19,500
// buckets (1 µs to 100 s at 3 digits) with an iterator that computes each
// bucket's value range: ~0.1-0.3 ms each, and a tick summarizes ten
// histograms with five such walks each and merges one per series and shard.
// Copying the counts into a sparse histogram is one plain pass over them
// (PackedHistogram.MergeFrom), after which its Mean, StdDev, Max, Min and
// MergeInto visit only the populated buckets, with the same formulas in
// the same order, so the figures are the same to the bit (TestFastFigures).
// In a 15 s `run tpcc --profile hammerdb` of 8 workers (~300-400
// transactions/s on a loaded machine), Summarize and Registry.Tick took
// 270 of the 700 ms of CPU profiled, then 90 of 620 ms.
func packedOf(h *hdrhistogram.Histogram) *hdrhistogram.PackedHistogram {
	if h.SignificantFigures() != geometry.SignificantFigures() || h.LowestTrackableValue() != geometry.LowestTrackableValue() ||
		h.HighestTrackableValue() != geometry.HighestTrackableValue() {
		return nil
	}
	p := packedPool.Get().(*hdrhistogram.PackedHistogram)
	p.Reset()
	p.MergeFrom(h)
	return p
}

// Quantiles are the latency quantiles stampede reports, in percent.
var Quantiles = []float64{50, 90, 95, 99, 99.9, 100}

// Summary is the statistics of one histogram over a period.
type Summary struct {
	// Count is the number of operations recorded.
	Count int64 `json:"count"`
	// Errors is the number of failed operations.
	Errors int64 `json:"errors"`
	// Seconds is the length of the period.
	Seconds float64 `json:"seconds"`
	// Rate is Count / Seconds.
	Rate float64 `json:"ops_per_sec"`
	// Latencies in milliseconds.
	Mean  float64 `json:"mean_ms"`
	Min   float64 `json:"min_ms"`
	P50   float64 `json:"p50_ms"`
	P90   float64 `json:"p90_ms"`
	P95   float64 `json:"p95_ms"`
	P99   float64 `json:"p99_ms"`
	P999  float64 `json:"p99_9_ms"`
	Max   float64 `json:"max_ms"`
	Stdev float64 `json:"stdev_ms"`
	// Capped counts the values recorded at Highest or above (clamped to
	// it): any figure at or above CapMs stands for "Highest or more", and
	// Mean is then a lower bound.
	Capped int64 `json:"capped,omitempty"`
}

// capNs is the lowest value of the histograms' top bucket, that of
// Highest, where every larger value is recorded (Clamp): a figure at or
// above it is Highest or more.
var capNs = func() int64 {
	lo, hi := Highest/2, Highest // capNs is in (lo, hi]
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if geometry.ValuesAreEquivalent(mid, Highest) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}()

// CapMs is capNs in milliseconds: a latency figure at or above it (such as
// the top bucket's 100,059 ms) is one that reached the histograms' highest,
// 100 s, and stands for 100 s or more.
var CapMs = Ms(capNs)

// Capped returns how many of h's values are in its top bucket: recorded
// at Highest, larger values included (clamped).
func Capped[H Histograms](from H) int64 {
	if x, ok := any(from).(*Hist); ok && x.dense == nil {
		var n int64
		for v, c := range x.sparse.ForEachBucket {
			if v >= capNs { // the bucket's lowest value
				n += c
			}
		}
		return n
	}
	h := denseOf(from)
	if h.TotalCount() == 0 || h.Max() < capNs {
		return 0
	}
	var n int64
	for _, bar := range h.Distribution() {
		if bar.To >= capNs {
			n += bar.Count
		}
	}
	return n
}

// Ms converts nanoseconds to milliseconds.
func Ms(ns int64) float64 { return float64(ns) / 1e6 }

// Summarize computes a Summary of h over a period of length d.
func Summarize[H Histograms](from H, errors int64, d time.Duration) Summary {
	var h *hdrhistogram.Histogram
	switch x := any(from).(type) {
	case *Hist:
		if x.dense == nil {
			return summarizePacked(x.sparse, errors, d)
		}
		h = x.dense
	case *hdrhistogram.Histogram:
		h = x
	}
	s := Summary{Count: h.TotalCount(), Errors: errors, Seconds: d.Seconds()}
	if s.Seconds > 0 {
		s.Rate = float64(s.Count) / s.Seconds
	}
	if s.Count == 0 {
		return s
	}
	p := packedOf(h)
	if p == nil {
		v := h.ValueAtPercentilesSlice(summaryPercentiles)
		s.fill(v, h.Mean(), h.Min(), h.Max(), h.StdDev())
	} else {
		s.fill(p.ValueAtPercentilesSlice(summaryPercentiles), p.Mean(), p.Min(), p.Max(), p.StdDev())
		packedPool.Put(p)
	}
	if s.Max >= CapMs {
		s.Capped = Capped(h)
	}
	return s
}

// summarizePacked is Summarize of the sparse histogram p.
func summarizePacked(p *hdrhistogram.PackedHistogram, errors int64, d time.Duration) Summary {
	s := Summary{Count: p.TotalCount(), Errors: errors, Seconds: d.Seconds()}
	if s.Seconds > 0 {
		s.Rate = float64(s.Count) / s.Seconds
	}
	if s.Count == 0 {
		return s
	}
	s.fill(p.ValueAtPercentilesSlice(summaryPercentiles), p.Mean(), p.Min(), p.Max(), p.StdDev())
	if s.Max >= CapMs {
		s.Capped = Capped(&Hist{sparse: p})
	}
	return s
}

// summaryPercentiles are the percentiles of a Summary, in the order fill
// takes them.
var summaryPercentiles = []float64{50, 90, 95, 99, 99.9}

// fill sets s's latencies from h's figures in nanoseconds: the values at
// summaryPercentiles, the mean, the minimum, the maximum and the standard
// deviation.
func (s *Summary) fill(v []int64, mean float64, lo, hi int64, stdev float64) {
	s.Mean = mean / 1e6
	s.Min = Ms(lo)
	s.P50 = Ms(v[0])
	s.P90 = Ms(v[1])
	s.P95 = Ms(v[2])
	s.P99 = Ms(v[3])
	s.P999 = Ms(v[4])
	s.Max = Ms(hi)
	s.Stdev = stdev / 1e6
}

// Bucket is one bar of a latency histogram printout.
type Bucket struct {
	// Value is the bucket's lower bound in milliseconds.
	Value float64
	// Count is the number of values in the bucket.
	Count int64
}

// LogBuckets regroups h into n logarithmic buckets between loMs and hiMs
// milliseconds (sysbench prints its latency histogram this way: 1024
// buckets from 0.001 to 100,000 ms) and returns the non-empty ones in
// increasing order. Values outside the range go to the first or last
// bucket.
func LogBuckets[H Histograms](from H, n int, loMs, hiMs float64) []Bucket {
	if n < 1 || loMs <= 0 || hiMs <= loMs {
		return nil
	}
	h := denseOf(from)
	counts := make([]int64, n)
	logLo := math.Log(loMs)
	scale := float64(n) / (math.Log(hiMs) - logLo)
	for _, bar := range h.Distribution() {
		if bar.Count == 0 {
			continue
		}
		v := Ms(bar.From)
		i := 0
		if v > loMs {
			i = int((math.Log(v) - logLo) * scale)
		}
		i = min(max(i, 0), n-1)
		counts[i] += bar.Count
	}
	var out []Bucket
	for i, c := range counts {
		if c > 0 {
			out = append(out, Bucket{Value: math.Exp(logLo + float64(i)/scale), Count: c})
		}
	}
	return out
}

// CumulativeCounts returns, for each upper bound in bounds (ascending,
// in seconds), how many values of h are at most that bound, as a
// Prometheus histogram's cumulative buckets count them, and the sum of
// all values in seconds (estimated from the histogram's bars).
func CumulativeCounts[H Histograms](from H, bounds []float64) (counts []uint64, sumSeconds float64) {
	h := denseOf(from)
	counts = make([]uint64, len(bounds))
	for _, bar := range h.Distribution() {
		if bar.Count == 0 {
			continue
		}
		v := float64(bar.To) / 1e9 // the bar's highest value, in seconds
		sumSeconds += float64(bar.Count) * float64(bar.From+bar.To) / 2e9
		for i, b := range bounds {
			if v <= b {
				counts[i] += uint64(bar.Count)
			}
		}
	}
	return counts, sumSeconds
}
