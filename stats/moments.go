package stats

import "math"

// Moments is an exact count, sum, sum of squares and maximum of values, as
// pgbench's SimpleStats keeps them beside its log: its mean and standard
// deviation are those of the values themselves, where a histogram's are
// of its buckets. The zero value is empty; it is not safe for concurrent
// use.
type Moments struct {
	N              int64
	Sum, Sum2, Max float64
}

// Add adds the value v.
func (m *Moments) Add(v float64) {
	m.N++
	m.Sum += v
	m.Sum2 += v * v
	if m.N == 1 || v > m.Max {
		m.Max = v
	}
}

// Merge adds the values of o.
func (m *Moments) Merge(o Moments) {
	if o.N > 0 && (m.N == 0 || o.Max > m.Max) {
		m.Max = o.Max
	}
	m.N += o.N
	m.Sum += o.Sum
	m.Sum2 += o.Sum2
}

// Mean is the values' mean (0 when there are none).
func (m Moments) Mean() float64 {
	if m.N == 0 {
		return 0
	}
	return m.Sum / float64(m.N)
}

// StdDev is the values' population standard deviation, as pgbench
// computes it (sqrt(sum2/n - mean²), 0 when rounding makes it negative).
func (m Moments) StdDev() float64 {
	if m.N == 0 {
		return 0
	}
	mean := m.Mean()
	return math.Sqrt(max(0, m.Sum2/float64(m.N)-mean*mean))
}
