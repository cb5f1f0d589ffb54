package cmdline

import (
	"github.com/spf13/pflag"
	"github.com/stampede-bench/stampede/limit"
	"github.com/stampede-bench/stampede/run"
)

// Telemetry holds the telemetry flags of a run.
type Telemetry struct {
	on           bool
	display      bool
	watchProcess []string
	watchCmdline []string
	watchPID     []int
}

// Register defines the flags on fs.
func (f *Telemetry) Register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.on, "telemetry", true, "sample host CPU (as mpstat: sys without irq and softirq), memory, disks (as iostat -x; await and areq-sz over reads, writes and discards, as sar -d), network and watched processes every interval into the run's results")
	fs.BoolVar(&f.display, "display-telemetry", false, "print a compact telemetry line after each interval (sys: mpstat's %sys; irq: %irq + %soft; await: over reads, writes and discards)")
	fs.StringArrayVar(&f.watchProcess, "watch-process", nil, "regular expression matched against process names (as pidstat -C and pgrep): processes of the system under test whose CPU, RSS and disk IO are summed and recorded, such as postgres (repeatable)")
	fs.StringArrayVar(&f.watchCmdline, "watch-cmdline", nil, "regular expression matched against full command lines (as pgrep -f), such as 'postgres: .*walwriter': processes to record as --watch-process does (repeatable)")
	fs.IntSliceVar(&f.watchPID, "watch-pid", nil, "PID of a process of the system under test to record with its descendants, such as PostgreSQL's postmaster (repeatable)")
}

// spec returns the run's telemetry.
func (f *Telemetry) spec() run.Telemetry {
	return run.Telemetry{Off: !f.on, WatchProcess: f.watchProcess, WatchCmdline: f.watchCmdline, WatchPIDs: f.watchPID}
}

// check refuses --display-telemetry without telemetry (the run refuses
// the watch flags itself).
func (f *Telemetry) check() error {
	if !f.on && f.display {
		return usagef("--watch-process, --watch-cmdline, --watch-pid and --display-telemetry need --telemetry=true")
	}
	return nil
}

// Limits are `run`'s resource limits on the system under test.
type Limits struct {
	limit.Flags
	processes []string
	cmdlines  []string
	pids      []int
}

// Register defines the flags on fs.
func (f *Limits) Register(fs *pflag.FlagSet) {
	f.Flags.Register(fs)
	fs.StringArrayVar(&f.processes, "limit-process", nil, "regular expression matched against process names (as pidstat -C): processes of the system under test that the limits apply to, moved into the run's cgroup as they appear (repeatable; without --limit-process, --limit-cmdline or --limit-pid, the limits apply to the watched processes)")
	fs.StringArrayVar(&f.cmdlines, "limit-cmdline", nil, "regular expression matched against full command lines (as pgrep -f): processes the limits apply to, as --limit-process (repeatable)")
	fs.IntSliceVar(&f.pids, "limit-pid", nil, "PID of a process of the system under test that the limits apply to, with its descendants, such as PostgreSQL's postmaster (repeatable)")
}

// spec returns the run's limits (their sizes are parsed by the caller).
func (f *Limits) spec() run.Limits {
	return run.Limits{Processes: f.processes, Cmdlines: f.cmdlines, PIDs: f.pids}
}
