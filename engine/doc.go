// Package engine runs a workload's workers: it owns the goroutines, the
// ramp, the open-loop rate schedule, the stop conditions (duration,
// operation count, Ctrl-C, first error), and the timing of every operation.
//
// # Timing and coordinated omission
//
// Without --max-rate each worker is a closed loop and an operation's
// latency is its service time. With --max-rate every worker follows a fixed
// schedule (the total rate divided among workers, worker starts staggered),
// and an operation's latency is measured from its intended start time, not
// from when the worker got round to it: a stalled server delays every
// operation scheduled behind the stall, and those delays appear in the tail
// (the correction for coordinated omission used by wrk2, YCSB's "intended"
// measurement and pgbench's schedule lag). The raw service time and the lag
// (actual minus intended start) are recorded as separate series.
package engine
