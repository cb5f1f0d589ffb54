package randgen_test

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/stampede-bench/stampede/randgen"
)

// harmonic is the generalized harmonic number H(n, θ) = Σ_{i=1..n} i^-θ,
// summed term by term.
func harmonic(n int64, theta float64) float64 {
	var s float64
	for i := int64(1); i <= n; i++ {
		s += 1 / math.Pow(float64(i), theta)
	}
	return s
}

// gray describes the distribution of Gray et al.'s Zipfian generator (as
// YCSB implements it) over n items with skew θ and normalising constant
// zetan, re-derived from the method: rank 0 has probability 1/ζ(n), rank 1
// 2^-θ/ζ(n); above, a draw u >= ζ(2)/ζ(n) gives rank ⌊n·(ηu - η + 1)^α⌋ with
// α = 1/(1-θ) and η = (1 - (2/n)^(1-θ)) / (1 - ζ(2)/ζ(n)), so
// P(rank < v) = 1 - (1 - (v/n)^(1-θ))/η for 2 <= v <= n.
type gray struct {
	n, theta, zetan, eta float64
}

func newGray(n int64, theta, zetan float64) gray {
	g := gray{n: float64(n), theta: theta, zetan: zetan}
	zeta2 := 1 + math.Pow(2, -theta)
	g.eta = (1 - math.Pow(2/g.n, 1-theta)) / (1 - zeta2/zetan)
	return g
}

// cdf returns P(rank < v).
func (g gray) cdf(v int64) float64 {
	switch {
	case v <= 0:
		return 0
	case v == 1:
		return 1 / g.zetan
	case float64(v) >= g.n:
		return 1
	}
	return 1 - (1-math.Pow(float64(v)/g.n, 1-g.theta))/g.eta
}

// prob returns P(rank = j).
func (g gray) prob(j int64) float64 {
	switch j {
	case 0:
		return 1 / g.zetan
	case 1:
		return math.Pow(2, -g.theta) / g.zetan
	}
	// ((j+1)/n)^(1-θ) - (j/n)^(1-θ), without cancellation.
	a := 1 - g.theta
	return math.Pow(float64(j)/g.n, a) * math.Expm1(a*math.Log1p(1/float64(j))) / g.eta
}

func TestZetaMatchesDirectSum(t *testing.T) {
	for _, theta := range []float64{0, 0.3, 0.5, 0.8, 0.99, 0.999999} {
		for _, n := range []int64{0, 1, 2, 3, 100, 1023, 1024, 1025, 2047, 2049, 5000, 123_457, 300_000} {
			got, want := randgen.Zeta(n, theta), harmonic(n, theta)
			if math.Abs(got-want) > 1e-12*want {
				t.Errorf("Zeta(%d, %v) = %.17g, direct sum %.17g", n, theta, got, want)
			}
		}
	}
}

func TestZetaScrambledConstant(t *testing.T) {
	// YCSB computed ZETAN by adding 10^10 terms one by one; its rounding
	// error is about 1e-12 relative (Zeta gives 26.4690282017515).
	got := randgen.Zeta(randgen.ScrambledItemCount, randgen.ZipfianConstant)
	within(t, "Zeta(1e10, 0.99)", got, randgen.ZetanScrambled, 1e-11*randgen.ZetanScrambled)
}

