package runlog

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"sync"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	zlib "github.com/klauspost/compress/zlib"
)

// Why a decoder of our own: hdrhistogram-go's DecodePacked builds a new
// zlib reader for every histogram (a 32 KiB window allocated and cleared),
// inflates the payload into a new buffer and inserts every bucket into a
// new PackedHistogram. Reading a one-hour run of ten operation types
// (36,000 histograms) spent about 55 us per histogram there, over a third
// of it in zlib.NewReader alone (BenchmarkDecode in decode_test.go measures
// both). histDecoder reuses its buffers and inflates with one klauspost/compress
// zlib reader (reset, not rebuilt). It checks each payload and keeps it as it is: an
// Adder adds its counts straight from it into a dense array (no list of
// buckets in between), and the other readers list the populated buckets'
// indexes and counts once, which the bucket table of its geometry (built
// from the counts layout and checked with the library's own arithmetic:
// layoutTable) turns into values: merging one into an accumulator is
// RecordValues at each bucket's lowest value, which is exactly what
// PackedHistogram.MergeInto does. It reads what stampede
// writes (significant digits up to 3); anything else, and anything it
// cannot read, goes to DecodePacked, whose error is the one reported.

// maxFastDigits is the largest precision histDecoder reads itself: up to
// 3 significant digits a geometry has at most 65 x 1,024 buckets, so its
// bucket table stays under about 1 MiB.
const maxFastDigits = 3

// maxTables bounds the bucket tables kept (one per geometry met): a
// damaged log cannot make them grow without bound.
const maxTables = 16

// geomKey identifies a histogram geometry as the V2 header gives it.
type geomKey struct {
	low, high int64
	digits    int32
}

// bucketTable holds, for each counts index of a geometry, the lowest and
// highest value its bucket holds (the library's Distribution bars).
type bucketTable struct {
	key      geomKey
	from, to []int64
	// direct is set when counts index i of a histogram the library makes
	// of this geometry (hdrhistogram.New) is the bucket of from[i], for
	// every i (checked when the table is built): an Adder then adds a
	// bucket's count at its index instead of recording its value.
	direct bool
}

var tables struct {
	mu sync.Mutex
	m  map[geomKey]*bucketTable
}

// tableFor returns the bucket table of geometry k, built once; nil when k
// is not one histDecoder reads (too precise, invalid, or one geometry too
// many).
func tableFor(k geomKey) (table *bucketTable) {
	defer func() {
		if recover() != nil { // a geometry the library refuses (see decodePacked)
			table = nil
		}
	}()
	if k.digits < 1 || k.digits > maxFastDigits || k.low < 1 || k.high < 2*k.low {
		return nil
	}
	tables.mu.Lock()
	defer tables.mu.Unlock()
	if t, ok := tables.m[k]; ok {
		return t
	}
	if len(tables.m) >= maxTables {
		return nil
	}
	t := layoutTable(k)
	if t == nil {
		t = distributionTable(k)
	}
	if t == nil {
		return nil
	}
	if tables.m == nil {
		tables.m = map[geomKey]*bucketTable{}
	}
	tables.m[k] = t
	return t
}

// distributionTable builds the bucket table of geometry k from the
// library's Distribution: the geometry's counts length, from an empty
// histogram of it, then every bucket's bounds from one holding a count in
// each. It may panic on a geometry the library refuses.
func distributionTable(k geomKey) *bucketTable {
	n := len(hdrhistogram.Import(&hdrhistogram.Snapshot{LowestTrackableValue: k.low, HighestTrackableValue: k.high,
		SignificantFigures: int64(k.digits)}).Export().Counts)
	ones := make([]int64, n)
	for i := range ones {
		ones[i] = 1
	}
	bars := hdrhistogram.Import(&hdrhistogram.Snapshot{LowestTrackableValue: k.low, HighestTrackableValue: k.high,
		SignificantFigures: int64(k.digits), Counts: ones}).Distribution()
	if len(bars) != n {
		return nil
	}
	t := &bucketTable{key: k, from: make([]int64, n), to: make([]int64, n)}
	for i, b := range bars {
		t.from[i], t.to[i] = b.From, b.To
	}
	t.direct = directIndexes(k, t.from)
	return t
}

