package runlog

import (
	"encoding/binary"
	"hash/adler32"
	"math/bits"
	"sync"
)

// Why an inflater of our own: a histogram of the run log is a zlib stream
// of a few hundred bytes, one dynamic Huffman block of mostly literals.
// Inflating it with klauspost/compress's zlib reader (reset, not rebuilt,
// for each) was about 40% of `report --tag`'s CPU (17 us a histogram),
// about half of that building its Huffman tables, sized for long streams.
// inflater decodes a whole stream at once into a reused buffer, with
// lookup tables sized to the code's longest code (at most 2^10 entries).
// It reads RFC 1950/1951 streams without a preset dictionary and checks
// their Adler-32; anything it does not read (damage, a dictionary, more
// output than asked for) it leaves to klauspost's reader, which decides
// (see histDecoder.fast): what it returns is what that reader returns.
// `report --from 0s` of ten one-hour clients (36,000 histograms) took
// 1.72-1.78 s of CPU with klauspost's reader, 1.32-1.64 s with this (on
// the shared 2-CPU machine, alternating).

// Limits of DEFLATE (RFC 1951).
const (
	maxCodeBits  = 15  // longest Huffman code
	maxLitCodes  = 286 // literal/length codes a dynamic block may define
	maxDistCodes = 30  // distance codes a dynamic block may define
	tableBits    = 10  // the bits a table looks up at once; longer codes are decoded bit by bit
)

// huffTable decodes one canonical Huffman code.
type huffTable struct {
	// fast maps the next bits (LSB first) to symbol<<4 | length for
	// codes up to bits long; 0 where a longer code starts.
	fast [1 << tableBits]uint16
	bits uint // index bits of fast: min(longest code, tableBits)
	// count is the number of codes of each length, and symbols the
	// symbols ordered by code (the canonical order), for the codes
	// longer than bits.
	count   [maxCodeBits + 1]uint16
	symbols [288]uint16
}

// build makes the table of the code whose lengths (0: unused symbol) are
// lens; false when they are no prefix code (over-subscribed, or
// incomplete beyond the single one-bit code RFC 1951 allows).
func (h *huffTable) build(lens []uint8) bool {
	h.count = [maxCodeBits + 1]uint16{}
	longest := 0
	for _, l := range lens {
		h.count[l]++
		longest = max(longest, int(l))
	}
	h.count[0] = 0
	left := 1
	var offs [maxCodeBits + 2]uint16
	for l := 1; l <= maxCodeBits; l++ {
		left = left<<1 - int(h.count[l])
		if left < 0 {
			return false
		}
		offs[l+1] = offs[l] + h.count[l]
	}
	if left > 0 && !(longest == 1 && h.count[1] == 1) && longest != 0 {
		return false
	}
	h.bits = uint(min(max(longest, 1), tableBits))
	size := 1 << h.bits
	if left != 0 || longest > tableBits {
		// Entries no code fills: those of the missing codes, and those
		// where a longer code starts.
		clear(h.fast[:size])
	}
	var next [maxCodeBits + 1]uint32 // the next code of each length, MSB first
	code := uint32(0)
	for l := 1; l <= maxCodeBits; l++ {
		code = (code + uint32(h.count[l-1])) << 1
		next[l] = code
	}
	next[1] = 0
	for sym, l := range lens {
		if l == 0 {
			continue
		}
		h.symbols[offs[l]] = uint16(sym)
		offs[l]++
		c := next[l]
		next[l]++
		if uint(l) > h.bits {
			continue
		}
		// The code is read LSB first: its bits reversed, then every
		// index whose low l bits they are.
		rev := uint32(bits.Reverse16(uint16(c))) >> (16 - l)
		e := uint16(sym)<<4 | uint16(l)
		for i := rev; i < uint32(size); i += 1 << l {
			h.fast[i] = e
		}
	}
	return true
}

// fixedTables are the literal/length and distance tables of RFC 1951's
// fixed code, built once.
var fixedTables = sync.OnceValues(func() (*huffTable, *huffTable) {
	var lens [288]uint8
	for i := range lens {
		switch {
		case i < 144:
			lens[i] = 8
		case i < 256:
			lens[i] = 9
		case i < 280:
			lens[i] = 7
		default:
			lens[i] = 8
		}
	}
	lit, dist := &huffTable{}, &huffTable{}
	lit.build(lens[:])
	var dl [32]uint8 // 30 and 31 are no distance: codes refuses them
	for i := range dl {
		dl[i] = 5
	}
	dist.build(dl[:])
	return lit, dist
})

// Base values and extra bits of the length codes (257..285) and the
// distance codes (0..29).
var (
	lengthBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	distBase    = [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra   = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
	// clenOrder is the order of the code length code's lengths.
	clenOrder = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}
)

