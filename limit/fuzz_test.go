package limit_test

import (
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/limit"
)

// FuzzParseSize feeds --memory and --io-*-bps values to ParseSize: it never
// panics, its errors are one line, and a size it accepts is positive.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"200M", "5M", "1.5G", "512K", "1048576", "2T", "1KiB", "3 MB", "0", "-1M", "M", "1.5", "1e3M", "99999999999999T", ".5G", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := limit.ParseSize(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("ParseSize(%q): error on several lines: %q", s, err)
			}
			return
		}
		if n <= 0 {
			t.Fatalf("ParseSize(%q) = %d, want a positive size or an error", s, n)
		}
	})
}
