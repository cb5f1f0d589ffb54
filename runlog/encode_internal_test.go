package runlog

import (
	"bytes"
	stdzlib "compress/zlib"
	"encoding/base64"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// encoderCases are histograms for comparing histEncoder with the
// library's encoder: empty, single values at the geometry's ends, counts
// that take all nine bytes of the ZigZag form, long runs of zeros, and
// random latencies of several spreads, in stampede's geometry and others.
func encoderCases(t *testing.T) map[string]*hdrhistogram.Histogram {
	t.Helper()
	rng := rand.New(rand.NewPCG(29, 5732))
	cases := map[string]*hdrhistogram.Histogram{}
	geoms := []struct{ low, high, digits int64 }{{1000, 100_000_000_000, 3}, {1, 3_600_000_000_000, 3}, {1, 60_000_000_000, 2}, {1000, 10_000_000, 4}, {1, 1000, 1}}
	for _, g := range geoms {
		name := fmt.Sprintf("%d-%d-%d", g.low, g.high, g.digits)
		nw := func() *hdrhistogram.Histogram { return hdrhistogram.New(g.low, g.high, int(g.digits)) }
		cases[name+" empty"] = nw()
		h := nw()
		_ = h.RecordValue(g.low)
		cases[name+" lowest"] = h
		h = nw()
		_ = h.RecordValue(g.high)
		cases[name+" highest"] = h
		h = nw()
		_ = h.RecordValues(g.low, 1<<62)
		_ = h.RecordValues(g.high, 3)
		cases[name+" nine-byte counts"] = h
		h = nw()
		_ = h.RecordValue(0)
		cases[name+" zero"] = h
		for _, spread := range []int64{10, 1000, 1_000_000, 1_000_000_000} {
			for _, n := range []int{1, 2, 100, 10_000} {
				h := nw()
				for i := 0; i < n; i++ {
					v := g.low + rng.Int64N(spread)
					if v > g.high {
						v = g.high
					}
					_ = h.RecordValues(v, 1+rng.Int64N(3))
				}
				cases[fmt.Sprintf("%s random spread %d x %d", name, spread, n)] = h
			}
		}
	}
	return cases
}

// TestEncoderSameAsLibrary: histEncoder writes exactly the library's V2
// compressed encoding and maximum, one encoder reused over all the
// histograms (its buffers and zlib writer reset between them).
func TestEncoderSameAsLibrary(t *testing.T) {
	var e histEncoder
	for name, h := range encoderCases(t) {
		want, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			t.Fatal(err)
		}
		got, maxNs, err := e.encode(h)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: encoding differs from the library's:\ngot  %.80s...\nwant %.80s...", name, got, want)
		}
		if maxNs != h.Max() {
			t.Errorf("%s: max %d, want %d", name, maxNs, h.Max())
		}
		back, err := hdrhistogram.Decode(got)
		if err != nil {
			t.Fatalf("%s: the library cannot decode it: %v", name, err)
		}
		if !back.Equals(h) {
			t.Errorf("%s: decoded histogram differs", name)
		}
	}
}

// TestIntervalLinesAsLibrary: writeHist writes the interval line the
// library's HistogramLogWriter writes, for every case and several
// intervals.
func TestIntervalLinesAsLibrary(t *testing.T) {
	w := &Writer{baseMs: 1_795_661_652_123}
	for name, h := range encoderCases(t) {
		for _, iv := range [][2]int64{{0, 1000}, {1000, 2001}, {123_456, 125_000}, {7, 8}} {
			startMs, endMs := w.baseMs+iv[0], w.baseMs+iv[1]
			c := *h
			c.SetTag("select-only:2")
			c.SetStartTimeMs(startMs)
			c.SetEndTimeMs(endMs)
			var want bytes.Buffer
			lw := hdrhistogram.NewHistogramLogWriter(&want)
			lw.SetBaseTime(w.baseMs)
			if err := lw.OutputIntervalHistogram(&c); err != nil {
				t.Fatal(err)
			}
			w.hlogBuf.Reset()
			if err := w.writeHist("select-only:2", h, startMs, endMs); err != nil {
				t.Fatal(err)
			}
			if got := w.hlogBuf.String(); got != want.String() {
				t.Errorf("%s, interval %v:\ngot  %.120q\nwant %.120q", name, iv, got, want.String())
			}
		}
	}
}

