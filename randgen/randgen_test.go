package randgen_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/randgen"
)

// within fails the test unless |got-want| <= tol.
func within(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got-want) > tol {
		t.Errorf("%s = %.6g, want %.6g ± %.3g", what, got, want, tol)
	}
}

// binomialTol is a 5-sigma tolerance for an observed frequency with
// probability p over n draws.
func binomialTol(p float64, n int) float64 {
	return 5 * math.Sqrt(p*(1-p)/float64(n))
}

func TestNewDeterminism(t *testing.T) {
	draw := func(seed, stream uint64) []uint64 {
		r := randgen.New(seed, stream)
		out := make([]uint64, 100)
		for i := range out {
			out[i] = r.Uint64()
		}
		return out
	}
	base := draw(42, 7)
	if !slices.Equal(base, draw(42, 7)) {
		t.Fatal("same (seed, stream) gave different sequences")
	}
	for _, other := range []struct{ seed, stream uint64 }{{42, 8}, {43, 7}, {7, 42}, {0, 0}} {
		if slices.Equal(base, draw(other.seed, other.stream)) {
			t.Errorf("New(%d, %d) repeats New(42, 7)", other.seed, other.stream)
		}
	}
}

// generators returns one of each generator, freshly built.
func generators(t *testing.T) map[string]randgen.IntGenerator {
	t.Helper()
	c := randgen.NewAcknowledgedCounter(0)
	for range 1000 {
		c.Acknowledge(c.Next())
	}
	gens := map[string]randgen.IntGenerator{
		"uniform":          randgen.NewUniform(-50, 1000),
		"zipfian":          randgen.NewZipfian(10, 100_000, randgen.ZipfianConstant),
		"zipfian0.5":       randgen.NewZipfian(0, 1000, 0.5),
		"scrambled":        randgen.NewScrambledZipfian(5, 100_004, randgen.ZipfianConstant),
		"scrambled0.8":     randgen.NewScrambledZipfian(0, 999, 0.8),
		"latest":           randgen.NewSkewedLatest(c),
		"hotspot":          randgen.NewHotspot(0, 9999, 0.2, 0.8),
		"exponential":      randgen.NewExponential(95, 857),
		"exponential-mean": randgen.NewExponentialMean(20),
	}
	for _, kind := range randgen.SysbenchKinds() {
		g, err := randgen.NewSysbench(kind, 1, 100_000, randgen.DefaultSysbenchParams())
		if err != nil {
			t.Fatal(err)
		}
		gens["sysbench-"+kind] = g
	}
	return gens
}

func TestGeneratorsDeterministic(t *testing.T) {
	first, second := generators(t), generators(t)
	for name, g := range first {
		t.Run(name, func(t *testing.T) {
			g2 := second[name]
			r1, r2, r3 := randgen.New(1, 2), randgen.New(1, 2), randgen.New(1, 3)
			same := true
			for i := range 10_000 {
				a, b, c := g.Next(r1), g2.Next(r2), g.Next(r3)
				if a != b {
					t.Fatalf("draw %d: %d != %d with the same stream", i, a, b)
				}
				same = same && a == c
			}
			if same {
				t.Error("streams 2 and 3 gave the same 10000 values")
			}
		})
	}
}

func TestNextDoesNotAllocate(t *testing.T) {
	for name, g := range generators(t) {
		r := randgen.New(1, 1)
		if n := testing.AllocsPerRun(1000, func() { g.Next(r) }); n != 0 {
			t.Errorf("%s: Next allocates %v times per call", name, n)
		}
	}
	r := randgen.New(1, 1)
	buf := make([]byte, 100)
	for name, fill := range map[string]func(*rand.Rand, []byte){
		"RandASCII": randgen.RandASCII, "RandAlnum": randgen.RandAlnum, "RandDigits": randgen.RandDigits,
	} {
		if n := testing.AllocsPerRun(100, func() { fill(r, buf) }); n != 0 {
			t.Errorf("%s allocates %v times per call", name, n)
		}
	}
	z := randgen.NewZipfian(0, 99, randgen.ZipfianConstant)
	n := int64(100)
	if a := testing.AllocsPerRun(1000, func() { n++; z.NextN(r, n) }); a != 0 {
		t.Errorf("Zipfian.NextN with a growing count allocates %v times per call", a)
	}
}

