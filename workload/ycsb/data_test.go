package ycsb

import (
	"reflect"
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
			if want := int((c.insertCount + loadBatchSize - 1) / loadBatchSize); rows.NumBatches != want {
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
