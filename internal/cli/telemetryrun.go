package cli

import (
	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/run"
)

// telemetryFlags control the system telemetry of a run.
type telemetryFlags struct {
	on           bool
	display      bool
	watchProcess []string
	watchCmdline []string
	watchPID     []int
}

func (f *telemetryFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.on, "telemetry", true, "sample host CPU, memory, disks (as iostat -x), network and watched processes every interval into the run's results")
	fs.BoolVar(&f.display, "display-telemetry", false, "print a compact telemetry line after each interval")
	fs.StringArrayVar(&f.watchProcess, "watch-process", nil, "regular expression matched against process names (as pidstat -C and pgrep): processes of the system under test whose CPU, RSS and disk IO are summed and recorded, such as postgres (repeatable)")
	fs.StringArrayVar(&f.watchCmdline, "watch-cmdline", nil, "regular expression matched against full command lines (as pgrep -f), such as 'postgres: .*walwriter': processes to record as --watch-process does (repeatable)")
	fs.IntSliceVar(&f.watchPID, "watch-pid", nil, "PID of a process of the system under test to record with its descendants, such as PostgreSQL's postmaster (repeatable)")
}

// spec returns the run's telemetry.
func (f *telemetryFlags) spec() run.Telemetry {
	return run.Telemetry{Off: !f.on, WatchProcess: f.watchProcess, WatchCmdline: f.watchCmdline, WatchPIDs: f.watchPID}
}

// check refuses --display-telemetry without telemetry (the run refuses
// the watch flags itself).
func (f *telemetryFlags) check() error {
	if !f.on && f.display {
		return usagef("--watch-process, --watch-cmdline, --watch-pid and --display-telemetry need --telemetry=true")
	}
	return nil
}
