package report

import (
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/telemetry"
)

// TestDirtiedNote: the note appears when a watched group's write figure
// (bytes dirtied, as the kernel charges them) is above all the disks'
// writes together, naming both figures, and not otherwise.
func TestDirtiedNote(t *testing.T) {
	for _, tc := range []struct {
		name  string
		procs []float64 // bytes/s
		disks []float64 // kB/s
		want  string    // "" for no note
	}{
		{"demo's figures", []float64{116 << 20}, []float64{18 << 10}, "note: postgres0 dirtied 116M/s is the kernel's per-process charge (pidstat -d's kB_wr/s: whole page-cache folios dirtied, up to 2M each), above the 18M/s the disks wrote: read the disk's wkB/s"},
		{"below the disk", []float64{4 << 20}, []float64{5 << 10}, ""},
		{"above one disk, not both", []float64{6 << 20}, []float64{4 << 10, 4 << 10}, ""},
		{"nothing written", []float64{0}, []float64{0}, ""},
		{"two groups, one above", []float64{1 << 20, 30 << 20}, []float64{2 << 10}, "note: postgres1 dirtied 30M/s is the kernel's"},
	} {
		var procs []telemetry.ProcGroup
		for i, w := range tc.procs {
			procs = append(procs, telemetry.ProcGroup{Name: "postgres" + string(rune('0'+i)), WriteBytesPerSec: w})
		}
		var disks []telemetry.Disk
		for _, w := range tc.disks {
			disks = append(disks, telemetry.Disk{Name: "vda", WriteKBPerSec: w})
		}
		got := telemetry.DirtiedNote(procs, disks)
		if tc.want == "" && got != "" || tc.want != "" && !strings.HasPrefix(got, tc.want) || strings.Contains(got, "\n") {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
		if tc.name == "two groups, one above" && strings.Contains(got, "postgres0") {
			t.Errorf("%s: names the group below the disk: %q", tc.name, got)
		}
	}
}
