package tpcc

import "testing"

// TestCommonXact: HammerDB's TPM counts the databases present at both
// ends of the run; one dropped or made in between is left out (a plain
// sum read a negative TPM when another test dropped a database).
func TestCommonXact(t *testing.T) {
	for _, c := range []struct {
		name       string
		start, end map[uint32]int64
		growth     int64
	}{
		{"same databases", map[uint32]int64{1: 10, 2: 100}, map[uint32]int64{1: 15, 2: 130}, 35},
		{"one dropped", map[uint32]int64{1: 10, 2: 100, 3: 50000}, map[uint32]int64{1: 15, 2: 130}, 35},
		{"one made", map[uint32]int64{1: 10, 2: 100}, map[uint32]int64{1: 15, 2: 130, 4: 900}, 35},
		{"none in common", map[uint32]int64{1: 10}, map[uint32]int64{2: 10}, 0},
	} {
		s, e := commonXact(c.start, c.end)
		if e-s != c.growth {
			t.Errorf("%s: growth %d, want %d", c.name, e-s, c.growth)
		}
	}
}
