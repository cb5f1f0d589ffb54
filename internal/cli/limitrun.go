package cli

import (
	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/limit"
	"github.com/stampede-bench/stampede/run"
)

// runLimitFlags are `run`'s resource limits on the system under test.
type runLimitFlags struct {
	limit.Flags
	processes []string
	cmdlines  []string
	pids      []int
}

func (f *runLimitFlags) register(fs *pflag.FlagSet) {
	f.Flags.Register(fs)
	fs.StringArrayVar(&f.processes, "limit-process", nil, "regular expression matched against process names (as pidstat -C): processes of the system under test that the limits apply to, moved into the run's cgroup as they appear (repeatable; without --limit-process, --limit-cmdline or --limit-pid, the limits apply to the watched processes)")
	fs.StringArrayVar(&f.cmdlines, "limit-cmdline", nil, "regular expression matched against full command lines (as pgrep -f): processes the limits apply to, as --limit-process (repeatable)")
	fs.IntSliceVar(&f.pids, "limit-pid", nil, "PID of a process of the system under test that the limits apply to, with its descendants, such as PostgreSQL's postmaster (repeatable)")
}

// spec returns the run's limits (their sizes are parsed by the caller).
func (f *runLimitFlags) spec() run.Limits {
	return run.Limits{Processes: f.processes, Cmdlines: f.cmdlines, PIDs: f.pids}
}