// inflater inflates zlib streams, reusing its tables from one to the
// next. It is not safe for concurrent use.
type inflater struct {
	in        []byte
	pos       int    // next byte of in to load into bits
	bits      uint64 // loaded bits, the next one lowest
	nbits     uint
	lit, dist huffTable
	clen      huffTable
	lens      [maxLitCodes + maxDistCodes]uint8
}

// inflate appends the data of the zlib stream src to dst and returns it;
// ok is false when src is not a complete stream inflater reads (damaged,
// with a preset dictionary, its checksum wrong) or its data are longer
// than limit bytes. Bytes after the stream's checksum are ignored, as
// zlib readers do.
func (f *inflater) inflate(dst, src []byte, limit int) (out []byte, ok bool) {
	if len(src) < 2 {
		return dst, false
	}
	cmf, flg := src[0], src[1]
	if cmf&0x0f != 8 || cmf>>4 > 7 || (uint16(cmf)<<8|uint16(flg))%31 != 0 || flg&0x20 != 0 {
		return dst, false
	}
	f.in, f.pos, f.bits, f.nbits = src, 2, 0, 0
	start := len(dst)
	out = dst
	for {
		if !f.need(3) {
			return dst, false
		}
		final := f.bits&1 == 1
		kind := (f.bits >> 1) & 3
		f.drop(3)
		switch kind {
		case 0:
			out, ok = f.stored(out, start+limit)
		case 1:
			lit, dist := fixedTables()
			out, ok = f.codes(out, start, start+limit, lit, dist)
		case 2:
			if !f.dynamic() {
				return dst, false
			}
			out, ok = f.codes(out, start, start+limit, &f.lit, &f.dist)
		default:
			return dst, false
		}
		if !ok {
			return dst, false
		}
		if final {
			break
		}
	}
	// The checksum, big-endian, from the next byte boundary.
	f.unload()
	if f.pos+4 > len(f.in) || binary.BigEndian.Uint32(f.in[f.pos:]) != adler32.Checksum(out[start:]) {
		return dst, false
	}
	return out, true
}

// need loads bits until n are there; false if the input ends first.
func (f *inflater) need(n uint) bool {
	for f.nbits < n {
		if f.pos >= len(f.in) {
			return false
		}
		f.bits |= uint64(f.in[f.pos]) << f.nbits
		f.pos++
		f.nbits += 8
	}
	return true
}

// fill loads as many whole bytes as fit.
func (f *inflater) fill() {
	for f.nbits <= 56 && f.pos < len(f.in) {
		f.bits |= uint64(f.in[f.pos]) << f.nbits
		f.pos++
		f.nbits += 8
	}
}

// drop consumes n loaded bits.
func (f *inflater) drop(n uint) {
	f.bits >>= n
	f.nbits -= n
}

// take consumes and returns n bits (n at most 16); ok is false if the
// input ends first.
func (f *inflater) take(n uint) (uint32, bool) {
	if !f.need(n) {
		return 0, false
	}
	v := uint32(f.bits & (1<<n - 1))
	f.drop(n)
	return v, true
}

// unload moves to the next byte boundary and gives back the whole bytes
// loaded but not consumed.
func (f *inflater) unload() {
	f.drop(f.nbits % 8)
	f.pos -= int(f.nbits / 8)
	f.bits, f.nbits = 0, 0
}

// sym decodes one symbol of h; ok is false if the input ends within it
// or its bits are no code of h.
func (f *inflater) sym(h *huffTable) (int, bool) {
	if f.nbits < maxCodeBits {
		f.fill()
	}
	if e := h.fast[f.bits&(1<<h.bits-1)]; e != 0 {
		n := uint(e & 15)
		if n > f.nbits {
			return 0, false
		}
		f.drop(n)
		return int(e >> 4), true
	}
	return f.slowSym(h)
}

// slowSym decodes a symbol of h whose code is longer than its table's
// bits (or is none): canonical decoding, a bit at a time.
func (f *inflater) slowSym(h *huffTable) (int, bool) {
	code, first, index := 0, 0, 0
	for l := 1; l <= maxCodeBits; l++ {
		if uint(l) > f.nbits {
			return 0, false
		}
		code |= int(f.bits>>(l-1)) & 1
		count := int(h.count[l])
		if c := code - first; c >= 0 && c < count {
			f.drop(uint(l))
			return int(h.symbols[index+code-first]), true
		}
		index += count
		first = (first + count) << 1
		code <<= 1
	}
	return 0, false
}

// stored copies a stored block to out.
func (f *inflater) stored(out []byte, end int) ([]byte, bool) {
	f.unload()
	if f.pos+4 > len(f.in) {
		return out, false
	}
	n := int(binary.LittleEndian.Uint16(f.in[f.pos:]))
	if uint16(n) != ^binary.LittleEndian.Uint16(f.in[f.pos+2:]) {
		return out, false
	}
	f.pos += 4
	if f.pos+n > len(f.in) || len(out)+n > end {
		return out, false
	}
	out = append(out, f.in[f.pos:f.pos+n]...)
	f.pos += n
	return out, true
}

