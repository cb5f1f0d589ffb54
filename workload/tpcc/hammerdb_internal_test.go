package tpcc

import (
	"slices"
	"testing"
)

// TestCommonXact: HammerDB's TPM counts the databases present at both
// ends of the run; one dropped or made in between is left out (a plain
// sum read a negative TPM when another test dropped a database).
func TestCommonXact(t *testing.T) {
	for _, c := range []struct {
		name       string
		start, end map[uint32]int64
		growth     int64
	}{
		{"same databases", map[uint32]int64{1: 10, 2: 100}, map[uint32]int64{1: 15, 2: 130}, 35},
		{"one dropped", map[uint32]int64{1: 10, 2: 100, 3: 50000}, map[uint32]int64{1: 15, 2: 130}, 35},
		{"one made", map[uint32]int64{1: 10, 2: 100}, map[uint32]int64{1: 15, 2: 130, 4: 900}, 35},
		{"none in common", map[uint32]int64{1: 10}, map[uint32]int64{2: 10}, 0},
	} {
		s, e := commonXact(c.start, c.end)
		if e-s != c.growth {
			t.Errorf("%s: growth %d, want %d", c.name, e-s, c.growth)
		}
	}
}

// TestRoutinesMade: init --routines-only says what it made, what was
// already there and what it kept, from the routines before and after; a
// user's routine replaced under --force-drop is made in its place, never
// "kept" (chk33c B1); stampede's functions replaced by procedures are
// said dropped (chk33 N6).
func TestRoutinesMade(t *testing.T) {
	ours := func(name, sum string) installedRoutine {
		return installedRoutine{name: name, signature: name + "(integer)", kind: "function", ours: true, sum: sum}
	}
	yours := func(name string) installedRoutine {
		return installedRoutine{name: name, signature: name + "(integer)", kind: "function", sum: "u"}
	}
	for _, tc := range []struct {
		name                      string
		before, after             []installedRoutine
		made, same, kept, dropped []string
	}{
		{name: "all made", after: []installedRoutine{ours("neword", "a"), ours("slev", "b")},
			made: []string{"function neword(integer)", "function slev(integer)"}},
		{name: "same and made", before: []installedRoutine{ours("neword", "a")}, after: []installedRoutine{ours("neword", "a"), ours("slev", "b")},
			made: []string{"function slev(integer)"}, same: []string{"function neword(integer)"}},
		{name: "yours kept", before: []installedRoutine{yours("neword")}, after: []installedRoutine{yours("neword"), ours("slev", "b")},
			made: []string{"function slev(integer)"}, kept: []string{"function neword(integer)"}},
		{name: "yours replaced under --force-drop", before: []installedRoutine{yours("neword")}, after: []installedRoutine{ours("neword", "a")},
			made: []string{"function neword(integer) (in place of yours: --force-drop)"}},
		{name: "functions replaced by procedures", before: []installedRoutine{ours("neword", "a"), yours("slev")},
			after: []installedRoutine{{name: "neword", signature: "neword(integer)", kind: "procedure", ours: true, sum: "p"}, yours("slev")},
			made:  []string{"procedure neword(integer)"}, kept: []string{"function slev(integer)"}, dropped: []string{"function neword(integer)"}},
	} {
		made, same, kept, dropped := routinesMade(tc.before, tc.after)
		if !slices.Equal(made, tc.made) || !slices.Equal(same, tc.same) || !slices.Equal(kept, tc.kept) || !slices.Equal(dropped, tc.dropped) {
			t.Errorf("%s: made %q, same %q, kept %q, dropped %q; want %q, %q, %q, %q", tc.name, made, same, kept, dropped, tc.made, tc.same, tc.kept, tc.dropped)
		}
	}
}
