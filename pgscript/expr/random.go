package expr

import (
	"math"
	"math/bits"

	"github.com/stampede-bench/stampede/pgscript/crmath"
	"github.com/stampede-bench/stampede/pgscript/prng"
)

// ExponentialRand is pgbench's getExponentialRand: a value in [lo, hi]
// whose density at hi is exp(-param) times the density at lo (param > 0).
func ExponentialRand(rs *prng.State, lo, hi int64, param float64) int64 {
	cut := crmath.Exp(-param)
	uniform := 1.0 - rs.Double() // in (0, 1]
	r := -crmath.Log(cut+(1.0-cut)*uniform) / param
	return lo + int64(float64(hi-lo+1)*r)
}

// GaussianRand is pgbench's getGaussianRand: a normal draw (Box-Muller,
// redrawn until it falls in [-param, param)) mapped onto [lo, hi]
// (param >= 2).
func GaussianRand(rs *prng.State, lo, hi int64, param float64) int64 {
	var stdev float64
	for {
		u1 := 1.0 - rs.Double()
		u2 := 1.0 - rs.Double()
		stdev = math.Sqrt(-2.0*crmath.Log(u1)) * math.Sin(2.0*math.Pi*u2)
		if !(stdev < -param || stdev >= param) {
			break
		}
	}
	r := (stdev + param) / (param * 2.0)
	return lo + int64(float64(hi-lo+1)*r)
}

// ZipfianRand is pgbench's getZipfianRand: a value in [lo, hi] with
// Zipf's law of parameter s (1.001 <= s <= 1000), drawn by Devroye's
// rejection method ("Non-Uniform Random Variate Generation", p. 550).
func ZipfianRand(rs *prng.State, lo, hi int64, s float64) int64 {
	n := hi - lo + 1
	return lo - 1 + iterativeZipfian(rs, n, s)
}

func iterativeZipfian(rs *prng.State, n int64, s float64) int64 {
	if n <= 1 {
		return 1
	}
	b := crmath.Pow(2.0, s-1.0)
	for {
		u := rs.Double()
		v := rs.Double()
		x := math.Floor(crmath.Pow(u, -1.0/(s-1.0)))
		t := crmath.Pow(1.0+1.0/x, s-1.0)
		if v*x*(t-1.0)/(b-1.0) <= t/b && x <= float64(n) {
			return int64(x)
		}
	}
}

// FNV-1a's and MurmurHash2's constants.
const (
	fnvOffsetBasis = 0xcbf29ce484222325
	fnvPrime       = 0x100000001b3
	mm2Mul         = 0xc6a4a7935bd1e995
	mm2MulTimes8   = (mm2Mul * 8) & (1<<64 - 1)
	mm2Rot         = 47
)

// HashFNV1a is pgbench's hash_fnv1a(v, seed): FNV-1a over v's eight bytes,
// least significant first, from the offset basis xor seed.
func HashFNV1a(v int64, seed uint64) int64 {
	h := uint64(fnvOffsetBasis) ^ seed
	u := uint64(v)
	for i := 0; i < 8; i++ {
		h ^= u & 0xff
		u >>= 8
		h *= fnvPrime
	}
	return int64(h)
}

// HashMurmur2 is pgbench's hash() and hash_murmur2(v, seed): MurmurHash64A
// of v's eight bytes.
func HashMurmur2(v int64, seed uint64) int64 {
	h := seed ^ mm2MulTimes8
	k := uint64(v)
	k *= mm2Mul
	k ^= k >> mm2Rot
	k *= mm2Mul
	h ^= k
	h *= mm2Mul
	h ^= h >> mm2Rot
	h *= mm2Mul
	h ^= h >> mm2Rot
	return int64(h)
}

// Permute is pgbench's permute(v, size, seed): v's image in [0, size) under
// the pseudorandom permutation of [0, size) that seed selects (0 when
// size < 2). Six rounds, each an odd multiply, xor and rotation of the lower
// and of the upper power-of-two window, then a random offset, all drawn from
// a generator seeded with seed.
func Permute(v, isize, seed int64) int64 {
	if isize < 2 {
		return 0
	}
	var st prng.State
	st.Seed(uint64(seed))
	size := uint64(isize)
	x := uint64(v) % size
	masklen := uint(63 - bits.LeadingZeros64(size))
	mask := uint64(1)<<masklen - 1
	for i := 0; i < 6; i++ {
		m := st.Uint64()&mask | 1
		r := st.Uint64() & mask
		if x <= mask {
			x = (x*m ^ r) & mask
			x = (x<<1)&mask | x>>(masklen-1)
		}
		m = st.Uint64()&mask | 1
		r = st.Uint64() & mask
		t := size - 1 - x
		if t <= mask {
			t = (t*m ^ r) & mask
			t = (t<<1)&mask | t>>(masklen-1)
			x = size - 1 - t
		}
		r = st.Uint64Range(0, size-1)
		x = (x + r) % size
	}
	return int64(x)
}
