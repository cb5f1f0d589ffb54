package engine

import (
	"time"

	"golang.org/x/sys/unix"
)

// preciseSleep sleeps until offset wake after the run's base time on
// CLOCK_MONOTONIC, the clock Go's monotonic readings come from; with
// slack, it first sets the thread's timer slack to 1 ns.
func (r *runner) preciseSleep(wake time.Duration, slack bool) {
	if slack {
		_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	}
	ts := unix.NsecToTimespec(r.mono + int64(wake))
	for unix.ClockNanosleep(unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, &ts, nil) == unix.EINTR {
	}
}

// monoAt returns the CLOCK_MONOTONIC reading, in nanoseconds, at base:
// the reading between two of Go's, taken from the closest pair of a few
// tries.
func monoAt(base time.Time) int64 {
	best, mono := time.Duration(1<<62), int64(0)
	for range 8 {
		var ts unix.Timespec
		a := time.Since(base)
		if unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts) != nil {
			return 0
		}
		b := time.Since(base)
		if b-a < best {
			best, mono = b-a, ts.Nano()-int64(a+b)/2
		}
	}
	return mono
}
