package churn

import (
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/randgen"
)

// TestInsertBounded: the largest flags' insert (--rows 100000, --columns
// 200) is written as INSERTs of at most maxInsertBytes of text plus one
// row each, whose rows add up to the rows drawn, with the same values and
// bytes as one INSERT of them all; the worker's buffer stays within the
// bound (before, one INSERT of 20 million values ran a 4 GB client out of
// memory).
func TestInsertBounded(t *testing.T) {
	p := newPool(randgen.New(1, poolStream))
	// The largest row: 200 columns of the pool's longest literal.
	longest := 0
	for k := range numKinds {
		for _, v := range p.lit[k] { // with the first runRows again
			longest = max(longest, int(litLen(v)))
		}
	}
	for _, tc := range []struct {
		cols [2]int
		rows int
	}{
		{[2]int{200, 200}, maxRowsPerInsert},
		{[2]int{2, 30}, 500},
		{[2]int{1, 1}, 1},
	} {
		sz := sizes{cols: tc.cols, rows: [2]int{tc.rows, tc.rows}, appendOpt: "auto", distrib: "auto"}
		for seed := range uint64(2) {
			r := randgen.New(seed, shapeStream)
			s := newShape(r, "churn_0_0", sz)
			one := *s
			w := &worker{d: dialect.Postgres{}, fill: newFiller(randgen.New(seed, dataStream), p)}
			head := w.insertHead(s)
			maxStmt := len(head) + maxInsertBytes + len(s.columns)*(longest+2) + 4
			var got strings.Builder
			var bytes int64
			stmts := 0
			for left := tc.rows; left > 0; {
				k, b := w.nextInsert(head, s, left)
				if k < 1 || k > left {
					t.Fatalf("%v: %d rows of %d left", tc, k, left)
				}
				if len(w.buf) > maxStmt || cap(w.buf) > 2*maxStmt {
					t.Fatalf("%v: an INSERT of %d bytes (buffer %d), bound %d", tc, len(w.buf), cap(w.buf), maxStmt)
				}
				if !strings.HasPrefix(string(w.buf), head) {
					t.Fatalf("%v: INSERT without its head: %.80s", tc, w.buf)
				}
				if stmts > 0 {
					got.WriteString(", ")
				}
				got.WriteString(string(w.buf[len(head):]))
				left -= k
				bytes += b
				stmts++
			}
			// The same values as one INSERT of every row from the same
			// stream.
			ref := newFiller(randgen.New(seed, dataStream), p)
			all, allBytes := ref.appendRows(nil, &one, tc.rows)
			if got.String() != string(all) || bytes != allBytes {
				t.Errorf("%v seed %d: %d statements' rows differ from one INSERT's (%d and %d bytes of values)", tc, seed, stmts, bytes, allBytes)
			}
			if tc.rows == maxRowsPerInsert && stmts < 2 {
				t.Errorf("%v: %d rows in %d statement", tc, tc.rows, stmts)
			}
		}
	}
}
