package tpcc

import (
	"math/rand/v2"

	"github.com/stampede-bench/stampede/randgen"
)

// The constant A of NURand(A, x, y) for each use (clause 2.1.6).
const (
	nurandCLast = 255  // C_LAST, from [0, 999]
	nurandCID   = 1023 // C_ID, from [1, 3000]
	nurandOLIID = 8191 // OL_I_ID, from [1, 100000]
)

// Cardinalities of clause 4.3.3.1 (per warehouse unless said otherwise).
const (
	numItems             = 100000 // once, not per warehouse
	districtsPerWH       = 10
	customersPerDistrict = 3000
	ordersPerDistrict    = 3000
	newOrdersPerDistrict = 900 // the last 900 orders, O_ID 2101..3000
	stockPerWH           = numItems
	firstNewOrder        = ordersPerDistrict - newOrdersPerDistrict + 1 // 2101
	minOLCnt, maxOLCnt   = 5, 15
)

// cConstants are the constants C of NURand (clause 2.1.6).
type cConstants struct {
	cLast, cID, olIID int64
}

// loadCLast returns the load-time C of NURand(255, 0, 999), drawn from
// the seed (clause 2.1.6.1: C is a run-time constant in [0, A]).
func loadCLast(seed uint64) int64 {
	return randgen.New(seed, streamConstants).Int64N(nurandCLast + 1)
}

// validCDelta reports whether the run-time C of C_LAST may differ from the
// load-time one by delta = |C_RUN - C_LOAD| (clause 2.1.6.1: delta in
// [65, 119], and neither 96 nor 112).
func validCDelta(delta int64) bool {
	if delta < 0 {
		delta = -delta
	}
	return delta >= 65 && delta <= 119 && delta != 96 && delta != 112
}

// runConstants draws the run-time constants: the C of C_LAST uniformly
// among the values of [0, 255] at a valid distance from cLoad (there are
// always some: cLoad+65..cLoad+119 fits when cLoad <= 136, cLoad-119..
// cLoad-65 when cLoad >= 65), and the C of C_ID and OL_I_ID uniformly
// (clause 2.1.6.1 puts no condition on them).
func runConstants(r *rand.Rand, cLoad int64) cConstants {
	var valid []int64
	for c := int64(0); c <= nurandCLast; c++ {
		if validCDelta(c - cLoad) {
			valid = append(valid, c)
		}
	}
	return cConstants{
		cLast: valid[r.IntN(len(valid))],
		cID:   r.Int64N(nurandCID + 1),
		olIID: r.Int64N(nurandOLIID + 1),
	}
}

// syllables are the syllables of C_LAST (clause 4.3.2.3).
var syllables = [10]string{"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

// lastName returns the C_LAST of number n in [0, 999]: the syllables of
// its three digits (clause 4.3.2.3), so 371 is PRICALLYOUGHT.
func lastName(n int64) string {
	return syllables[n/100] + syllables[n/10%10] + syllables[n%10]
}

// randInt returns a value uniform in [lo, hi] (clause 2.1.4).
func randInt(r *rand.Rand, lo, hi int) int {
	return lo + r.IntN(hi-lo+1)
}

// aString returns a random a-string (clause 4.3.2.2) of a length uniform
// in [lo, hi]: alphanumeric characters.
func aString(r *rand.Rand, buf []byte, lo, hi int) string {
	b := buf[:randInt(r, lo, hi)]
	randgen.RandAlnum(r, b)
	return string(b)
}

// nString returns a random n-string (clause 4.3.2.2) of n digits.
func nString(r *rand.Rand, buf []byte, n int) string {
	b := buf[:n]
	randgen.RandDigits(r, b)
	return string(b)
}

// letters returns n random upper-case letters (W_STATE and such).
func letters(r *rand.Rand, buf []byte, n int) string {
	b := buf[:n]
	for i := range b {
		b[i] = byte('A' + r.IntN(26))
	}
	return string(b)
}

// zip returns a zip code: 4 random digits followed by "11111" (clause
// 4.3.2.7).
func zip(r *rand.Rand, buf []byte) string {
	b := buf[:9]
	randgen.RandDigits(r, b[:4])
	copy(b[4:], "11111")
	return string(b)
}

// dataString returns I_DATA or S_DATA: an a-string of [26, 50] characters
// that, for 10% of the rows, contains "ORIGINAL" at a random position
// (clause 4.3.3.1).
func dataString(r *rand.Rand, buf []byte) string {
	b := buf[:randInt(r, 26, 50)]
	randgen.RandAlnum(r, b)
	if r.IntN(10) == 0 {
		copy(b[r.IntN(len(b)-len("ORIGINAL")+1):], "ORIGINAL")
	}
	return string(b)
}

// decimal returns a value uniform in [lo, hi] with the given number of
// decimal places, as float64 (lo and hi scaled by 10^places are integers).
func decimal(r *rand.Rand, lo, hi int, places int) float64 {
	scale := 1
	for range places {
		scale *= 10
	}
	return float64(randInt(r, lo, hi)) / float64(scale)
}
