package runlog

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"sort"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Why an encoder of our own: hdrhistogram-go's EncodeV2 (which its
// HistogramLogWriter calls) makes a new zlib writer at its best
// compression for every histogram, about 1 MB of garbage, writes every
// count through binary.Write, and walks the histogram's buckets for its
// maximum three times. A run writes each operation's histogram every
// interval: for pgbench's select-only at 8 clients on one pinned CPU (two
// series), the interval's encoding and the collections its garbage caused
// were about a tenth of the client's CPU at 1,000 transactions a second.
// histEncoder writes the same bytes (TestEncoderSameAsLibrary compares
// them with the library's on random and edge histograms) with one zlib
// writer kept and reset (zlib.Writer.Reset), and one walk over the counts.

// How the interval lines of intervals.hlog deflate their histograms. Both
// are hdrhistogram's V2 compressed encoding, a zlib stream of the same
// uncompressed bytes, which every reader of the format reads alike
// (hdrhistogram-go's Decode, HdrHistogram's Java HistogramLogReader, and
// histDecoder, which reads logs of every stampede version): only the
// deflate blocks differ, so there is no version to tell them apart.
//
//   - bestEncoding (runs written before 2026-11-30): the library's best
//     compression, dynamic Huffman blocks. Inflating them was over half of
//     report's CPU when it merges every interval (report --tag --from 0s
//     of 100 one-hour clients, 360,000 histograms: about 18 us of 30 per
//     histogram, building each block's Huffman tables and decoding it
//     symbol by symbol), and deflating them at the best level a large
//     part of a run's cost of writing its interval.
//   - storedEncoding (since): stored blocks (zlib.NoCompression), which
//     inflate as a copy and an Adler-32 checksum. The lines are about 1.8x
//     as long (a 10 s interval of 500 latencies: 1,270 base64 characters
//     instead of 700; the bytes a run's intervals.hlog takes, and a
//     results store holds, grow alike).
//
// totals.json, written once a run, keeps the best compression
// (HistEncoder).
const (
	bestEncoding = iota
	storedEncoding
)

// intervalEncoding is the encoding Writer writes (a variable for the
// tests that write runs as earlier versions did).
var intervalEncoding = storedEncoding

// The V2 encoding's cookies (the library's encodingCookie and
// compressedEncodingCookie).
const (
	v2EncodingCookie   = hdrhistogram.V2EncodingCookieBase | 0x10
	v2CompressedCookie = hdrhistogram.V2CompressedEncodingCookieBase | 0x10
)

// histEncoder encodes histograms in hdrhistogram's V2 compressed
// encoding, as Histogram.Encode(V2CompressedEncodingCookieBase) does,
// reusing its buffers and zlib writer. It is not safe for concurrent use.
type histEncoder struct {
	// stored, when set, writes the compressed encoding's zlib stream
	// in stored blocks (zlib.NoCompression) instead of the library's
	// best compression: see intervalEncoding.
	stored bool
	raw    []byte       // the uncompressed encoding: header and counts
	comp   bytes.Buffer // raw, compressed
	zw     *zlib.Writer
	bin    []byte // the compressed encoding's header and comp
	out    []byte // bin in base64
	// max is a sparse copy of the histogram encoded last, whose Max is
	// the dense Max to the bit without its walk of every bucket with
	// its value range (~0.2 ms for a TPC-C operation's interval, a tenth
	// of --profile hammerdb's per-second CPU); one plain pass over the
	// counts fills it.
	max *hdrhistogram.PackedHistogram
	// scratch holds a sparse histogram's counts while they are encoded.
	scratch *hdrhistogram.Histogram
}

// maxOf returns h.Max().
func (e *histEncoder) maxOf(h *hdrhistogram.Histogram) int64 {
	if p := e.max; p == nil || p.LowestTrackableValue() != h.LowestTrackableValue() ||
		p.HighestTrackableValue() != h.HighestTrackableValue() || p.SignificantFigures() != h.SignificantFigures() {
		e.max = hdrhistogram.NewPacked(h.LowestTrackableValue(), h.HighestTrackableValue(), int(h.SignificantFigures()))
	}
	e.max.Reset()
	e.max.MergeFrom(h)
	return e.max.Max()
}

