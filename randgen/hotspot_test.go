package randgen_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stampede-bench/stampede/randgen"
)

func TestHotspot(t *testing.T) {
	const draws = 500_000
	for _, tc := range []struct {
		lo, hi           int64
		hotSet, hotOpn   float64
		wantLo, wantHi   int64   // bounds after YCSB's fix-ups
		wantHot          int64   // hot set size
		wantHotOpnShare  float64 // expected share of draws in the hot set
		wantEveryCovered bool
	}{
		{0, 9999, 0.2, 0.8, 0, 9999, 2000, 0.8, false},
		{100, 1099, 0.1, 0.9, 100, 1099, 100, 0.9, true},
		{1099, 100, 0.1, 0.9, 100, 1099, 100, 0.9, true}, // swapped bounds
		{0, 99, 0.5, 0.5, 0, 99, 50, 0.5, true},
		{0, 99, 0, 0.7, 0, 99, 0, 0, true},                                // empty hot set: all cold
		{0, 99, 1, 0.3, 0, 99, 100, 1, true},                              // empty cold set: all hot
		{0, 99, 1.5, 0.8, 0, 99, 0, 0, true},                              // bad hotset fraction -> 0
		{0, 99, 0.2, -0.1, 0, 99, 20, 0, false},                           // bad opn fraction -> 0
		{-50, 49, 0.2, 1, -50, 49, 20, 1, false},                          // every op hot
		{0, 1 << 40, 0.01, 0.99, 0, 1 << 40, 10_995_116_277, 0.99, false}, // int(0.01·(2^40+1))
	} {
		t.Run(fmt.Sprintf("[%d,%d],%v,%v", tc.lo, tc.hi, tc.hotSet, tc.hotOpn), func(t *testing.T) {
			g := randgen.NewHotspot(tc.lo, tc.hi, tc.hotSet, tc.hotOpn)
			r := randgen.New(30, uint64(tc.hi))
			hot := 0
			seen := map[int64]bool{}
			for range draws {
				v := g.Next(r)
				if v < tc.wantLo || v > tc.wantHi {
					t.Fatalf("%d out of [%d, %d]", v, tc.wantLo, tc.wantHi)
				}
				if v < tc.wantLo+tc.wantHot {
					hot++
				}
				if tc.wantEveryCovered {
					seen[v] = true
				}
			}
			within(t, "hot share", float64(hot)/draws, tc.wantHotOpnShare, binomialTol(tc.wantHotOpnShare, draws))
			if tc.wantEveryCovered && int64(len(seen)) != tc.wantHi-tc.wantLo+1 {
				t.Errorf("%d distinct values drawn, want all %d", len(seen), tc.wantHi-tc.wantLo+1)
			}
		})
	}
}

func TestExponential(t *testing.T) {
	const draws = 1_000_000
	for _, tc := range []struct{ percentile, rangeVal float64 }{
		{95, 857_142.8571}, // YCSB defaults for 10^6 records
		{90, 100},
		{50, 10},
	} {
		g := randgen.NewExponential(tc.percentile, tc.rangeVal)
		r := randgen.New(31, uint64(tc.rangeVal))
		below, sum := 0, 0.0
		for range draws {
			v := g.Float64(r)
			if v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
				t.Fatalf("value %v", v)
			}
			if v < tc.rangeVal {
				below++
			}
			sum += v
		}
		p := tc.percentile / 100
		within(t, fmt.Sprintf("P(X < %v)", tc.rangeVal), float64(below)/draws, p, binomialTol(p, draws))
		mean := tc.rangeVal / -math.Log(1-p)
		within(t, "mean", sum/draws, mean, 5*mean/math.Sqrt(draws))
		for range 1000 {
			if v := g.Next(r); v < 0 {
				t.Fatalf("Next() = %d", v)
			}
		}
	}
	g := randgen.NewExponentialMean(20)
	r := randgen.New(32, 32)
	var sum float64
	for range draws {
		sum += g.Float64(r)
	}
	within(t, "mean of NewExponentialMean(20)", sum/draws, 20, 5*20/math.Sqrt(draws))
}

func TestExponentialPanics(t *testing.T) {
	for _, f := range []func(){
		func() { randgen.NewExponential(0, 10) },
		func() { randgen.NewExponential(100, 10) },
		func() { randgen.NewExponential(95, 0) },
		func() { randgen.NewExponentialMean(0) },
		func() { randgen.NewExponentialMean(math.Inf(1)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("did not panic")
				}
			}()
			f()
		}()
	}
}
