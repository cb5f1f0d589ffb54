package results_test

import (
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/results"
)

// FuzzParseBound feeds --from/--to values to ParseBound: it never panics,
// its errors are one line, and a bound it accepts reads back the same.
func FuzzParseBound(f *testing.F) {
	for _, s := range []string{"", "30s", "2m", "1h30m", "0s", "-5s", "2026-11-22T10:36:00Z", "2026-11-22T10:36:00.5+01:00", "2026-11-22", "10", "1e9h", "9999999999h", "\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := results.ParseBound(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("ParseBound(%q): error on several lines: %q", s, err)
			}
			return
		}
		if s == "" && b.IsSet() {
			t.Fatalf("ParseBound(\"\") is set")
		}
		if b.IsSet() {
			again, err := results.ParseBound(b.String())
			if err != nil || again.String() != b.String() {
				t.Fatalf("ParseBound(%q) = %s, which reads back as %v, %v", s, b, again, err)
			}
		}
	})
}
