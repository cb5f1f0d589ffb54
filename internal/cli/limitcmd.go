package cli

import (
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/stampede-bench/stampede/cmdline"

	"github.com/stampede-bench/stampede/limit"
	"github.com/stampede-bench/stampede/run"
)

// limitFlags are the options of `stampede limit`.
type limitFlags struct {
	name     string
	pids     []int
	watch    string
	cmdline  string
	duration time.Duration
	keep     bool
	remove   string
	limits   limit.Flags
}

func (a *app) limitCmd() *cobra.Command {
	var f limitFlags
	cmd := &cobra.Command{
		Use:   "limit [--name NAME] [--cpus N] [--memory SIZE] [--io-*] (--pid PID... | --watch REGEX | --watch-cmdline REGEX | -- COMMAND [ARGS])",
		Short: "Run processes under CPU, memory and disk IO limits (cgroups)",
		Long: `limit puts processes in a cgroup, stampede/NAME, with a CPU quota, a memory limit
and disk IO limits, to benchmark a database that has less than the whole machine.
It uses cgroup v2 when the whole hierarchy is unified, else cgroup v1; it needs root.

Four ways in:
  --pid PID          move running processes (repeat the flag), print the limits, return;
                     the group stays until 'stampede limit --remove NAME'
  --watch REGEX      keep moving every process whose name (as pidstat -C and pgrep match
                     it) matches, checking 4 times a second, until Ctrl-C (or
                     --duration); then remove the group (unless --keep)
  --watch-cmdline REGEX
                     the same for every process whose full command line matches (as
                     pgrep -f), such as one role of PostgreSQL's backends
  -- COMMAND ARGS    run COMMAND inside the group (it is in the group before it starts),
                     wait for it, exit with its status, remove the group

With cgroup v1 only direct IO and reads are throttled: buffered writes reach the disk
from the kernel's flusher threads, outside any group. Lines from stampede go to stdout,
or to stderr when it runs a command (whose output is then left alone).

Examples:
  sudo stampede limit --name pg --cpus 0.5 --memory 2G --watch '^postgres'
  sudo stampede limit --name gp --io-write-bps 5M --io-path /data/primary --watch postgres
  sudo stampede limit --name wal --io-write-bps 5M --io-path /data --watch-cmdline 'postgres: .*walwriter'
  sudo stampede limit --name burn --cpus 0.25 -- fio --name=w --rw=write --direct=1 --size=1G
  sudo stampede limit --remove pg`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runLimit(cmd, &f, args)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.name, "name", "", "name of the group: stampede/NAME (default: the command's name, or watch or pid, and a number: stampede/stress-ng-1)")
	fs.IntSliceVar(&f.pids, "pid", nil, "move this running process into the group (repeatable)")
	fs.StringVar(&f.watch, "watch", "", "keep moving processes whose name matches this regular expression")
	fs.StringVar(&f.cmdline, "watch-cmdline", "", "keep moving processes whose full command line matches this regular expression")
	fs.DurationVar(&f.duration, "duration", 0, "with --watch: stop after this long (default: until Ctrl-C)")
	fs.BoolVar(&f.keep, "keep", false, "with --watch or a command: keep the group at the end")
	fs.StringVar(&f.remove, "remove", "", "remove the group stampede/NAME, moving its processes back to the cgroups they came from")
	f.limits.Register(fs)
	return cmd
}

func (a *app) runLimit(cmd *cobra.Command, f *limitFlags, args []string) error {
	fs := cmd.Flags()
	if dash := cmd.ArgsLenAtDash(); dash > 0 || (dash < 0 && len(args) > 0) {
		return usagef("unexpected argument %q: put the command after --, as in `stampede limit --name NAME --cpus 0.5 -- COMMAND ARGS`", args[0])
	}
	if fs.Changed("remove") && strings.TrimSpace(f.remove) == "" {
		return usagef("--remove needs the name of the group to remove: `stampede limit --remove NAME` (see `stampede limit --help`)")
	}
	if f.remove != "" {
		return run.LimitRemove(f.remove, append(cmdline.ChangedFlags(fs, "remove"), args...), a.stdout)
	}
	return run.Limit(cmd.Context(), run.LimitSpec{Name: f.name, PIDs: f.pids, Watch: f.watch, WatchCmdline: f.cmdline, Command: args,
		Duration: f.duration, Keep: f.keep, Flags: &f.limits, Stdin: os.Stdin, Stdout: a.stdout, Stderr: a.stderr})
}
