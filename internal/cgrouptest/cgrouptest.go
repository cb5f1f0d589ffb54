// Package cgrouptest makes cgroup v1 groups of a test's own, as a user
// keeps a server in a memory cgroup of their own, for the tests that check
// that stampede's limits put processes back where they were.
package cgrouptest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Root is where the cgroup v1 controllers are mounted.
const Root = "/sys/fs/cgroup"

// Of returns pid's cgroup path by v1 controller, from /proc/PID/cgroup
// ("memory" → "/user/db"); nil when pid is gone or has exited (a zombie,
// which the kernel shows in the root cgroups).
func Of(pid int) map[string]string {
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	if f := strings.Fields(string(st[strings.LastIndexByte(string(st), ')')+1:])); len(f) == 0 || f[0] == "Z" || f[0] == "X" {
		return nil
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		return nil
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.SplitN(line, ":", 3); len(f) == 3 {
			for _, c := range strings.Split(f[1], ",") {
				out[c] = f[2]
			}
		}
	}
	return out
}

// Make creates the cgroup name under the test process's own cgroup in
// each of the v1 controllers given (with memory.limit_in_bytes
// memoryLimit in memory, when not 0) and removes it at the end of the
// test, after the test's processes in it have ended (register their
// cleanup after calling Make). It returns the group's path by
// controller, as /proc/PID/cgroup shows it.
func Make(t testing.TB, name string, memoryLimit int64, controllers ...string) map[string]string {
	t.Helper()
	self := Of(os.Getpid())
	paths := map[string]string{}
	for _, c := range controllers {
		p := filepath.Join(self[c], name)
		dir := filepath.Join(Root, c, p)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatalf("cannot make the test's own %s cgroup: %v", c, err)
		}
		paths[c] = p
		t.Cleanup(func() {
			// Its processes are gone, or going: rmdir succeeds once
			// they have left.
			var err error
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				if err = os.Remove(dir); err == nil || os.IsNotExist(err) || time.Now().After(deadline) {
					break
				}
			}
			if err != nil && !os.IsNotExist(err) {
				t.Errorf("cannot remove the test's cgroup %s: %v", dir, err)
			}
		})
		if c == "memory" && memoryLimit != 0 {
			if err := os.WriteFile(filepath.Join(dir, "memory.limit_in_bytes"), []byte(strconv.FormatInt(memoryLimit, 10)), 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	return paths
}

// Move moves pid into the cgroups paths names (by controller, as Make
// returns them). A process that is gone (a backend that ended) is
// skipped.
func Move(t testing.TB, pid int, paths map[string]string) {
	t.Helper()
	for c, p := range paths {
		err := os.WriteFile(filepath.Join(Root, c, p, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0)
		if errors.Is(err, syscall.ESRCH) {
			return
		}
		if err != nil {
			t.Fatalf("cannot move PID %d into %s cgroup %s: %v", pid, c, p, err)
		}
	}
}

// Check fails the test unless pid is in the cgroups want names (by
// controller), saying what moment of the test it checks. A process that
// is gone (a server's backend that ended meanwhile) passes; so does one
// that is on its way out: the kernel shows an exiting process in the
// root cgroups a moment before it is a zombie, so a process elsewhere
// is given a second to be gone.
func Check(t testing.TB, when string, pid int, want map[string]string) {
	t.Helper()
	in := func(got map[string]string) bool {
		for c, p := range want {
			if got[c] != p {
				return false
			}
		}
		return true
	}
	got := Of(pid)
	for deadline := time.Now().Add(time.Second); got != nil && !in(got) && time.Now().Before(deadline); got = Of(pid) {
		time.Sleep(20 * time.Millisecond)
	}
	if got == nil {
		return
	}
	for c, p := range want {
		if got[c] != p {
			t.Errorf("%s: PID %d is in %s cgroup %q, want %q", when, pid, c, got[c], p)
		}
	}
}

// Tree returns pid and the PIDs of its descendants, from /proc.
func Tree(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may hold spaces and parentheses.
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 1 {
			ppid, _ := strconv.Atoi(f[1])
			children[ppid] = append(children[ppid], p)
		}
	}
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}