// Hist is one histogram of a run log as a streaming read decodes it (see
// Run.Scan): the populated buckets of its geometry, or, for a histogram
// of another precision than stampede writes, the library's decoding. Its
// figures equal those of the PackedHistogram hdrhistogram-go decodes from
// the same line. A Hist belongs to the read that made it and is only
// valid until its callback returns; it is not safe for concurrent use.
type Hist struct {
	table *bucketTable
	// pl is the V2 payload (ZigZag LEB128 counts, negative for runs of
	// empty buckets), checked by the decoder; buf holds it.
	pl, buf []byte
	// first and last are the lowest and highest populated counts
	// indexes (last -1 for none), total their counts' sum.
	first, last int32
	total       int64
	// idx and cnt list the populated counts indexes, ascending, and
	// their counts once listed is set (see buckets).
	idx    []int32
	cnt    []int64
	listed bool
	packed *hdrhistogram.PackedHistogram // instead of the above, when table is nil
}

// TotalCount returns the number of values the histogram holds.
func (h *Hist) TotalCount() int64 {
	if h.packed != nil {
		return h.packed.TotalCount()
	}
	return h.total
}

// MergeInto adds the histogram's values to dst exactly, as
// PackedHistogram.MergeInto does, and returns how many could not be
// recorded (out of dst's range, or past its total's limit).
func (h *Hist) MergeInto(dst *hdrhistogram.Histogram) (dropped int64) {
	if h.packed != nil {
		return h.packed.MergeInto(dst)
	}
	h.buckets()
	for i, ix := range h.idx {
		c := h.cnt[i]
		if dst.RecordValues(h.table.from[ix], c) != nil {
			if dropped > math.MaxInt64-c {
				dropped = math.MaxInt64
			} else {
				dropped += c
			}
		}
	}
	return dropped
}

// ValueAtPercentiles returns the value at each of pcts, as
// PackedHistogram.ValueAtPercentilesSlice does: 0 for every one of an
// empty histogram.
func (h *Hist) ValueAtPercentiles(pcts []float64) []int64 {
	if h.packed != nil {
		return h.packed.ValueAtPercentilesSlice(pcts)
	}
	out := make([]int64, len(pcts))
	if h.total == 0 {
		return out
	}
	h.buckets()
	for k, p := range pcts {
		if p > 100 {
			p = 100
		}
		rank := percentileRank(p, h.total)
		var sum int64
		for i, c := range h.cnt {
			sum += c
			if sum >= rank || i == len(h.cnt)-1 {
				if p <= 0 {
					out[k] = h.table.from[h.idx[i]]
				} else {
					out[k] = h.table.to[h.idx[i]]
				}
				break
			}
		}
	}
	return out
}

// percentileRank is the rank hdrhistogram-go looks for at percentile p of
// total values (p at most 100): the nearest, at least the first and at
// most the last.
func percentileRank(p float64, total int64) int64 {
	rank := p/100*float64(total) + 0.5
	if !(rank >= 1) {
		return 1
	}
	if rank >= float64(total) {
		return total
	}
	return int64(rank)
}

// Max returns the highest value equivalent to the largest one the
// histogram holds, as PackedHistogram.Max does; for an empty histogram,
// that of 0.
func (h *Hist) Max() int64 {
	if h.packed != nil {
		return h.packed.Max()
	}
	if h.last < 0 {
		return h.table.to[0]
	}
	return h.table.to[h.last]
}

// ForEachBucket calls fn with the lowest value and the count of each
// populated bucket, in increasing order, as PackedHistogram.ForEachBucket
// does, until fn returns false.
func (h *Hist) ForEachBucket(fn func(value, count int64) bool) {
	if h.packed != nil {
		h.packed.ForEachBucket(fn)
		return
	}
	h.buckets()
	for i, ix := range h.idx {
		if !fn(h.table.from[ix], h.cnt[i]) {
			return
		}
	}
}

// Geometry returns the histogram's lowest discernible value, highest
// trackable value and significant digits.
func (h *Hist) Geometry() (lowest, highest int64, digits int) {
	if h.packed != nil {
		return h.packed.LowestTrackableValue(), h.packed.HighestTrackableValue(), int(h.packed.SignificantFigures())
	}
	return h.table.key.low, h.table.key.high, int(h.table.key.digits)
}

// Packed returns the histogram as a new PackedHistogram (for a caller that
// keeps it beyond the read).
func (h *Hist) Packed() *hdrhistogram.PackedHistogram {
	if h.packed != nil {
		return h.packed.Clone()
	}
	k := h.table.key
	p := hdrhistogram.NewPacked(k.low, k.high, int(k.digits))
	h.buckets()
	for i, ix := range h.idx {
		_ = p.RecordValues(h.table.from[ix], h.cnt[i])
	}
	return p
}

