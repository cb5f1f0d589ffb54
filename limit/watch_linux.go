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
// those whose full command line does (see package procmatch). It scans
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
		if exe, _ := os.Readlink(filepath.Join(dir, "exe")); self != "" && exe == self {
			continue
		}
		if err := g.Add(pid); err != nil {
			if !exists(dir) {
				continue
			}
			return err
		}
		if moved != nil {
			moved(pid, cmdline)
		}
	}
	return nil
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
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			break
		}
		// pid (comm) state ppid ...; comm may hold spaces and parentheses.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) < 2 {
			break
		}
		pid, _ = strconv.Atoi(f[1])
	}
	return out
}
