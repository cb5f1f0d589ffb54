// Package crmath computes exp, log and pow correctly rounded: the double
// nearest the exact value, as glibc's (whose error bound is 0.52 units in
// the last place) nearly always returns, where Go's math.Exp, math.Log and
// math.Pow (error up to 1 ulp) differ from glibc's in the last bit for
// some 14%, 7% and 36% of arguments. pgbench evaluates its expressions
// with glibc, so a script's ln(), exp() and pow() must round the same way
// to insert the same numbers.
//
// Each function evaluates in double-double arithmetic (an unevaluated sum
// of two doubles, about 106 bits), to a relative error near 2^-95, and
// rounds the sum once: a result is misrounded only when the exact value
// lies within that error of a midpoint between two doubles, subnormal
// results included. The special cases of C99 (zeros, infinities, NaN,
// negative bases, overflow) are Go's math functions', which agree with
// C's there.
package crmath

import (
	"math"
	"math/bits"
)

// dd is a double-double: hi + lo with |lo| <= ulp(hi)/2.
type dd struct{ hi, lo float64 }

// twoSum returns a + b exactly as a normalized double-double.
func twoSum(a, b float64) dd {
	s := a + b
	bb := s - a
	return dd{s, (a - (s - bb)) + (b - bb)}
}

// fastTwoSum is twoSum for |a| >= |b|.
func fastTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

// twoProd returns a * b exactly as a double-double.
func twoProd(a, b float64) dd {
	p := a * b
	return dd{p, math.FMA(a, b, -p)}
}

func add(a, b dd) dd {
	s := twoSum(a.hi, b.hi)
	t := twoSum(a.lo, b.lo)
	s = fastTwoSum(s.hi, s.lo+t.hi)
	return fastTwoSum(s.hi, s.lo+t.lo)
}

// addNear returns a + b for operands that do not cancel (same sign, or
// |b| far below |a|, as in a series' Horner steps): one exact sum of the
// high parts, the low parts added into its error.
func addNear(a, b dd) dd {
	s := twoSum(a.hi, b.hi)
	return fastTwoSum(s.hi, s.lo+a.lo+b.lo)
}

func mul(a, b dd) dd {
	p := twoProd(a.hi, b.hi)
	p.lo += a.hi*b.lo + a.lo*b.hi
	return fastTwoSum(p.hi, p.lo)
}

func mulF(a dd, b float64) dd {
	p := twoProd(a.hi, b)
	p.lo += a.lo * b
	return fastTwoSum(p.hi, p.lo)
}

func div(a, b dd) dd {
	q1 := a.hi / b.hi
	r := add(a, neg(mulF(b, q1)))
	q2 := r.hi / b.hi
	r = add(r, neg(mulF(b, q2)))
	q3 := r.hi / b.hi
	return add(fastTwoSum(q1, q2), dd{q3, 0})
}

// divFD returns a / b for a double a.
func divFD(a float64, b dd) dd {
	q1 := a / b.hi
	p := twoProd(q1, b.hi)
	r := ((a - p.hi) - p.lo) - q1*b.lo
	return fastTwoSum(q1, r/b.hi)
}

func neg(a dd) dd { return dd{-a.hi, -a.lo} }

// ln2 is log(2) to 159 bits, as three doubles.
var ln2 = [3]float64{0x1.62e42fefa39efp-1, 0x1.abc9e3b39803fp-56, 0x1.7b57a079a1934p-111}

// invFact[i] is 1/i! as a double-double, for the Taylor series of exp.
var invFact = func() []dd {
	f := make([]dd, 16)
	f[0] = dd{1, 0}
	for i := 1; i < len(f); i++ {
		f[i] = div(f[i-1], dd{float64(i), 0})
	}
	return f
}()

// invOdd[n] is 1/(2n+1) as a double-double, for the series of atanh.
var invOdd = func() []dd {
	f := make([]dd, 22)
	for n := range f {
		f[n] = div(dd{1, 0}, dd{float64(2*n + 1), 0})
	}
	return f
}()

// slowExpDD returns exp(x) for a double-double x, as k and a double-double
// m with exp(x) = m * 2^k, 1/sqrt(2) < m < sqrt(2) up to rounding, by the
// series alone (squared eight times): it builds expTable and checks
// expDD. |x.hi| must be below 746.
func slowExpDD(x dd) (int, dd) {
	k := math.Round(x.hi / ln2[0])
	// r = x - k*log(2), with log(2) to three parts: k has at most 11
	// bits, so each product is exact in a double-double.
	r := add(x, neg(twoProd(k, ln2[0])))
	r = add(r, neg(twoProd(k, ln2[1])))
	r = add(r, dd{-k * ln2[2], 0})
	// exp(r) = exp(r/256)^256: |r/256| < 0.0014, so 11 terms of the
	// series leave under 2^-110.
	s := dd{r.hi / 256, r.lo / 256}
	sum := invFact[11]
	for i := 10; i >= 0; i-- {
		sum = add(mul(sum, s), invFact[i])
	}
	for range 8 {
		sum = mul(sum, sum)
	}
	return int(k), sum
}

