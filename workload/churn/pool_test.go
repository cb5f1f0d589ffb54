package churn

import (
	"bytes"
	"testing"

	"github.com/stampede-bench/stampede/randgen"
)

// TestPoolEntries: each slot's lit entry holds its literal's length and
// the literal's excess over the value's text (the quotes, each doubled
// quote), counted here from the literal itself; past the last slot come
// the first runRows slots again, entries and literals, so that a run
// from the last slot reads on into the first ones.
func TestPoolEntries(t *testing.T) {
	p := newPool(randgen.New(1, poolStream))
	doubled := 0
	for k := range numKinds {
		if k.perValue() {
			if p.lit[k] != nil || p.text[k] != nil {
				t.Errorf("%s: made for each value, yet pooled", kindInfo[k].label)
			}
			continue
		}
		n := len(p.off[k]) - 1
		if n != poolSize && n != gofakeitPool || len(p.lit[k]) != n+runRows {
			t.Fatalf("%s: %d slots, %d lit entries; want %d or %d slots and runRows more entries", kindInfo[k].label, n, len(p.lit[k]), poolSize, gofakeitPool)
		}
		for i := range n + runRows {
			want := p.text[k][p.off[k][i%n]:p.off[k][i%n+1]] // slot i, or i-n past the end
			at := p.off[k][i%n] + p.off[k][n]*uint32(i/n)
			lit := p.text[k][at : at+uint32(len(want))]
			if !bytes.Equal(lit, want) {
				t.Fatalf("%s slot %d: literal %q past the end, want slot %d's %q", kindInfo[k].label, i, lit, i%n, want)
			}
			text := lit
			if len(lit) > 0 && lit[0] == '\'' {
				text = bytes.ReplaceAll(lit[1:len(lit)-1], []byte("''"), []byte("'"))
				doubled += bytes.Count(lit[1:len(lit)-1], []byte("''"))
			}
			v := p.lit[k][i]
			if int(litLen(v)) != len(lit) || int64(len(lit))-litExtra(v) != int64(len(text)) {
				t.Fatalf("%s slot %d: %q: entry length %d, excess %d; want %d and %d", kindInfo[k].label, i, lit, litLen(v), litExtra(v), len(lit), len(lit)-len(text))
			}
		}
		if len(p.text[k]) != int(p.off[k][n]+p.off[k][runRows]) {
			t.Errorf("%s: %d bytes of text, want the slots' %d and the first runRows' %d again", kindInfo[k].label, len(p.text[k]), p.off[k][n], p.off[k][runRows])
		}
	}
	if doubled == 0 {
		t.Errorf("no literal with a doubled quote in the pool: the excess of one is not checked")
	}
}

// TestRefreshEvery: of the pooled values a worker draws, value number
// refreshEvery, 2*refreshEvery, ... (counted over the rows' pooled
// columns in order) is made anew, and only those: timestamps, of about a
// billion, the pool's 8,192 (a value made anew in the pool: one chance in
// 100,000).
func TestRefreshEvery(t *testing.T) {
	p := newPool(randgen.New(1, poolStream))
	inPool := map[string]bool{}
	for i := range len(p.off[kTimestamp]) - 1 {
		inPool[string(p.text[kTimestamp][p.off[kTimestamp][i]:p.off[kTimestamp][i+1]])] = true
	}
	s := &shape{name: "t", seq: 1}
	for range 3 {
		s.columns = append(s.columns, column{kind: kTimestamp}, column{kind: kSeq})
	}
	s.columns = append(s.columns, column{kind: kTimestamp}, column{kind: kUUID})
	fl := newFiller(randgen.New(1, dataStream), p)
	const rows = 3 * refreshEvery / 4 // 4 pooled values a row
	var fresh []int
	for r := range rows {
		fl.drawRow(s)
		q := 0
		for _, v := range fl.vals {
			if len(v) == len("'2000-01-01 00:00:00'") && v[0] == '\'' && v[5] == '-' {
				if !inPool[string(v)] {
					fresh = append(fresh, 4*r+q+1)
				}
				q++
			}
		}
		if q != 4 {
			t.Fatalf("row %d: %d timestamps, want 4: %q", r, q, fl.vals)
		}
	}
	want := []int{refreshEvery, 2 * refreshEvery, 3 * refreshEvery}
	if len(fresh) != len(want) || fresh[0] != want[0] || fresh[1] != want[1] || fresh[2] != want[2] {
		t.Errorf("values made anew: numbers %v of the pooled ones drawn, want %v", fresh, want)
	}
}
