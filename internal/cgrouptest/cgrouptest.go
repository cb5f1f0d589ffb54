// Package cgrouptest makes cgroup v1 groups of a test's own, as a user
// keeps a server in a memory cgroup of their own, for the tests that check
// that stampede's limits put processes back where they were.
package cgrouptest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Root is where the cgroup v1 controllers are mounted.
const Root = "/sys/fs/cgroup"

// Of returns pid's cgroup path by v1 controller, from /proc/PID/cgroup
// ("memory" → "/user/db"); nil when pid is gone.
func Of(pid int) map[string]string {
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
// returns them).
func Move(t testing.TB, pid int, paths map[string]string) {
	t.Helper()
	for c, p := range paths {
		if err := os.WriteFile(filepath.Join(Root, c, p, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
			t.Fatalf("cannot move PID %d into %s cgroup %s: %v", pid, c, p, err)
		}
	}
}

// Check fails the test unless pid is in the cgroups want names (by
// controller), saying what moment of the test it checks.
func Check(t testing.TB, when string, pid int, want map[string]string) {
	t.Helper()
	got := Of(pid)
	for c, p := range want {
		if got[c] != p {
			t.Errorf("%s: PID %d is in %s cgroup %q, want %q", when, pid, c, got[c], p)
		}
	}
}