// expTable[j] is 2^(j/64) as a double-double.
var expTable = func() [64]dd {
	var t [64]dd
	for j := range t {
		x := twoProd(float64(j)/64, ln2[0])
		x = add(x, twoProd(float64(j)/64, ln2[1]))
		k, m := slowExpDD(x)
		t[j] = dd{math.Ldexp(m.hi, k), math.Ldexp(m.lo, k)}
	}
	return t
}()

// expDD returns exp(x) for a double-double x, as k and a double-double m
// with exp(x) = m * 2^k, 1 <= m < 2 up to rounding. |x.hi| must be below
// 746.
//
// x = (64i + j) log(2)/64 + r with |r| <= log(2)/128, so exp(x) =
// 2^i 2^(j/64) exp(r): the table gives 2^(j/64), and exp(r)'s series
// takes its terms from r^5 on in doubles (under 2^-96 of the sum) and the
// first five in double-doubles.
func expDD(x dd) (int, dd) {
	n := math.Round(x.hi * (64 / ln2[0]))
	// r = x - n log(2)/64, log(2) in three parts: n has at most 17 bits,
	// so each product is exact in a double-double.
	r := add(x, neg(twoProd(n, ln2[0]/64)))
	r = add(r, neg(twoProd(n, ln2[1]/64)))
	r = add(r, dd{-n * (ln2[2] / 64), 0})
	h := r.hi
	t := 1.0/120 + h*(1.0/720+h*(1.0/5040+h*(1.0/40320+h*(1.0/362880+h*(1.0/3628800+h*(1.0/39916800))))))
	p := addNear(invFact[4], dd{h * t, 0})
	for i := 3; i >= 0; i-- {
		p = addNear(invFact[i], mul(p, r))
	}
	ni := int(n)
	j := ni & 63
	return (ni - j) / 64, mul(expTable[j], p)
}

// logTable[i-90] is log(i/128) as a double-double, for i/128 from 90/128
// to 181/128, the table's points over [sqrt(1/2), sqrt(2)].
var logTable = func() [92]dd {
	var t [92]dd
	for i := range t {
		if i+90 != 128 {
			t[i] = slowLogDD(float64(i+90) / 128)
		}
	}
	return t
}()

// logDD returns log(x) as a double-double, for a positive finite x.
//
// x = f 2^e with f in [sqrt(1/2), sqrt(2)), f = c (1 + g) with c = i/128
// the table's point nearest f, so log(x) = e log(2) + log(c) + log(1+g),
// and log(1+g) = 2 atanh(s), s = g/(2+g), |s| < 2^-8.4: the series in s^2
// takes its terms from s^6 on in doubles. Near 1 (c = 1, e = 0) the sum is
// log(1+g) alone, so its relative error holds however small the result.
func logDD(x float64) dd {
	f, e := math.Frexp(x)
	if f < math.Sqrt2/2 {
		f *= 2
		e--
	}
	i := math.Round(f * 128)
	c := i / 128
	// log(f/c) = 2 atanh(s), s = (f - c)/(f + c); f - c is exact
	// (Sterbenz).
	s := divFD(f-c, twoSum(f, c))
	s2 := mul(s, s)
	h := s2.hi
	t := 1.0/7 + h*(1.0/9+h*(1.0/11+h*(1.0/13)))
	a := addNear(invOdd[2], dd{h * t, 0})
	a = addNear(invOdd[1], mul(a, s2))
	a = addNear(invOdd[0], mul(a, s2))
	l := mul(a, dd{2 * s.hi, 2 * s.lo})
	l = add(logTable[int(i)-90], l)
	if e != 0 {
		ed := float64(e)
		l = add(add(twoProd(ed, ln2[0]), add(twoProd(ed, ln2[1]), dd{ed * ln2[2], 0})), l)
	}
	return l
}

