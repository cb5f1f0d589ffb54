package gcpace

import (
	"runtime/debug"
	"testing"
)

func TestPercentFor(t *testing.T) {
	for _, c := range []struct {
		name           string
		headroom, live int64
		want           int
	}{
		{"small heap, big headroom", 64 << 20, 8 << 20, 800},
		{"rounds up", 64 << 20, 3 << 20, 2134},
		{"heap as large as the headroom", 64 << 20, 64 << 20, 100},
		{"heap larger than the headroom", 64 << 20, 256 << 20, 25},
		{"unknown heap", 64 << 20, 0, 100},
		{"capped", 1 << 62, 1, 1 << 30},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := percentFor(c.headroom, c.live); got != c.want {
				t.Errorf("percentFor(%d, %d) = %d, want %d", c.headroom, c.live, got, c.want)
			}
		})
	}
}

// sink keeps the test's allocation live, so that the live heap is known.
var sink [][]byte

func TestApply(t *testing.T) {
	t.Setenv("GOGC", "") // present but empty: not the user's choice
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	sink = [][]byte{make([]byte, 4<<20)}
	defer func() { sink = nil }()

	for _, c := range []struct {
		name       string
		headroom   int64
		changed    bool
		minPercent int
		duringRun  func(t *testing.T, a Applied)
	}{
		{name: "no headroom", headroom: 0},
		{name: "headroom below the live heap", headroom: 1 << 20},
		{name: "headroom above the live heap", headroom: 1 << 30, changed: true, minPercent: 101},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, restore := Apply(c.headroom)
			if a.Changed != c.changed {
				t.Fatalf("Apply(%d) changed = %v (%+v), want %v", c.headroom, a.Changed, a, c.changed)
			}
			if got := currentPercent(); got != a.Percent {
				t.Errorf("GOGC during the run = %d, Applied.Percent = %d", got, a.Percent)
			}
			if c.changed {
				if a.Percent < c.minPercent || a.LiveHeap < 4<<20 {
					t.Errorf("Applied = %+v: want a percent of at least %d and a live heap of at least 4 MiB", a, c.minPercent)
				}
				if want := percentFor(c.headroom, a.LiveHeap); a.Percent != want {
					t.Errorf("Percent = %d, want %d for the live heap %d", a.Percent, want, a.LiveHeap)
				}
			} else if a.Why == "" {
				t.Errorf("Applied = %+v: an unchanged pacing must say why", a)
			}
			restore()
			restore()
			if got := currentPercent(); got != 100 {
				t.Errorf("GOGC after restore = %d, want 100", got)
			}
		})
	}
}

func TestApplyLeavesTheUsersGOGC(t *testing.T) {
	t.Setenv("GOGC", "50")
	defer debug.SetGCPercent(debug.SetGCPercent(50))
	a, restore := Apply(1 << 30)
	defer restore()
	if a.Changed || a.Percent != 50 || a.Why == "" {
		t.Errorf("Apply with GOGC=50 in the environment = %+v, want it unchanged at 50 with a reason", a)
	}
}

func TestCurrentPercent(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, want := range []int{-1, 50, 100, 909} {
		debug.SetGCPercent(want)
		if got := currentPercent(); got != want {
			t.Errorf("after SetGCPercent(%d), currentPercent() = %d", want, got)
		}
	}
}
