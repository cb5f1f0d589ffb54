package ycsb

import (
	"github.com/stampede-bench/stampede/randgen"
)

// keyPrefix starts every key name, as in YCSB.
const keyPrefix = "user"

// appendKeyName appends the key name of key number keynum to buf, as
// YCSB's CoreWorkload.buildKeyName builds it: unless ordered, the number is
// first hashed (FNV-1a 64, absolute value); then "user" followed by the
// decimal number, left-padded with zeros to zeroPadding characters (YCSB
// pads Long.toString, so a sign counts as one).
func appendKeyName(buf []byte, keynum int64, ordered bool, zeroPadding int) []byte {
	if !ordered {
		keynum = randgen.FNV64(keynum)
	}
	var digits [20]byte
	i := formatDecimal(&digits, keynum)
	buf = append(buf, keyPrefix...)
	for n := len(digits) - i; n < zeroPadding; n++ {
		buf = append(buf, '0')
	}
	return append(buf, digits[i:]...)
}

// decimalPairs holds "00".."99".
const decimalPairs = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"

// formatDecimal writes v in decimal at the end of d and returns the index
// of its first character. It formats four 5-digit chunks in 32-bit
// arithmetic, independent of each other so the CPU overlaps them: about
// twice as fast as strconv for the 19-digit numbers hashed keys have.
func formatDecimal(d *[20]byte, v int64) int {
	u := uint64(v)
	if v < 0 {
		u = -u // also right for math.MinInt64
	}
	hi, lo := u/1e10, u%1e10 // hi < 1.9e9
	put5(d[15:20], uint32(lo%1e5))
	put5(d[10:15], uint32(lo/1e5))
	put5(d[5:10], uint32(hi%1e5))
	put5(d[0:5], uint32(hi/1e5))
	i := 0
	for i < len(d)-1 && d[i] == '0' {
		i++
	}
	if v < 0 { // at most 19 digits, so i >= 1
		i--
		d[i] = '-'
	}
	return i
}

// put5 writes x < 100000 into b as five zero-padded digits.
func put5(b []byte, x uint32) {
	_ = b[4]
	q := x / 100
	r := (x - q*100) * 2
	b[3], b[4] = decimalPairs[r], decimalPairs[r+1]
	q2 := q / 100
	r = (q - q2*100) * 2
	b[1], b[2] = decimalPairs[r], decimalPairs[r+1]
	b[0] = byte('0' + q2)
}

// maxKeyNameLen is the longest key name appendKeyName makes with the
// given padding.
func maxKeyNameLen(zeroPadding int) int {
	return len(keyPrefix) + max(zeroPadding, 20)
}

// keyName returns the key name of keynum under c.
func (c *config) keyName(keynum int64) string {
	var buf [64]byte
	return string(appendKeyName(buf[:0], keynum, c.insertOrdered, c.zeroPadding))
}