// histDecoder decodes histograms in HdrHistogram's V2 compressed encoding
// (base64), reusing its buffers and zlib reader from one to the next. It
// is not safe for concurrent use.
type histDecoder struct {
	raw     []byte
	br      bytes.Reader
	z       io.ReadCloser
	hdr     [40]byte
	payload []byte
}

// errSlowPath means the fast decoder does not read a histogram; the
// library's decoder does (or says why not).
var errSlowPath = errors.New("not read by the fast decoder")

// decode reads the histogram encoded in b into h, reusing h's buffers.
func (d *histDecoder) decode(b []byte, h *Hist) error {
	h.packed = nil
	if err := d.fast(b, h); err == nil {
		return nil
	}
	p, err := decodePacked(b)
	if err != nil {
		return err
	}
	h.table, h.pl, h.idx, h.cnt, h.total, h.first, h.last, h.listed, h.packed = nil, nil, h.idx[:0], h.cnt[:0], 0, 0, -1, true, p
	return nil
}

// fast decodes b into h's bucket list, or fails with errSlowPath (or
// another error) when the library must decide.
func (d *histDecoder) fast(b []byte, h *Hist) error {
	n := base64.StdEncoding.DecodedLen(len(b))
	d.raw = slices.Grow(d.raw[:0], n)[:n]
	n, err := base64.StdEncoding.Decode(d.raw, b)
	if err != nil || n < 8 {
		return errSlowPath
	}
	raw := d.raw[:n]
	cookie := int32(binary.BigEndian.Uint32(raw[0:4])) & ^0xf0
	clen := int32(binary.BigEndian.Uint32(raw[4:8]))
	if cookie != hdrhistogram.V2CompressedEncodingCookieBase || clen < 0 || int(clen) > len(raw)-8 {
		return errSlowPath
	}
	zsrc := raw[8 : 8+clen]
	d.br.Reset(zsrc)
	if d.z == nil {
		if d.z, err = zlib.NewReader(&d.br); err != nil {
			d.z = nil
			return errSlowPath
		}
	} else if err := d.z.(zlib.Resetter).Reset(&d.br, nil); err != nil {
		return errSlowPath
	}
	if _, err := io.ReadFull(d.z, d.hdr[:]); err != nil {
		return errSlowPath
	}
	hd := d.hdr[:]
	if int32(binary.BigEndian.Uint32(hd[0:4]))&^0xf0 != hdrhistogram.V2EncodingCookieBase {
		return errSlowPath
	}
	payloadLen := int32(binary.BigEndian.Uint32(hd[4:8]))
	key := geomKey{digits: int32(binary.BigEndian.Uint32(hd[12:16])),
		low: int64(binary.BigEndian.Uint64(hd[16:24])), high: int64(binary.BigEndian.Uint64(hd[24:32]))}
	t := tableFor(key)
	if t == nil || payloadLen < 0 || int64(payloadLen) > int64(len(t.from))*9 {
		return errSlowPath
	}
	// One byte more than the payload: it must be the end (which also
	// checks the zlib checksum).
	// io.ReadFull cannot tell the stream's clean end from zlib's own
	// io.ErrUnexpectedEOF (a stream cut in its checksum), so the payload
	// is read whole first and the end is read apart.
	d.payload = slices.Grow(d.payload[:0], int(payloadLen)+1)[:int(payloadLen)+1]
	if _, err := io.ReadFull(d.z, d.payload[:payloadLen]); err != nil {
		return errSlowPath
	}
	if !atEOF(d.z, d.payload[payloadLen:]) {
		return errSlowPath
	}
	pl := d.payload[:payloadLen]
	// The payload is checked and summed here; its buckets are listed
	// only for a caller that needs them (see Hist.buckets): an Adder
	// adds them from the payload.
	first, last, total, end, ok := scanPayload(pl, int64(len(t.from)))
	if !ok {
		return errSlowPath
	}
	h.table, h.listed, h.total, h.first, h.last = t, false, total, int32(first), int32(last)
	// The histogram takes the buffer the payload is in; the decoder, the
	// histogram's previous one.
	h.buf, d.payload = d.payload, h.buf
	// Only up to the last populated bucket: what follows adds nothing.
	h.pl = pl[:end]
	return nil
}

