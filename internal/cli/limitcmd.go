package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/limit"
	"github.com/stampede-bench/stampede/procmatch"
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
	fs.StringVar(&f.remove, "remove", "", "remove the group stampede/NAME, moving its processes back to the root group")
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
		var other []string
		fs.Visit(func(fl *pflag.Flag) {
			if fl.Name != "remove" {
				other = append(other, "--"+fl.Name)
			}
		})
		if len(other) > 0 || len(args) > 0 {
			return usagef("--remove takes no other flags or command (got %s): see `stampede limit --help`", strings.Join(append(other, args...), " "))
		}
		if err := limit.Remove(f.remove); err != nil {
			return limitError(err)
		}
		fmt.Fprintf(a.stdout, "removed cgroup %s/%s\n", limit.Parent, f.remove)
		return nil
	}
	modes := 0
	for _, on := range []bool{len(f.pids) > 0, f.watch != "", f.cmdline != "", len(args) > 0} {
		if on {
			modes++
		}
	}
	if modes != 1 {
		return usagef("say which processes to limit: give exactly one of --pid PID, --watch REGEX, --watch-cmdline REGEX or -- COMMAND ARGS")
	}
	if f.duration < 0 {
		return usagef("--duration %s is negative", f.duration)
	}
	if f.duration > 0 && f.watch == "" && f.cmdline == "" {
		return usagef("--duration bounds --watch and --watch-cmdline only")
	}
	if f.keep && len(f.pids) > 0 {
		return usagef("--keep applies to --watch and a command: with --pid the group always stays (until `stampede limit --remove NAME`)")
	}
	var pat *procmatch.Pattern
	for _, w := range []struct {
		flag, expr string
		cmdline    bool
	}{{"--watch", f.watch, false}, {"--watch-cmdline", f.cmdline, true}} {
		if w.expr == "" {
			continue
		}
		var err error
		if pat, err = procmatch.Compile(w.expr, w.cmdline); err != nil {
			return usagef("malformed %s regular expression %q: %s", w.flag, w.expr, oneLine(strings.TrimPrefix(err.Error(), fmt.Sprintf("invalid process pattern %q: ", w.expr))))
		}
	}
	l, err := f.limits.Limits()
	if err != nil {
		return asUsage(err)
	}
	if l.IsZero() {
		return usagef("no limit given: give at least one of --cpus, --memory, --io-read-bps, --io-write-bps, --io-read-iops, --io-write-iops")
	}
	for _, pid := range f.pids {
		if pid <= 0 {
			return usagef("--pid %d is not a process ID", pid)
		}
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
			return fmt.Errorf("PID %d is gone: check it with ps", pid)
		}
	}
	if len(args) > 0 {
		if _, err := exec.LookPath(args[0]); err != nil {
			return fmt.Errorf("cannot run %s: %s", args[0], oneLine(err.Error()))
		}
	}
	g, err := createLimitGroup(f, args, l)
	if err != nil {
		return limitError(err)
	}
	switch {
	case len(f.pids) > 0:
		return a.limitPIDs(g, f.pids)
	case pat != nil:
		return a.limitWatch(cmd.Context(), g, pat, f)
	default:
		return a.limitCommand(cmd.Context(), g, args, f.keep)
	}
}

// createLimitGroup creates the group --name names or, without --name, the
// first free one of the command's base name (or "watch", or "pid")
// followed by -1, -2, ... (limit.CreateFree).
func createLimitGroup(f *limitFlags, args []string, l limit.Limits) (*limit.Group, error) {
	switch {
	case f.name != "":
		return limit.Create(f.name, l)
	case len(args) > 0:
		return limit.CreateFree(filepath.Base(args[0]), l)
	case f.watch != "", f.cmdline != "":
		return limit.CreateFree("watch", l)
	}
	return limit.CreateFree("pid", l)
}

// limitError marks errors the user must fix on the command line as usage
// errors; the others (not root, no controller) are failures.
func limitError(err error) error {
	if errors.Is(err, limit.ErrNotRoot) || errors.Is(err, limit.ErrNotExist) {
		return err
	}
	if strings.HasPrefix(err.Error(), "invalid group name") {
		return asUsage(err)
	}
	return err
}

// limitPIDs moves pids into g; on any failure it removes g again.
func (a *app) limitPIDs(g *limit.Group, pids []int) error {
	for _, pid := range pids {
		if err := g.Add(pid); err != nil {
			if rerr := g.Remove(); rerr != nil {
				return fmt.Errorf("%w (and the group could not be removed: %v)", err, rerr)
			}
			return err
		}
	}
	fmt.Fprintf(a.stdout, "limited PID %s: %s\n", joinInts(pids), g)
	fmt.Fprintf(a.stdout, "remove the limits with `stampede limit --remove %s`\n", g.Name())
	return nil
}

// limitWatch moves matching processes into g until ctx ends or the
// duration passes, then removes g unless told to keep it.
func (a *app) limitWatch(ctx context.Context, g *limit.Group, pat *procmatch.Pattern, f *limitFlags) error {
	what := "processes whose name matches"
	if pat.Cmdline() {
		what = "processes whose command line matches"
	}
	fmt.Fprintf(a.stdout, "watching for %s %q: %s\n", what, pat, g)
	if f.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.duration)
		defer cancel()
	}
	moved := 0
	err := g.Watch(ctx, pat, limit.DefaultWatchEvery, func(pid int, cmdline string) {
		moved++
		fmt.Fprintf(a.stdout, "%s moved PID %d into %s/%s: %s\n", time.Now().Format("15:04:05"), pid, limit.Parent, g.Name(), cmdline)
	})
	fmt.Fprintln(a.stdout, g.Usage(fmt.Sprintf("moved %d processes", moved)))
	if f.keep {
		fmt.Fprintf(a.stdout, "kept cgroup %s/%s: remove it with `stampede limit --remove %s`\n", limit.Parent, g.Name(), g.Name())
		return err
	}
	if rerr := g.Remove(); rerr != nil {
		return errors.Join(err, rerr)
	}
	fmt.Fprintf(a.stdout, "removed cgroup %s/%s\n", limit.Parent, g.Name())
	return err
}

// limitCommand runs args inside g and removes g at the end unless told
// to keep it.
func (a *app) limitCommand(ctx context.Context, g *limit.Group, args []string, keep bool) (err error) {
	defer func() {
		if keep {
			fmt.Fprintf(a.stderr, "stampede: kept cgroup %s/%s: remove it with `stampede limit --remove %s`\n", limit.Parent, g.Name(), g.Name())
			return
		}
		if rerr := g.Remove(); rerr != nil {
			err = errors.Join(err, rerr)
		}
	}()
	err = g.RunCommand(ctx, args, os.Stdin, a.stdout, a.stderr, a.stderr)
	if errors.Is(err, limit.ErrInterrupted) {
		return errInterrupted
	}
	return err
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}
