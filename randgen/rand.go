package randgen

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/stampede-bench/stampede/internal/cacheline"
)

// New returns a *rand.Rand driven by a PCG source (math/rand/v2) seeded with
// (seed, stream), the two halves of its 128-bit state. The same pair always
// yields the same sequence; pairs that differ in either value start at
// unrelated points of the 2¹²⁸-long sequence, so a run can give every worker
// its own stream of one seed.
//
// New is safe for concurrent use; the returned *rand.Rand is not (give each
// goroutine its own).
//
// The source's state, written on every draw, has a cache line to itself:
// the 16-byte sources of two workers made one after the other would
// otherwise share a line, and every draw of one would evict the other's
// from the other core's cache (see package cacheline).
func New(seed, stream uint64) *rand.Rand {
	p := new(paddedPCG)
	p.PCG.Seed(seed, stream)
	return rand.New(&p.PCG)
}

// paddedPCG is a PCG source alone on its cache line.
type paddedPCG struct {
	_   cacheline.Pad
	PCG rand.PCG
	_   cacheline.Pad
}

// FNV64 is YCSB's Utils.fnvhash64, used to scramble key numbers: FNV-1a over
// the 8 octets of v, least significant first (offset basis
// 0xCBF29CE484222325, prime 1099511628211; each octet is xor-ed in, then the
// hash is multiplied), returning the absolute value of the hash read as an
// int64, as Java's Math.abs(long) does. Like Math.abs, it returns
// math.MinInt64 unchanged, the only negative result.
//
// FNV64 is safe for concurrent use.
func FNV64(v int64) int64 {
	const (
		offsetBasis = 0xCBF29CE484222325
		prime       = 1099511628211
		// prime3 is prime³ mod 2⁶⁴: xoring in a zero octet changes nothing,
		// so three zero octets amount to one multiplication by prime³.
		prime3 = prime * prime * prime & (1<<64 - 1)
	)
	u := uint64(v)
	h := uint64(offsetBasis)
	h = (h ^ u&0xff) * prime
	h = (h ^ u>>8&0xff) * prime
	h = (h ^ u>>16&0xff) * prime
	h = (h ^ u>>24&0xff) * prime
	h = (h ^ u>>32&0xff) * prime
	if u>>40 == 0 { // octets 5 to 7 are zero, as for every key number below 2⁴⁰
		h *= prime3
	} else {
		h = (h ^ u>>40&0xff) * prime
		h = (h ^ u>>48&0xff) * prime
		h = (h ^ u>>56) * prime
	}
	s := int64(h)
	if s < 0 {
		s = -s // math.MinInt64 stays as is, as in Java
	}
	return s
}

// IntGenerator draws int64 values from a distribution, taking randomness
// from the caller's stream r. Implementations in this package are per-worker
// values, not safe for concurrent use unless their documentation says
// otherwise.
type IntGenerator interface {
	Next(r *rand.Rand) int64
}

// Uniform draws integers uniformly from the inclusive range [lo, hi]
// (YCSB's UniformLongGenerator). Like every generator here it is meant to be
// per-worker; as Next does not modify it, goroutines may nevertheless share
// one safely as long as each passes its own *rand.Rand.
type Uniform struct {
	lo   int64
	span uint64 // hi - lo, as an unsigned value
}

var _ IntGenerator = (*Uniform)(nil)

// NewUniform returns a generator of integers uniform over [lo, hi], bounds
// included. Every int64 range is accepted, including [math.MinInt64,
// math.MaxInt64]. It panics if hi < lo. NewUniform is safe for concurrent
// use.
func NewUniform(lo, hi int64) *Uniform {
	if hi < lo {
		panic(fmt.Sprintf("randgen: NewUniform: hi %d < lo %d", hi, lo))
	}
	return &Uniform{lo: lo, span: uint64(hi) - uint64(lo)}
}

// Next returns a value uniform over [lo, hi]. It does not allocate. It is
// safe for concurrent use only by goroutines passing different r.
func (u *Uniform) Next(r *rand.Rand) int64 {
	return uniform(r, u.lo, u.span)
}

