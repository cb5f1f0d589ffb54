package chart

import (
	"math"
	"strconv"
	"strings"
)

// scale maps values to pixels along one axis.
type scale struct {
	lo, hi   float64 // value range
	p0, p1   float64 // pixel range: lo maps to p0, hi to p1
	log      bool
	ticks    []float64
	decimals int // for linear tick labels
}

// at returns the pixel of v, clamped to the axis.
func (s scale) at(v float64) float64 {
	v = math.Min(math.Max(v, s.lo), s.hi)
	var f float64
	if s.log {
		f = (math.Log10(v) - math.Log10(s.lo)) / (math.Log10(s.hi) - math.Log10(s.lo))
	} else {
		f = (v - s.lo) / (s.hi - s.lo)
	}
	return s.p0 + f*(s.p1-s.p0)
}

// label renders a tick value.
func (s scale) label(v float64) string {
	if s.log {
		return fmtNum(v, decimalsOf(v))
	}
	return fmtNum(v, s.decimals)
}

// niceStep returns the 1-2-5 step nearest above raw.
func niceStep(raw float64) float64 {
	if raw <= 0 || math.IsNaN(raw) || math.IsInf(raw, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}

// linear returns a linear scale from 0 (or lo) to a round value at or above
// max, with about n ticks in 1-2-5 steps.
func linear(lo, max float64, n int, p0, p1 float64) scale {
	if !(max > lo) {
		max = lo + 1
	}
	step := niceStep((max - lo) / float64(n))
	hi := math.Ceil(max/step-1e-9) * step
	s := scale{lo: lo, hi: hi, p0: p0, p1: p1, decimals: max0(-int(math.Floor(math.Log10(step))))}
	for i := 0; ; i++ {
		v := lo + float64(i)*step
		if v > hi*(1+1e-9) {
			break
		}
		s.ticks = append(s.ticks, v)
	}
	return s
}

func max0(n int) int { return max(n, 0) }

// logScale returns a logarithmic scale covering [min, max] (both > 0),
// bounded by 1-2-5 values, with ticks at 1, 2 and 5 times powers of ten
// when the range spans at most three decades and at powers of ten
// otherwise.
func logScale(min, max float64, p0, p1 float64) scale {
	if !(min > 0) || !(max > 0) {
		min, max = 0.1, 1
	}
	if max <= min {
		max = min * 2
	}
	// Bound the range by 1-2-5 values.
	lo := floor125(min)
	hi := ceil125(max)
	if hi/lo < 2.5 {
		lo, hi = floor125(lo*0.99), ceil125(hi*1.01)
	}
	s := scale{lo: lo, hi: hi, p0: p0, p1: p1, log: true}
	decades := math.Log10(hi / lo)
	mults := []float64{1, 2, 5}
	if decades > 3 {
		mults = []float64{1}
		s.lo = math.Pow(10, math.Floor(math.Log10(lo)+1e-9))
		s.hi = math.Pow(10, math.Ceil(math.Log10(hi)-1e-9))
	}
	for e := math.Floor(math.Log10(s.lo)) - 1; e <= math.Ceil(math.Log10(s.hi)); e++ {
		for _, m := range mults {
			v := round6(m * math.Pow(10, e))
			if v >= s.lo*(1-1e-9) && v <= s.hi*(1+1e-9) {
				s.ticks = append(s.ticks, v)
			}
		}
	}
	return s
}

// floor125 returns the largest 1-2-5 value at or below v.
func floor125(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{5, 2, 1} {
		if m*p <= v*(1+1e-9) {
			return round6(m * p)
		}
	}
	return round6(p)
}

// ceil125 returns the smallest 1-2-5 value at or above v.
func ceil125(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v*(1-1e-9) {
			return round6(m * p)
		}
	}
	return round6(10 * p)
}

// round6 rounds v to 6 significant digits, removing binary noise such as
// 0.30000000000000004.
func round6(v float64) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	return f
}

// decimalsOf is the number of decimals a 1-2-5 value needs.
func decimalsOf(v float64) int {
	if v <= 0 {
		return 0
	}
	return max0(-int(math.Floor(math.Log10(v) + 1e-9)))
}

// fmtNum renders a tick value with the given decimals, using k and M for
// thousands and millions of round values (1.5k, 20k, 2M).
func fmtNum(v float64, decimals int) string {
	for _, u := range []struct {
		div    float64
		suffix string
	}{{1e6, "M"}, {1e3, "k"}} {
		if math.Abs(v) >= u.div {
			return trimZeros(strconv.FormatFloat(v/u.div, 'f', 3, 64)) + u.suffix
		}
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

func trimZeros(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// fmtVal renders a measured value for tooltips and legends with 3 to 4
// significant digits: 8833, 70.8, 3.12, 0.561.
func fmtVal(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1000 || a == 0:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}
