// Package telemetry samples system figures during a benchmark run, so that
// stampede can record them next to throughput and latency: host CPU (as
// vmstat), memory (as free), per-disk extended I/O statistics (as iostat -x),
// per-interface network throughput, and the CPU, memory and disk I/O of
// watched processes such as the database server (as top and pidstat -d).
//
// A [Sampler] reads /proc (and /sys to tell whole disks from partitions)
// through github.com/prometheus/procfs. Its first [Sampler.Sample] call takes
// the baseline; every later call returns rates over the interval since the
// previous call. The runner writes one [Sample] per line as JSON
// (telemetry.ndjson in the run directory); [Summarize] turns a run's samples
// into averages and peaks, and [Summary.Flat] lists them under stable names
// for `stampede compare`.
//
// CPU figures are mpstat's: system time is %sys, without the time spent
// serving interrupts (irq and softirq, kept apart), which iostat's avg-cpu
// %system and vmstat's sy include. Disk figures are computed from
// /proc/diskstats deltas exactly as sysstat computes them (iostat -x; await
// and areq-sz, which count discards, as sar -d, whose columns they are):
//
//	r/s      = Δreads / Δt                    w/s      = Δwrites / Δt
//	rkB/s    = Δsectors_read * 512/1024 / Δt  wkB/s    = Δsectors_written * 512/1024 / Δt
//	r_await  = Δread_ms / Δreads              w_await  = Δwrite_ms / Δwrites
//	await    = Δ(read+write+discard ms) / Δ(reads+writes+discards)
//	areq-sz  = Δ(sectors read+written+discarded) * 512/1024 / Δ(reads+writes+discards)
//	aqu-sz   = Δweighted_ms / Δt_ms           %util    = Δio_ms / Δt_ms * 100
//
// where a quotient with a zero divisor is 0 and Δt is the time between the
// Sampler's two reads of /proc/diskstats (as iostat takes it from its own
// reads of /proc/uptime), which follows End - Start of the sample but not
// the delay with which Sample was called. Counters that go backwards (a
// device re-attached) count as no activity for that interval. The network
// and each watched process are timed by their own reads the same way.
//
// Watched processes are chosen by pattern, matched against their names or
// command lines as package procmatch describes, or by PID.
//
// The sampling code is Linux only; elsewhere [New] returns an error, while
// the data types, [Summarize] and [Summary.Flat] work everywhere.
package telemetry
