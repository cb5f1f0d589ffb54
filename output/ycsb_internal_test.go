package output

import (
	"math"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/stats"
)

// TestYCSBFiguresConsistent checks a property every YCSB measurement
// holds, as YCSB 0.17.0 computes its figures from one histogram of whole
// microseconds: Min ≤ Avg ≤ Max, each percentile within [Min, Max], and
// the figures of latencies below 2,048 µs (exact in YCSB's histogram)
// equal to the truncated microseconds YCSB records. It covers the load's
// [INSERT] and [CLEANUP] (YCSBLoadTimer) and a run's measurements, which
// come from histograms of nanoseconds. Before, a single cleanup of 1.5 µs
// printed AverageLatency(us) 1.28 beside MaxLatency(us) 1.
func TestYCSBFiguresConsistent(t *testing.T) {
	us := func(v float64) time.Duration { return time.Duration(v * 1e3) }
	for _, tc := range []struct {
		name string
		d    []time.Duration
	}{
		{"one of 1.5 us", []time.Duration{us(1.5)}},
		{"one of 1.999 us", []time.Duration{us(1.999)}},
		{"under a microsecond", []time.Duration{300, 999}},
		{"a few microseconds", []time.Duration{us(1.2), us(2.7), us(3.9), us(7.99)}},
		{"sub-ms spread", []time.Duration{us(150.4), us(151.9), us(999.99), us(1000.5)}},
		{"milliseconds", []time.Duration{us(1999.9), us(2500.7), us(12345.6)}},
		{"seconds", []time.Duration{1500 * time.Millisecond, 2*time.Second + 999}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The load's timer: YCSB's own recording, truncated µs.
			timer := NewYCSBLoadTimer()
			for _, d := range tc.d {
				timer.Insert(d, false)
				timer.Cleanup(d)
			}
			ms := timer.measurements([]float64{50, 95, 99})
			if len(ms) != 2 {
				t.Fatalf("measurements: %d, want [INSERT] and [CLEANUP]", len(ms))
			}
			// A run's measurement, from nanoseconds.
			h := stats.NewHistogram()
			for _, d := range tc.d {
				_ = h.RecordValue(stats.Clamp(d))
			}
			ms = append(ms, ycsbMeasurements([]*ycsbAcc{{name: "READ", hist: h}}, map[string]bool{"READ": true}, []float64{50, 95, 99}, false)...)
			exactMin, exactMax, exactSum := int64(math.MaxInt64), int64(0), int64(0)
			for _, d := range tc.d {
				v := int64(d / time.Microsecond) // YCSB's (end-start)/1000
				exactMin, exactMax, exactSum = min(exactMin, v), max(exactMax, v), exactSum+v
			}
			for _, m := range ms {
				if m.Count != int64(len(tc.d)) {
					t.Errorf("%s: Count=%d, want %d", m.Name, m.Count, len(tc.d))
				}
				if float64(m.Min) > m.Mean || m.Mean > float64(m.Max) {
					t.Errorf("%s: Avg=%g outside [Min=%d, Max=%d]", m.Name, m.Mean, m.Min, m.Max)
				}
				for _, p := range m.Percentiles {
					if p.Value < m.Min || p.Value > m.Max {
						t.Errorf("%s: %gth percentile %d outside [Min=%d, Max=%d]", m.Name, p.Percentile, p.Value, m.Min, m.Max)
					}
				}
				if m.Name != "READ" && exactMax < 2048 {
					mean := float64(exactSum) / float64(len(tc.d))
					if m.Min != exactMin || m.Max != exactMax || math.Abs(m.Mean-mean) > 1e-9 {
						t.Errorf("%s: Min=%d Max=%d Avg=%g, want YCSB's %d, %d, %g", m.Name, m.Min, m.Max, m.Mean, exactMin, exactMax, mean)
					}
				}
			}
		})
	}
}
