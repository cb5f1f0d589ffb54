package sweep

import (
	"testing"

	"github.com/stampede-bench/stampede/limit"
)

// TestParamText: a step's value prints as the user writes it: a limit
// flag's none for 0, a size with its unit (and the text reads back as the
// same bytes), any other flag's number as it is.
func TestParamText(t *testing.T) {
	for _, tc := range []struct {
		p    Param
		v    float64
		want string
	}{
		{"memory", 5 << 20, "5M"},
		{"memory", 1 << 30, "1G"},
		{"memory", 1536 << 20, "1.5G"},
		{"memory", 0, "none"},
		{"io-write-bps", 1000, "1000"},
		{"io-read-bps", 1536, "1.5K"},
		{"io-read-bps", 5<<20 + 1, "5242881"},
		{"cpus", 0, "none"},
		{"cpus", 0.5, "0.5"},
		{"io-write-iops", 0, "none"},
		{"io-write-iops", 300, "300"},
		{"conns", 8, "8"},
		{MaxRate, 1500.5, "1500.5"},
	} {
		got := tc.p.Text(tc.v)
		if got != tc.want {
			t.Errorf("--%s %v: %q, want %q", tc.p, tc.v, got, tc.want)
		}
		if tc.p.Size() && tc.v > 0 {
			if back, err := limit.ParseSize(got); err != nil || float64(back) != tc.v {
				t.Errorf("--%s %q reads back as %d, %v; want %v", tc.p, got, back, err, tc.v)
			}
		}
	}
}
