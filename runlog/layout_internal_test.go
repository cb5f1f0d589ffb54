package runlog

import (
	"math"
	"slices"
	"testing"
)

// TestLayoutTableSameAsDistribution checks that the bucket table built from
// hdrhistogram's layout (layoutTable) is the one built from the library's
// Distribution (distributionTable), bucket by bucket, for every geometry
// the fast decoder reads, and that stampede's own geometries get it.
func TestLayoutTableSameAsDistribution(t *testing.T) {
	var geoms []geomKey
	for _, digits := range []int32{1, 2, 3} {
		for _, low := range []int64{1, 2, 3, 7, 100, 1000, 1023, 1024, 1025, 12345} {
			for _, high := range []int64{2 * low, 1000 * low, 100_000_000_000, 3_600_000_000_000, math.MaxInt64 / 4} {
				geoms = append(geoms, geomKey{low: low, high: high, digits: digits})
			}
		}
	}
	built := 0
	for _, k := range geoms {
		want := distributionTable(k)
		got := layoutTable(k)
		if got == nil {
			t.Logf("%+v: fell back (Distribution table: %v)", k, want != nil)
			continue
		}
		built++
		if want == nil {
			t.Errorf("%+v: layoutTable built a table, Distribution none", k)
			continue
		}
		if !slices.Equal(got.from, want.from) || !slices.Equal(got.to, want.to) || got.direct != want.direct {
			i := 0
			for i < min(len(got.from), len(want.from)) && got.from[i] == want.from[i] && got.to[i] == want.to[i] {
				i++
			}
			t.Errorf("%+v: tables differ (lengths %d and %d, direct %v and %v) from bucket %d", k, len(got.from), len(want.from), got.direct, want.direct, i)
		}
	}
	if built < len(geoms)*3/4 {
		t.Errorf("layoutTable built %d of %d tables: most geometries fell back to Distribution", built, len(geoms))
	}
	for _, k := range []geomKey{decodeGeoms[0], decodeGeoms[1], decodeGeoms[2]} {
		if layoutTable(k) == nil {
			t.Errorf("%+v: no layout table for a geometry stampede writes", k)
		}
	}
}

// BenchmarkBucketTable builds the bucket table of stampede's geometry both
// ways (a run builds it once, to read its own intervals at its end).
func BenchmarkBucketTable(b *testing.B) {
	k := decodeGeoms[0]
	for _, bc := range []struct {
		name  string
		build func(geomKey) *bucketTable
	}{{"layout", layoutTable}, {"distribution", distributionTable}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if bc.build(k) == nil {
					b.Fatal("no table")
				}
			}
		})
	}
}