// exactPow returns x**y for x > 0 when y is a whole number and the exact
// value is m^y 2^(ey) for x = m 2^e, m odd, with m^y below 2^62: such a
// value may lie exactly halfway between two doubles (3^34 does), which
// only an exact product rounds to even. ok is false otherwise.
func exactPow(x, y float64) (float64, bool) {
	if y != math.Trunc(y) || math.Abs(y) > 1<<20 {
		return 0, false
	}
	frac, e := math.Frexp(x)
	mant := uint64(math.Ldexp(frac, 53)) // exact
	tz := bits.TrailingZeros64(mant)
	m := mant >> tz
	e += tz - 53 // x = m * 2^e
	n := int(y)
	if m != 1 && n < 0 {
		return 0, false // 1/m^n is no binary fraction: never a tie
	}
	p := uint64(1)
	for range n {
		if m != 1 && bits.Len64(p)+bits.Len64(m) > 62 {
			return 0, false
		}
		p *= m
		if m == 1 {
			break
		}
	}
	hi := float64(p) // p rounded to nearest, ties to even
	lo := float64(int64(p) - int64(hi))
	k := e * n
	if k > 2000 || k < -2200 {
		if k > 0 {
			return math.Inf(1), true
		}
		return 0, true
	}
	return round(k, dd{hi, lo}), true
}

// round returns m * 2^k rounded once to the nearest double (ties to
// even), subnormals included: below the normal range, m * 2^(k+1074) is
// the result in units of the smallest subnormal, rounded to an integer
// from both parts of m.
func round(k int, m dd) float64 {
	if m.hi == 0 {
		return 0
	}
	// Normalize m to [1, 2): scaling by a power of 2 is exact.
	_, me := math.Frexp(m.hi)
	m = dd{math.Ldexp(m.hi, 1-me), math.Ldexp(m.lo, 1-me)}
	k += me - 1
	if k > 1023 {
		return math.Inf(1)
	}
	if k >= -1022 {
		return math.Ldexp(m.hi, k) // m.hi is m rounded; scaling is exact
	}
	if k < -1080 {
		return 0
	}
	n := dd{math.Ldexp(m.hi, k+1074), math.Ldexp(m.lo, k+1074)} // exact: both below 2^53, scaled up or by few bits
	r := math.RoundToEven(n.hi)
	switch d := n.hi - r; {
	case d == 0.5 && n.lo > 0:
		r++
	case d == -0.5 && n.lo < 0:
		r--
	case d == 0 && math.Abs(n.lo) == 0.5 && math.Mod(r, 2) != 0:
		r += math.Copysign(1, n.lo)
	}
	return math.Ldexp(r, -1074)
}

// Exp returns e^x correctly rounded (see the package comment).
func Exp(x float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return math.Exp(x)
	case x > 709.79:
		return math.Inf(1)
	case x < -745.2:
		return 0
	case x == 0:
		return 1
	}
	k, m := expDD(dd{x, 0})
	return round(k, m)
}

// slowLogDD returns log(x) as a double-double, for a positive finite x, by
// the series alone: it builds logTable and checks logDD.
func slowLogDD(x float64) dd {
	// Normalize x = f * 2^e with f in [sqrt(1/2), sqrt(2)), so that the
	// sum log(f) + e*log(2) does not cancel where it need not.
	f, e := math.Frexp(x) // f in [0.5, 1)
	if f < math.Sqrt2/2 {
		f *= 2
		e--
	}
	// log(f) = 2 atanh(s), s = (f-1)/(f+1), |s| < 0.172: the series in
	// s^2 to s^43 leaves under 2^-110 relative. f-1 is exact.
	s := div(dd{f - 1, 0}, twoSum(f, 1))
	s2 := mul(s, s)
	sum := invOdd[len(invOdd)-1]
	for n := len(invOdd) - 2; n >= 0; n-- {
		sum = add(mul(sum, s2), invOdd[n])
	}
	lf := mul(sum, dd{2 * s.hi, 2 * s.lo})
	ed := float64(e)
	le := add(twoProd(ed, ln2[0]), add(twoProd(ed, ln2[1]), dd{ed * ln2[2], 0}))
	return add(le, lf)
}

// Log returns the natural logarithm of x correctly rounded (see the
// package comment).
func Log(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 1) || x == 1 {
		return math.Log(x)
	}
	l := logDD(x)
	return l.hi + l.lo
}

// Pow returns x**y correctly rounded (see the package comment).
func Pow(x, y float64) float64 {
	switch {
	case math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) ||
		x == 0 || y == 0 || x == 1 || y == 1:
		return math.Pow(x, y)
	}
	sign := 1.0
	if x < 0 {
		yi, frac := math.Modf(y)
		if frac != 0 {
			return math.NaN()
		}
		if math.Mod(yi, 2) != 0 {
			sign = -1
		}
		x = -x
	}
	if v, ok := exactPow(x, y); ok {
		return sign * v
	}
	t := mulF(logDD(x), y)
	switch {
	case t.hi > 709.79:
		return sign * math.Inf(1)
	case t.hi < -745.2:
		return sign * 0
	}
	k, m := expDD(t)
	return sign * round(k, m)
}