// histogram is a dense or a sparse histogram (Histogram or
// PackedHistogram) to encode.
type histogram interface {
	TotalCount() int64
	Max() int64
	LowestTrackableValue() int64
	HighestTrackableValue() int64
	SignificantFigures() int64
}

// encode returns h's encoding in base64 (valid until the next call) and
// h's maximum (Histogram.Max). A sparse h is encoded as the dense
// histogram of its counts (a scratch one, emptied after), so the bytes are
// the same.
func (e *histEncoder) encode(hh histogram) ([]byte, int64, error) {
	if p, ok := hh.(*hdrhistogram.PackedHistogram); ok {
		if d := e.scratch; d == nil || d.LowestTrackableValue() != p.LowestTrackableValue() ||
			d.HighestTrackableValue() != p.HighestTrackableValue() || d.SignificantFigures() != p.SignificantFigures() {
			e.scratch = hdrhistogram.New(p.LowestTrackableValue(), p.HighestTrackableValue(), int(p.SignificantFigures()))
		}
		var b []byte
		var err error
		if t := tableFor(geomKey{p.LowestTrackableValue(), p.HighestTrackableValue(), int32(p.SignificantFigures())}); t != nil && t.direct {
			b, err = e.encodeSparse(p, t)
		} else {
			p.MergeInto(e.scratch)
			b, err = e.encodeOnly(e.scratch)
			e.scratch.Reset()
		}
		if err != nil {
			return nil, 0, err
		}
		return b, p.Max(), nil
	}
	h := hh.(*hdrhistogram.Histogram)
	b, err := e.encodeOnly(h)
	if err != nil {
		return nil, 0, err
	}
	return b, e.maxOf(h), nil
}

// encodeOnly returns h's encoding in base64, valid until the next call,
// without encode's walk of the counts for h's maximum.
func (e *histEncoder) encodeOnly(h *hdrhistogram.Histogram) ([]byte, error) {
	snap := h.Export()
	counts := snap.Counts
	header := e.header(snap.IntegerToDoubleConversionRatio, snap.SignificantFigures, snap.LowestTrackableValue, snap.HighestTrackableValue)
	// The counts are written up to the bucket of h's maximum, as the
	// library's encoder writes them: its last populated bucket (the
	// first, for an empty histogram).
	limit := len(counts)
	for limit > 1 && counts[limit-1] == 0 {
		limit--
	}
	limit = min(limit, len(counts))
	for i := 0; i < limit; {
		c := counts[i]
		i++
		if c == 0 {
			zeros := int64(1)
			for i < limit && counts[i] == 0 {
				zeros++
				i++
			}
			if zeros > 1 {
				c = -zeros // a run of zeros is written as its negated length
			}
		}
		e.raw = appendZigZag(e.raw, c)
	}
	return e.finish(header)
}

// header starts e.raw with the uncompressed encoding's header and returns
// its length.
func (e *histEncoder) header(ratio float64, digits, lowest, highest int64) int {
	if ratio == 0 {
		ratio = 1
	}
	e.raw = e.raw[:0]
	e.raw = binary.BigEndian.AppendUint32(e.raw, uint32(v2EncodingCookie))
	e.raw = binary.BigEndian.AppendUint32(e.raw, 0) // the counts' length, set by finish
	e.raw = binary.BigEndian.AppendUint32(e.raw, 0) // normalizing index offset: counts are not rotated
	e.raw = binary.BigEndian.AppendUint32(e.raw, uint32(int32(digits)))
	e.raw = binary.BigEndian.AppendUint64(e.raw, uint64(lowest))
	e.raw = binary.BigEndian.AppendUint64(e.raw, uint64(highest))
	e.raw = binary.BigEndian.AppendUint64(e.raw, math.Float64bits(ratio))
	return len(e.raw)
}

