package cli

import (
	"crypto/rand"
	"encoding/binary"
)

// pickSeed returns seed, or a random non-zero seed when it is 0.
func pickSeed(seed uint64) uint64 {
	for seed == 0 {
		var b [8]byte
		_, _ = rand.Read(b[:])
		seed = binary.LittleEndian.Uint64(b[:]) >> 1
	}
	return seed
}
