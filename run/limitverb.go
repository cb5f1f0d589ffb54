package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/stampede-bench/stampede/limit"
	"github.com/stampede-bench/stampede/procmatch"
)

// LimitSpec is what `stampede limit` puts under limits: exactly one of
// PIDs, Watch, WatchCmdline and Command.
type LimitSpec struct {
	// Name is the group's name (stampede/Name); empty picks the first
	// free one of the command's base name (or "watch", or "pid")
	// followed by -1, -2, ... (limit.CreateFree).
	Name string
	// PIDs are running processes to move into the group, which stays.
	PIDs []int
	// Watch and WatchCmdline are regular expressions: processes whose
	// name (or whole command line) matches are moved into the group
	// until the context ends or Duration passes.
	Watch, WatchCmdline string
	// Command is run inside the group, which is removed when it exits.
	Command []string
	// Duration bounds a watch (0: until the context ends).
	Duration time.Duration
	// Keep keeps the group at the end of a watch or a command.
	Keep bool
	// Flags set the limits (--cpus, --memory, --io-*).
	Flags *limit.Flags
	// Stdin, Stdout and Stderr are the command's; stampede's lines go to
	// Stdout, or to Stderr when it runs a command.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// Limit checks s and runs it: it creates the group, moves or starts the
// processes, and for a watch or a command removes the group at the end
// unless s.Keep. Errors in s match ErrInput; a command's own exit status
// is an error with an ExitCode method (limit.ExitError); a command
// stopped by a signal or the context gives ErrInterrupted.
func Limit(ctx context.Context, s LimitSpec) error {
	modes := 0
	for _, on := range []bool{len(s.PIDs) > 0, s.Watch != "", s.WatchCmdline != "", len(s.Command) > 0} {
		if on {
			modes++
		}
	}
	if modes != 1 {
		return inputf("say which processes to limit: give exactly one of --pid PID, --watch REGEX, --watch-cmdline REGEX or -- COMMAND ARGS")
	}
	if s.Duration < 0 {
		return inputf("--duration %s is negative", s.Duration)
	}
	if s.Duration > 0 && s.Watch == "" && s.WatchCmdline == "" {
		return inputf("--duration bounds --watch and --watch-cmdline only")
	}
	if s.Keep && len(s.PIDs) > 0 {
		return inputf("--keep applies to --watch and a command: with --pid the group always stays (until `stampede limit --remove NAME`)")
	}
	var pat *procmatch.Pattern
	for _, w := range []struct {
		flag, expr string
		cmdline    bool
	}{{"--watch", s.Watch, false}, {"--watch-cmdline", s.WatchCmdline, true}} {
		if w.expr == "" {
			continue
		}
		var err error
		if pat, err = procmatch.Compile(w.expr, w.cmdline); err != nil {
			msg := strings.TrimPrefix(err.Error(), fmt.Sprintf("invalid process pattern %q: ", w.expr))
			return inputf("malformed %s regular expression %q: %s", w.flag, w.expr, strings.Join(strings.Fields(msg), " "))
		}
	}
	l, err := s.Flags.Limits()
	if err != nil {
		return asInput(err)
	}
	if l.IsZero() {
		return inputf("no limit given: give at least one of --cpus, --memory, --io-read-bps, --io-write-bps, --io-read-iops, --io-write-iops")
	}
	for _, pid := range s.PIDs {
		if pid <= 0 {
			return inputf("--pid %d is not a process ID", pid)
		}
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
			return fmt.Errorf("PID %d is gone: check it with ps", pid)
		}
	}
	if err := refuseMachinePIDs("--pid", s.PIDs); err != nil {
		return err
	}
	if len(s.Command) > 0 {
		if _, err := exec.LookPath(s.Command[0]); err != nil {
			return fmt.Errorf("cannot run %s: %s", s.Command[0], strings.Join(strings.Fields(err.Error()), " "))
		}
	}
	removeAbandonedLimits(s.Stderr)
	g, err := createLimitGroup(s, l)
	if err != nil {
		return limitError(err)
	}
	if !s.Keep && len(s.PIDs) == 0 {
		// A watch or command's group goes at its end: killed before,
		// the next run or limit removes it.
		if release, err := g.Hold(limit.HoldDir); err == nil {
			defer release()
		}
	}
	switch {
	case len(s.PIDs) > 0:
		return limitPIDs(g, s.PIDs, s.Stdout)
	case pat != nil:
		return limitWatch(ctx, g, pat, s)
	default:
		return limitCommand(ctx, g, s)
	}
}

