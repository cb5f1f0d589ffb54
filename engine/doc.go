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
//
// # The pacer
//
// A worker under a schedule must start each operation on time, or its own
// lateness is reported as the database's latency. The precise pacer (the
// default) sleeps on the kernel's high-resolution clock until shortly
// before the intended start and spins the rest; the coarse pacer uses Go's
// timers, which fire up to a millisecond late. Either way the engine
// measures the pacer: each operation's schedule lag is split into queueing
// (the lag a perfectly punctual client would have had, behind its own slow
// operations) and pacer lag (the rest), and the pacer lag of every
// operation goes to one series, PacerSeries, so that a run shows when the
// client rather than the server was late. Series documents the layout.
//
// # sysbench's rate and event count
//
// Config.QueueRate is sysbench 1.0.20's --rate instead: one generator puts
// events into a queue at exponentially distributed gaps, every worker
// takes its next event from the queue, and an event's latency counts from
// its entry into the queue, the wait there included, as sysbench's does
// (the generator's own lateness, recorded apart, is not in it).
// Config.SharedOps is sysbench's --events: one budget that every worker
// draws from, where MaxOps alone splits it evenly.
package engine
