package stats

import (
	"github.com/HdrHistogram/hdrhistogram-go"
)

// denseAt is the number of populated buckets above which a Hist filled
// by merges (a registry's views, a report's) turns dense. A sparse
// histogram of denseAt buckets takes at most about SparseBytes, a sixth
// of a dense one's HistogramBytes.
const denseAt = 1024

// hotValues is the number of values recorded value by value (RecordValue,
// as a shard records them) since the last Reset above which a Hist turns
// dense: a sparse record costs a search of the populated buckets, and
// often an insertion (80-110 ns, where the dense histogram's is 15 ns:
// BenchmarkHandleRecord), so a series recorded more than 128 times an
// interval in a shard records at the dense histogram's cost, as every
// series did before Hist.
const hotValues = 128

// SparseBytes bounds the memory of a Hist while it is sparse: denseAt
// buckets of a 4-byte index and a count of up to 8 bytes, twice over for
// the slices' growth, and the geometry the sparse histogram keeps.
const SparseBytes = int64(denseAt*(4+8)*2 + 1024)

// Hist is a histogram of stampede's geometry that keeps its counts
// sparse (hdrhistogram's PackedHistogram: its populated buckets only)
// until they fill, then dense (a Histogram of HistogramBytes): a series
// recorded a few times an interval, such as each statement of a long
// script, takes a few kB instead of 155 kB. Every figure is the same as
// the dense histogram of the same values gives, to the bit: the sparse
// histogram has the same buckets, and its figures walk them with the same
// formulas (TestHistExact). The zero value is not ready for use: see
// NewHist and HistOf. A Hist is not safe for concurrent use.
type Hist struct {
	dense  *hdrhistogram.Histogram       // the counts once dense
	sparse *hdrhistogram.PackedHistogram // the counts until then
}

// NewHist returns an empty sparse Hist.
func NewHist() *Hist {
	return &Hist{sparse: hdrhistogram.NewPacked(Lowest, Highest, SigFigs)}
}

// HistOf returns a Hist that reads (and records into) the dense
// histogram h, which must have stampede's geometry.
func HistOf(h *hdrhistogram.Histogram) *Hist { return &Hist{dense: h} }

// IsDense reports whether h holds its counts in a dense histogram.
func (h *Hist) IsDense() bool { return h.dense != nil }

// densify moves h's counts into a dense histogram.
func (h *Hist) densify() {
	d := NewHistogram()
	h.sparse.MergeInto(d)
	h.dense, h.sparse = d, nil
}

// RecordValue records v (in [0, Highest]); h turns dense when it holds
// more than hotValues values since its last Reset.
func (h *Hist) RecordValue(v int64) {
	if h.dense != nil {
		_ = h.dense.RecordValue(v)
		return
	}
	_ = h.sparse.RecordValue(v)
	if h.sparse.TotalCount() > hotValues {
		h.densify()
	}
}

// hot returns h dense when hot is, or h (a new Hist for a nil one):
// the spare histogram of a series whose shard histogram turned dense
// starts the next interval dense.
func (h *Hist) hot(hot *Hist) *Hist {
	if hot == nil || hot.dense == nil {
		return h
	}
	if h == nil {
		return HistOf(NewHistogram())
	}
	if h.dense == nil && h.sparse.TotalCount() == 0 {
		h.dense, h.sparse = NewHistogram(), nil
	}
	return h
}

// Reset empties h; a dense Hist stays dense.
func (h *Hist) Reset() {
	if h.dense != nil {
		h.dense.Reset()
		return
	}
	h.sparse.Reset()
}

// TotalCount is the number of values recorded.
func (h *Hist) TotalCount() int64 {
	if h.dense != nil {
		return h.dense.TotalCount()
	}
	return h.sparse.TotalCount()
}

// Max is Histogram.Max of h's values.
func (h *Hist) Max() int64 {
	if h.dense != nil {
		return h.dense.Max()
	}
	return h.sparse.Max()
}

// Min is Histogram.Min of h's values.
func (h *Hist) Min() int64 {
	if h.dense != nil {
		return h.dense.Min()
	}
	return h.sparse.Min()
}

// Mean is Histogram.Mean of h's values.
func (h *Hist) Mean() float64 {
	if h.dense != nil {
		return h.dense.Mean()
	}
	return h.sparse.Mean()
}