// LimitRemove removes the group stampede/name, moving its processes back
// to the cgroups they came from, and says so on w. others are the flags and words
// given besides --remove, which it takes none of.
func LimitRemove(name string, others []string, w io.Writer) error {
	if len(others) > 0 {
		return inputf("--remove takes no other flags or command (got %s): see `stampede limit --help`", strings.Join(others, " "))
	}
	g, err := limit.Load(name)
	if err == nil {
		err = g.Remove()
		warnUnrestored(g, w)
	}
	if err != nil {
		return limitError(err)
	}
	fmt.Fprintf(w, "removed cgroup %s/%s\n", limit.Parent, name)
	return nil
}

// warnUnrestored says on w which processes g's removal could not put
// back in the cgroups they came from.
func warnUnrestored(g *limit.Group, w io.Writer) {
	for _, line := range g.Unrestored() {
		fmt.Fprintf(w, "warning: %s\n", line)
	}
}

// createLimitGroup creates the group s names or, without a name, the
// first free one of the command's base name (or "watch", or "pid")
// followed by -1, -2, ... (limit.CreateFree).
func createLimitGroup(s LimitSpec, l limit.Limits) (*limit.Group, error) {
	switch {
	case s.Name != "":
		return limit.Create(s.Name, l)
	case len(s.Command) > 0:
		return limit.CreateFree(filepath.Base(s.Command[0]), l)
	case s.Watch != "", s.WatchCmdline != "":
		return limit.CreateFree("watch", l)
	}
	return limit.CreateFree("pid", l)
}

// limitError marks errors the user must fix on the command line as
// ErrInput; the others (not root, no controller) are failures.
func limitError(err error) error {
	if errors.Is(err, limit.ErrNotRoot) || errors.Is(err, limit.ErrNotExist) {
		return err
	}
	if strings.HasPrefix(err.Error(), "invalid group name") {
		return asInput(err)
	}
	return err
}

// limitPIDs moves pids into g; on any failure it removes g again.
func limitPIDs(g *limit.Group, pids []int, w io.Writer) error {
	for _, pid := range pids {
		if err := g.Add(pid); err != nil {
			if rerr := g.Remove(); rerr != nil {
				return fmt.Errorf("%w (and the group could not be removed: %v)", err, rerr)
			}
			return err
		}
	}
	if err := g.Reweigh(); err != nil {
		fmt.Fprintf(w, "warning: %s\n", weightWarning(g, err))
	}
	s := make([]string, len(pids))
	for i, n := range pids {
		s[i] = fmt.Sprint(n)
	}
	fmt.Fprintf(w, "limited PID %s: %s\n", strings.Join(s, ", "), g)
	fmt.Fprintf(w, "remove the limits with `stampede limit --remove %s`\n", g.Name())
	return nil
}

// limitWatch moves matching processes into g until ctx ends or the
// duration passes, then removes g unless told to keep it.
func limitWatch(ctx context.Context, g *limit.Group, pat *procmatch.Pattern, s LimitSpec) error {
	what := "processes whose name matches"
	if pat.Cmdline() {
		what = "processes whose command line matches"
	}
	fmt.Fprintf(s.Stdout, "watching for %s %q: %s\n", what, pat, g)
	if s.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.Duration)
		defer cancel()
	}
	stopWeighing := keepWeighed(g, s.Stderr)
	moved := 0
	err := g.Watch(ctx, pat, limit.DefaultWatchEvery, func(pid int, cmdline string) {
		moved++
		fmt.Fprintf(s.Stdout, "%s moved PID %d into %s/%s: %s\n", time.Now().Format("15:04:05"), pid, limit.Parent, g.Name(), cmdline)
	})
	stopWeighing()
	fmt.Fprintln(s.Stdout, g.Usage(fmt.Sprintf("moved %d processes", moved)))
	if s.Keep {
		fmt.Fprintf(s.Stdout, "kept cgroup %s/%s: remove it with `stampede limit --remove %s`\n", limit.Parent, g.Name(), g.Name())
		return err
	}
	rerr := g.Remove()
	warnUnrestored(g, s.Stderr)
	if rerr != nil {
		return errors.Join(err, rerr)
	}
	fmt.Fprintf(s.Stdout, "removed cgroup %s/%s\n", limit.Parent, g.Name())
	return err
}

// limitCommand runs s.Command inside g and removes g at the end unless
// told to keep it.
func limitCommand(ctx context.Context, g *limit.Group, s LimitSpec) (err error) {
	defer func() {
		if s.Keep {
			fmt.Fprintf(s.Stderr, "stampede: kept cgroup %s/%s: remove it with `stampede limit --remove %s`\n", limit.Parent, g.Name(), g.Name())
			return
		}
		if rerr := g.Remove(); rerr != nil {
			err = errors.Join(err, rerr)
		}
		warnUnrestored(g, s.Stderr)
	}()
	stopWeighing := keepWeighed(g, s.Stderr)
	err = g.RunCommand(ctx, s.Command, s.Stdin, s.Stdout, s.Stderr, s.Stderr)
	stopWeighing()
	if errors.Is(err, limit.ErrInterrupted) {
		return ErrInterrupted
	}
	return err
}
