package randgen

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// SysbenchParams are the sysbench 1.0.20 random-number options
// (--rand-spec-iter, --rand-spec-pct, --rand-spec-res, --rand-pareto-h,
// --rand-zipfian-exp). A SysbenchParams is a plain value, safe for concurrent
// use.
type SysbenchParams struct {
	// SpecIter is the number of uniform values summed by "gaussian" and the
	// gaussian part of "special" (--rand-spec-iter, default 12).
	SpecIter int
	// SpecPct is the percentage of the range, centred in it, where the
	// special values of "special" fall (--rand-spec-pct, default 1).
	SpecPct int
	// SpecRes is the percentage of "special" values that are special
	// (--rand-spec-res, default 75).
	SpecRes int
	// ParetoH is the shape h of "pareto" (--rand-pareto-h, default 0.2): a
	// fraction 1-h of the values falls in the lowest fraction h of the range.
	ParetoH float64
	// ZipfianExp is the exponent θ of "zipfian" (--rand-zipfian-exp, default
	// 0.8): value lo+i-1 has probability proportional to 1/i^θ.
	ZipfianExp float64
}

// DefaultSysbenchParams returns sysbench's defaults: SpecIter 12, SpecPct 1,
// SpecRes 75, ParetoH 0.2, ZipfianExp 0.8. It is safe for concurrent use.
func DefaultSysbenchParams() SysbenchParams {
	return SysbenchParams{SpecIter: 12, SpecPct: 1, SpecRes: 75, ParetoH: 0.2, ZipfianExp: 0.8}
}

// SysbenchKinds returns the distribution names NewSysbench accepts, those of
// sysbench's --rand-type, in a new slice. It is safe for concurrent use.
func SysbenchKinds() []string {
	return []string{"uniform", "gaussian", "special", "pareto", "zipfian"}
}

// NewSysbench returns sysbench 1.0.20's distribution kind (sb_rand_uniform,
// sb_rand_gaussian, sb_rand_special, sb_rand_pareto or sb_rand_zipfian) over
// [lo, hi], with the parameters of p (only those of the kind are checked).
// The arithmetic is sysbench's, in float64 over int64 bounds instead of
// uint32; "uniform" is exact (sysbench scales a double). It returns an error
// for an unknown kind, hi < lo, a range of more than MaxInt64 values, or an
// out-of-range parameter.
//
// NewSysbench is safe for concurrent use; the generator it returns is a
// per-worker value, not safe for concurrent use, whose Next does not
// allocate.
func NewSysbench(kind string, lo, hi int64, p SysbenchParams) (IntGenerator, error) {
	if hi < lo {
		return nil, fmt.Errorf("randgen: sysbench %s distribution: hi %d < lo %d", kind, hi, lo)
	}
	if hi-lo+1 <= 0 {
		return nil, fmt.Errorf("randgen: sysbench %s distribution: range [%d, %d] has more than MaxInt64 values", kind, lo, hi)
	}
	switch kind {
	case "uniform":
		return NewUniform(lo, hi), nil
	case "gaussian":
		if p.SpecIter < 1 {
			return nil, fmt.Errorf("randgen: sysbench gaussian distribution: SpecIter %d < 1", p.SpecIter)
		}
		return &sbGaussian{lo: lo, hi: hi, t: float64(hi-lo) + 1, iter: p.SpecIter, iterMult: 1 / float64(p.SpecIter)}, nil
	case "special":
		if p.SpecIter < 1 {
			return nil, fmt.Errorf("randgen: sysbench special distribution: SpecIter %d < 1", p.SpecIter)
		}
		if p.SpecPct < 0 || p.SpecPct > 100 {
			return nil, fmt.Errorf("randgen: sysbench special distribution: SpecPct %d not in [0, 100]", p.SpecPct)
		}
		if p.SpecRes < 0 || p.SpecRes > 100 {
			return nil, fmt.Errorf("randgen: sysbench special distribution: SpecRes %d not in [0, 100]", p.SpecRes)
		}
		t := float64(hi - lo)
		return &sbSpecial{
			lo:        lo,
			hi:        hi,
			t:         t,
			rangeSize: t * (100 / (100 - float64(p.SpecRes))),
			iter:      p.SpecIter,
			iterMult:  1 / float64(p.SpecIter),
			d:         t * (float64(p.SpecPct) / 100),
			offset:    t/2 - t*(float64(p.SpecPct)/200),
		}, nil
	case "pareto":
		if !(p.ParetoH > 0 && p.ParetoH < 1) {
			return nil, fmt.Errorf("randgen: sysbench pareto distribution: ParetoH %v not in (0, 1)", p.ParetoH)
		}
		return &sbPareto{lo: lo, hi: hi, n: float64(hi-lo) + 1, power: math.Log(p.ParetoH) / math.Log(1-p.ParetoH)}, nil
	case "zipfian":
		if !(p.ZipfianExp >= 0 && p.ZipfianExp <= math.MaxFloat64) {
			return nil, fmt.Errorf("randgen: sysbench zipfian distribution: ZipfianExp %v must be >= 0", p.ZipfianExp)
		}
		return newSbZipfian(lo, hi, p.ZipfianExp), nil
	}
	return nil, fmt.Errorf("randgen: unknown sysbench distribution %q (valid: %q)", kind, SysbenchKinds())
}