// uniform returns lo + a value uniform over [0, span], exactly (no modulo
// bias).
func uniform(r *rand.Rand, lo int64, span uint64) int64 {
	if span == math.MaxUint64 {
		return int64(r.Uint64())
	}
	return lo + int64(r.Uint64N(span+1))
}

// NURand is TPC-C's non-uniform random function (clause 2.1.6):
//
//	NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x
//
// where random(a, b) is uniform over [a, b] inclusive and C is the run-time
// constant for A (clause 2.1.6.1; the caller chooses it, within [0, A]). The
// result lies in [x, y]. Standard values of A are 255 (C_LAST), 1023 (C_ID)
// and 8191 (OL_I_ID). It panics if y < x, if y - x >= math.MaxInt64, or if
// a < 0.
//
// NURand is safe for concurrent use as long as each goroutine passes its own
// r.
func NURand(r *rand.Rand, a, c, x, y int64) int64 {
	span := uint64(y) - uint64(x)
	if y < x || span >= math.MaxInt64 || a < 0 {
		panic(fmt.Sprintf("randgen: NURand: invalid A=%d x=%d y=%d", a, x, y))
	}
	v := uniform(r, 0, uint64(a)) | uniform(r, x, span)
	m := int64(span + 1)
	res := (v + c) % m
	if res < 0 { // only when x or c is negative
		res += m
	}
	return res + x
}

const (
	printableASCII = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~"
	alnumChars     = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	digitChars     = "0123456789"
)

// fillChars fills buf with characters of set drawn from 64-bit random
// words, 7 characters a word: each word x is read as the binary fraction
// x/2⁶⁴, and each character is the next base-len(set) digit of that fraction
// (the high word of x·len(set), whose low word carries the remaining
// digits). A run of 7 characters then has probability within a factor
// 1 ± len(set)⁷/2⁶⁴ of uniform, which is below 4e-6 for up to 95
// characters. It costs one multiplication per character.
func fillChars(r *rand.Rand, buf []byte, set string) {
	n := uint64(len(set))
	for len(buf) >= 7 {
		b := buf[:7:7]
		x := r.Uint64()
		var d uint64
		d, x = bits.Mul64(x, n)
		b[0] = set[d]
		d, x = bits.Mul64(x, n)
		b[1] = set[d]
		d, x = bits.Mul64(x, n)
		b[2] = set[d]
		d, x = bits.Mul64(x, n)
		b[3] = set[d]
		d, x = bits.Mul64(x, n)
		b[4] = set[d]
		d, x = bits.Mul64(x, n)
		b[5] = set[d]
		d, _ = bits.Mul64(x, n)
		b[6] = set[d]
		buf = buf[7:]
	}
	if len(buf) > 0 {
		x := r.Uint64()
		for i := range buf {
			var d uint64
			d, x = bits.Mul64(x, n)
			buf[i] = set[d]
		}
	}
}

// RandASCII fills buf with random printable ASCII characters, each uniform
// (to within a relative bias of 4e-6) over the 95 characters from ' ' (0x20)
// to '~' (0x7E), like the values of YCSB's RandomByteIterator (which also
// emits the non-printable 0x7F; this does not). It does not allocate. It is
// safe for concurrent use as long as each goroutine passes its own r and
// buf.
func RandASCII(r *rand.Rand, buf []byte) {
	fillChars(r, buf, printableASCII)
}

// RandAlnum fills buf with random characters uniform (to within a relative
// bias of 2e-7) over a-z, A-Z and 0-9. It does not allocate. It is safe for
// concurrent use as long as each goroutine passes its own r and buf.
func RandAlnum(r *rand.Rand, buf []byte) {
	fillChars(r, buf, alnumChars)
}

// RandDigits fills buf with random decimal digits '0'-'9', each uniform (to
// within a relative bias of 1e-12). It does not allocate. It is safe for
// concurrent use as long as each goroutine passes its own r and buf.
func RandDigits(r *rand.Rand, buf []byte) {
	fillChars(r, buf, digitChars)
}
