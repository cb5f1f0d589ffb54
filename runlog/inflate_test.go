package runlog

import (
	"bytes"
	stdzlib "compress/zlib"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	kzlib "github.com/klauspost/compress/zlib"
)

// inflateCorpus returns data of the shapes the inflater meets and those
// that reach every part of DEFLATE: empty, one byte, text (matches of
// every length up to 258, overlapping copies), random bytes (literals,
// stored blocks), long runs, far matches (distances up to 32 KiB), and
// the payloads of random histograms (what a run log holds).
func inflateCorpus(r *rand.Rand) [][]byte {
	data := [][]byte{{}, {'a'}, []byte("hello, hello, hello"), bytes.Repeat([]byte{0}, 1000)}
	text := strings.Repeat("the quick brown fox jumps over the lazy dog; ", 50)
	data = append(data, []byte(text))
	rnd := make([]byte, 70_000)
	for i := range rnd {
		rnd[i] = byte(r.Uint32())
	}
	data = append(data, rnd[:300], rnd)
	far := slices.Concat(rnd[:20_000], bytes.Repeat([]byte("xy"), 7000), rnd[:20_000])
	data = append(data, far)
	skew := make([]byte, 5000)
	for i := range skew { // many symbols of long codes
		skew[i] = byte(min(255, r.ExpFloat64()*20))
	}
	data = append(data, skew)
	for i := range 40 {
		enc, err := randomHist(r, decodeGeoms[i%len(decodeGeoms)]).Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			panic(err)
		}
		data = append(data, enc)
	}
	return data
}

// zlibStreams compresses data with the standard library's and klauspost's
// zlib writers at several levels: stored, fixed and dynamic blocks.
func zlibStreams(t *testing.T, data []byte) [][]byte {
	t.Helper()
	var out [][]byte
	for _, level := range []int{stdzlib.NoCompression, stdzlib.BestSpeed, stdzlib.DefaultCompression, stdzlib.BestCompression, stdzlib.HuffmanOnly} {
		var b bytes.Buffer
		w, err := stdzlib.NewWriterLevel(&b, level)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write(data)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		out = append(out, b.Bytes())
	}
	for _, level := range []int{kzlib.NoCompression, kzlib.BestSpeed, 5, kzlib.BestCompression, kzlib.HuffmanOnly} {
		var b bytes.Buffer
		w, err := kzlib.NewWriterLevel(&b, level)
		if err != nil {
			t.Fatal(err)
		}
		// Written in pieces, flushed between: several blocks.
		for p := data; len(p) > 0; {
			n := min(len(p), 1+len(data)/3)
			_, _ = w.Write(p[:n])
			_ = w.Flush()
			p = p[n:]
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		out = append(out, b.Bytes())
	}
	return out
}

// checkInflate fails unless the inflater reads src as klauspost's zlib
// reader does: when the inflater reads it, the reader reads the same
// bytes without an error, and when the reader does (within the limit),
// the inflater does too.
func checkInflate(t *testing.T, f *inflater, src []byte) (ok bool) {
	t.Helper()
	const limit = 1 << 20
	prefix := []byte("kept")
	got, ok := f.inflate(slices.Clone(prefix), src, limit)
	if !bytes.HasPrefix(got, prefix) {
		t.Fatalf("inflate lost what dst held: %q", got[:min(len(got), 8)])
	}
	var want []byte
	zr, err := kzlib.NewReader(bytes.NewReader(src))
	if err == nil {
		want, err = io.ReadAll(io.LimitReader(zr, limit+1))
	}
	theirs := err == nil && len(want) <= limit
	if ok != theirs {
		t.Fatalf("inflater read it: %v; klauspost's reader: %v (%v, %d bytes)", ok, theirs, err, len(want))
	}
	if ok && !bytes.Equal(got[len(prefix):], want) {
		t.Fatalf("inflated %d bytes, klauspost's reader %d: they differ", len(got)-len(prefix), len(want))
	}
	if !ok && len(got) != len(prefix) {
		t.Fatalf("a failed inflate returned %d bytes more than dst", len(got)-len(prefix))
	}
	return ok
}

// TestInflateSameAsZlib checks the inflater against klauspost's zlib
// reader on streams of every block kind from two writers, each intact
// (read back to the data written), cut, with a byte changed, and with
// bytes after the checksum; one inflater reused throughout, as a decoder
// reuses it.
func TestInflateSameAsZlib(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 13))
	var f inflater
	kinds := map[byte]int{}
	for di, data := range inflateCorpus(r) {
		for si, src := range zlibStreams(t, data) {
			name := fmt.Sprintf("data %d, stream %d", di, si)
			out, ok := f.inflate(nil, src, 1<<20)
			if !ok || !bytes.Equal(out, data) {
				t.Fatalf("%s: ok %v, %d bytes of %d, equal %v", name, ok, len(out), len(data), bytes.Equal(out, data))
			}
			kinds[src[2]>>1&3]++
			checkInflate(t, &f, append(slices.Clone(src), 1, 2, 3))
			for range 8 {
				checkInflate(t, &f, src[:r.IntN(len(src))])
				bad := slices.Clone(src)
				bad[r.IntN(len(bad))] ^= byte(1 + r.IntN(255))
				checkInflate(t, &f, bad)
			}
		}
	}
	for kind, name := range []string{"stored", "fixed", "dynamic"} {
		if kinds[byte(kind)] == 0 {
			t.Errorf("no stream began with a %s block", name)
		}
	}
	t.Logf("first blocks: %d stored, %d fixed, %d dynamic", kinds[0], kinds[1], kinds[2])
}

// TestInflateLimit checks that the inflater refuses a stream whose data
// are longer than its limit, and reads one exactly as long.
func TestInflateLimit(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 100)
	for _, src := range zlibStreams(t, data) {
		var f inflater
		if out, ok := f.inflate(nil, src, len(data)); !ok || !bytes.Equal(out, data) {
			t.Fatalf("a stream as long as the limit: ok %v, %d bytes", ok, len(out))
		}
		if _, ok := f.inflate(nil, src, len(data)-1); ok {
			t.Fatal("a stream a byte longer than the limit was read")
		}
	}
}

// FuzzInflate checks the inflater against klauspost's zlib reader on any
// input.
func FuzzInflate(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 5))
	for _, data := range inflateCorpus(r)[:12] {
		var b bytes.Buffer
		w := stdzlib.NewWriter(&b)
		_, _ = w.Write(data)
		_ = w.Close()
		f.Add(b.Bytes())
	}
	var inf inflater
	f.Fuzz(func(t *testing.T, src []byte) {
		checkInflate(t, &inf, src)
	})
}