// atEOF reports whether r is at its clean end: no more bytes and io.EOF,
// not another error. one is a one-byte scratch buffer.
func atEOF(r io.Reader, one []byte) bool {
	for range 16 { // a reader may return (0, nil) a few times
		n, err := r.Read(one)
		if n > 0 {
			return false
		}
		if err != nil {
			return err == io.EOF
		}
	}
	return false
}

// scanPayload checks the V2 payload pl of a geometry of countsLen
// buckets (every count within the geometry, every run of empty buckets
// of positive length) and returns the lowest and highest populated
// counts indexes (last -1 for none), the counts' sum (at most
// math.MaxInt64) and the length of pl up to the last populated bucket's
// count. ok is false for a payload that breaks the rules.
//
// Most counts and runs of empty buckets take one byte, whose sign says
// which it is at random (latencies fill the buckets they reach sparsely):
// the loop reads a one-byte one without branching on its sign, which a
// processor would guess wrong about half the time.
func scanPayload(pl []byte, countsLen int64) (first, last, total int64, end int, ok bool) {
	// small sums the one-byte counts (at most 63 each: no overflow),
	// total the others. One-byte entries move dst by at most 64 each,
	// so dst stays far from overflowing between the checks of the
	// longer ones, and once past the geometry it stays past: the end's
	// check catches every one-byte entry out of it.
	var dst, small int64
	first, last = -1, -1
	for pos := 0; pos < len(pl); {
		b := pl[pos]
		if b >= 0x80 {
			count, k := zigZag(pl[pos:])
			if k == 0 || dst > countsLen {
				return 0, 0, 0, 0, false
			}
			pos += k
			if count < 0 {
				zeros := -count
				if zeros <= 0 || zeros > countsLen-dst {
					return 0, 0, 0, 0, false
				}
				dst += zeros
				continue
			}
			if dst >= countsLen {
				return 0, 0, 0, 0, false
			}
			if count > 0 {
				if first < 0 {
					first = dst
				}
				last, end = dst, pos
				if count > math.MaxInt64-total {
					total = math.MaxInt64
				} else {
					total += count
				}
			}
			dst++
			continue
		}
		// One byte: v, or a run of v+1 empty buckets when its low bit
		// (ZigZag's sign) is set.
		pos++
		v := int64(b >> 1)
		run := -int64(b & 1) // all ones for a run
		count := v &^ run    // 0 for a run
		small += count
		if count > 0 {
			last, end = dst, pos
		}
		if first < 0 && count > 0 {
			first = dst
		}
		dst += 1 + (v & run) // the buckets it covers
	}
	// A count at dst must be within the geometry (dst < countsLen), a
	// run end within it (dst <= countsLen after it): the last entry
	// decides, the one that took dst furthest.
	if dst > countsLen {
		return 0, 0, 0, 0, false
	}
	if small > math.MaxInt64-total {
		total = math.MaxInt64
	} else {
		total += small
	}
	if last < 0 {
		first = 0
	}
	return first, last, total, end, true
}

// buckets lists the populated buckets of a histogram the fast decoder
// read (idx and cnt) from its payload, once.
func (h *Hist) buckets() {
	if h.listed || h.packed != nil {
		return
	}
	h.idx, h.cnt = h.idx[:0], h.cnt[:0]
	dst := int32(0)
	for pos := 0; pos < len(h.pl); {
		count, k := zigZag(h.pl[pos:]) // checked by decode
		pos += k
		if count < 0 {
			dst += int32(-count)
			continue
		}
		if count > 0 {
			h.idx = append(h.idx, dst)
			h.cnt = append(h.cnt, count)
		}
		dst++
	}
	h.listed = true
}

// zigZag reads one count of a V2 payload as hdrhistogram-go writes and
// reads it: a ZigZag LEB128 number of at most 9 bytes, whose ninth byte
// holds 8 bits. n is 0 when b ends within it.
func zigZag(b []byte) (v int64, n int) {
	if len(b) > 0 && b[0] < 0x80 { // most counts and runs of zeros fit one byte
		u := uint64(b[0])
		return int64(u>>1) ^ -int64(u&1), 1
	}
	var u uint64
	for i := range 8 {
		if i >= len(b) {
			return 0, 0
		}
		u |= uint64(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			return int64(u>>1) ^ -int64(u&1), i + 1
		}
	}
	if len(b) < 9 {
		return 0, 0
	}
	u |= uint64(b[8]) << 56
	return int64(u>>1) ^ -int64(u&1), 9
}

