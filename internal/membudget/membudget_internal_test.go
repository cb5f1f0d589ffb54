package membudget

import (
	"math"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	const gb = 1 << 30
	for _, tc := range []struct {
		name   string
		budget int64
		n, per int64
		want   string // "" means accepted
	}{
		{"fits", gb, 1000, 1000, ""},
		{"exactly", gb, gb / 64, 64, ""},
		{"unknown budget", -1, math.MaxInt64, 1 << 20, ""},
		{"too many", gb, 100_000_000, 1024, "--tables 100000000 would need about 95.4 GB of client memory (1.0 kB per table), more than test (1.0 GB): use at most 1048576, or fewer"},
		{"overflow", gb, 1_000_000_000_000, 1 << 30, "would need about 8.0 EB"},
		{"zero per", gb, 5, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := check(tc.budget, "test", "--tables", tc.n, tc.per, "table", "or fewer")
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestBudget(t *testing.T) {
	b, from := Budget()
	if b <= 0 || from == "" {
		t.Fatalf("Budget() = %d, %q: Linux has /proc/meminfo", b, from)
	}
}
