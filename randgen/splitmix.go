package randgen

import "math/rand/v2"

// SplitMix64 is the SplitMix64 generator (Steele, Lea and Flood, "Fast
// splittable pseudorandom number generators", OOPSLA 2014). Workloads use
// it for bulk random bytes (values, digit strings), which need many bits
// and little statistical quality: a step inlines into the fill loop at a
// fraction of the cost of a *rand.Rand draw. Seeded from a worker's or a
// batch's stream, it keeps values deterministic per seed. Not safe for
// concurrent use.
type SplitMix64 struct {
	state uint64
}

// NewSplitMix64 returns a SplitMix64 seeded from r.
func NewSplitMix64(r *rand.Rand) SplitMix64 { return SplitMix64{state: r.Uint64()} }

// Next returns the next 64 random bits.
func (s *SplitMix64) Next() uint64 {
	s.state += 0x9e3779b97f4a7c15
	z := s.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