// decodePacked is hdrhistogram.DecodePacked, whose panics on a damaged
// header (a geometry it refuses, such as a lowest value too large for its
// significant digits) become errors: a damaged log is reported where it
// stops, never a crash.
func decodePacked(b []byte) (h *hdrhistogram.PackedHistogram, err error) {
	defer func() {
		if r := recover(); r != nil {
			h, err = nil, fmt.Errorf("%v", r)
		}
	}()
	return hdrhistogram.DecodePacked(b)
}

// directIndexes says whether recording from[i] into a histogram New
// makes of geometry k counts at index i, for every i.
func directIndexes(k geomKey, from []int64) bool {
	h := hdrhistogram.New(k.low, k.high, int(k.digits))
	if h.LowestTrackableValue() != k.low || h.HighestTrackableValue() != k.high || h.SignificantFigures() != int64(k.digits) {
		return false
	}
	for i, v := range from {
		if h.RecordValues(v, int64(i)+1) != nil {
			return false
		}
	}
	counts := h.Export().Counts
	if len(counts) != len(from) {
		return false
	}
	for i, c := range counts {
		if c != int64(i)+1 {
			return false
		}
	}
	return true
}

// An Adder merges many histograms of a run log into one
// hdrhistogram.Histogram, as Hist.MergeInto of each would, to the bit,
// but faster: where the histogram and the destination have the same
// geometry, each bucket's count is added at its index in a dense array of
// counts (no value to place, no bounds to check), and the array is
// recorded into the destination, one RecordValues per filled bucket, at
// Flush. Merging a one-hour run of ten operation types (36,000
// histograms) spent a sixth of its CPU in RecordValues before. Until
// Flush, the destination lacks what was added since the last Flush, and
// must not be written by anything else.
type Adder struct {
	dst    *hdrhistogram.Histogram
	table  *bucketTable // the geometry counts is indexed by, nil until the first Add
	counts []int64      // by counts index, up to the highest added to; zero outside [lo, hi)
	lo, hi int          // the indexes added to since the last Flush: [lo, hi)
	total  int64        // dst's total count with counts added
}

// NewAdder returns an Adder into dst.
func NewAdder(dst *hdrhistogram.Histogram) *Adder {
	return &Adder{dst: dst}
}

// Add adds h's values, as h.MergeInto(dst) would, and returns how many
// could not be recorded (out of dst's range, or past its total's limit).
func (a *Adder) Add(h *Hist) (dropped int64) {
	if h.packed != nil || !h.table.direct {
		a.Flush()
		return h.MergeInto(a.dst)
	}
	if a.table != h.table {
		k := h.table.key
		if a.dst.LowestTrackableValue() != k.low || a.dst.HighestTrackableValue() != k.high ||
			a.dst.SignificantFigures() != int64(k.digits) {
			a.Flush()
			return h.MergeInto(a.dst)
		}
		a.Flush()
		a.table = h.table
		a.total = a.dst.TotalCount()
	}
	if h.total == 0 {
		return 0
	}
	// The populated indexes widen the range added to at most to the
	// first and last. The counts reach as far as the highest index met
	// (latencies fill the low part of the geometry: a quarter of it up
	// to 10 ms, at a run's end as in a report).
	first, last := int(h.first), int(h.last)+1
	if a.lo == a.hi {
		a.lo, a.hi = first, last
	} else {
		a.lo, a.hi = min(a.lo, first), max(a.hi, last)
	}
	if last > len(a.counts) {
		a.counts = slices.Grow(a.counts, last-len(a.counts))[:last]
	}
	if h.total < math.MaxInt64 && h.total <= math.MaxInt64-a.total {
		// Nothing can be dropped: the counts are added straight from
		// the payload, which the decoder checked (every index within
		// the geometry).
		// The payload ends at the last populated bucket (see fast):
		// every index it adds at is below last. One-byte counts and runs
		// are added without a branch on which they are (see
		// scanPayload).
		counts := a.counts[:last]
		pl := h.pl
		dst := 0
		for pos := 0; pos < len(pl); {
			b := pl[pos]
			if b >= 0x80 {
				c, k := zigZag(pl[pos:])
				pos += k
				if c < 0 {
					dst += int(-c)
					continue
				}
				counts[dst] += c
				dst++
				continue
			}
			pos++
			v := int(b >> 1)
			run := -int(b & 1)
			counts[dst] += int64(v &^ run)
			dst += 1 + v&run
		}
		a.total += h.total
		return 0
	}
	h.buckets()
	for i, ix := range h.idx {
		c := h.cnt[i]
		// RecordValues refuses a count that would take the total past
		// its limit, and records the next ones that fit.
		if c > math.MaxInt64-a.total {
			if dropped > math.MaxInt64-c {
				dropped = math.MaxInt64
			} else {
				dropped += c
			}
			continue
		}
		a.counts[ix] += c
		a.total += c
	}
	return dropped
}

