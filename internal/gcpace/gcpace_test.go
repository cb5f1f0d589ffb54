package gcpace

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
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

// TestHold: Hold raises GOGC so that the heap may grow by the headroom
// with no collection, unless there is no headroom or GOGC is the user's;
// Apply after it paces from the GOGC before Hold, and so does the
// release, which does nothing after Apply.
func TestHold(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, c := range []struct {
		name     string
		env      string
		headroom int64
		holds    bool
		apply    bool
		collect  bool
	}{
		{name: "no headroom", headroom: 0},
		{name: "the user's GOGC", env: "100", headroom: 1 << 30},
		{name: "released before Apply", headroom: 1 << 30, holds: true},
		{name: "then Apply", headroom: 1 << 30, holds: true, apply: true},
		{name: "until a collection", headroom: 1 << 30, holds: true, collect: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("GOGC", c.env)
			release := Hold(c.headroom)
			defer release()
			held := currentPercent()
			if held > 100 != c.holds {
				t.Fatalf("GOGC after Hold(%d) = %d: want it raised %v", c.headroom, held, c.holds)
			}
			if c.holds {
				live := liveHeap()
				if live <= 0 {
					live = minHeap
				}
				if want := percentFor(c.headroom, live); held != want {
					t.Errorf("GOGC after Hold = %d, want %d for the live heap %d", held, want, liveHeap())
				}
				// A second Hold while one holds changes nothing.
				Hold(1 << 20)()
				if got := currentPercent(); got != held {
					t.Errorf("GOGC after a second Hold and its release = %d, want %d", got, held)
				}
			}
			if c.collect {
				runtime.GC() // the hold's cleanup runs after it, on its own goroutine
				deadline := time.Now().Add(5 * time.Second)
				for currentPercent() != 100 && time.Now().Before(deadline) {
					time.Sleep(time.Millisecond)
				}
				if got := currentPercent(); got != 100 {
					t.Errorf("GOGC 5 s after a collection during the hold = %d, want 100 as before Hold", got)
				}
			}
			if c.apply {
				a, restore := Apply(64 << 20)
				if want := percentFor(64<<20, a.LiveHeap); !a.Changed || a.Percent != want || currentPercent() != want {
					t.Errorf("Apply after Hold = %+v, GOGC %d: want %d, from the GOGC before Hold", a, currentPercent(), want)
				}
				release() // Apply's pacing stays
				if got := currentPercent(); got != a.Percent {
					t.Errorf("GOGC after Hold's release following Apply = %d, want Apply's %d", got, a.Percent)
				}
				restore()
			} else {
				release()
			}
			if got := currentPercent(); got != 100 {
				t.Errorf("GOGC at the end = %d, want 100 as before Hold", got)
			}
		})
	}
}
