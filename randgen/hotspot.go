package randgen

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Hotspot is YCSB's HotspotIntegerGenerator: the range [lo, hi] is split
// into a hot set, its first hotSetFraction, and a cold set, the rest; a
// fraction hotOpnFraction of the draws picks uniformly from the hot set, the
// others uniformly from the cold set.
//
// A Hotspot is meant to be per-worker; as Next does not modify it,
// goroutines may nevertheless share one safely as long as each passes its
// own *rand.Rand.
type Hotspot struct {
	lo      int64
	hot     int64 // size of the hot set [lo, lo+hot)
	cold    int64 // size of the cold set [lo+hot, hi]
	hotOpnF float64
}

var _ IntGenerator = (*Hotspot)(nil)

// NewHotspot returns YCSB's HotspotIntegerGenerator over [lo, hi]. As in
// YCSB, a fraction outside [0, 1] is replaced by 0, bounds given as hi < lo
// are swapped, and the hot set has int(itemcount × hotSetFraction) items. An
// empty hot (or cold) set sends every draw to the other set, where YCSB would
// throw. It panics if the item count overflows int64. NewHotspot is safe for
// concurrent use; the result is not.
func NewHotspot(lo, hi int64, hotSetFraction, hotOpnFraction float64) *Hotspot {
	if !(hotSetFraction >= 0 && hotSetFraction <= 1) {
		hotSetFraction = 0
	}
	if !(hotOpnFraction >= 0 && hotOpnFraction <= 1) {
		hotOpnFraction = 0
	}
	if lo > hi {
		lo, hi = hi, lo
	}
	n := itemCount("NewHotspot", lo, hi)
	hot := int64(float64(n) * hotSetFraction)
	hot = min(max(hot, 0), n)
	return &Hotspot{lo: lo, hot: hot, cold: n - hot, hotOpnF: hotOpnFraction}
}

// Next returns the next value in [lo, hi]. It does not allocate. It is safe
// for concurrent use only by goroutines passing different r.
func (h *Hotspot) Next(r *rand.Rand) int64 {
	if h.cold == 0 || (r.Float64() < h.hotOpnF && h.hot > 0) {
		return h.lo + r.Int64N(h.hot)
	}
	return h.lo + h.hot + r.Int64N(h.cold)
}

// Exponential is YCSB's ExponentialGenerator: exponentially distributed
// values with rate γ, where a fraction percentile/100 of the values fall
// below rangeVal. YCSB's "exponential" request distribution uses it to pick
// keys at Last() - Next() (exponential.percentile 95, range recordcount ×
// exponential.frac 0.8571428571).
//
// An Exponential is meant to be per-worker; as Next does not modify it,
// goroutines may nevertheless share one safely as long as each passes its
// own *rand.Rand.
type Exponential struct {
	gamma float64
}

var _ IntGenerator = (*Exponential)(nil)

// NewExponential returns YCSB's ExponentialGenerator(percentile, range):
// γ = -ln(1 - percentile/100) / rangeVal. It panics unless 0 < percentile <
// 100 and rangeVal > 0. It is safe for concurrent use; the result is not.
func NewExponential(percentile, rangeVal float64) *Exponential {
	if !(percentile > 0 && percentile < 100) || !(rangeVal > 0 && rangeVal <= math.MaxFloat64) {
		panic(fmt.Sprintf("randgen: NewExponential: need 0 < percentile %v < 100 and finite range %v > 0", percentile, rangeVal))
	}
	return &Exponential{gamma: -math.Log(1-percentile/100) / rangeVal}
}

// NewExponentialMean returns YCSB's ExponentialGenerator(mean): γ = 1/mean.
// It panics unless mean is positive and finite. It is safe for concurrent
// use; the result is not.
func NewExponentialMean(mean float64) *Exponential {
	if !(mean > 0 && mean <= math.MaxFloat64) {
		panic(fmt.Sprintf("randgen: NewExponentialMean: mean %v is not positive and finite", mean))
	}
	return &Exponential{gamma: 1 / mean}
}

// Float64 returns the next value, -ln(U)/γ for U uniform in (0, 1]; YCSB
// draws U from [0, 1) and so can return +Inf. It does not allocate. It is
// safe for concurrent use only by goroutines passing different r.
func (e *Exponential) Float64(r *rand.Rand) float64 {
	return -math.Log(1-r.Float64()) / e.gamma
}

// Next returns the next value truncated to an integer (as YCSB's callers do
// with intValue()), saturating at math.MaxInt64. It does not allocate. It is
// safe for concurrent use only by goroutines passing different r.
func (e *Exponential) Next(r *rand.Rand) int64 {
	v := e.Float64(r)
	if v >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(v)
}