// dynamic reads a dynamic block's code definitions into f.lit and f.dist.
func (f *inflater) dynamic() bool {
	v, ok := f.take(14)
	if !ok {
		return false
	}
	nlit, ndist, nclen := int(v&31)+257, int(v>>5&31)+1, int(v>>10)+4
	if nlit > maxLitCodes || ndist > maxDistCodes {
		return false
	}
	var cl [19]uint8
	for i := range nclen {
		l, ok := f.take(3)
		if !ok {
			return false
		}
		cl[clenOrder[i]] = uint8(l)
	}
	if !f.clen.build(cl[:]) {
		return false
	}
	lens := f.lens[:nlit+ndist]
	for i := 0; i < len(lens); {
		s, ok := f.sym(&f.clen)
		if !ok {
			return false
		}
		if s < 16 {
			lens[i] = uint8(s)
			i++
			continue
		}
		var rep uint32
		var val uint8
		switch s {
		case 16:
			if i == 0 {
				return false
			}
			val = lens[i-1]
			rep, ok = f.take(2)
			rep += 3
		case 17:
			rep, ok = f.take(3)
			rep += 3
		default:
			rep, ok = f.take(7)
			rep += 11
		}
		if !ok || i+int(rep) > len(lens) {
			return false
		}
		for range rep {
			lens[i] = val
			i++
		}
	}
	if lens[256] == 0 { // no end of block
		return false
	}
	return f.lit.build(lens[:nlit]) && f.dist.build(lens[nlit:])
}

// codes decodes a Huffman block's symbols into out, whose data began at
// start, up to end. Its loop keeps the bit buffer in locals (the fields'
// loads and stores, once a symbol, took most of its time), refills it 8
// bytes at a time where the input allows, and is written out by hand
// (closures would keep the locals in memory).
func (f *inflater) codes(out []byte, start, end int, lit, dist *huffTable) ([]byte, bool) {
	in, pos, bits, nbits := f.in, f.pos, f.bits, f.nbits
	litMask, distMask := uint64(1)<<lit.bits-1, uint64(1)<<dist.bits-1
	ok := false
	for {
		if nbits < 48 { // a literal/length code, its extra bits, a distance code and its extra bits
			if pos+8 <= len(in) {
				bits |= binary.LittleEndian.Uint64(in[pos:]) << nbits
				k := (63 - nbits) >> 3
				pos += int(k)
				nbits += k << 3
				// Keep no bit past nbits: the slow refill ORs bytes in.
				bits &= 1<<nbits - 1
			} else {
				for nbits <= 56 && pos < len(in) {
					bits |= uint64(in[pos]) << nbits
					pos++
					nbits += 8
				}
			}
		}
		var s int
		if e := lit.fast[bits&litMask]; e != 0 {
			n := uint(e & 15)
			if n > nbits {
				break
			}
			bits >>= n
			nbits -= n
			s = int(e >> 4)
		} else {
			f.pos, f.bits, f.nbits = pos, bits, nbits
			var found bool
			if s, found = f.slowSym(lit); !found {
				break
			}
			pos, bits, nbits = f.pos, f.bits, f.nbits
		}
		if s < 256 {
			if len(out) >= end {
				break
			}
			out = append(out, byte(s))
			continue
		}
		if s == 256 {
			ok = true
			break
		}
		s -= 257
		if s >= len(lengthBase) {
			break
		}
		eb := uint(lengthExtra[s])
		if eb > nbits {
			break
		}
		n := int(lengthBase[s]) + int(bits&(1<<eb-1))
		bits >>= eb
		nbits -= eb
		var d int
		if e := dist.fast[bits&distMask]; e != 0 {
			k := uint(e & 15)
			if k > nbits {
				break
			}
			bits >>= k
			nbits -= k
			d = int(e >> 4)
		} else {
			f.pos, f.bits, f.nbits = pos, bits, nbits
			var found bool
			if d, found = f.slowSym(dist); !found {
				break
			}
			pos, bits, nbits = f.pos, f.bits, f.nbits
		}
		if d >= len(distBase) {
			break
		}
		eb = uint(distExtra[d])
		if eb > nbits {
			break
		}
		back := int(distBase[d]) + int(bits&(1<<eb-1))
		bits >>= eb
		nbits -= eb
		if back > len(out)-start || len(out)+n > end {
			break
		}
		from := len(out) - back
		if back >= n {
			out = append(out, out[from:from+n]...)
			continue
		}
		for i := range n { // overlapping: byte by byte
			out = append(out, out[from+i])
		}
	}
	f.pos, f.bits, f.nbits = pos, bits, nbits
	return out, ok
}
