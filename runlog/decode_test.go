package runlog

import (
	"math"
	"math/rand/v2"
	"slices"
	"syscall"
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// decodeGeoms are the geometries the decoder tests encode: stampede's
// (1 us to 100 s, 3 digits), older runs' and foreign ones, and one more
// precise than the fast decoder reads (the library's path).
var decodeGeoms = []geomKey{
	{1000, 100_000_000_000, 3}, {1, 3_600_000_000_000, 3}, {1, 60_000_000_000, 2},
	{1, 1000, 1}, {1000, 10_000_000, 4}, {100, 100_000, 0},
}

// randomHist returns a histogram of geometry g holding values of one of
// several shapes: empty, a single value, latencies (exponential, from
// microseconds to seconds), values spread over the whole range, heavy
// counts.
func randomHist(r *rand.Rand, g geomKey) *hdrhistogram.Histogram {
	h := hdrhistogram.Import(&hdrhistogram.Snapshot{LowestTrackableValue: g.low, HighestTrackableValue: g.high, SignificantFigures: int64(g.digits)})
	switch shape := r.IntN(5); shape {
	case 0:
	case 1:
		_ = h.RecordValue(r.Int64N(g.high))
	case 2:
		scale := math.Pow(10, float64(3+r.IntN(7)))
		for range r.IntN(3000) {
			_ = h.RecordValue(min(int64(r.ExpFloat64()*scale), g.high))
		}
	case 3:
		for range r.IntN(500) {
			_ = h.RecordValue(r.Int64N(g.high))
		}
	case 4:
		for range r.IntN(20) {
			_ = h.RecordValues(r.Int64N(g.high), r.Int64N(1<<40))
		}
	}
	return h
}

// checkSameAsLibrary fails unless decoding enc with histDecoder gives what
// hdrhistogram-go's DecodePacked gives: the same error or success, the
// same buckets, counts, percentiles and maximum, and the same merge into
// a dense histogram of its geometry and of another.
func checkSameAsLibrary(t *testing.T, d *histDecoder, h *Hist, enc []byte) {
	t.Helper()
	p, perr := hdrhistogram.DecodePacked(enc)
	err := d.decode(enc, h)
	if (perr == nil) != (err == nil) {
		t.Fatalf("library error %v, ours %v", perr, err)
	}
	if err != nil {
		if err.Error() != perr.Error() {
			t.Fatalf("error %q, the library's %q", err, perr)
		}
		return
	}
	if h.TotalCount() != p.TotalCount() {
		t.Fatalf("total %d, library %d", h.TotalCount(), p.TotalCount())
	}
	if h.packed == nil {
		var want [][2]int64
		p.ForEachBucket(func(v, c int64) bool { want = append(want, [2]int64{v, c}); return true })
		var got [][2]int64
		h.buckets()
		for i, ix := range h.idx {
			got = append(got, [2]int64{h.table.from[ix], h.cnt[i]})
		}
		if !slices.Equal(got, want) {
			t.Fatalf("buckets %v, library %v", got, want)
		}
	}
	pcts := []float64{50, 95, 99, 0, 1e-9, 12.5, 90, 99.9, 99.999, 100, 150, -3, math.NaN()}
	if got, want := h.ValueAtPercentiles(pcts), p.ValueAtPercentilesSlice(pcts); !slices.Equal(got, want) {
		t.Fatalf("percentiles %v: %v, library %v", pcts, got, want)
	}
	if h.Max() != p.Max() {
		t.Fatalf("max %d, library %d", h.Max(), p.Max())
	}
	for _, dst := range []geomKey{{p.LowestTrackableValue(), p.HighestTrackableValue(), int32(p.SignificantFigures())}, {1000, 100_000_000_000, 3}, {1, 1_000_000, 2}} {
		if dst.digits < 1 {
			continue
		}
		a, b := hdrhistogram.New(dst.low, dst.high, int(dst.digits)), hdrhistogram.New(dst.low, dst.high, int(dst.digits))
		_ = a.RecordValues(dst.low, 3) // merged into a histogram already holding values
		_ = b.RecordValues(dst.low, 3)
		got, want := h.MergeInto(a), p.MergeInto(b)
		if got != want || !a.Equals(b) {
			t.Fatalf("merge into %+v: dropped %d, library %d; equal %v", dst, got, want, a.Equals(b))
		}
	}
}

// TestDecodeSameAsLibrary checks the decoder against hdrhistogram-go's
// own on thousands of random histograms of several geometries, one
// decoder reused throughout (as a read reuses it), and on damaged ones.
func TestDecodeSameAsLibrary(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 31))
	var d histDecoder
	var h Hist
	for i := range 3000 {
		g := decodeGeoms[i%len(decodeGeoms)]
		enc, err := randomHist(r, g).Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			t.Fatal(err)
		}
		checkSameAsLibrary(t, &d, &h, enc)
		if i%10 == 0 { // damaged: cut, a byte changed
			checkSameAsLibrary(t, &d, &h, enc[:r.IntN(len(enc))])
			bad := slices.Clone(enc)
			bad[r.IntN(len(bad))] ^= byte(1 + r.IntN(255))
			checkSameAsLibrary(t, &d, &h, bad)
		}
	}
}

// FuzzDecode checks the decoder against hdrhistogram-go's on any input.
func FuzzDecode(f *testing.F) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 24 {
		enc, err := randomHist(r, decodeGeoms[i%len(decodeGeoms)]).Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(enc)
	}
	f.Add([]byte("HISTFAA"))
	var d histDecoder
	var h Hist
	f.Fuzz(func(t *testing.T, enc []byte) {
		checkSameAsLibrary(t, &d, &h, enc)
	})
}

