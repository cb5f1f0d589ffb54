package workload

import "time"

// epoch is the origin of Now.
var epoch = time.Now()

// Now is the time since the process's epoch on the monotonic clock: one
// read of the clock, where time.Now reads the wall clock too (on the
// 2-vCPU machine of scripts/bench pgbench, time.Since costs about 140 ns
// of CPU and time.Now 340). A Worker that reads it when its operation
// ends (its last statement's end, read for that statement's latency)
// hands it to the engine as Result.End, and the engine does not read the
// clock again.
func Now() time.Duration { return time.Since(epoch) }

// Offset returns t as an offset from Now's epoch.
func Offset(t time.Time) time.Duration { return t.Sub(epoch) }