func TestUniformSmallRanges(t *testing.T) {
	for _, tc := range []struct{ lo, hi int64 }{
		{0, 0}, {5, 5}, {0, 1}, {-3, 7}, {1, 10}, {-100, -1}, {math.MaxInt64 - 9, math.MaxInt64}, {math.MinInt64, math.MinInt64 + 9},
	} {
		g := randgen.NewUniform(tc.lo, tc.hi)
		r := randgen.New(3, uint64(tc.lo))
		n := int(tc.hi - tc.lo + 1)
		const draws = 100_000
		counts := make([]int, n)
		for range draws {
			v := g.Next(r)
			if v < tc.lo || v > tc.hi {
				t.Fatalf("[%d, %d]: %d out of bounds", tc.lo, tc.hi, v)
			}
			counts[v-tc.lo]++
		}
		p := 1 / float64(n)
		for i, c := range counts {
			within(t, "["+strconv.FormatInt(tc.lo, 10)+", "+strconv.FormatInt(tc.hi, 10)+"] frequency of "+strconv.FormatInt(tc.lo+int64(i), 10),
				float64(c)/draws, p, binomialTol(p, draws))
		}
	}
}

func TestUniformLargeRanges(t *testing.T) {
	const draws = 1_000_000
	for _, tc := range []struct{ lo, hi int64 }{
		{0, 1_000_000_000_000}, {-1 << 40, 1 << 50}, {math.MinInt64, math.MaxInt64}, {math.MinInt64, 0},
	} {
		g := randgen.NewUniform(tc.lo, tc.hi)
		r := randgen.New(4, 4)
		// Work in units of the range so the sums stay exact enough.
		lo, width := float64(tc.lo), float64(tc.hi)-float64(tc.lo)
		var sum, sumSq float64
		minV, maxV := int64(math.MaxInt64), int64(math.MinInt64)
		for range draws {
			v := g.Next(r)
			if v < tc.lo || v > tc.hi {
				t.Fatalf("[%d, %d]: %d out of bounds", tc.lo, tc.hi, v)
			}
			minV, maxV = min(minV, v), max(maxV, v)
			x := (float64(v) - lo) / width // uniform on [0, 1]
			sum += x
			sumSq += x * x
		}
		mean := sum / draws
		variance := sumSq/draws - mean*mean
		name := "[" + strconv.FormatInt(tc.lo, 10) + ", " + strconv.FormatInt(tc.hi, 10) + "]"
		within(t, name+" mean/width", mean, 0.5, 5*math.Sqrt(1.0/12/draws))
		within(t, name+" variance/width²", variance, 1.0/12, 5*math.Sqrt(1.0/180/draws))
		// The extremes come within 1e-4 of the range ends.
		within(t, name+" min/width", (float64(minV)-lo)/width, 0, 1e-4)
		within(t, name+" max/width", (float64(maxV)-lo)/width, 1, 1e-4)
	}
}

func TestUniformPanicsOnEmptyRange(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewUniform(2, 1) did not panic")
		}
	}()
	randgen.NewUniform(2, 1)
}

// fnv64Reference is the definition, literally: FNV-1a over the 8 octets,
// low first, then Java's Math.abs.
func fnv64Reference(v int64) int64 {
	h := uint64(0xCBF29CE484222325)
	for i := range 8 {
		h ^= uint64(v) >> (8 * i) & 0xff
		h *= 1099511628211
	}
	if int64(h) < 0 {
		return -int64(h)
	}
	return int64(h)
}

func TestFNV64Golden(t *testing.T) {
	// Computed from the definition with an independent (Python)
	// implementation. FNV64(0) by hand: xoring a zero octet changes nothing,
	// so the hash is 0xCBF29CE484222325 × 1099511628211⁸ mod 2⁶⁴. The first
	// step gives 0xaf63bd4c8601b7df, the published FNV-1a 64 test vector for
	// the one-byte string "\x00"; after all eight the hash is
	// 0xa8c7f832281a39c5, negative as an int64, whose absolute value
	// 2⁶⁴ - 0xa8c7f832281a39c5 = 0x573807cdd7e5c63b = 6284781860667377211.
	// YCSB therefore names key number 0 "user6284781860667377211" (with
	// hashed inserts), a key familiar from YCSB runs.
	golden := []struct{ in, want int64 }{
		{0, 6284781860667377211},
		{1, 8517097267634966620},
		{2, 1820151046732198393},
		{255, 8064062821143829734},
		{256, 2056600594528442646},
		{1000, 5952875239596136740},
		{999_999, 2744965632448235251},
		{1 << 40, 6908947124047430886},
		{1<<40 + 1, 7892932004254912945},
		{-1, 8289690350564177859},
		{math.MaxInt64, 8289549613075766851},
		{math.MinInt64, 6284922598155788219},
	}
	for _, g := range golden {
		if got := randgen.FNV64(g.in); got != g.want {
			t.Errorf("FNV64(%d) = %d, want %d", g.in, got, g.want)
		}
	}
	if key := "user" + strconv.FormatInt(randgen.FNV64(0), 10); key != "user6284781860667377211" {
		t.Errorf("YCSB key for keynum 0 = %q", key)
	}
	r := randgen.New(9, 9)
	for i := range 100_000 {
		v := int64(r.Uint64())
		switch i % 3 {
		case 0:
			v >>= 24 // below 2^40, the common key-number case
		case 1:
			v >>= r.IntN(64)
		}
		if got, want := randgen.FNV64(v), fnv64Reference(v); got != want {
			t.Fatalf("FNV64(%d) = %d, want %d", v, got, want)
		}
		if got := randgen.FNV64(v); got < 0 && got != math.MinInt64 {
			t.Fatalf("FNV64(%d) = %d is negative", v, got)
		}
	}
}

