// Package clientsched sets the CPU scheduling policy of stampede's own
// threads for the length of a run.
//
// A load generator that shares CPUs with the database it measures competes
// with the server for them. Under Linux's default policy (SCHED_OTHER) a
// client thread that a server reply wakes may preempt whichever server
// backend is running, often on the other CPU, through an inter-processor
// interrupt. Under SCHED_BATCH the kernel never preempts a running task for
// a woken batch task: the woken client thread waits until the running task
// blocks or its slice ends, and wake-ups stay on the CPU where they happen.
// Batch keeps the nice value, so the client's share of the CPUs is
// unchanged.
//
// Measured on 2 CPUs with PostgreSQL on the same machine, oltp_point_select
// at 8 workers: interrupts per transaction fell from 0.07-0.09 to
// 0.013-0.022, the client's kernel CPU per transaction by a quarter, and the
// throughput rose by 6-8% (scripts/bench, 4 x 1M rows) to 10-20%
// (alternating runs, 100,000 rows), with a lower p99 latency. See the README
// (Run flags, "Why --client-sched batch").
//
// The policy is per thread. Apply changes every thread the process has;
// threads created while it is applied inherit the policy from the thread
// that creates them (Go creates its threads from its own threads), and the
// function Apply returns moves them all back. Threads that the user had
// given another policy (chrt, SCHED_IDLE, a real-time policy) are left
// alone.
package clientsched
