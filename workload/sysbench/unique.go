package sysbench

import (
	"math/rand/v2"
	"sync/atomic"
)

// uniqueIDs is sysbench.rand.unique(): a sequence of distinct pseudo-random
// uint32 values shared by all workers (oltp_insert draws its ids from it
// when --auto_inc is off). The i-th value is p((p(i) + offset) ^ mask),
// where p is a permutation of the uint32 values by quadratic residues
// (Preshing, "Generating a Sequence of Unique Random Integers", 2012):
// for the prime q = 2³² - 5, which is 3 mod 4, x ↦ x² mod q on
// [0, q/2] and x ↦ q - (x² mod q) on (q/2, q) is a bijection of [0, q),
// and the five values from q up are left as they are. A composition of
// bijections, the sequence repeats no value in 2³² draws. It is safe for
// concurrent use.
type uniqueIDs struct {
	index  atomic.Uint32
	offset uint32
	mask   uint32
}

// newUniqueIDs returns a sequence whose start, offset and mask come from r.
func newUniqueIDs(r *rand.Rand) *uniqueIDs {
	u := &uniqueIDs{offset: r.Uint32(), mask: r.Uint32()}
	u.index.Store(r.Uint32())
	return u
}

// next returns the next value of the sequence.
func (u *uniqueIDs) next() uint32 {
	i := u.index.Add(1) - 1
	return permuteQR((permuteQR(i) + u.offset) ^ u.mask)
}

// permuteQR is the quadratic-residue permutation of uint32 values.
func permuteQR(x uint32) uint32 {
	const q = 1<<32 - 5 // the largest prime below 2³², 3 mod 4
	if x >= q {
		return x
	}
	r := uint32(uint64(x) * uint64(x) % q)
	if x <= q/2 {
		return r
	}
	return q - r
}
