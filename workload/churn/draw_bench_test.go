package churn

import (
	"testing"

	"github.com/stampede-bench/stampede/randgen"
)

// benchShapes are 16 shapes of the flags' defaults (--columns 2-30).
func benchShapes() []*shape {
	r := randgen.New(1, shapeStream)
	sz := sizes{cols: [2]int{2, 30}, rows: [2]int{1, 500}, indexes: [2]int{0, 3}, appendOpt: "auto", distrib: "auto"}
	var ss []*shape
	for range 16 {
		ss = append(ss, newShape(r, "churn_0_0", sz))
	}
	return ss
}

// BenchmarkDrawRow is the fake rows' generation of a row of the default
// shapes (filler.drawRow), per row. Measured by user CPU for 5,000,000
// rows (/usr/bin/time, the wall clock being no measure on a machine at
// load 13-20): 1.37-1.80 s with a pool slot of 8 bytes read for each
// value and a counter of values made anew for each kind, 1.08-1.26 s
// with 2-byte entries, one counter a row and the pooled columns apart.
func BenchmarkDrawRow(b *testing.B) {
	p := newPool(randgen.New(1, poolStream))
	fl := newFiller(randgen.New(1, dataStream), p)
	ss := benchShapes()
	b.ResetTimer()
	for i := range b.N {
		fl.drawRow(ss[(i>>8)&15])
		if i&255 == 255 {
			fl.takeBytes()
		}
	}
}

// BenchmarkAppendRow is a row's generation and its copying into the
// statement's text (filler.appendRow), per row.
func BenchmarkAppendRow(b *testing.B) {
	p := newPool(randgen.New(1, poolStream))
	fl := newFiller(randgen.New(1, dataStream), p)
	ss := benchShapes()
	var buf []byte
	b.ResetTimer()
	for i := range b.N {
		if i&255 == 0 {
			buf = buf[:0]
			fl.takeBytes()
		}
		buf = fl.appendRow(buf, ss[(i>>8)&15])
	}
}

// BenchmarkNewPool is the making of a run's pool (newPool), per pool.
func BenchmarkNewPool(b *testing.B) {
	for range b.N {
		newPool(randgen.New(1, poolStream))
	}
}
