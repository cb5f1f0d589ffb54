//go:build !linux

package engine

import "time"

// preciseSleep sleeps until offset wake after the run's base time; outside
// Linux it is Go's own sleep, and the spin window makes up the lateness.
func (r *runner) preciseSleep(wake time.Duration, _ bool) {
	time.Sleep(wake - time.Since(r.base))
}

// monoAt is unused outside Linux.
func monoAt(time.Time) int64 { return 0 }
