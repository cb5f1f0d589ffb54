package randgen

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// ZipfianConstant is YCSB's default Zipfian skew θ (ZipfianGenerator's
// ZIPFIAN_CONSTANT, used by its "zipfian" and "latest" request
// distributions). Being a constant, it is safe for concurrent use.
const ZipfianConstant = 0.99

// ScrambledItemCount is the size of the item space YCSB's
// ScrambledZipfianGenerator draws from before hashing: a Zipfian over
// [0, ScrambledItemCount] (ScrambledZipfianGenerator.ITEM_COUNT). Being a
// constant, it is safe for concurrent use.
const ScrambledItemCount = 10_000_000_000

// ZetanScrambled is YCSB's precomputed zeta for the scrambled generator's
// item space and θ = ZipfianConstant (ScrambledZipfianGenerator.ZETAN), used
// as is so the distribution matches YCSB's. Being a constant, it is safe for
// concurrent use.
const ZetanScrambled = 26.46902820178302

// zetaDirectTerms is how many leading terms of a zeta sum are added one by
// one; beyond it the Euler–Maclaurin formula gives the rest of the sum.
const zetaDirectTerms = 1024

// Zeta returns the generalized harmonic number H(n, θ) = Σ_{i=1..n} 1/i^θ,
// the normalising constant of a Zipfian over n items (YCSB's
// ZipfianGenerator.zetastatic). Zeta(0, θ) = 0.
//
// The first 1024 terms are summed one by one, as YCSB sums them all; the rest
// of the sum comes from the Euler–Maclaurin formula. The result is accurate
// to about 1e-14 relative (closer than YCSB's long sums, whose rounding
// errors reach 1e-12 at 10^10 terms), and any n, even 10^10 or more, costs
// microseconds instead of minutes.
//
// Zeta is safe for concurrent use.
func Zeta(n int64, theta float64) float64 {
	return zetaRange(0, n, theta, 0)
}

// zetaRange returns sum + Σ_{i=st+1..n} 1/i^θ: the zeta of n items given the
// zeta (sum) of st items, as YCSB's incremental zeta does.
func zetaRange(st, n int64, theta, sum float64) float64 {
	if n <= st {
		return sum
	}
	direct := n
	if n-st > zetaDirectTerms {
		direct = max(st, zetaDirectTerms)
	}
	for i := st + 1; i <= direct; i++ {
		sum += math.Exp(-theta * math.Log(float64(i))) // i^-θ, 3x faster than math.Pow
	}
	if direct < n {
		sum += zetaTail(direct, n, theta)
	}
	return sum
}

// zetaTail returns Σ_{i=a+1..b} 1/i^θ for 1 <= a < b by the Euler–Maclaurin
// formula:
//
//	Σ_{i=a..b} f(i) = ∫_a^b f + (f(a)+f(b))/2 + Σ_k B_2k/(2k)! (f⁽²ᵏ⁻¹⁾(b) - f⁽²ᵏ⁻¹⁾(a)) + R
//
// with f(x) = x^-θ, keeping the terms up to B_6. For a >= 1024 the remainder
// (about the first omitted, B_8 term) is below 1e-23 for every θ in [0, 1).
func zetaTail(a, b int64, theta float64) float64 {
	fa, fb := float64(a), float64(b)
	pa, pb := math.Pow(fa, -theta), math.Pow(fb, -theta) // f(a), f(b)
	// ∫_a^b x^-θ dx = a^(1-θ) · (exp((1-θ)L) - 1)/(1-θ), L = ln(b/a), written
	// with expm1 so it stays exact as θ approaches 1 (where it tends to L).
	l := math.Log1p(float64(b-a) / fa)
	integral := fa * pa * l * expm1x((1-theta)*l)
	// Derivatives: f'(x) = -θ f(x)/x, f'''(x) = -θ(θ+1)(θ+2) f(x)/x³,
	// f⁽⁵⁾(x) = -θ(θ+1)(θ+2)(θ+3)(θ+4) f(x)/x⁵.
	c1 := -theta
	c3 := c1 * (theta + 1) * (theta + 2)
	c5 := c3 * (theta + 3) * (theta + 4)
	d1 := c1 * (pb/fb - pa/fa)
	d3 := c3 * (pb/(fb*fb*fb) - pa/(fa*fa*fa))
	d5 := c5 * (pb/(fb*fb*fb*fb*fb) - pa/(fa*fa*fa*fa*fa))
	// Σ_{a+1..b} = Σ_{a..b} - f(a).
	return integral + (pb-pa)/2 + d1/12 - d3/720 + d5/30240
}

// expm1x returns (e^x - 1)/x, and 1 at x = 0.
func expm1x(x float64) float64 {
	if math.Abs(x) < 1e-8 {
		return 1 + x/2*(1+x/3*(1+x/4))
	}
	return math.Expm1(x) / x
}

