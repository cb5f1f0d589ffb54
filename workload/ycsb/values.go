package ycsb

import (
	"encoding/binary"
	"math/rand/v2"
)

// valueSource draws the random bytes of values. It is a SplitMix64
// generator (Steele, Lea and Flood, "Fast splittable pseudorandom number
// generators", OOPSLA 2014) seeded from a worker's or a batch's stream, so
// values stay deterministic per seed; it is used instead of the stream
// itself because values need many random bits and little statistical
// quality, and a SplitMix64 step inlines into the fill loop at a fraction
// of the cost of a *rand.Rand draw. It is not safe for concurrent use.
type valueSource struct {
	state uint64
}

// newValueSource seeds a valueSource from r.
func newValueSource(r *rand.Rand) valueSource { return valueSource{state: r.Uint64()} }

func (v *valueSource) next() uint64 {
	v.state += 0x9e3779b97f4a7c15
	z := v.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

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
		binary.LittleEndian.PutUint64(buf, v.next()&mask+base)
		buf = buf[8:]
	}
	if len(buf) > 0 {
		x := v.next()&mask + base
		for i := range buf {
			buf[i] = byte(x)
			x >>= 8
		}
	}
}
