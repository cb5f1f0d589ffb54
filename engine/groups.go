package engine

import (
	"math/rand/v2"
	"sync"
	"time"
)

// groupSchedule is the rate schedule a group of workers shares under
// Config.ScheduleGroups, as a pgbench thread's throttle is shared by its
// clients: each intended start is taken by one worker, the one that asked
// first, and no start is taken twice.
type groupSchedule struct {
	mu sync.Mutex
	// slots is the group's schedule of intended starts (its interval,
	// next start and rng; not its punctual client, which each worker
	// keeps for itself).
	slots schedule
	// members is the number of workers in the group.
	members int
}

// take returns the group's next intended start and moves its schedule on.
func (g *groupSchedule) take() time.Duration {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.slots.intend()
}

// groupSchedules are a run's group schedules under Config.ScheduleGroups.
type groupSchedules struct {
	// of is each worker's group (nil: one schedule per worker).
	of []*groupSchedule
}

// dealGroups returns the number of workers in each of groups groups when
// n workers are dealt in contiguous blocks, the first groups taking one
// more when groups does not divide n, as pgbench deals its clients to its
// threads.
func dealGroups(n, groups int) []int {
	sizes := make([]int, groups)
	dealt := 0
	for g := range groups {
		sizes[g] = (n - dealt + groups - g - 1) / (groups - g)
		dealt += sizes[g]
	}
	return sizes
}

// newGroupSchedules deals a run's n workers to cfg.ScheduleGroups groups
// and makes each group's schedule at MaxRate/ScheduleGroups: evenly
// spaced starts staggered between groups, so that the run's starts are
// even, or under Poisson exponential gaps from a stream of its own, the
// first one gap after the group's start. A group starts with its first
// worker (see Run's ramp).
func newGroupSchedules(cfg Config, n int) groupSchedules {
	groups := cfg.ScheduleGroups
	interval := time.Duration(float64(time.Second) * float64(groups) / cfg.MaxRate)
	of := make([]*groupSchedule, 0, n)
	w := 0
	for gi, size := range dealGroups(n, groups) {
		first := time.Duration(0)
		if cfg.Ramp > 0 {
			first = time.Duration(int64(cfg.Ramp) * int64(w) / int64(n))
		}
		g := &groupSchedule{members: size, slots: schedule{interval: interval}}
		g.slots.next = first + time.Duration(float64(time.Second)*float64(gi)/cfg.MaxRate)
		if cfg.Poisson {
			// Streams apart from the per-worker schedules' (1..n).
			g.slots.rng = rand.New(rand.NewPCG(cfg.QueueSeed, 1<<32+uint64(gi)))
			g.slots.next = first + expGap(g.slots.rng, float64(interval))
		}
		for range size {
			of = append(of, g)
		}
		w += size
	}
	return groupSchedules{of: of}
}