// sbGaussian is sb_rand_gaussian: the mean of iter uniform values over the
// range, an approximately normal distribution centred in it.
type sbGaussian struct {
	lo, hi   int64
	t        float64 // hi - lo + 1
	iter     int
	iterMult float64 // 1 / iter
}

func (g *sbGaussian) Next(r *rand.Rand) int64 {
	var sum float64
	for range g.iter {
		sum += r.Float64() * g.t
	}
	return min(g.lo+int64(sum*g.iterMult), g.hi)
}

// sbSpecial is sb_rand_special: with probability 1 - SpecRes/100 a gaussian
// value over [lo, hi) (SpecIter uniforms); otherwise a uniform value in the
// SpecPct percent of the range centred in it. As in sysbench, the special
// value reuses the first uniform, which is then at least 1 - SpecRes/100, so
// the special values cover the upper SpecRes percent of that central window.
type sbSpecial struct {
	lo, hi    int64
	t         float64 // hi - lo
	rangeSize float64 // t × 100 / (100 - SpecRes)
	iter      int
	iterMult  float64 // 1 / SpecIter
	d         float64 // t × SpecPct / 100
	offset    float64 // t/2 - t × SpecPct / 200
}

func (s *sbSpecial) Next(r *rand.Rand) int64 {
	rnd := r.Float64()
	if rnd*s.rangeSize < s.t {
		var sum float64
		for range s.iter {
			sum += r.Float64()
		}
		return min(s.lo+int64(sum*s.t*s.iterMult), s.hi)
	}
	return min(s.lo+int64(rnd*(s.d+1)+s.offset), s.hi)
}

// sbPareto is sb_rand_pareto: lo + (hi-lo+1) × U^power with power =
// ln(h)/ln(1-h), skewed towards lo for h < 0.5.
type sbPareto struct {
	lo, hi int64
	n      float64 // hi - lo + 1
	power  float64
}

func (p *sbPareto) Next(r *rand.Rand) int64 {
	// U^power as exp(power·ln U): as accurate here as math.Pow, and faster.
	return min(p.lo+int64(p.n*math.Exp(p.power*math.Log(r.Float64()))), p.hi)
}

// sbZipfian is sb_rand_zipfian: an exact bounded Zipf distribution, P(lo+k-1)
// ∝ 1/k^θ for k in [1, n], sampled by the rejection-inversion method of
// Hörmann and Derflinger ("Rejection-inversion to generate variates from
// monotone discrete distributions", ACM TOMACS 6(3), 1996), with the
// integral H(x) = (x^(1-θ) - 1)/(1-θ) that is also valid at θ = 1.
type sbZipfian struct {
	lo         int64
	n          int64   // hi - lo + 1
	theta      float64 // exponent
	s          float64 // 2 - H⁻¹(H(2.5) - h(2)), the cheap-acceptance bound
	hIntX1     float64 // H(1.5) - 1
	hIntN      float64 // H(n + 0.5)
	hIntNRange float64 // hIntX1 - hIntN
}

func newSbZipfian(lo, hi int64, theta float64) *sbZipfian {
	z := &sbZipfian{lo: lo, n: hi - lo + 1, theta: theta}
	z.s = 2 - z.hIntInv(z.hInt(2.5)-z.h(2))
	z.hIntX1 = z.hInt(1.5) - 1
	z.hIntN = z.hInt(float64(z.n) + 0.5)
	z.hIntNRange = z.hIntX1 - z.hIntN
	return z
}

// hInt is H(x) = (x^(1-θ) - 1)/(1-θ), or ln x for θ = 1.
func (z *sbZipfian) hInt(x float64) float64 {
	lx := math.Log(x)
	return expm1x((1-z.theta)*lx) * lx
}

// h is the hat function h(x) = x^-θ, H's derivative.
func (z *sbZipfian) h(x float64) float64 {
	return math.Exp(-z.theta * math.Log(x))
}

// hIntInv is H's inverse.
func (z *sbZipfian) hIntInv(x float64) float64 {
	t := x * (1 - z.theta)
	if t < -1 { // only by rounding: t = x^(1-θ) - 1 for x = H⁻¹(...) > 0
		t = -1
	}
	return math.Exp(log1px(t) * x)
}

// log1px returns ln(1+x)/x, and 1 at x = 0.
func log1px(x float64) float64 {
	if math.Abs(x) < 1e-8 {
		return 1 - x*(0.5-x*(1.0/3-0.25*x))
	}
	return math.Log1p(x) / x
}

func (z *sbZipfian) Next(r *rand.Rand) int64 {
	for {
		// u is uniform in (hIntX1, hIntN].
		u := z.hIntN + r.Float64()*z.hIntNRange
		x := z.hIntInv(u)
		// k = round(x), kept in [1, n] against rounding errors.
		k := int64(1)
		if x+0.5 >= float64(z.n) {
			k = z.n
		} else if x+0.5 >= 1 {
			k = int64(x + 0.5)
		}
		// Accept k at once when it is close enough to x, else when u is
		// above the hat's area up to k (Hörmann and Derflinger's test).
		if float64(k)-x <= z.s || u >= z.hInt(float64(k)+0.5)-z.h(float64(k)) {
			return z.lo + k - 1
		}
	}
}
