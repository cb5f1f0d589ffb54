//go:build unix

package runlog

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// lockLive takes the lock that says a writer is alive: an exclusive flock
// on intervals.hlog, held by the writer's open file until it is closed, or
// released by the kernel when the process dies (kill -9, a crash).
func lockLive(f *os.File) error {
	return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
}

// writerGone reports whether no process holds the lock of the run in dir:
// a run still "running" in its run.json was then killed. It is false when
// the lock cannot be tested (no intervals.hlog, a file system without
// locks), as nothing is known.
func writerGone(dir string) bool {
	f, err := os.Open(dir + "/" + HlogFile)
	if err != nil {
		return false
	}
	defer f.Close()
	err = unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return false
	}
	if err != nil {
		return false
	}
	_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
	return true
}
