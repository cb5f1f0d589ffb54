package stats

import (
	"math"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Merge adds every value of src into dst exactly (both must have stampede's
// geometry) and returns dst.
func Merge(dst, src *hdrhistogram.Histogram) *hdrhistogram.Histogram {
	dst.Merge(src)
	return dst
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
}

// Ms converts nanoseconds to milliseconds.
func Ms(ns int64) float64 { return float64(ns) / 1e6 }

// Summarize computes a Summary of h over a period of length d.
func Summarize(h *hdrhistogram.Histogram, errors int64, d time.Duration) Summary {
	s := Summary{Count: h.TotalCount(), Errors: errors, Seconds: d.Seconds()}
	if s.Seconds > 0 {
		s.Rate = float64(s.Count) / s.Seconds
	}
	if s.Count == 0 {
		return s
	}
	v := h.ValueAtPercentiles([]float64{50, 90, 95, 99, 99.9})
	s.Mean = h.Mean() / 1e6
	s.Min = Ms(h.Min())
	s.P50 = Ms(v[50])
	s.P90 = Ms(v[90])
	s.P95 = Ms(v[95])
	s.P99 = Ms(v[99])
	s.P999 = Ms(v[99.9])
	s.Max = Ms(h.Max())
	s.Stdev = h.StdDev() / 1e6
	return s
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
func LogBuckets(h *hdrhistogram.Histogram, n int, loMs, hiMs float64) []Bucket {
	if n < 1 || loMs <= 0 || hiMs <= loMs {
		return nil
	}
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
func CumulativeCounts(h *hdrhistogram.Histogram, bounds []float64) (counts []uint64, sumSeconds float64) {
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