// Zipfian is YCSB's ZipfianGenerator: it draws integers from [lo, hi] where
// lo is the most popular, lo+1 the next, and so on, following Zipf's law with
// skew θ (the "Zipfian constant"): item i (0-based) has probability about
// 1/((i+1)^θ · ζ(n, θ)), where n is the item count. It uses the method of
// Gray et al., "Quickly Generating Billion-Record Synthetic Databases"
// (SIGMOD 1994): ranks 0 and 1 are exact, the rest comes from a closed-form
// approximation of the inverse CDF, so a draw costs O(1) for any n.
//
// A Zipfian is a per-worker value: it is not safe for concurrent use.
type Zipfian struct {
	base         int64   // lo
	items        int64   // hi - lo + 1, the count Next draws over
	countForZeta int64   // the item count zetan and eta are for
	theta        float64 // skew θ
	alpha        float64 // 1 / (1 - θ)
	zeta2        float64 // ζ(2, θ) = 1 + 2^-θ, also the rank-1 threshold
	zetan        float64 // ζ(countForZeta, θ)
	eta          float64 // Gray's η for countForZeta
	// intAlpha is α rounded, when α is an integer up to float64 rounding
	// (θ = 0.99 gives α = 100), else 0; x^α is then computed by squaring.
	intAlpha uint
}

var _ IntGenerator = (*Zipfian)(nil)

// NewZipfian returns YCSB's ZipfianGenerator over [lo, hi] with skew
// constant (YCSB's default is ZipfianConstant), computing zeta over the item
// count hi-lo+1 with Zeta. It panics if hi < lo, if the item count overflows
// int64, or if constant is not in [0, 1) (Gray's method needs θ < 1).
// NewZipfian is safe for concurrent use; the result is not.
func NewZipfian(lo, hi int64, constant float64) *Zipfian {
	return NewZipfianWithZeta(lo, hi, constant, Zeta(itemCount("NewZipfian", lo, hi), constant))
}

// NewZipfianWithZeta is NewZipfian with a precomputed zeta for the item count
// hi-lo+1 (YCSB's four-argument ZipfianGenerator constructor), which it uses
// as is. It panics on the arguments NewZipfian rejects and if zetan is not a
// positive finite number. It is safe for concurrent use; the result is not.
func NewZipfianWithZeta(lo, hi int64, constant, zetan float64) *Zipfian {
	z := new(Zipfian)
	z.init("NewZipfianWithZeta", lo, hi, constant, zetan)
	return z
}

// itemCount returns hi-lo+1, panicking if it is not a positive int64.
func itemCount(fn string, lo, hi int64) int64 {
	if hi < lo {
		panic(fmt.Sprintf("randgen: %s: hi %d < lo %d", fn, hi, lo))
	}
	n := hi - lo + 1
	if n <= 0 {
		panic(fmt.Sprintf("randgen: %s: range [%d, %d] has more than MaxInt64 items", fn, lo, hi))
	}
	return n
}

func (z *Zipfian) init(fn string, lo, hi int64, constant, zetan float64) {
	n := itemCount(fn, lo, hi)
	if !(constant >= 0 && constant < 1) {
		panic(fmt.Sprintf("randgen: %s: Zipfian constant %v not in [0, 1)", fn, constant))
	}
	if !(zetan > 0 && zetan <= math.MaxFloat64) {
		panic(fmt.Sprintf("randgen: %s: zeta %v is not a positive finite number", fn, zetan))
	}
	*z = Zipfian{
		base:         lo,
		items:        n,
		countForZeta: n,
		theta:        constant,
		alpha:        1 / (1 - constant),
		zeta2:        Zeta(2, constant), // as computed for n = 2 items
		zetan:        zetan,
	}
	if a := math.Round(z.alpha); a <= 4096 && math.Abs(z.alpha-a) <= 1e-12*a {
		z.intAlpha = uint(a)
	}
	z.eta = z.etaFor(n)
}

// etaFor returns Gray's η = (1 - (2/n)^(1-θ)) / (1 - ζ(2,θ)/ζ(n,θ)) for n
// items, given z.zetan = ζ(n,θ). For n <= 2 it is not a number, but then the
// two exact ranks cover every draw and η is never used.
func (z *Zipfian) etaFor(n int64) float64 {
	return -math.Expm1((1-z.theta)*math.Log(2/float64(n))) / (1 - z.zeta2/z.zetan)
}

// Next returns the next value in [lo, hi]: NextN with the item count given
// to the constructor. It does not allocate. Not safe for concurrent use.
func (z *Zipfian) Next(r *rand.Rand) int64 {
	return z.NextN(r, z.items)
}

// NextN is YCSB's nextLong(itemcount): it draws from [lo, lo+itemCount-1],
// letting the item count change between calls (SkewedLatest uses this as
// inserts add keys). When itemCount differs from the count of the previous
// draw, zeta is updated: when it grew, by adding only the new terms (as YCSB
// does, in constant time here thanks to Zeta's method); when it shrank, by
// recomputing it (YCSB only warns, by default keeping the old zeta). η is
// recomputed for the new count; YCSB instead keeps using the constructor's
// count in η, an inaccuracy that skews its tail as the count grows.
//
// NextN panics if itemCount < 1. It does not allocate. Not safe for
// concurrent use.
func (z *Zipfian) NextN(r *rand.Rand, itemCount int64) int64 {
	if itemCount != z.countForZeta {
		z.setCount(itemCount)
	}
	u := r.Float64()
	uz := u * z.zetan
	if uz < 1 {
		return z.base
	}
	if uz < z.zeta2 {
		return z.base + 1
	}
	return z.base + z.tail(u, itemCount)
}

