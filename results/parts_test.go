package results_test

import (
	"testing"

	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
)

// TestPartsOutOfTotal: a series named OP/PART (YCSB's failed reads, a
// read-modify-write's read) is listed with the operations but not counted
// in the total, as the live figures count it.
func TestPartsOutOfTotal(t *testing.T) {
	series := []string{"read", "read-modify-write", "read/not_found", "read-modify-write/read"}
	ivs := []interval{{series: map[string][]int64{
		"read":                   {100_000, 200_000},
		"read-modify-write":      {1_000_000},
		"read/not_found":         {50_000},
		"read-modify-write/read": {300_000},
	}}}
	run := writeRun(t, t.TempDir(), runSpec{id: "parts", series: series, intervals: ivs})
	v, _ := recompute(t, []*runlog.Run{run}, results.Window{})
	if v.Total.Count != 3 || len(v.Ops) != 4 {
		t.Errorf("total %d (want 3: reads and read-modify-writes), ops %+v", v.Total.Count, v.Ops)
	}
	for name, want := range map[string]bool{"read": false, "read/not_found": true, "read-modify-write/read": true, "read.service": false} {
		if results.IsPart(name) != want {
			t.Errorf("IsPart(%q) = %v", name, !want)
		}
	}
}