func TestZipfianDistribution(t *testing.T) {
	const draws = 1_000_000
	for _, tc := range []struct {
		lo, n int64
		theta float64
	}{
		{0, 10_000, 0.99},
		{-500, 1_000_000, 0.99},
		{1, 100_000, 0.8},
		{7, 100_000, 0.5},
	} {
		t.Run(fmt.Sprintf("n=%d,theta=%v", tc.n, tc.theta), func(t *testing.T) {
			z := randgen.NewZipfian(tc.lo, tc.lo+tc.n-1, tc.theta)
			r := randgen.New(11, uint64(tc.n))
			top := tc.n / 100
			var rank0, rank1, inTop int
			for range draws {
				v := z.Next(r)
				if v < tc.lo || v >= tc.lo+tc.n {
					t.Fatalf("%d out of [%d, %d]", v, tc.lo, tc.lo+tc.n-1)
				}
				switch rank := v - tc.lo; {
				case rank == 0:
					rank0++
				case rank == 1:
					rank1++
				}
				if v-tc.lo < top {
					inTop++
				}
			}
			zeta := harmonic(tc.n, tc.theta)
			g := newGray(tc.n, tc.theta, zeta)
			// Ranks 0 and 1 are exact in Gray's method: 1/ζ and 2^-θ/ζ.
			p0, p1 := 1/zeta, math.Pow(2, -tc.theta)/zeta
			within(t, "rank-0 frequency", float64(rank0)/draws, p0, binomialTol(p0, draws))
			within(t, "rank-1 frequency", float64(rank1)/draws, p1, binomialTol(p1, draws))
			// The hottest 1% of the keys get the share Gray's method gives...
			share := float64(inTop) / draws
			want := g.cdf(top)
			within(t, "top-1% share vs Gray's CDF", share, want, binomialTol(want, draws))
			// ...which is Zipf's law H(n/100, θ)/H(n, θ) up to the method's
			// approximation: Gray's closed form interpolates H between 2 and
			// n with x^(1-θ), overstating the head a little (by 0.012 at
			// n=10^4 and 0.0055 at n=10^6 for θ=0.99). YCSB has the same bias.
			law := harmonic(top, tc.theta) / zeta
			t.Logf("top-1%% share %.4f, Gray %.4f, Zipf law %.4f", share, want, law)
			within(t, "top-1% share vs Zipf's law", share, law, 0.015)
		})
	}
}

func TestZipfianNextNGrowing(t *testing.T) {
	const lo = 100
	z := randgen.NewZipfian(lo, lo+9, randgen.ZipfianConstant)
	r := randgen.New(12, 12)
	for _, n := range []int64{10, 11, 12, 20, 1000, 1030, 5000, 5001, 1_000_000, 700, 3, 1, 2, 50_000} {
		const draws = 200_000
		rank0 := 0
		for range draws {
			v := z.NextN(r, n)
			if v < lo || v >= lo+n {
				t.Fatalf("NextN(%d) = %d out of [%d, %d]", n, v, lo, lo+n-1)
			}
			if v == lo {
				rank0++
			}
		}
		// The rank-0 frequency 1/ζ(n) shows zeta was updated for n.
		p := 1 / harmonic(n, randgen.ZipfianConstant)
		within(t, fmt.Sprintf("NextN(%d) rank-0 frequency", n), float64(rank0)/draws, p, binomialTol(p, draws)+1e-12)
	}
}

func TestZipfianPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"hi<lo":        func() { randgen.NewZipfian(5, 4, 0.99) },
		"theta=1":      func() { randgen.NewZipfian(0, 10, 1) },
		"theta<0":      func() { randgen.NewZipfian(0, 10, -0.1) },
		"theta=NaN":    func() { randgen.NewZipfian(0, 10, math.NaN()) },
		"zeta=0":       func() { randgen.NewZipfianWithZeta(0, 10, 0.99, 0) },
		"overflow":     func() { randgen.NewZipfian(math.MinInt64, math.MaxInt64, 0.99) },
		"scrambled":    func() { randgen.NewScrambledZipfian(0, 10, 1.5) },
		"NextN(0)":     func() { randgen.NewZipfian(0, 10, 0.99).NextN(randgen.New(1, 1), 0) },
		"scrambledlo":  func() { randgen.NewScrambledZipfian(1, 0, 0.99) },
		"hotspot-size": func() { randgen.NewHotspot(math.MinInt64, math.MaxInt64, 0.5, 0.5) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("did not panic")
				}
			}()
			f()
		})
	}
}

func TestZipfianSingleItem(t *testing.T) {
	for _, theta := range []float64{0, 0.5, 0.99} {
		for _, n := range []int64{1, 2, 3} {
			z := randgen.NewZipfian(42, 42+n-1, theta)
			s := randgen.NewScrambledZipfian(42, 42+n-1, theta)
			r := randgen.New(13, 13)
			for range 10_000 {
				if v := z.Next(r); v < 42 || v >= 42+n {
					t.Fatalf("Zipfian n=%d θ=%v: %d", n, theta, v)
				}
				if v := s.Next(r); v < 42 || v >= 42+n {
					t.Fatalf("ScrambledZipfian n=%d θ=%v: %d", n, theta, v)
				}
			}
		}
	}
}

