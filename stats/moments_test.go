package stats_test

import (
	"math"
	"testing"

	"github.com/stampede-bench/stampede/stats"
)

func TestMoments(t *testing.T) {
	cases := []struct {
		name         string
		values       []float64
		mean, stddev float64
		most         float64
	}{
		{"none", nil, 0, 0, 0},
		{"one", []float64{7}, 7, 0, 7},
		{"two", []float64{1, 3}, 2, 1, 3},
		{"negative", []float64{-3, -1}, -2, 1, -1},
		{"eight", []float64{2, 4, 4, 4, 5, 5, 7, 9}, 5, 2, 9},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var whole, a, b stats.Moments
			for i, v := range c.values {
				whole.Add(v)
				if i%2 == 0 {
					a.Add(v)
				} else {
					b.Add(v)
				}
			}
			a.Merge(b)
			for _, m := range []stats.Moments{whole, a} {
				if m.N != int64(len(c.values)) || math.Abs(m.Mean()-c.mean) > 1e-12 || math.Abs(m.StdDev()-c.stddev) > 1e-12 || m.Max != c.most {
					t.Errorf("n %d mean %v stddev %v max %v, want %d %v %v %v", m.N, m.Mean(), m.StdDev(), m.Max, len(c.values), c.mean, c.stddev, c.most)
				}
			}
		})
	}
}
