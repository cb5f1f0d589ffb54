package engine

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestMetronomeSpinWindow checks the README's claim that the metronome's
// spin window "follows the 99.9th percentile" of the precise sleeps'
// overshoot, "up to 2 ms": fed overshoots drawn from a known
// distribution, the window, averaged over the samples after it settled,
// lies between the 99.8th and 99.95th percentiles of a fresh set of draws
// (within one step of the window); overshoots whose
// 99.9th percentile is beyond 2 ms hold it at 2 ms; and when the
// overshoots shrink, it comes down to their new percentile.
func TestMetronomeSpinWindow(t *testing.T) {
	if metronomeMaxSpin != 2*time.Millisecond {
		t.Fatalf("metronomeMaxSpin %v: the README says 2 ms", metronomeMaxSpin)
	}
	exp := func(mean time.Duration) func(*rand.Rand) time.Duration {
		return func(rng *rand.Rand) time.Duration { return time.Duration(rng.ExpFloat64() * float64(mean)) }
	}
	uniform := func(hi time.Duration) func(*rand.Rand) time.Duration {
		return func(rng *rand.Rand) time.Duration { return time.Duration(rng.Int64N(int64(hi))) }
	}
	// A virtual machine's wake-ups: most within 30-45 µs, a tail of
	// milliseconds (log-normal, median 40 µs).
	lognormal := func(median time.Duration, sigma float64) func(*rand.Rand) time.Duration {
		return func(rng *rand.Rand) time.Duration {
			return time.Duration(float64(median) * math.Exp(sigma*rng.NormFloat64()))
		}
	}
	type phase struct {
		draw func(*rand.Rand) time.Duration
		n    int // samples fed; the window is averaged over the last half
	}
	for _, tc := range []struct {
		name   string
		phases []phase // the last one is checked
		capped bool    // the 99.9th percentile is beyond 2 ms
	}{
		{"exponential, mean 50µs (p99.9 345µs)", []phase{{exp(50 * time.Microsecond), 400_000}}, false},
		{"exponential, mean 20µs (p99.9 138µs)", []phase{{exp(20 * time.Microsecond), 400_000}}, false},
		{"uniform to 1ms (p99.9 999µs)", []phase{{uniform(time.Millisecond), 400_000}}, false},
		{"log-normal, median 40µs, sigma 1.2 (p99.9 1.6ms)", []phase{{lognormal(40*time.Microsecond, 1.2), 600_000}}, false},
		{"log-normal, median 40µs, sigma 2 (p99.9 19ms): capped", []phase{{lognormal(40*time.Microsecond, 2), 400_000}}, true},
		{"uniform to 1ms, then exponential, mean 20µs", []phase{{uniform(time.Millisecond), 200_000}, {exp(20 * time.Microsecond), 600_000}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			m := &metronome{spin: metronomeSpin}
			var sum float64
			var counted int
			for i, ph := range tc.phases {
				last := i == len(tc.phases)-1
				for k := range ph.n {
					m.adapt(ph.draw(rng))
					if m.spin < 0 || m.spin > metronomeMaxSpin {
						t.Fatalf("spin window %v: outside [0, %v]", m.spin, metronomeMaxSpin)
					}
					if last && k >= ph.n/2 {
						sum += float64(m.spin)
						counted++
					}
				}
			}
			window := time.Duration(sum / float64(counted))
			draw := tc.phases[len(tc.phases)-1].draw
			fresh := make([]time.Duration, 400_000)
			for i := range fresh {
				fresh[i] = draw(rng)
			}
			slices.Sort(fresh)
			q := func(p float64) time.Duration { return fresh[int(p*float64(len(fresh)))] }
			t.Logf("window %v; overshoots p99.8 %v, p99.9 %v, p99.95 %v", window, q(0.998), q(0.999), q(0.9995))
			if tc.capped {
				if window < metronomeMaxSpin-20*time.Microsecond {
					t.Errorf("window %v with a p99.9 of %v: want it held at %v", window, q(0.999), metronomeMaxSpin)
				}
				return
			}
			// The window moves up in steps of metronomeSpinUp: it may be
			// one step past a percentile.
			if lo, hi := q(0.998)-metronomeSpinUp, q(0.9995)+metronomeSpinUp; window < lo || window > hi {
				t.Errorf("window %v: want it between the overshoots' p99.8 %v and p99.95 %v (p99.9 %v), within a step of %v", window, q(0.998), q(0.9995), q(0.999), metronomeSpinUp)
			}
		})
	}
}