// Flush records what was added since the last Flush into the
// destination, which then holds every value added.
func (a *Adder) Flush() {
	if a.table == nil {
		return
	}
	for i := a.lo; i < a.hi; i++ {
		if c := a.counts[i]; c != 0 {
			// Cannot fail: the geometry is dst's, and Add kept the total
			// within its limit.
			_ = a.dst.RecordValues(a.table.from[i], c)
			a.counts[i] = 0
		}
	}
	a.lo, a.hi = 0, 0
	a.table = nil
}

// layoutTable builds the bucket table of geometry k from hdrhistogram's
// layout of the counts instead of its Distribution, and checks every
// bucket against the library; nil when k is not laid out so (then
// tableFor asks Distribution, as it did for every geometry). Distribution
// of a histogram holding a count in every bucket, about 19,500 at
// stampede's geometry, grows its slice of bars to about 1 MB bar by bar:
// a run's read of its own intervals at its end (results.SaveViews) built
// the table in about 3 ms of the 80 ms of CPU of a one-transaction
// `stampede pgbench`.
//
// The layout: with u = log2(low) (rounded down) and 2^m sub-buckets a
// half-bucket, index i < 2^(m+1) is sub-bucket i of bucket 0, and any
// other is sub-bucket i mod 2^m + 2^m of bucket i/2^m - 1; sub-bucket s of
// bucket b holds the values from s<<(b+u) to the next sub-bucket's
// lowest, 1<<(b+u) apart. The checks (the library's own arithmetic,
// ValuesAreEquivalent, and directIndexes' recording of each lowest value)
// prove it for k: each index's values are equivalent, the value below
// its lowest and the one above its highest are not, and recording its
// lowest lands at the index.
func layoutTable(k geomKey) *bucketTable {
	h := hdrhistogram.New(k.low, k.high, int(k.digits))
	if h.LowestTrackableValue() != k.low || h.HighestTrackableValue() != k.high || h.SignificantFigures() != int64(k.digits) {
		return nil
	}
	n := len(h.Export().Counts)
	u := bits.Len64(uint64(k.low)) - 1
	// Bucket 0's sub-buckets are 1<<u wide, bucket 1's twice that: the
	// first value j<<u equivalent to the next, (j+1)<<u, is bucket 1's
	// lowest, j = 2*half.
	// (Bucket 1 may lie past the geometry's last index: the arithmetic
	// holds beyond it.)
	j := 1
	for j <= 2*n && !h.ValuesAreEquivalent(int64(j)<<u, int64(j+1)<<u) {
		j++
	}
	half := j / 2
	if j > 2*n || j%2 != 0 || half&(half-1) != 0 || n%half != 0 {
		return nil
	}
	m := bits.Len(uint(half)) - 1
	t := &bucketTable{key: k, from: make([]int64, n), to: make([]int64, n)}
	for i := range n {
		b, s := 0, i
		if i >= 2*half {
			b, s = i>>m-1, i&(half-1)+half
		}
		shift := b + u
		if shift > 62 || int64(s) > math.MaxInt64>>shift {
			return nil
		}
		t.from[i] = int64(s) << shift
		t.to[i] = t.from[i] + int64(1)<<shift - 1
		if !h.ValuesAreEquivalent(t.from[i], t.to[i]) ||
			(t.from[i] > 0 && h.ValuesAreEquivalent(t.from[i]-1, t.from[i])) ||
			(i > 0 && t.to[i-1] != t.from[i]-1) {
			return nil
		}
	}
	if last := t.to[n-1]; last < math.MaxInt64 && h.ValuesAreEquivalent(last, last+1) {
		return nil
	}
	if !directIndexes(k, t.from) {
		return nil
	}
	t.direct = true
	return t
}
