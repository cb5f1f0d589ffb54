package hammerdb

import (
	"bytes"
	"testing"
)

// TestVuserLines: HammerDB's result line is printed as its Vuser 1 prints
// it, whether the run printed it alone or as run tpcc --profile
// hammerdb's figure hammerdb_nopm (the figure's line kept), in one write
// or split across writes.
func TestVuserLines(t *testing.T) {
	const res = "TEST RESULT : System achieved 2428 NOPM from 5560 PostgreSQL TPM\n"
	cases := []struct {
		name   string
		writes []string
		want   string
	}{
		{"alone", []string{"tpmC 1\n" + res}, "tpmC 1\nVuser 1:" + res},
		{"figure", []string{"  tpmC: 1\n  hammerdb_nopm: " + res + "\nrest\n"}, "  tpmC: 1\n  hammerdb_nopm: " + res + "Vuser 1:" + res + "\nrest\n"},
		{"figure, then more", []string{"  hammerdb_nopm: " + res, "results saved in /tmp/runs/20261129-1\n"},
			"  hammerdb_nopm: " + res + "Vuser 1:" + res + "results saved in /tmp/runs/20261129-1\n"},
		{"other figure", []string{"  hammerdb_tpm: 5560 (TEST RESULT : no)\n"}, "  hammerdb_tpm: 5560 (TEST RESULT : no)\n"},
		{"inside a line", []string{"x ", "TEST RESULT : y\n"}, "x TEST RESULT : y\n"},
	}
	for _, c := range cases {
		var b bytes.Buffer
		v := &vuserLines{w: &b}
		for _, w := range c.writes {
			if n, err := v.Write([]byte(w)); err != nil || n != len(w) {
				t.Fatalf("%s: Write: %d, %v", c.name, n, err)
			}
		}
		if b.String() != c.want {
			t.Errorf("%s: got %q, want %q", c.name, b.String(), c.want)
		}
	}
	v := &vuserLines{w: &bytes.Buffer{}}
	_, _ = v.Write([]byte("  hammerdb_nopm: TEST RESULT : x\nresults saved in /tmp/runs/20261129-1\n"))
	if v.saved != "20261129-1" {
		t.Errorf("saved %q, want 20261129-1", v.saved)
	}
}
