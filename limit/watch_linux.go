package limit

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/stampede-bench/stampede/procmatch"
)

// Watch moves every process that p matches into the group: by default
// those whose name (/proc/PID/comm) matches, with a command-line pattern
// those whose full command line does (see package procmatch); and every
// process that descends from one in the group (a server's children). It scans
// /proc every `every` (0 means DefaultWatchEvery; longer than a second
// means a second), until ctx ends, and calls moved, if not nil, after each
// move.
//
// It never moves stampede itself: not this process, not its ancestors (the
// shell or sudo that started it, whose command lines hold the pattern),
// and not any process running the same executable. Kernel threads are
// skipped too. A process that exits before it can be moved is skipped; any
// other failure to move one ends Watch with an error.
func (g *Group) Watch(ctx context.Context, p *procmatch.Pattern, every time.Duration, moved func(pid int, cmdline string)) error {
	if every <= 0 {
		every = DefaultWatchEvery
	}
	every = min(every, time.Second)
	skip := ancestors()
	self, _ := os.Readlink("/proc/self/exe")
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if err := g.sweep(p, skip, self, moved); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// sweep moves the matching processes that are not in the group yet.
func (g *Group) sweep(p *procmatch.Pattern, skip map[int]bool, self string, moved func(int, string)) error {
	in := map[int]bool{}
	pids, err := g.PIDs()
	if err != nil {
		return err
	}
	for _, p := range pids {
		in[p] = true
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return err
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || skip[pid] || in[pid] {
			continue
		}
		dir := filepath.Join("/proc", e.Name())
		comm, err := os.ReadFile(filepath.Join(dir, "comm"))
		if err != nil {
			continue // gone
		}
		// The command line is read once, only when needed: for a
		// command-line pattern, a name the kernel may have cut, and a
		// process that matched (to skip kernel threads).
		var args []string
		read := false
		cmd := func() []string {
			if !read {
				read = true
				if raw, err := os.ReadFile(filepath.Join(dir, "cmdline")); err == nil && len(raw) > 0 {
					args = strings.Split(string(bytes.TrimRight(raw, "\x00")), "\x00")
				}
			}
			return args
		}
		if !p.Match(strings.TrimSuffix(string(comm), "\n"), cmd) || len(cmd()) == 0 {
			continue // no match, or a kernel thread (or a zombie, or gone)
		}
		cmdline := strings.Join(args, " ")
		if ok, err := g.take(pid, dir, self); !ok {
			if err != nil {
				return err
			}
			continue
		}
		in[pid] = true
		if moved != nil {
			moved(pid, cmdline)
		}
	}
	return g.sweepDescendants(in, skip, self, moved)
}

// take moves the process pid (its /proc directory dir) into the group,
// unless it runs stampede's own executable (self): false with no error
// for that, and for a process gone before it could be moved.
func (g *Group) take(pid int, dir, self string) (bool, error) {
	if exe, _ := os.Readlink(filepath.Join(dir, "exe")); self != "" && exe == self {
		return false, nil
	}
	if err := g.Add(pid); err != nil {
		if !exists(dir) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// sweepDescendants moves the processes that descend from one in the
// group (in) but are not in it yet: a server's children forked before
// the server was moved (a backend opened before the run's first scan,
// whose command line a --limit-cmdline pattern does not match, as
// "postgres: user db ..." does not match the postmaster's). It reads the
// group's processes' children (/proc/PID/task/TID/children), not every
// process's parent, so its cost follows the group's size.
func (g *Group) sweepDescendants(in, skip map[int]bool, self string, moved func(int, string)) error {
	queue := make([]int, 0, len(in))
	for pid := range in {
		queue = append(queue, pid)
	}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, child := range children(pid) {
			if in[child] || skip[child] {
				continue
			}
			dir := filepath.Join("/proc", strconv.Itoa(child))
			raw, err := os.ReadFile(filepath.Join(dir, "cmdline"))
			if err != nil || len(raw) == 0 {
				continue // a zombie, or gone
			}
			if ok, err := g.take(child, dir, self); !ok {
				if err != nil {
					return err
				}
				continue
			}
			in[child] = true
			queue = append(queue, child)
			if moved != nil {
				moved(child, strings.ReplaceAll(string(bytes.TrimRight(raw, "\x00")), "\x00", " "))
			}
		}
	}
	return nil
}

// Descendants lists the processes that descend from pid (its children,
// theirs, and so on), read from /proc/PID/task/TID/children; none when
// pid is gone.
func Descendants(pid int) []int {
	var out []int
	seen := map[int]bool{pid: true}
	for queue := []int{pid}; len(queue) > 0; queue = queue[1:] {
		for _, c := range children(queue[0]) {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
				queue = append(queue, c)
			}
		}
	}
	return out
}

// children lists the children of pid's threads; none when it is gone.
func children(pid int) []int {
	tasks, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		return nil
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// ppid reads a process's parent from /proc/PID/stat; false when it is
// gone.
func ppid(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// pid (comm) state ppid ...; comm may hold spaces and parentheses.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 2 {
		return 0, false
	}
	pp, err := strconv.Atoi(f[1])
	return pp, err == nil
}

// SelfOrAncestor reports whether pid is this process or one of its
// ancestors (its shell, terminal, test runner), up to but not including
// init: a limit on one would throttle this process too.
func SelfOrAncestor(pid int) bool { return ancestors()[pid] }

// ancestors returns this process and its ancestors, up to init.
func ancestors() map[int]bool {
	out := map[int]bool{}
	for pid := os.Getpid(); pid > 1 && !out[pid]; {
		out[pid] = true
		pp, ok := ppid(pid)
		if !ok {
			break
		}
		pid = pp
	}
	return out
}