// tail returns Gray's rank for a uniform u >= ζ(2,θ)/ζ(n,θ) and n items:
// ⌊n·(η·u - η + 1)^α⌋, in [2, n-1] (up to rounding at the ends).
func (z *Zipfian) tail(u float64, n int64) int64 {
	x := z.eta*u - z.eta + 1
	// x^α, as math.Pow would give it to ~1e-14 relative (far below one item
	// for any count) but several times faster: by squaring when α is an
	// integer, else as exp(α·ln x).
	var p float64
	if z.intAlpha != 0 {
		p = powUint(x, z.intAlpha)
	} else {
		p = math.Exp(z.alpha * math.Log(x))
	}
	v := int64(float64(n) * p)
	if v >= n { // u so close to 1 that x rounds to 1
		v = n - 1
	} else if v < 0 { // only with a zeta inconsistent with n (NewZipfianWithZeta)
		v = 0
	}
	return v
}

// powUint returns x^k by binary exponentiation; its relative error is about
// k ulps.
func powUint(x float64, k uint) float64 {
	p := 1.0
	for {
		if k&1 != 0 {
			p *= x
		}
		k >>= 1
		if k == 0 {
			return p
		}
		x *= x
	}
}

// setCount updates zetan and eta for a new item count.
func (z *Zipfian) setCount(n int64) {
	if n < 1 {
		panic(fmt.Sprintf("randgen: Zipfian.NextN: item count %d < 1", n))
	}
	if n > z.countForZeta {
		z.zetan = zetaRange(z.countForZeta, n, z.theta, z.zetan)
	} else {
		z.zetan = Zeta(n, z.theta)
	}
	z.countForZeta = n
	z.eta = z.etaFor(n)
}

// ScrambledZipfian is YCSB's ScrambledZipfianGenerator: Zipfian popularity
// with the popular items spread over [lo, hi] instead of clustered at lo.
// It draws a rank z from an underlying Zipfian and returns
// lo + FNV64(z) mod (hi-lo+1).
//
// A ScrambledZipfian is a per-worker value: it is not safe for concurrent
// use.
type ScrambledZipfian struct {
	gen        Zipfian
	lo         int64
	count      int64 // hi - lo + 1
	key0, key1 int64 // the values for z = 0 and z = 1, the two hottest
}

var _ IntGenerator = (*ScrambledZipfian)(nil)

// NewScrambledZipfian returns YCSB's ScrambledZipfianGenerator over [lo, hi].
// With constant == ZipfianConstant (the only constant YCSB's workloads use),
// the underlying Zipfian spans [0, ScrambledItemCount] with YCSB's
// precomputed zeta ZetanScrambled, exactly as in YCSB, whatever the range.
// With any other constant it spans the same ranks with zeta computed for
// the constant, as YCSB does (the hashed tail of 10^10 ranks makes such a
// distribution much flatter than the constant suggests; that is YCSB's
// behaviour, kept so that results compare). It panics if hi < lo, if the item count
// overflows int64, or if constant is not in [0, 1). It is safe for concurrent
// use; the result is not.
func NewScrambledZipfian(lo, hi int64, constant float64) *ScrambledZipfian {
	s := &ScrambledZipfian{lo: lo, count: itemCount("NewScrambledZipfian", lo, hi)}
	if constant == ZipfianConstant {
		s.gen.init("NewScrambledZipfian", 0, ScrambledItemCount, constant, ZetanScrambled)
	} else {
		// As YCSB: the underlying space stays 10^10 items whatever the
		// constant; only zeta changes (computed, not precomputed).
		s.gen.init("NewScrambledZipfian", 0, ScrambledItemCount, constant, Zeta(ScrambledItemCount+1, constant))
	}
	s.key0, s.key1 = s.scramble(0), s.scramble(1)
	return s
}

// scramble maps an underlying rank z to lo + FNV64(z) mod count.
func (s *ScrambledZipfian) scramble(z int64) int64 {
	k := FNV64(z) % s.count
	if k < 0 { // FNV64 returned math.MinInt64 (YCSB would go below lo)
		k += s.count
	}
	return s.lo + k
}

// Next returns the next value in [lo, hi]. It does not allocate. Not safe
// for concurrent use.
func (s *ScrambledZipfian) Next(r *rand.Rand) int64 {
	// s.gen.NextN(r, s.gen.items), unrolled to reuse the precomputed keys
	// of the two exact ranks (s.gen's item count never changes).
	u := r.Float64()
	uz := u * s.gen.zetan
	if uz < 1 {
		return s.key0
	}
	if uz < s.gen.zeta2 {
		return s.key1
	}
	return s.scramble(s.gen.tail(u, s.gen.items))
}