func TestNURandBounds(t *testing.T) {
	for _, tc := range []struct{ a, x, y int64 }{
		{255, 0, 999},     // C_LAST
		{1023, 1, 3000},   // C_ID
		{8191, 1, 100000}, // OL_I_ID
		{255, 5, 5},
	} {
		r := randgen.New(5, uint64(tc.a))
		for _, c := range []int64{0, tc.a / 3, tc.a} {
			seen := map[int64]int{}
			const draws = 200_000
			for range draws {
				v := randgen.NURand(r, tc.a, c, tc.x, tc.y)
				if v < tc.x || v > tc.y {
					t.Fatalf("NURand(%d, %d, %d, %d) = %d out of bounds", tc.a, c, tc.x, tc.y, v)
				}
				seen[v]++
			}
			if n := tc.y - tc.x + 1; n > 1 {
				// Non-uniform: the most frequent value is well above the
				// uniform share.
				most := 0
				for _, k := range seen {
					most = max(most, k)
				}
				if uniform := float64(draws) / float64(n); float64(most) < 2*uniform {
					t.Errorf("NURand(%d, %d, %d, %d): most frequent value drawn %d times, uniform would be %.0f", tc.a, c, tc.x, tc.y, most, uniform)
				}
			}
		}
	}
}

func TestRandStrings(t *testing.T) {
	printable := func() string {
		var b strings.Builder
		for c := byte(' '); c <= '~'; c++ {
			b.WriteByte(c)
		}
		return b.String()
	}()
	for _, tc := range []struct {
		name string
		fill func(*rand.Rand, []byte)
		set  string
	}{
		{"RandASCII", randgen.RandASCII, printable},
		{"RandAlnum", randgen.RandAlnum, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"},
		{"RandDigits", randgen.RandDigits, "0123456789"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := randgen.New(6, 6)
			// Every length up to 64 exercises the whole-word and tail paths.
			counts := map[byte]int{}
			total := 0
			for rep := range 2000 {
				buf := make([]byte, rep%65)
				for i := range buf {
					buf[i] = 0xff
				}
				tc.fill(r, buf)
				for _, c := range buf {
					if !strings.ContainsRune(tc.set, rune(c)) {
						t.Fatalf("character %q not in the set", c)
					}
					counts[c]++
					total++
				}
			}
			p := 1 / float64(len(tc.set))
			for _, c := range []byte(tc.set) {
				within(t, "frequency of "+strconv.QuoteRune(rune(c)), float64(counts[c])/float64(total), p, binomialTol(p, total))
			}
			// Each position of a 41-character buffer (several words and a
			// tail) is uniform on its own: chi-square test per position.
			const length, reps = 41, 20_000
			pos := make([][256]int, length)
			buf := make([]byte, length)
			for range reps {
				tc.fill(r, buf)
				for i, c := range buf {
					pos[i][c]++
				}
			}
			k := float64(len(tc.set))
			expected := reps / k
			limit := (k - 1) + 6*math.Sqrt(2*(k-1)) // df + 6 sd
			for i := range pos {
				var chi2 float64
				for _, c := range []byte(tc.set) {
					d := float64(pos[i][c]) - expected
					chi2 += d * d / expected
				}
				if chi2 > limit {
					t.Errorf("position %d: chi-square %.1f > %.1f", i, chi2, limit)
				}
			}
			a, b := make([]byte, 37), make([]byte, 37)
			tc.fill(randgen.New(1, 1), a)
			tc.fill(randgen.New(1, 1), b)
			if string(a) != string(b) {
				t.Error("same stream, different strings")
			}
			tc.fill(r, nil) // must not panic
		})
	}
}
