package ycsb

import (
	"reflect"
	"strconv"
	"testing"
)

func TestInitialRows(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"default", []string{"--record-count", "2500"}},
		{"partition", []string{"--record-count", "2500", "--insert-start", "300", "--insert-count", "2100", "--field-count", "3"}},
		{"ordered uniform", []string{"--record-count", "1001", "--insert-order", "ordered", "--zero-padding", "8",
			"--field-length-distribution", "uniform", "--min-field-length", "5", "--field-length", "20"}},
		{"zipfian lengths", []string{"--record-count", "999", "--field-length-distribution", "zipfian", "--field-length", "50"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, c := newConfig(t, tc.args...)
			tables := g.Tables()
			if len(tables) != 1 {
				t.Fatalf("%d tables", len(tables))
			}
			tab := tables[0]
			rows := tab.InitialRows
			// A batch per block of loadBatchSize key numbers met.
			if want := int((c.insertStart+c.insertCount-1)/loadBatchSize - c.insertStart/loadBatchSize + 1); rows.NumBatches != want {
				t.Errorf("NumBatches %d, want %d", rows.NumBatches, want)
			}
			if rows.NumRows != c.insertCount {
				t.Errorf("NumRows %d, want %d", rows.NumRows, c.insertCount)
			}
			seen := map[string]int{}
			for b := 0; b < rows.NumBatches; b++ {
				batch := rows.FillBatch(b, nil)
				if again := rows.FillBatch(b, nil); !reflect.DeepEqual(batch, again) {
					t.Fatalf("batch %d differs between two calls", b)
				}
				for _, row := range batch {
					if len(row) != len(tab.Columns) {
						t.Fatalf("row has %d values for %d columns", len(row), len(tab.Columns))
					}
					seen[row[0].(string)]++
					for _, v := range row[1:] {
						s := v.(string)
						if n := int64(len(s)); n < c.minFieldLength || n > c.fieldLength ||
							(c.fieldLengthDist == distConstant && n != c.fieldLength) {
							t.Fatalf("value of length %d (%s %d..%d)", n, c.fieldLengthDist, c.minFieldLength, c.fieldLength)
						}
						for i := 0; i < len(s); i++ {
							if s[i] < ' ' || s[i] > '~' {
								t.Fatalf("non-printable byte %#x", s[i])
							}
						}
					}
				}
			}
			if int64(len(seen)) != c.insertCount {
				t.Errorf("%d distinct keys, want %d", len(seen), c.insertCount)
			}
			for k := c.insertStart; k < c.insertStart+c.insertCount; k++ {
				if n := seen[c.keyName(k)]; n != 1 {
					t.Fatalf("key %d (%s) loaded %d times", k, c.keyName(k), n)
				}
			}
		})
	}
}

// TestInitialRowsSplit: the rows of loads that split the keys (by
// insertstart and insertcount, or --clients), at block boundaries or
// inside blocks, are the rows of one load of every key with the same
// seed, key for key.
func TestInitialRowsSplit(t *testing.T) {
	rowsOf := func(g *ycsb) map[string][]any {
		rows := map[string][]any{}
		bt := g.Tables()[0].InitialRows
		for b := 0; b < bt.NumBatches; b++ {
			for _, r := range bt.FillBatch(b, nil) {
				rows[r[0].(string)] = r[1:]
			}
		}
		return rows
	}
	base := []string{"--record-count", "4500", "--field-length-distribution", "uniform"}
	seeded := func(args ...string) *ycsb {
		g, _ := newConfig(t, args...)
		g.SetSeed(5)
		return g
	}
	whole := seeded(base...)
	want := rowsOf(whole)
	if len(want) != 4500 {
		t.Fatalf("one load: %d keys", len(want))
	}
	for _, tc := range []struct {
		name   string
		shares [][2]int64 // insertstart, insertcount; none: --clients
		count  int
	}{
		{"blocks", [][2]int64{{0, 1000}, {1000, 3000}, {4000, 500}}, 0},
		{"inside blocks", [][2]int64{{0, 1}, {1, 998}, {999, 2}, {1001, 1998}, {2999, 1501}}, 0},
		{"clients 2", nil, 2},
		{"clients 7", nil, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var gens []*ycsb
			for _, sh := range tc.shares {
				gens = append(gens, seeded(append(base, "--insert-start", strconv.FormatInt(sh[0], 10), "--insert-count", strconv.FormatInt(sh[1], 10))...))
			}
			for i := range tc.count {
				g := seeded(base...)
				if err := g.LoadShare(i, tc.count); err != nil {
					t.Fatal(err)
				}
				gens = append(gens, g)
			}
			got := map[string][]any{}
			for _, g := range gens {
				for k, r := range rowsOf(g) {
					if _, dup := got[k]; dup {
						t.Fatalf("key %s loaded twice", k)
					}
					got[k] = r
				}
			}
			if len(got) != len(want) {
				t.Fatalf("the shares load %d keys, want %d", len(got), len(want))
			}
			for k, r := range want {
				if !reflect.DeepEqual(got[k], r) {
					t.Fatalf("key %s: the shares load other values than one load of every key", k)
				}
			}
		})
	}
}

func TestInitialRowsSeed(t *testing.T) {
	g1, _ := newConfig(t, "--record-count", "10")
	g2, _ := newConfig(t, "--record-count", "10")
	g2.SetSeed(2)
	r1 := g1.Tables()[0].InitialRows.FillBatch(0, nil)
	r2 := g2.Tables()[0].InitialRows.FillBatch(0, nil)
	if r1[0][0] != r2[0][0] {
		t.Error("the data seed changed the keys")
	}
	if r1[0][1] == r2[0][1] {
		t.Error("the data seed did not change the values")
	}
}

func TestTableSchema(t *testing.T) {
	g, _ := newConfig(t, "--field-count", "3")
	tab := g.Tables()[0]
	if tab.Name != "usertable" {
		t.Errorf("name %s", tab.Name)
	}
	if want := "(ycsb_key VARCHAR(255) PRIMARY KEY, field0 TEXT, field1 TEXT, field2 TEXT)"; tab.Schema != want {
		t.Errorf("schema %s, want %s", tab.Schema, want)
	}
	if want := []string{"ycsb_key", "field0", "field1", "field2"}; !reflect.DeepEqual(tab.Columns, want) {
		t.Errorf("columns %q, want %q", tab.Columns, want)
	}
}