// TestHistEncoderSameAsLibrary: the exported HistEncoder, one kept for
// every case in turn (its zlib writer reset between them), writes the
// library's bytes.
func TestHistEncoderSameAsLibrary(t *testing.T) {
	var e HistEncoder
	for round := range 2 {
		for name, h := range encoderCases(t) {
			want, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.Encode(h)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("round %d, %s: %v; encoding differs from the library's:\ngot  %.80s...\nwant %.80s...", round, name, err, got, want)
			}
		}
	}
}

// TestStoredEncodingAsLibrary: the stored encoding Writer writes (see
// intervalEncoding) is the library's V2 compressed encoding but for its
// deflate blocks: the same header, and inflated, the same bytes as the
// library's; the library decodes it to the same histogram, and so does
// histDecoder. One encoder is kept for every case in turn.
func TestStoredEncodingAsLibrary(t *testing.T) {
	if intervalEncoding != storedEncoding {
		t.Fatal("Writer does not write the stored encoding")
	}
	w, err := Create(t.TempDir(), RunInfo{ID: "20261130-040000-bench-0000", Start: time.Now(), Series: []string{"read"}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if !w.enc.stored {
		t.Fatal("Create's Writer does not write the stored encoding")
	}
	e := histEncoder{stored: true}
	var d histDecoder
	var got Hist
	for name, h := range encoderCases(t) {
		want, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			t.Fatal(err)
		}
		enc, maxNs, err := e.encode(h)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if maxNs != h.Max() {
			t.Errorf("%s: max %d, want %d", name, maxNs, h.Max())
		}
		if g, w := inflated(t, enc), inflated(t, want); !bytes.Equal(g, w) {
			t.Errorf("%s: inflated, the encoding differs from the library's", name)
		}
		back, err := hdrhistogram.Decode(enc)
		if err != nil {
			t.Fatalf("%s: the library cannot decode it: %v", name, err)
		}
		if !back.Equals(h) {
			t.Errorf("%s: the library decodes another histogram", name)
		}
		if err := d.decode(enc, &got); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		merged := hdrhistogram.New(h.LowestTrackableValue(), h.HighestTrackableValue(), int(h.SignificantFigures()))
		got.MergeInto(merged)
		if !merged.Equals(h) && h.TotalCount() > 0 {
			t.Errorf("%s: histDecoder decodes another histogram", name)
		}
	}
}

// inflated returns the uncompressed V2 encoding inside enc, a V2
// compressed encoding in base64: its 8-byte header, then the zlib
// stream's content.
func inflated(t *testing.T, enc []byte) []byte {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(string(enc))
	if err != nil || len(raw) < 8 {
		t.Fatalf("not base64: %v", err)
	}
	z, err := stdzlib.NewReader(bytes.NewReader(raw[8:]))
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	// The cookie and the compressed length differ; the rest must not.
	return append(raw[:4:4], body...)
}

// TestPackedEncodedAsDense: a sparse histogram is encoded to the bytes
// of the dense histogram of the same counts, with the same maximum, in
// both encodings (the interval log's stored blocks and totals.json's best
// compression), for every case, an empty one included, and for a
// geometry whose bucket table the decoder does not keep (encoded through
// a dense copy).
func TestPackedEncodedAsDense(t *testing.T) {
	cases := encoderCases(t)
	cases["other geometry"] = hdrhistogram.New(1, 1e9, 4)
	for v := int64(1); v < 1e9; v = v*3 + 1 {
		_ = cases["other geometry"].RecordValues(v, v%5+1)
	}
	for _, stored := range []bool{false, true} {
		dense, sparse := histEncoder{stored: stored}, histEncoder{stored: stored}
		for name, h := range cases {
			p := hdrhistogram.NewPacked(h.LowestTrackableValue(), h.HighestTrackableValue(), int(h.SignificantFigures()))
			p.MergeFrom(h)
			want, wantMax, err := dense.encode(h)
			if err != nil {
				t.Fatal(err)
			}
			want = bytes.Clone(want)
			got, gotMax, err := sparse.encode(p)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !bytes.Equal(got, want) || gotMax != wantMax {
				t.Errorf("stored %v, %s: sparse encoding (max %d) differs from the dense one's (max %d):\ngot  %.80s...\nwant %.80s...", stored, name, gotMax, wantMax, got, want)
			}
		}
	}
}