// scrambledProbs returns the exact probability of each value lo+k of YCSB's
// scrambled generator over count values: the underlying Zipfian over n ranks
// (Gray's distribution with zeta zetan) pushed through k = FNV64(rank) mod
// count. Ranks below 10^6 are added one by one; the remaining mass,
// 1 - P(rank < 10^6), is spread evenly: for n = 10^10+1 it is the sum of
// about 10^10/count tiny probabilities (each below 1e-7) per value, hashed
// pseudo-randomly, so its spread between values is about 1e-6 of a value's
// share and it barely moves a top-1% share (by ~1e-5).
func scrambledProbs(count, n int64, theta, zetan float64) []float64 {
	g := newGray(n, theta, zetan)
	exact := min(n, 1_000_000)
	p := make([]float64, count)
	for j := range exact {
		p[randgen.FNV64(j)%count] += g.prob(j)
	}
	rest := 1 - g.cdf(exact)
	for k := range p {
		p[k] += rest / float64(count)
	}
	return p
}

func TestScrambledZipfianDistribution(t *testing.T) {
	const draws = 2_000_000
	for _, tc := range []struct {
		lo, count int64
		theta     float64
	}{
		{1000, 10_000, randgen.ZipfianConstant},
		{0, 1000, randgen.ZipfianConstant},
		{-7, 5000, 0.8},
	} {
		t.Run(fmt.Sprintf("count=%d,theta=%v", tc.count, tc.theta), func(t *testing.T) {
			// Every constant draws from YCSB's 10^10+1 ranks: θ = 0.99 with
			// YCSB's precomputed zeta, others with zeta computed for them.
			n, zetan := int64(randgen.ScrambledItemCount+1), randgen.ZetanScrambled
			if tc.theta != randgen.ZipfianConstant {
				zetan = randgen.Zeta(n, tc.theta)
			}
			p := scrambledProbs(tc.count, n, tc.theta, zetan)
			// The expected top-1% share: the count/100 most probable
			// values. For count=10^4 and θ=0.99 it is about 0.215, far below
			// the unscrambled 0.53: the 100 hottest values of a 10^4-key
			// table are (mostly) the hashes of the underlying ranks 0..~100,
			// which hold H(100)/H(10^10) ≈ 0.20 of the mass, plus about 1%
			// of the evenly spread rest.
			order := make([]int64, tc.count)
			for k := range order {
				order[k] = int64(k)
			}
			slices.SortFunc(order, func(a, b int64) int { return cmp.Compare(p[b], p[a]) })
			top := order[:tc.count/100]
			var wantShare float64
			for _, k := range top {
				wantShare += p[k]
			}

			s := randgen.NewScrambledZipfian(tc.lo, tc.lo+tc.count-1, tc.theta)
			r := randgen.New(14, uint64(tc.count))
			counts := make([]int, tc.count)
			for range draws {
				v := s.Next(r)
				if v < tc.lo || v >= tc.lo+tc.count {
					t.Fatalf("%d out of [%d, %d]", v, tc.lo, tc.lo+tc.count-1)
				}
				counts[v-tc.lo]++
			}
			// The share of the expected top values, with no selection bias.
			var got int
			for _, k := range top {
				got += counts[k]
			}
			within(t, "share of the expected top 1%", float64(got)/draws, wantShare, binomialTol(wantShare, draws)+1e-4)
			// The share of the observed top 1% of distinct values, biased
			// up a little by picking the luckiest of near-equal values.
			observed := slices.Clone(counts)
			slices.SortFunc(observed, func(a, b int) int { return b - a })
			var obs int
			for _, c := range observed[:tc.count/100] {
				obs += c
			}
			t.Logf("expected top-1%% share %.4f; observed %.4f (expected keys), %.4f (observed top keys)", wantShare, float64(got)/draws, float64(obs)/draws)
			within(t, "share of the observed top 1%", float64(obs)/draws, wantShare, 0.005)
			// The hottest value is the hash of rank 0, at about its exact
			// probability (≥ 1/ζ).
			hot := randgen.FNV64(0) % tc.count
			if slices.Max(counts) != counts[hot] {
				t.Errorf("hottest value is not lo + FNV64(0) %% count")
			}
			within(t, "frequency of lo + FNV64(0) % count", float64(counts[hot])/draws, p[hot], binomialTol(p[hot], draws))
			if p[hot] < 1/zetan {
				t.Errorf("p[hot] = %v < 1/ζ = %v", p[hot], 1/zetan)
			}
		})
	}
}
