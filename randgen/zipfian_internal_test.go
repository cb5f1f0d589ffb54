package randgen

import (
	"math"
	"testing"
)

// TestZipfianIncrementalZeta grows (and shrinks) a Zipfian's item count
// through NextN and checks that the zeta it maintains, extended term by
// term or by Euler–Maclaurin steps, equals zeta recomputed from scratch.
func TestZipfianIncrementalZeta(t *testing.T) {
	for _, theta := range []float64{0.5, 0.8, ZipfianConstant} {
		z := NewZipfian(0, 9, theta)
		r := New(1, 1)
		counts := []int64{10, 11, 12, 13, 100, 1023, 1024, 1025, 1500, 3000, 3001, 100_000, 100_001,
			1_000_000, 1_000_500, 123_456_789, 10_000_000_000, 10_000_000_001, 5000, 5001, 1 << 40}
		// Many single steps, as SkewedLatest makes them on every insert.
		for n := int64(2000); n < 2500; n++ {
			counts = append(counts, n)
		}
		for _, n := range counts {
			z.NextN(r, n)
			if z.countForZeta != n {
				t.Fatalf("θ=%v: countForZeta = %d after NextN(%d)", theta, z.countForZeta, n)
			}
			want := Zeta(n, theta)
			if math.Abs(z.zetan-want) > 1e-9*want {
				t.Errorf("θ=%v n=%d: incremental zeta %.17g, recomputed %.17g", theta, n, z.zetan, want)
			}
			// η follows the new count.
			if w := (1 - math.Pow(2/float64(n), 1-theta)) / (1 - z.zeta2/want); n > 2 && math.Abs(z.eta-w) > 1e-9*math.Abs(w) {
				t.Errorf("θ=%v n=%d: eta %v, want %v", theta, n, z.eta, w)
			}
		}
	}
}

// TestZetaTailAgainstSum checks the Euler–Maclaurin tail on its own, from
// small starting points where its truncation matters most.
func TestZetaTailAgainstSum(t *testing.T) {
	for _, theta := range []float64{0, 0.2, 0.5, 0.9, 0.99, 0.9999} {
		for _, ab := range [][2]int64{{1024, 1025}, {1024, 5000}, {4096, 200_000}, {50_000, 50_123}} {
			var want float64
			for i := ab[0] + 1; i <= ab[1]; i++ {
				want += math.Pow(float64(i), -theta)
			}
			if got := zetaTail(ab[0], ab[1], theta); math.Abs(got-want) > 1e-12*want {
				t.Errorf("zetaTail(%d, %d, %v) = %.17g, sum %.17g", ab[0], ab[1], theta, got, want)
			}
		}
	}
}

func TestPowUint(t *testing.T) {
	r := New(2, 2)
	for range 10_000 {
		x := r.Float64()
		for _, k := range []uint{1, 2, 3, 5, 10, 100, 1000} {
			got, want := powUint(x, k), math.Pow(x, float64(k))
			if math.Abs(got-want) > float64(k)*4e-16*want {
				t.Fatalf("powUint(%v, %d) = %v, want %v", x, k, got, want)
			}
		}
	}
}