// BenchmarkDecode measures decoding one interval's histogram of a busy
// operation (2,000 latencies) and merging it into an accumulator: with
// hdrhistogram-go's DecodePacked and MergeInto (library) and with
// histDecoder (ours).
func BenchmarkDecode(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	g := decodeGeoms[0]
	var encs, stored [][]byte
	se := histEncoder{stored: true}
	for range 64 {
		h := hdrhistogram.New(g.low, g.high, int(g.digits))
		for range 2000 {
			_ = h.RecordValue(int64(r.ExpFloat64() * 2e6))
		}
		enc, _ := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		encs = append(encs, enc)
		enc, _, _ = se.encode(h)
		stored = append(stored, slices.Clone(enc))
	}
	acc := hdrhistogram.New(g.low, g.high, int(g.digits))
	b.Run("library", func(b *testing.B) {
		defer cpuPerOp(b)()
		i := 0
		for b.Loop() {
			p, err := hdrhistogram.DecodePacked(encs[i%len(encs)])
			if err != nil {
				b.Fatal(err)
			}
			p.MergeInto(acc)
			i++
		}
	})
	for _, c := range []struct {
		name string
		encs [][]byte
	}{{"ours", encs}, {"ours stored", stored}} {
		b.Run(c.name, func(b *testing.B) {
			defer cpuPerOp(b)()
			var d histDecoder
			var h Hist
			i := 0
			for b.Loop() {
				if err := d.decode(c.encs[i%len(c.encs)], &h); err != nil {
					b.Fatal(err)
				}
				h.MergeInto(acc)
				i++
			}
		})
		b.Run(c.name+" adder", func(b *testing.B) {
			defer cpuPerOp(b)()
			var d histDecoder
			var h Hist
			a := NewAdder(acc)
			i := 0
			for b.Loop() {
				if err := d.decode(c.encs[i%len(c.encs)], &h); err != nil {
					b.Fatal(err)
				}
				a.Add(&h)
				i++
			}
			a.Flush()
		})
	}
}

// cpuPerOp reports the process's CPU time (user and system, all threads:
// the collector's work too) per operation as cpu-ns/op when the function
// it returns is called: on a shared machine, wall time per operation
// measures the other tenants as much as the code.
func cpuPerOp(b *testing.B) func() {
	cpu := func() int64 {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return ru.Utime.Nano() + ru.Stime.Nano()
	}
	start := cpu()
	return func() { b.ReportMetric(float64(cpu()-start)/float64(b.N), "cpu-ns/op") }
}

// TestAdderSameAsLibrary checks Adder against the library's decoding and
// merging (DecodePacked then PackedHistogram.MergeInto, one histogram at a
// time) into destinations of several geometries: streams of random
// histograms of mixed geometries (the destination's, others the fast
// decoder reads, and ones only the library reads), flushed at random
// points, with counts that take the destination's total to its limit
// (the library then drops a histogram's buckets that do not fit and
// records the next that do), to the same counts, total and dropped
// values.
func TestAdderSameAsLibrary(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 17))
	for _, g := range decodeGeoms[:3] {
		if tb := tableFor(g); tb == nil || !tb.direct {
			t.Fatalf("geometry %+v: no direct bucket table, the adder's fast path is not tested", g)
		}
	}
	var d histDecoder
	var h Hist
	droppedRounds := 0
	for round := range 300 {
		dst := decodeGeoms[round%3] // geometries the fast decoder reads
		want := hdrhistogram.New(dst.low, dst.high, int(dst.digits))
		got := hdrhistogram.New(dst.low, dst.high, int(dst.digits))
		if round%4 == 1 { // a destination already holding values
			_ = want.RecordValues(dst.low, 7)
			_ = got.RecordValues(dst.low, 7)
		}
		a := NewAdder(got)
		var wantDropped, gotDropped int64
		for k := range 1 + r.IntN(40) {
			g := dst
			if r.IntN(4) == 0 {
				g = decodeGeoms[r.IntN(len(decodeGeoms))]
			}
			src := randomHist(r, g)
			switch r.IntN(12) {
			case 0: // counts near the total's limit: some buckets dropped
				_ = src.RecordValues(g.low, math.MaxInt64/2-r.Int64N(1000))
				_ = src.RecordValues(g.high/2, r.Int64N(math.MaxInt64/2))
			case 1: // the largest and smallest values of the geometry
				_ = src.RecordValues(g.high, 1+r.Int64N(5))
				_ = src.RecordValues(0, 1+r.Int64N(5))
			}
			enc, err := src.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
			if err != nil {
				t.Fatal(err)
			}
			p, err := hdrhistogram.DecodePacked(enc)
			if err != nil {
				t.Fatal(err)
			}
			if err := d.decode(enc, &h); err != nil {
				t.Fatal(err)
			}
			wantDropped += p.MergeInto(want)
			gotDropped += a.Add(&h)
			if k%7 == 3 {
				a.Flush()
				if !got.Equals(want) {
					t.Fatalf("round %d, histogram %d: flushed adder differs from the library's merge", round, k)
				}
			}
		}
		a.Flush()
		if !got.Equals(want) || got.TotalCount() != want.TotalCount() || gotDropped != wantDropped {
			t.Fatalf("round %d: equal %v, total %d (library %d), dropped %d (library %d)",
				round, got.Equals(want), got.TotalCount(), want.TotalCount(), gotDropped, wantDropped)
		}
		if !slices.Equal(got.Export().Counts, want.Export().Counts) {
			t.Fatalf("round %d: counts differ from the library's merge", round)
		}
		if wantDropped > 0 {
			droppedRounds++
		}
	}
	if droppedRounds == 0 {
		t.Fatal("no round reached the total's limit: the dropped counts are not tested")
	}
	t.Logf("%d of 300 rounds dropped values at the total's limit", droppedRounds)
}
