package clientsched

import (
	"runtime"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// policies returns the policy of every thread of the process.
func policies(t *testing.T) map[int]uint32 {
	t.Helper()
	ids, err := threads()
	if err != nil {
		t.Fatal(err)
	}
	m := map[int]uint32{}
	for _, id := range ids {
		if a, err := unix.SchedGetAttr(id, 0); err == nil {
			m[id] = a.Policy
		}
	}
	return m
}

// lockedThread runs a goroutine locked to its own thread until release is
// closed; it returns the thread's ID. Called while a policy is applied, it
// makes the runtime start threads from threads that have the policy.
func lockedThread(t *testing.T, release <-chan struct{}, wg *sync.WaitGroup, setup func(tid int)) int {
	t.Helper()
	tid := make(chan int)
	wg.Add(1)
	go func() {
		defer wg.Done()
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		id := unix.Gettid()
		if setup != nil {
			setup(id)
		}
		tid <- id
		<-release
	}()
	return <-tid
}

func setThreadPolicy(t *testing.T, tid int, policy uint32) {
	t.Helper()
	a, err := unix.SchedGetAttr(tid, 0)
	if err != nil {
		t.Fatal(err)
	}
	a.Policy = policy
	if err := unix.SchedSetAttr(tid, a, 0); err != nil {
		t.Fatalf("set thread %d to policy %d: %v", tid, policy, err)
	}
}

func TestApply(t *testing.T) {
	for _, tc := range []struct {
		name string
		// pre is the policy one thread has before Apply (SCHED_NORMAL:
		// none given).
		pre uint32
		// wantNewAfter is what threads created during the run have
		// after the restore.
		wantNewAfter uint32
	}{
		{"default threads", unix.SCHED_NORMAL, unix.SCHED_NORMAL},
		{"a thread under SCHED_IDLE keeps it", unix.SCHED_IDLE, unix.SCHED_NORMAL},
		{"a thread under SCHED_BATCH already (chrt -b)", unix.SCHED_BATCH, unix.SCHED_BATCH},
	} {
		t.Run(tc.name, func(t *testing.T) {
			release := make(chan struct{})
			var wg sync.WaitGroup
			defer wg.Wait()
			defer close(release)
			var preTid int
			if tc.pre != unix.SCHED_NORMAL {
				preTid = lockedThread(t, release, &wg, func(tid int) {
					setThreadPolicy(t, tid, tc.pre)
				})
				defer setThreadPolicy(t, preTid, unix.SCHED_NORMAL)
			}
			before := policies(t)

			applied, restore, err := Apply(Batch)
			if err != nil {
				t.Fatal(err)
			}
			if applied.Policy != Batch {
				t.Errorf("Applied.Policy = %q, want batch", applied.Policy)
			}
			wantChanged := 0
			for _, p := range before {
				if p == unix.SCHED_NORMAL {
					wantChanged++
				}
			}
			if applied.Threads < wantChanged {
				t.Errorf("Apply changed %d threads, want at least the %d under SCHED_OTHER", applied.Threads, wantChanged)
			}
			// Threads started now come from threads under the policy.
			var fresh []int
			for i := 0; i < 4; i++ {
				fresh = append(fresh, lockedThread(t, release, &wg, nil))
			}
			during := policies(t)
			for id, p := range during {
				want := uint32(unix.SCHED_BATCH)
				if id == preTid {
					want = tc.pre
				}
				if p != want {
					t.Errorf("during the run thread %d has policy %d, want %d", id, p, want)
				}
			}

			atRestore := policies(t)
			restore()
			restore() // a second call does nothing
			after := policies(t)
			for id, p := range after {
				want, known := before[id]
				if !known {
					if _, ran := atRestore[id]; !ran && tc.pre == unix.SCHED_BATCH {
						// Started after the restore, from any
						// thread: SCHED_BATCH or not, as without
						// stampede.
						continue
					}
					// Started during the run; or after the restore,
					// when no thread is left under the policy.
					want = tc.wantNewAfter
				}
				if p != want {
					t.Errorf("after the restore thread %d has policy %d, want %d (before: %v)", id, p, want, known)
				}
			}
			for _, id := range fresh {
				if _, ok := after[id]; !ok {
					t.Errorf("thread %d, started during the run, is gone", id)
				}
			}
			if tc.pre == unix.SCHED_BATCH {
				// Put the fresh threads back for the next case.
				for _, id := range fresh {
					setThreadPolicy(t, id, unix.SCHED_NORMAL)
				}
			}
		})
	}
}

func TestApplyNormal(t *testing.T) {
	before := policies(t)
	applied, restore, err := Apply(Normal)
	if err != nil {
		t.Fatal(err)
	}
	defer restore()
	if applied.Policy != Normal || applied.Threads != 0 {
		t.Errorf("Apply(Normal) = %+v, want policy normal and no thread changed", applied)
	}
	for id, p := range policies(t) {
		if q, ok := before[id]; ok && p != q {
			t.Errorf("thread %d went from policy %d to %d", id, q, p)
		}
	}
}
