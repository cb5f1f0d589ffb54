package limit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/containerd/cgroups/v3/cgroup1"
)

// RunCommand runs args inside g, with the given standard streams,
// forwarding SIGINT and SIGTERM to it (and, when ctx ends, SIGTERM, then
// SIGKILL after 10 s). It returns nil when the command exits with 0, an
// *ExitError with its status otherwise (saying when the kernel's OOM
// killer killed it), or ErrInterrupted. log receives one line when the
// command starts and the group's usage when it ends.
func (g *Group) RunCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr, log io.Writer) error {
	c := exec.Command(args[0], args[1:]...)
	c.Stdin, c.Stdout, c.Stderr = stdin, stdout, stderr
	if err := g.Command(c); err != nil {
		return fmt.Errorf("cannot run %s: %s", args[0], err)
	}
	fmt.Fprintf(log, "stampede: running %s in %s\n", args[0], g)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	if err := c.Start(); err != nil {
		return fmt.Errorf("cannot run %s: %s", args[0], err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	interrupted := false
	var kill <-chan time.Time
	var err error
wait:
	for {
		select {
		case err = <-done:
			break wait
		case s := <-sigs:
			interrupted = true
			_ = c.Process.Signal(s)
		case <-ctx.Done():
			if !interrupted {
				interrupted = true
				_ = c.Process.Signal(syscall.SIGTERM)
				kill = time.After(10 * time.Second)
			}
		case <-kill:
			_ = c.Process.Kill()
		}
	}
	st, _ := g.Stats()
	fmt.Fprintln(log, g.Usage(""))
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return fmt.Errorf("%s: %s", args[0], err)
	}
	oom := ""
	if st.OOMKills > 0 {
		oom = fmt.Sprintf("killed by the kernel's OOM killer: memory limit %s reached", FormatSize(g.Limits().MemoryBytes))
	}
	ws, _ := c.ProcessState.Sys().(syscall.WaitStatus)
	switch {
	case ws.Signaled() && oom != "" && ws.Signal() == syscall.SIGKILL:
		return &ExitError{128 + int(ws.Signal()), fmt.Sprintf("%s was %s", args[0], oom)}
	case interrupted:
		return ErrInterrupted
	case ws.Signaled():
		return &ExitError{128 + int(ws.Signal()), fmt.Sprintf("%s was killed by signal %s", args[0], ws.Signal())}
	case ws.ExitStatus() != 0 && oom != "":
		return &ExitError{ws.ExitStatus(), fmt.Sprintf("%s exited with status %d; a process in its group was %s", args[0], ws.ExitStatus(), oom)}
	case ws.ExitStatus() != 0:
		return &ExitError{ws.ExitStatus(), fmt.Sprintf("%s exited with status %d", args[0], ws.ExitStatus())}
	}
	return nil
}

// Usage says in one line what the group's processes used: CPU time and
// throttling, peak memory under a memory limit, OOM kills, bytes read and
// written on each limited disk; prefix, when set, comes first. "" when
// the counters cannot be read.
func (g *Group) Usage(prefix string) string {
	s, err := g.Stats()
	if err != nil {
		return ""
	}
	parts := []string{}
	if prefix != "" {
		parts = append(parts, prefix)
	}
	if g.mode == V2 || slices.Contains(g.subs, cgroup1.Cpu) {
		// A group without a CPU limit is not in the v1 cpu controllers.
		parts = append(parts, fmt.Sprintf("CPU %s (throttled in %d of %d periods)", s.CPUUsage.Round(time.Millisecond), s.ThrottledPeriods, s.Periods))
	}
	if g.Limits().MemoryBytes != 0 {
		parts = append(parts, fmt.Sprintf("memory peak %s", FormatSize(int64(s.MemoryMaxUsage))))
	}
	if s.OOMKills > 0 {
		parts = append(parts, fmt.Sprintf("%d OOM kills", s.OOMKills))
	}
	for _, d := range g.Limits().IO {
		io := s.Device(d.Major, d.Minor)
		parts = append(parts, fmt.Sprintf("%d:%d read %s, wrote %s", d.Major, d.Minor, FormatSize(int64(io.ReadBytes)), FormatSize(int64(io.WriteBytes))))
	}
	return fmt.Sprintf("%s/%s: %s", Parent, g.Name(), strings.Join(parts, "; "))
}
