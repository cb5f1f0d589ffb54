package stats

import "gonum.org/v1/gonum/stat/distuv"

// PoissonInterval returns the exact (Garwood) two-sided interval, at the
// given confidence level (0.95 for 95%), of the mean of a Poisson count
// observed as n: [χ²(α/2; 2n)/2, χ²(1-α/2; 2n+2)/2] with α = 1-confidence,
// its low end 0 for n = 0. Counts of independent arrivals in a fixed time
// (TPC-C's New-Orders in a measurement interval) are such counts.
func PoissonInterval(n int64, confidence float64) (lo, hi float64) {
	alpha := 1 - confidence
	if n > 0 {
		lo = distuv.ChiSquared{K: float64(2 * n)}.Quantile(alpha/2) / 2
	}
	hi = distuv.ChiSquared{K: float64(2*n + 2)}.Quantile(1-alpha/2) / 2
	return lo, hi
}