// StdDev is Histogram.StdDev of h's values.
func (h *Hist) StdDev() float64 {
	if h.dense != nil {
		return h.dense.StdDev()
	}
	return h.sparse.StdDev()
}

// ValueAtQuantile is Histogram.ValueAtQuantile of h's values (q in
// percent).
func (h *Hist) ValueAtQuantile(q float64) int64 {
	if h.dense != nil {
		return h.dense.ValueAtQuantile(q)
	}
	if h.sparse.TotalCount() == 0 {
		return 0
	}
	return h.sparse.ValueAtPercentile(q)
}

// ValueAtPercentile is ValueAtQuantile.
func (h *Hist) ValueAtPercentile(q float64) int64 { return h.ValueAtQuantile(q) }

// Dense returns h's values in a dense histogram: h's own when h is
// dense (not to be modified), else a new copy. Prefer the figures' own
// methods, and Merge, which need no copy.
func (h *Hist) Dense() *hdrhistogram.Histogram {
	if h.dense != nil {
		return h.dense
	}
	d := NewHistogram()
	h.sparse.MergeInto(d)
	return d
}

// Sparse returns h's sparse histogram (not to be modified, valid until h
// is next changed), or nil when h is dense.
func (h *Hist) Sparse() *hdrhistogram.PackedHistogram { return h.sparse }

// Packed returns a sparse copy of h's values (a new one).
func (h *Hist) Packed() *hdrhistogram.PackedHistogram {
	if h.dense != nil {
		p := hdrhistogram.NewPacked(Lowest, Highest, SigFigs)
		p.MergeFrom(h.dense)
		return p
	}
	return h.sparse.Clone()
}

// Equals reports whether h holds the same counts as the dense histogram
// o (as Histogram.Equals compares them).
func (h *Hist) Equals(o *hdrhistogram.Histogram) bool {
	if h.dense != nil {
		return h.dense.Equals(o)
	}
	return h.Dense().Equals(o)
}

// MergeInto adds h's values to the dense histogram dst (of any
// geometry, as Histogram.Merge does).
func (h *Hist) MergeInto(dst *hdrhistogram.Histogram) {
	if h.dense != nil {
		Merge(dst, h.dense)
		return
	}
	h.sparse.MergeInto(dst)
}

// RecordValues records n values v (a bucket's count, as a histogram
// being read back gives them); a sparse h turns dense when it has more
// than denseAt populated buckets.
func (h *Hist) RecordValues(v, n int64) error {
	if h.dense != nil {
		return h.dense.RecordValues(v, n)
	}
	err := h.sparse.RecordValues(v, n)
	if h.sparse.Populated() > denseAt {
		h.densify()
	}
	return err
}

// Merge adds o's values to h (as Histogram.Merge does); a sparse h turns
// dense when it has more than denseAt populated buckets.
func (h *Hist) Merge(o *Hist) {
	switch {
	case o.TotalCount() == 0:
	case o.dense == nil:
		h.add(o.sparse)
	case h.dense != nil:
		Merge(h.dense, o.dense)
	default:
		p := packedOf(o.dense)
		h.add(p)
		packedPool.Put(p)
	}
}

// MergePacked adds p's values to h, as Merge does.
func (h *Hist) MergePacked(p *hdrhistogram.PackedHistogram) { h.add(p) }

// add adds the sparse values p to h; a sparse h turns dense when it has
// more than denseAt populated buckets.
func (h *Hist) add(p *hdrhistogram.PackedHistogram) {
	if h.dense != nil {
		p.MergeInto(h.dense)
		return
	}
	h.sparse.Merge(p)
	if h.sparse.Populated() > denseAt {
		h.densify()
	}
}

// Histograms is the histograms stampede's figures read: a dense
// Histogram or a Hist.
type Histograms interface {
	*hdrhistogram.Histogram | *Hist
}

// denseOf returns h as a dense histogram (a Hist's Dense).
func denseOf[H Histograms](h H) *hdrhistogram.Histogram {
	switch x := any(h).(type) {
	case *hdrhistogram.Histogram:
		return x
	case *Hist:
		return x.Dense()
	}
	panic("stats: unreachable")
}