// encodeSparse is encodeOnly of the dense histogram of p's counts, to the
// byte, written from p's populated buckets: each bucket's counts index is
// that of its lowest value in t (a direct table of p's geometry), and the
// empty buckets between are the runs of zeros the dense encoder writes.
// No dense copy is made (Histogram.Export copies its 155 kB of counts:
// for a script of 5,000 statements, 775 MB a second of garbage).
func (e *histEncoder) encodeSparse(p *hdrhistogram.PackedHistogram, t *bucketTable) ([]byte, error) {
	header := e.header(1, p.SignificantFigures(), p.LowestTrackableValue(), p.HighestTrackableValue())
	next := 0 // the counts index after the last written
	for v, c := range p.ForEachBucket {
		if c == 0 {
			continue
		}
		i := next + sort.Search(len(t.from)-next, func(j int) bool { return t.from[next+j] >= v })
		if i >= len(t.from) || t.from[i] != v {
			return nil, fmt.Errorf("value %d is no bucket's lowest of geometry %v", v, t.key)
		}
		if zeros := int64(i - next); zeros == 1 {
			e.raw = appendZigZag(e.raw, 0)
		} else if zeros > 1 {
			e.raw = appendZigZag(e.raw, -zeros)
		}
		e.raw = appendZigZag(e.raw, c)
		next = i + 1
	}
	if next == 0 { // empty: the dense encoder writes its first count
		e.raw = appendZigZag(e.raw, 0)
	}
	return e.finish(header)
}

// finish sets the counts' length in e.raw's header (of length header),
// compresses e.raw and returns the encoding in base64, valid until the
// next call.
func (e *histEncoder) finish(header int) ([]byte, error) {
	binary.BigEndian.PutUint32(e.raw[4:], uint32(len(e.raw)-header))

	e.comp.Reset()
	if e.zw == nil {
		level := zlib.BestCompression
		if e.stored {
			level = zlib.NoCompression
		}
		zw, err := zlib.NewWriterLevel(&e.comp, level)
		if err != nil {
			return nil, err
		}
		e.zw = zw
	} else {
		e.zw.Reset(&e.comp)
	}
	if _, err := e.zw.Write(e.raw); err != nil {
		return nil, err
	}
	if err := e.zw.Close(); err != nil {
		return nil, err
	}
	e.bin = e.bin[:0]
	e.bin = binary.BigEndian.AppendUint32(e.bin, uint32(v2CompressedCookie))
	e.bin = binary.BigEndian.AppendUint32(e.bin, uint32(e.comp.Len()))
	e.bin = append(e.bin, e.comp.Bytes()...)
	e.out = base64.StdEncoding.AppendEncode(e.out[:0], e.bin)
	return e.out, nil
}

// appendZigZag appends v in the V2 encoding's ZigZag LEB128-64b9B form:
// seven bits a byte, low bits first, the ninth byte (if any) holding the
// last eight.
func appendZigZag(b []byte, v int64) []byte {
	u := uint64((v << 1) ^ (v >> 63))
	for i := 0; i < 8; i++ {
		if u>>7 == 0 {
			return append(b, byte(u))
		}
		b = append(b, byte(u&0x7f|0x80))
		u >>= 7
	}
	return append(b, byte(u))
}

// HistEncoder encodes histograms as hdrhistogram's
// Histogram.Encode(V2CompressedEncodingCookieBase) does, to the same
// bytes, reusing one zlib writer and its buffers across histograms: the
// library makes a new zlib writer (about a megabyte of state, cleared) for
// each. It is not safe for concurrent use.
type HistEncoder struct{ e histEncoder }

// Encode returns h's V2 compressed encoding in base64; the bytes are
// valid until the next call.
func (e *HistEncoder) Encode(h *hdrhistogram.Histogram) ([]byte, error) {
	return e.e.encodeOnly(h)
}

// EncodePacked returns the encoding Encode gives the dense histogram of
// p's counts, to the byte, without making that histogram; the bytes are
// valid until the next call.
func (e *HistEncoder) EncodePacked(p *hdrhistogram.PackedHistogram) ([]byte, error) {
	b, _, err := e.e.encode(p)
	return b, err
}
