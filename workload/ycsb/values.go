package ycsb

import (
	"encoding/binary"
	"math/rand/v2"

	"github.com/stampede-bench/stampede/randgen"
)

// valueSource draws the random bytes of values from a SplitMix64 seeded
// from a worker's or a batch's stream (see randgen.SplitMix64). It is not
// safe for concurrent use.
type valueSource struct {
	randgen.SplitMix64
}

// newValueSource seeds a valueSource from r.
func newValueSource(r *rand.Rand) valueSource { return valueSource{randgen.NewSplitMix64(r)} }

// fill fills buf with random printable ASCII: eight characters per 64-bit
// draw, each uniform over the 64 characters from '?' (0x3F) to '~' (0x7E),
// that is 6 random bits per character. YCSB's RandomByteIterator draws 5
// to 6 bits per character (masks of 31, 63 and 95 over ' '), so values
// compress about as YCSB's do. A uniform 95-character draw
// (randgen.RandASCII) costs about ten times more per value, which would
// dominate a null-driver run of workload a.
func (v *valueSource) fill(buf []byte) {
	const (
		mask = 0x3f3f3f3f3f3f3f3f // 6 bits per byte
		base = 0x3f3f3f3f3f3f3f3f // + '?' per byte: at most 0x7e, no carries
	)
	for len(buf) >= 8 {
		binary.LittleEndian.PutUint64(buf, v.Next()&mask+base)
		buf = buf[8:]
	}
	if len(buf) > 0 {
		x := v.Next()&mask + base
		for i := range buf {
			buf[i] = byte(x)
			x >>= 8
		}
	}
}
