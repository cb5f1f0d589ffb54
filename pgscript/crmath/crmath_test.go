package crmath

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stampede-bench/stampede/pgscript/crmath/oracle"
)

// TestCorrectlyRounded: on random arguments over each function's range
// (exp's subnormal results, log near 1 and of subnormals, pow over wide
// bases and exponents and negative bases with whole exponents), each
// result is the double nearest the exact value, which the oracle computes
// in 320-bit floats (package oracle). Go's math functions are not: the test counts their
// misses beside, so that it shows it can tell.
func TestCorrectlyRounded(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 5))
	n := 3000
	if testing.Short() {
		n = 300
	}
	type arg struct{ x, y float64 }
	gens := []struct {
		fn   string
		gen  func() arg
		ours func(x, y float64) float64
		gos  func(x, y float64) float64
	}{
		{"exp", func() arg { return arg{r.Float64()*1490 - 745, 0} },
			func(x, _ float64) float64 { return Exp(x) }, func(x, _ float64) float64 { return math.Exp(x) }},
		{"exp", func() arg { return arg{r.NormFloat64() * 3, 0} },
			func(x, _ float64) float64 { return Exp(x) }, func(x, _ float64) float64 { return math.Exp(x) }},
		{"log", func() arg { return arg{math.Exp(r.Float64()*1450 - 745), 0} },
			func(x, _ float64) float64 { return Log(x) }, func(x, _ float64) float64 { return math.Log(x) }},
		{"log", func() arg { return arg{1 + (r.Float64()-0.5)*math.Ldexp(1, -r.IntN(52)), 0} },
			func(x, _ float64) float64 { return Log(x) }, func(x, _ float64) float64 { return math.Log(x) }},
		{"pow", func() arg { return arg{r.Float64() * 10, r.Float64()*4 - 2} },
			Pow, math.Pow},
		{"pow", func() arg { return arg{math.Exp(r.NormFloat64() * 50), r.NormFloat64() * 5} },
			Pow, math.Pow},
		{"pow", func() arg { return arg{-math.Exp(r.NormFloat64() * 3), math.Round(r.NormFloat64() * 20)} },
			Pow, math.Pow},
		{"pow", func() arg { return arg{float64(r.IntN(1_000_000) + 1), -1.07} },
			Pow, math.Pow},
	}
	for _, g := range gens {
		var goMiss int
		for range n {
			a := g.gen()
			want := oracle.Eval(g.fn, a.x, a.y)
			if got := g.ours(a.x, a.y); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Errorf("%s(%v, %v) = %v, correctly rounded %v", g.fn, a.x, a.y, got, want)
			}
			if g.gos(a.x, a.y) != want {
				goMiss++
			}
		}
		t.Logf("%s: Go's math missed %d of %d", g.fn, goMiss, n)
	}
}

// TestSpecialCases: C99's special values, as Go's math functions give
// them, and exact results where the exact value is a double.
func TestSpecialCases(t *testing.T) {
	inf, nan, negZero := math.Inf(1), math.NaN(), math.Copysign(0, -1) // -0.0 is +0 in Go's constants
	for _, c := range []struct {
		fn   string
		x, y float64
		want float64
	}{
		{"exp", 0, 0, 1}, {"exp", negZero, 0, 1}, {"exp", inf, 0, inf}, {"exp", -inf, 0, 0}, {"exp", nan, 0, nan},
		{"exp", 709.79, 0, inf}, {"exp", 1000, 0, inf}, {"exp", -746, 0, 0}, {"exp", -745.2, 0, 0},
		{"exp", -745.13, 0, 5e-324}, {"exp", 1, 0, math.E},
		{"log", 1, 0, 0}, {"log", 0, 0, -inf}, {"log", negZero, 0, -inf}, {"log", -1, 0, nan}, {"log", inf, 0, inf},
		{"log", nan, 0, nan}, {"log", 2, 0, math.Ln2}, {"log", 5e-324, 0, -744.4400719213812},
		{"pow", 2, 10, 1024}, {"pow", 10, 22, 1e22}, {"pow", 3, 20, 3486784401}, {"pow", -2, 3, -8}, {"pow", -2, 2, 4},
		{"pow", -8, 1.0 / 3, nan}, {"pow", 0, -1, inf}, {"pow", negZero, -1, -inf}, {"pow", negZero, -2, inf}, {"pow", negZero, 3, negZero}, {"pow", 0, 2, 0}, {"pow", 1, nan, 1},
		{"pow", nan, 0, 1}, {"pow", -1, inf, 1}, {"pow", 0.5, inf, 0}, {"pow", 2, -inf, 0}, {"pow", -inf, 3, -inf},
		{"pow", 10, 309, inf}, {"pow", -10, 309, -inf}, {"pow", 10, -330, 0}, {"pow", -10, -331, negZero}, {"pow", -10, -330, 0},
		{"pow", 2, -1074, 5e-324}, {"pow", 2, -1075, 0}, {"pow", 2.5, 0.5, math.Sqrt(2.5)}, {"pow", 4, 0.5, 2},
		{"pow", 0.5, 1075, 0}, {"pow", 0.25, 537, 5e-324}, {"pow", 3, 34, 16677181699666568}, {"pow", 3, 35, 50031545098999704},
		{"pow", 1.5, 40, 11057332.320940012}, {"pow", -3, 33, -5559060566555523}, {"pow", 3, -2, 1.0 / 9},
	} {
		var got float64
		switch c.fn {
		case "exp":
			got = Exp(c.x)
		case "log":
			got = Log(c.x)
		default:
			got = Pow(c.x, c.y)
		}
		same := got == c.want && math.Signbit(got) == math.Signbit(c.want)
		if !same && !(math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("%s(%v, %v) = %v, want %v", c.fn, c.x, c.y, got, c.want)
		}
	}
}

// TestTablesAgree: the table-driven exp and log equal the series alone
// (slowExpDD, slowLogDD, which built the tables) rounded, on arguments
// that use every table entry.
func TestTablesAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for i := range 20000 {
		x := r.Float64()*1400 - 700
		k, m := slowExpDD(dd{x, 0})
		if got, want := Exp(x), round(k, m); got != want {
			t.Fatalf("Exp(%v) = %v, the series alone %v", x, got, want)
		}
		l := math.Ldexp(0.7+0.72*float64(i)/20000, r.IntN(200)-100)
		s := slowLogDD(l)
		if got, want := Log(l), s.hi+s.lo; got != want {
			t.Fatalf("Log(%v) = %v, the series alone %v", l, got, want)
		}
	}
}
