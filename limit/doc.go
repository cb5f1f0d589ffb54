// Package limit puts processes under CPU, memory and disk IO limits with
// Linux control groups, so that a benchmark can measure a database that has
// less than the whole machine: half a core, 200 MiB of memory, 5 MB/s of
// writes to one disk.
//
// The field reports behind it: Greenplum query backends throttled to 5 MB/s
// by a script that moved every postgres process into a blkio cgroup once a
// second; Docker-style --cpus 0.25 --memory 32G; CPU quotas, memory limits
// and blkio throttles checked with fio and iostat.
//
// # Groups
//
// [Create] makes a group named "stampede/NAME" with the given [Limits]:
//
//   - cgroup v1: one directory in each hierarchy its limits use, and only
//     those (cpu for the CPU quota, plus cpuacct for CPU usage; memory;
//     blkio), so that a CPU limit leaves its processes' memory and blkio
//     cgroups as they are; for instance
//     /sys/fs/cgroup/cpu/stampede/NAME with cpu.cfs_quota_us and
//     cpu.cfs_period_us, memory.limit_in_bytes, and
//     blkio.throttle.{read,write}_{bps,iops}_device;
//   - cgroup v2: one directory, /sys/fs/cgroup/stampede/NAME, with cpu.max,
//     memory.max and io.max.
//
// The version is found at run time (v2 only when the whole hierarchy is
// unified; hybrid systems keep their controllers on v1). The cgroup files
// are written through github.com/containerd/cgroups/v3.
//
// Processes get into a group three ways: [Group.Add] moves a running
// process; [Group.Command] starts a program that is inside the group before
// it runs its first instruction (as cgexec does); [Group.Watch] keeps moving
// every process whose name or command line matches a pattern, as the
// Greenplum script did. [Group.Stats] reads the group's counters (CPU time
// and throttling, memory use and OOM kills, bytes and operations per disk),
// and [Group.Remove] moves what is left back to the cgroups the processes
// came from and deletes the group. [Group.Add] records those cgroups
// first, in a file next to the group's lock in [HoldDir], so that the
// removal of a group left by a killed run restores them too; a process
// born in the group goes back to where its nearest recorded (or outside)
// ancestor came from.
//
// Only root can write cgroups. Functions that touch them say so in their
// errors, in one line that says what to do.
//
// # Disk IO
//
// Block IO limits apply per disk, given as MAJ:MIN or as a path that
// [ResolveDevice] maps to the whole disk holding it. With cgroup v1, only
// direct IO (O_DIRECT, as databases that bypass the page cache do) and
// reads are throttled: buffered writes reach the disk from the kernel's
// flusher threads, outside the group. cgroup v2 throttles buffered writes
// too.
//
// # The command shim
//
// [Group.Command] runs the current executable again with an environment
// variable that tells this package's init function to join the group and
// then exec the real program. So any binary that links this package
// (stampede, or a test binary) can start commands inside a group; no other
// set-up is needed.
package limit
