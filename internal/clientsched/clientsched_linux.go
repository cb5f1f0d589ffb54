package clientsched

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// taskDir lists the process's threads.
const taskDir = "/proc/self/task"

// threads returns the IDs of the process's threads.
func threads() ([]int, error) {
	ents, err := os.ReadDir(taskDir)
	if err != nil {
		return nil, err
	}
	ids := make([]int, 0, len(ents))
	for _, e := range ents {
		if id, err := strconv.Atoi(e.Name()); err == nil {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// setPolicy moves thread tid from policy from to policy to, keeping its
// nice value. It reports whether it changed the thread; a thread with
// another policy is left alone, and one that exited is skipped.
func setPolicy(tid int, from, to uint32) (bool, error) {
	attr, err := unix.SchedGetAttr(tid, 0)
	if err == unix.ESRCH {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if attr.Policy != from {
		return false, nil
	}
	attr.Policy = to
	attr.Flags = 0
	attr.Priority = 0
	err = unix.SchedSetAttr(tid, attr, 0)
	if err == unix.ESRCH {
		return false, nil
	}
	return err == nil, err
}

// policyName names a kernel policy as the run records it.
func policyName(policy uint32) Policy {
	switch policy {
	case unix.SCHED_NORMAL:
		return Normal
	case unix.SCHED_BATCH:
		return Batch
	case unix.SCHED_IDLE:
		return "idle"
	case unix.SCHED_FIFO:
		return "fifo"
	case unix.SCHED_RR:
		return "rr"
	}
	return Policy(fmt.Sprintf("policy %d", policy))
}

// maxPasses bounds the passes over the process's threads that Apply and
// its restore make.
const maxPasses = 20

// settle calls pass on the process's threads (first on ids when given)
// until a pass changes no thread and lists the same threads as the one
// before it. A thread being created from one not yet changed shows up
// only in a later listing, with the policy its parent had when it was
// copied; a listing that no longer grows means no such thread is on its
// way.
func settle(ids []int, pass func(ids []int) (bool, error)) error {
	var prev []int
	for i := 0; i < maxPasses; i++ {
		if ids == nil || i > 0 {
			var err error
			if ids, err = threads(); err != nil {
				return fmt.Errorf("cannot list the process's threads: %w", err)
			}
		}
		more, err := pass(ids)
		if err != nil {
			return err
		}
		if !more && slices.Equal(ids, prev) {
			return nil
		}
		prev = ids
	}
	return nil
}

// Apply puts every thread of the process that runs under SCHED_OTHER under
// p, and returns what it did and a function that puts the threads it
// changed under SCHED_OTHER again, with those created since that inherited
// p. With Normal it changes nothing. When the kernel refuses (a seccomp
// filter, say) it returns the error, and the threads keep their policy.
//
// Threads the user had put under another policy keep it; when some were
// under SCHED_BATCH already (chrt -b), threads created during the run keep
// theirs too, as they would have without stampede.
func Apply(p Policy) (Applied, func(), error) {
	none := func() {}
	current := func() Policy {
		if a, err := unix.SchedGetAttr(0, 0); err == nil {
			return policyName(a.Policy)
		}
		return Normal
	}
	if p != Batch {
		return Applied{Policy: current()}, none, nil
	}
	ids, err := threads()
	if err != nil {
		return Applied{Policy: current()}, none, fmt.Errorf("cannot list the process's threads: %w", err)
	}
	known := map[int]bool{}
	userBatch := false
	for _, id := range ids {
		known[id] = true
		if a, err := unix.SchedGetAttr(id, 0); err == nil && a.Policy == unix.SCHED_BATCH {
			userBatch = true
		}
	}
	changed := map[int]bool{}
	undo := func() {
		for id := range changed {
			_, _ = setPolicy(id, unix.SCHED_BATCH, unix.SCHED_NORMAL)
		}
		if userBatch {
			return
		}
		// Threads created during the run inherited the policy.
		moved := map[int]bool{}
		_ = settle(nil, func(ids []int) (bool, error) {
			more := false
			for _, id := range ids {
				if !known[id] && !moved[id] {
					if ok, _ := setPolicy(id, unix.SCHED_BATCH, unix.SCHED_NORMAL); ok {
						moved[id], more = true, true
					}
				}
			}
			return more, nil
		})
	}
	err = settle(ids, func(ids []int) (bool, error) {
		more := false
		for _, id := range ids {
			if changed[id] {
				continue
			}
			ok, err := setPolicy(id, unix.SCHED_NORMAL, unix.SCHED_BATCH)
			if err != nil {
				return false, fmt.Errorf("cannot set thread %d to SCHED_BATCH: %w", id, err)
			}
			if ok {
				changed[id], more = true, true
			}
		}
		return more, nil
	})
	if err != nil {
		undo()
		return Applied{Policy: current()}, none, err
	}
	var once sync.Once
	return Applied{Policy: current(), Threads: len(changed)}, func() { once.Do(undo) }, nil
}
