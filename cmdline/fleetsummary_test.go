package cmdline

import (
	"bytes"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/run"
)

// TestFleetSummary: init --tenants' closing lines. A split init's are its
// share's, said so, with counts that add up (issue 31: "tenants: 2 (1
// created now, 0 already there)" from a client of a 2-tenant fleet that
// created 1), and a rate below 0.1 tenants a second shows its digits
// (it read 0.0).
func TestFleetSummary(t *testing.T) {
	for _, tc := range []struct {
		name    string
		tenants int
		share   run.Part
		tot     fleet.Totals
		want    string
	}{
		{"one client", 2, run.Part{}, fleet.Totals{Created: 2, Schemas: 2, Tables: 8, Bytes: 3 << 20, Elapsed: 4 * time.Second},
			"tenants:   2 (2 created now, 0 already there)\ndatabases: 0\nschemas:   2\ntables:    8\nsize:      " + run.HumanBytes(3<<20) + " on the server\nelapsed:   4s (0.50 tenants/s)\n"},
		{"split, second share", 2, run.Part{Index: 1, Count: 2}, fleet.Totals{Created: 1, Schemas: 1, Tables: 4, Bytes: 1 << 20, Elapsed: 34110 * time.Millisecond},
			"client 1 of 2's share: tenants 2..2 of the fleet's 2\ntenants:   1 (1 created now, 0 already there)\ndatabases: 0\nschemas:   1\ntables:    4\nsize:      " + run.HumanBytes(1<<20) + " on the server\nelapsed:   34.11s (0.029 tenants/s)\n"},
		{"split, share there already", 7, run.Part{Index: 0, Count: 3}, fleet.Totals{Existing: 2, Databases: 2, Tables: 4, Elapsed: 20 * time.Millisecond},
			"client 0 of 3's share: tenants 1..2 of the fleet's 7\ntenants:   2 (0 created now, 2 already there)\ndatabases: 2\nschemas:   0\ntables:    4\nsize:      0 B on the server\nelapsed:   20ms (0.0 tenants/s)\n"},
		{"fast", 1000, run.Part{}, fleet.Totals{Created: 1000, Databases: 1000, Elapsed: 8 * time.Second},
			"tenants:   1000 (1000 created now, 0 already there)\ndatabases: 1000\nschemas:   0\ntables:    0\nsize:      0 B on the server\nelapsed:   8s (125.0 tenants/s)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			writeFleetSummary(&b, tc.tenants, tc.share, tc.tot)
			if b.String() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tc.want)
			}
		})
	}
}
