package randgen_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/randgen"
)

func TestDefaultSysbenchParams(t *testing.T) {
	want := randgen.SysbenchParams{SpecIter: 12, SpecPct: 1, SpecRes: 75, ParetoH: 0.2, ZipfianExp: 0.8}
	if got := randgen.DefaultSysbenchParams(); got != want {
		t.Errorf("DefaultSysbenchParams() = %+v, want %+v", got, want)
	}
}

func TestSysbenchBounds(t *testing.T) {
	params := []randgen.SysbenchParams{
		randgen.DefaultSysbenchParams(),
		{SpecIter: 1, SpecPct: 100, SpecRes: 100, ParetoH: 0.5, ZipfianExp: 0},
		{SpecIter: 3, SpecPct: 0, SpecRes: 0, ParetoH: 0.01, ZipfianExp: 1},
		{SpecIter: 30, SpecPct: 50, SpecRes: 99, ParetoH: 0.99, ZipfianExp: 2.5},
	}
	ranges := []struct{ lo, hi int64 }{{1, 1}, {0, 1}, {1, 10}, {-5, 5}, {1, 10_000_000}, {1 << 40, 1<<40 + 999}}
	for _, kind := range randgen.SysbenchKinds() {
		for pi, p := range params {
			for _, rg := range ranges {
				g, err := randgen.NewSysbench(kind, rg.lo, rg.hi, p)
				if err != nil {
					t.Fatalf("%s %+v: %v", kind, p, err)
				}
				r := randgen.New(40, uint64(pi))
				for range 20_000 {
					if v := g.Next(r); v < rg.lo || v > rg.hi {
						t.Fatalf("%s [%d, %d] params %+v: %d out of bounds", kind, rg.lo, rg.hi, p, v)
					}
				}
			}
		}
	}
}

func TestSysbenchErrors(t *testing.T) {
	def := randgen.DefaultSysbenchParams()
	_, err := randgen.NewSysbench("gauss", 1, 10, def)
	if err == nil {
		t.Fatal("unknown kind accepted")
	}
	for _, s := range append([]string{`"gauss"`}, randgen.SysbenchKinds()...) {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %s", err, s)
		}
	}
	for _, tc := range []struct {
		kind   string
		lo, hi int64
		change func(p *randgen.SysbenchParams)
	}{
		{"uniform", 10, 1, nil},
		{"zipfian", math.MinInt64, math.MaxInt64, nil},
		{"gaussian", 1, 10, func(p *randgen.SysbenchParams) { p.SpecIter = 0 }},
		{"special", 1, 10, func(p *randgen.SysbenchParams) { p.SpecIter = 0 }},
		{"special", 1, 10, func(p *randgen.SysbenchParams) { p.SpecPct = 101 }},
		{"special", 1, 10, func(p *randgen.SysbenchParams) { p.SpecRes = -1 }},
		{"pareto", 1, 10, func(p *randgen.SysbenchParams) { p.ParetoH = 1 }},
		{"pareto", 1, 10, func(p *randgen.SysbenchParams) { p.ParetoH = 0 }},
		{"zipfian", 1, 10, func(p *randgen.SysbenchParams) { p.ZipfianExp = -0.1 }},
	} {
		p := def
		if tc.change != nil {
			tc.change(&p)
		}
		if _, err := randgen.NewSysbench(tc.kind, tc.lo, tc.hi, p); err == nil {
			t.Errorf("%s [%d, %d] %+v: no error", tc.kind, tc.lo, tc.hi, p)
		}
	}
	// Parameters of other kinds are not checked.
	if _, err := randgen.NewSysbench("uniform", 1, 10, randgen.SysbenchParams{}); err != nil {
		t.Errorf("uniform with zero params: %v", err)
	}
}

func TestSysbenchGaussian(t *testing.T) {
	const (
		lo, hi = 1, 1_000_000
		draws  = 500_000
	)
	for _, iter := range []int{1, 2, 12} {
		p := randgen.DefaultSysbenchParams()
		p.SpecIter = iter
		g, err := randgen.NewSysbench("gaussian", lo, hi, p)
		if err != nil {
			t.Fatal(err)
		}
		r := randgen.New(41, uint64(iter))
		var sum, sumSq float64
		for range draws {
			x := float64(g.Next(r)-lo) / (hi - lo + 1) // mean of iter uniforms on [0, 1)
			sum += x
			sumSq += x * x
		}
		mean := sum / draws
		sd := math.Sqrt(sumSq/draws - mean*mean)
		wantSD := math.Sqrt(1 / (12 * float64(iter)))
		within(t, fmt.Sprintf("iter=%d mean", iter), mean, 0.5, 5*wantSD/math.Sqrt(draws))
		within(t, fmt.Sprintf("iter=%d sd", iter), sd, wantSD, 0.01*wantSD)
	}
}

