package chart

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// fmtSec renders seconds since the start: 12, 12.5, 0.25.
func fmtSec(s float64) string {
	return trimZeros(fmt.Sprintf("%.2f", s))
}

// fmtNum renders a tick value with the given decimals, using k and M for
// thousands and millions (1.5k, 20k, 2M).
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
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// floor125 returns the largest 1-2-5 value at or below v (> 0).
func floor125(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{5, 2, 1} {
		if m*p <= v*(1+1e-9) {
			return round6(m * p)
		}
	}
	return round6(p)
}

// ceil125 returns the smallest 1-2-5 value at or above v (> 0).
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
	return max(-int(math.Floor(math.Log10(v)+1e-9)), 0)
}
