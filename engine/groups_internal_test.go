package engine

import (
	"math"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestDealGroups: workers are dealt to groups as pgbench deals clients to
// threads: contiguous blocks, the first groups one larger when the
// workers do not divide evenly (pgbench -c 7 -j 3 runs 3, 2 and 2
// clients per thread).
func TestDealGroups(t *testing.T) {
	for _, tc := range []struct {
		n, groups int
		want      []int
	}{
		{4, 1, []int{4}},
		{4, 2, []int{2, 2}},
		{5, 2, []int{3, 2}},
		{7, 3, []int{3, 2, 2}},
		{8, 3, []int{3, 3, 2}},
		{3, 3, []int{1, 1, 1}},
		{10, 4, []int{3, 3, 2, 2}},
	} {
		if got := dealGroups(tc.n, tc.groups); !slices.Equal(got, tc.want) {
			t.Errorf("%d workers in %d groups: %v, want %v", tc.n, tc.groups, got, tc.want)
		}
	}
	// The schedules are dealt the same way: workers 0-2, 3-4 and 5-6.
	g := newGroupSchedules(Config{MaxRate: 100, ScheduleGroups: 3}, 7)
	index := map[*groupSchedule]int{}
	var got []int
	for _, s := range g.of {
		if _, ok := index[s]; !ok {
			index[s] = len(index)
		}
		got = append(got, index[s])
	}
	if want := []int{0, 0, 0, 1, 1, 2, 2}; !slices.Equal(got, want) {
		t.Errorf("7 workers' groups: %v, want %v", got, want)
	}
	for s, i := range index {
		if s.members != []int{3, 2, 2}[i] {
			t.Errorf("group %d has %d members, want %d", i, s.members, []int{3, 2, 2}[i])
		}
	}
}

// TestGroupScheduleTakenOnce: workers taking a group's starts at once
// (under -race) take every start of the group's schedule once, and the
// group's schedule runs at MaxRate/ScheduleGroups: Poisson gaps of that
// mean, or even ones staggered between groups.
func TestGroupScheduleTakenOnce(t *testing.T) {
	for _, poisson := range []bool{false, true} {
		cfg := Config{MaxRate: 1000, ScheduleGroups: 2, Poisson: poisson, QueueSeed: 7}
		gs := newGroupSchedules(cfg, 6)
		const each = 5000
		taken := make([][]time.Duration, 6)
		var wg sync.WaitGroup
		for w := range 6 {
			wg.Go(func() {
				s := schedule{group: gs.of[w]}
				for range each {
					taken[w] = append(taken[w], s.intend())
				}
			})
		}
		wg.Wait()
		for g, members := range [][]int{{0, 1, 2}, {3, 4, 5}} {
			var all []time.Duration
			for _, w := range members {
				all = append(all, taken[w]...)
			}
			slices.Sort(all)
			if n := len(slices.Compact(slices.Clone(all))); n != len(all) {
				t.Fatalf("poisson=%v group %d: %d starts taken, %d distinct", poisson, g, len(all), n)
			}
			// Drawn again alone, the group's schedule gives the same starts.
			alone := newGroupSchedules(cfg, 6).of[members[0]]
			var sum, sq float64
			prev := time.Duration(0)
			for i, got := range all {
				want := alone.take()
				if got != want {
					t.Fatalf("poisson=%v group %d: start %d is %v, the schedule's is %v", poisson, g, i, got, want)
				}
				if i > 0 {
					gap := float64(got - prev)
					sum, sq = sum+gap, sq+gap*gap
				}
				prev = got
			}
			n := float64(len(all) - 1)
			mean := sum / n
			cv := math.Sqrt(max(0, sq/n-mean*mean)) / mean
			const interval = 2 * time.Millisecond // 2 groups at 1000/s: 500/s each
			switch {
			case math.Abs(mean-float64(interval)) > 0.03*float64(interval):
				t.Errorf("poisson=%v group %d: mean gap %v, want %v", poisson, g, time.Duration(mean), interval)
			case poisson && (cv < 0.95 || cv > 1.05):
				t.Errorf("poisson=%v group %d: gaps' coefficient of variation %.3f, want about 1", poisson, g, cv)
			case !poisson && (cv > 1e-9 || all[0] != time.Duration(g)*time.Millisecond):
				t.Errorf("even group %d: first start %v, gaps' coefficient of variation %.3f: want %v and 0", g, all[0], cv, time.Duration(g)*time.Millisecond)
			}
		}
	}
}