func TestSysbenchSpecial(t *testing.T) {
	const (
		lo, hi = 1, 1_000_000
		draws  = 500_000
	)
	for _, p := range []randgen.SysbenchParams{
		randgen.DefaultSysbenchParams(),
		{SpecIter: 12, SpecPct: 5, SpecRes: 50},
		{SpecIter: 12, SpecPct: 10, SpecRes: 90},
	} {
		g, err := randgen.NewSysbench("special", lo, hi, p)
		if err != nil {
			t.Fatal(err)
		}
		r := randgen.New(42, uint64(p.SpecPct))
		// The special values fall in the SpecPct% of the range centred in
		// it: [lo + t/2 - t·pct/200, lo + t/2 + t·pct/200 + 1), t = hi-lo.
		tt := float64(hi - lo)
		winLo := lo + tt/2 - tt*float64(p.SpecPct)/200
		winHi := lo + tt/2 + tt*float64(p.SpecPct)/200 + 1
		in := 0
		for range draws {
			if v := float64(g.Next(r)); v >= winLo && v < winHi {
				in++
			}
		}
		// SpecRes% are special; the other values are gaussian (the mean of
		// SpecIter uniforms, sd t/sqrt(12·SpecIter)), and the window holds
		// about the share of them the normal density gives it.
		res := float64(p.SpecRes) / 100
		sd := 1 / math.Sqrt(12*float64(p.SpecIter))
		half := float64(p.SpecPct) / 200
		gaussIn := math.Erf(half / sd / math.Sqrt2)
		want := res + (1-res)*gaussIn
		within(t, fmt.Sprintf("%+v share in the special window", p), float64(in)/draws, want, binomialTol(want, draws)+0.003)
	}
}

func TestSysbenchPareto(t *testing.T) {
	const (
		lo, hi = 1, 1_000_000
		draws  = 500_000
	)
	for _, h := range []float64{0.2, 0.1, 0.35} {
		p := randgen.DefaultSysbenchParams()
		p.ParetoH = h
		g, err := randgen.NewSysbench("pareto", lo, hi, p)
		if err != nil {
			t.Fatal(err)
		}
		r := randgen.New(43, uint64(h*100))
		// Values are lo + n·U^(ln h / ln(1-h)), so P(value < lo + h·n) =
		// h^(ln(1-h)/ln h) = 1-h: the "80/20 rule" for h = 0.2.
		cut := lo + int64(h*float64(hi-lo+1))
		low := 0
		for range draws {
			if g.Next(r) < cut {
				low++
			}
		}
		within(t, fmt.Sprintf("h=%v share in the lowest h of the range", h), float64(low)/draws, 1-h, binomialTol(1-h, draws)+1e-5)
	}
}

func TestSysbenchZipfian(t *testing.T) {
	const draws = 500_000
	for _, tc := range []struct {
		lo, n int64
		exp   float64
	}{
		{1, 1000, 0.8},
		{0, 100, 0},
		{-10, 10_000, 1},
		{5, 50, 2.5},
		{1, 1_000_000, 0.8},
	} {
		p := randgen.DefaultSysbenchParams()
		p.ZipfianExp = tc.exp
		g, err := randgen.NewSysbench("zipfian", tc.lo, tc.lo+tc.n-1, p)
		if err != nil {
			t.Fatal(err)
		}
		r := randgen.New(44, uint64(tc.n))
		counts := map[int64]int{}
		for range draws {
			counts[g.Next(r)-tc.lo]++
		}
		// Exact Zipf: P(lo + k - 1) = k^-θ / H(n, θ).
		h := harmonic(tc.n, tc.exp)
		for _, k := range []int64{1, 2, 3, 10} {
			if k > tc.n {
				continue
			}
			want := math.Pow(float64(k), -tc.exp) / h
			within(t, fmt.Sprintf("n=%d θ=%v P(lo+%d)", tc.n, tc.exp, k-1), float64(counts[k-1])/draws, want, binomialTol(want, draws))
		}
	}
}

func TestSysbenchUniform(t *testing.T) {
	g, err := randgen.NewSysbench("uniform", 3, 12, randgen.DefaultSysbenchParams())
	if err != nil {
		t.Fatal(err)
	}
	r := randgen.New(45, 45)
	const draws = 100_000
	counts := map[int64]int{}
	for range draws {
		counts[g.Next(r)]++
	}
	for v := int64(3); v <= 12; v++ {
		within(t, fmt.Sprintf("P(%d)", v), float64(counts[v])/draws, 0.1, binomialTol(0.1, draws))
	}
}
