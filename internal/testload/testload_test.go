package testload

import (
	"strings"
	"testing"
)

type skipRecorder struct{ skipped []any }

func (*skipRecorder) Helper()            {}
func (s *skipRecorder) Skip(args ...any) { s.skipped = args }

// TestBusy: the load read from /proc/loadavg is above a limit of -1 and
// below a limit no machine reaches, and SkipIfBusy skips only the first.
func TestBusy(t *testing.T) {
	l, ok := PerCPU()
	if !ok {
		t.Skip("no /proc/loadavg")
	}
	if l < 0 {
		t.Fatalf("load %.2f a CPU", l)
	}
	if busy, why := Busy(-1); !busy || !strings.Contains(why, "load average") {
		t.Errorf("Busy(-1) = %v %q, want true and a reason", busy, why)
	}
	if busy, why := Busy(1e9); busy || why != "" {
		t.Errorf("Busy(1e9) = %v %q, want false", busy, why)
	}
	var s skipRecorder
	SkipIfBusy(&s, 1e9)
	if s.skipped != nil {
		t.Errorf("skipped below the limit: %v", s.skipped)
	}
	SkipIfBusy(&s, -1)
	if s.skipped == nil {
		t.Error("not skipped above the limit")
	}
}
