package output

import (
	"testing"

	"github.com/stampede-bench/stampede/runlog"
)

// TestRunningStatus: a running run fetched from a results store that knew
// its writer alive (marked a live copy) reads as running, without "or
// killed on another machine", which stays for a directory alone.
func TestRunningStatus(t *testing.T) {
	dir, fetched := t.TempDir(), t.TempDir()
	if err := runlog.MarkLiveCopy(fetched); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ dir, want string }{
		{dir, "running (or killed on another machine)"},
		{fetched, "running (its writer alive when the results store was read)"},
	} {
		if got := runningStatus(tc.dir); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.dir, got, tc.want)
		}
	}
}
