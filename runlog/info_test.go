package runlog_test

import (
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/runlog"
)

func TestNewID(t *testing.T) {
	tests := []struct {
		workload string
		want     string // regexp
	}{
		{"ycsb", `^20261122-103512-ycsb-[0-9a-f]{4}$`},
		{"tpc c/x", `^20261122-103512-tpc-c-x-[0-9a-f]{4}$`},
		{"", `^20261122-103512-run-[0-9a-f]{4}$`},
		{"../..", `^20261122-103512-run-[0-9a-f]{4}$`},
		{"kv_2.0", `^20261122-103512-kv_2\.0-[0-9a-f]{4}$`},
	}
	local := t0.In(time.FixedZone("CET", 3600)) // the ID uses UTC
	for _, tt := range tests {
		id := runlog.NewID(tt.workload, local)
		if !regexp.MustCompile(tt.want).MatchString(id) {
			t.Errorf("NewID(%q) = %q, want %s", tt.workload, id, tt.want)
		}
		// Every ID is accepted by Create.
		info := testInfo(id, t0)
		w, err := runlog.Create(t.TempDir(), info)
		if err != nil {
			t.Errorf("Create(%q): %v", id, err)
			continue
		}
		w.Close()
	}

	// IDs sort chronologically.
	var ids []string
	for i := range 5 {
		ids = append(ids, runlog.NewID("ycsb", t0.Add(time.Duration(4-i)*37*time.Hour)))
	}
	slices.Reverse(ids)
	if !slices.IsSorted(ids) {
		t.Errorf("IDs do not sort chronologically: %v", ids)
	}

	// Random suffixes differ.
	seen := map[string]bool{}
	for range 20 {
		seen[runlog.NewID("ycsb", t0)] = true
	}
	if len(seen) < 10 {
		t.Errorf("only %d distinct IDs out of 20", len(seen))
	}
}

func TestHostFacts(t *testing.T) {
	h := runlog.HostFacts()
	if h.OS != runtime.GOOS || h.Arch != runtime.GOARCH || h.GoVersion != runtime.Version() || h.CPUs < 1 {
		t.Errorf("HostFacts = %+v", h)
	}
	if runtime.GOOS == "linux" && (h.Kernel == "" || h.MemoryBytes == 0) {
		t.Errorf("HostFacts on Linux lacks kernel or memory: %+v", h)
	}
}

func TestValidSeriesName(t *testing.T) {
	for _, ok := range []string{"read", "new_order", "tx.commit", "ycsb/read", "π"} {
		if err := runlog.ValidSeriesName(ok); err != nil {
			t.Errorf("ValidSeriesName(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "a,b", "a=b", "a b", "a\tb", "a\nb", "a\x00b", "\xff"} {
		if err := runlog.ValidSeriesName(bad); err == nil || !strings.Contains(err.Error(), "series name") {
			t.Errorf("ValidSeriesName(%q) = %v, want an error", bad, err)
		}
	}
}
