package limit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// A group keeps a record of where its processes were before Add moved
// them: their cgroup in each of its hierarchies. Remove puts each process
// back there, not in the root group, so that a CPU limit does not lift
// the memory limit of the cgroup a server was in. The record is a file
// next to the group's hold lock (HoldDir), so that removing a group left
// by a killed run (RemoveAbandoned) restores them too.

// origin is where a process was before it joined the group.
type origin struct {
	PID int `json:"pid"`
	// Start is the process's start time (/proc/PID/stat, field 22), which
	// tells it from a later process given the same PID.
	Start uint64 `json:"start"`
	// Cgroups are its cgroup paths by controller, as /proc/PID/cgroup
	// names them ("memory": "/user/db"); the key is "" on cgroup v2.
	Cgroups map[string]string `json:"cgroups"`
}

// recordSuffix ends the name of a group's record in its record directory:
// one JSON origin a line.
const recordSuffix = ".origins.ndjson"

// recordPath is the file of the group's record.
func (g *Group) recordPath() string { return filepath.Join(g.records, g.name+recordSuffix) }

// own reports whether path, a path from /proc/PID/cgroup, is the group's.
func (g *Group) own(path string) bool { return path == groupPath(g.name) }

// controllers returns the keys of the group's hierarchies in
// /proc/PID/cgroup: its v1 controllers, or "" for cgroup v2.
func (g *Group) controllers() []string {
	if g.mode == V2 {
		return []string{""}
	}
	out := make([]string, len(g.subs))
	for i, s := range g.subs {
		out[i] = string(s)
	}
	return out
}

// record adds pid's cgroups outside the group to the group's record.
func (g *Group) record(pid int) error {
	_, start, err := procStat(pid)
	if err != nil {
		return err
	}
	now, err := procCgroups(pid)
	if err != nil {
		return err
	}
	o := origin{PID: pid, Start: start, Cgroups: map[string]string{}}
	for _, c := range g.controllers() {
		if p, ok := now[c]; ok && !g.own(p) {
			o.Cgroups[c] = p
		}
	}
	if len(o.Cgroups) == 0 {
		return nil // in the group already
	}
	line, err := json.Marshal(o)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(g.records, 0o755); err != nil {
		return err
	}
	// One line appended in one write: a process killed at any moment
	// (SIGKILL) leaves the lines before whole, and a command's shim
	// records itself from another process (Command) without a lock.
	f, err := os.OpenFile(g.recordPath(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// readRecord returns the group's record, one origin per process (a later
// line of the same process adds to and overrides an earlier one); none
// when it has no file. A line that does not parse (cut short) is skipped.
func (g *Group) readRecord() ([]origin, error) {
	b, err := os.ReadFile(g.recordPath())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rec []origin
	for _, line := range bytes.Split(b, []byte("\n")) {
		var o origin
		if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &o) != nil {
			continue
		}
		i := slices.IndexFunc(rec, func(r origin) bool { return r.PID == o.PID && r.Start == o.Start })
		if i < 0 {
			rec = append(rec, o)
			continue
		}
		for c, p := range o.Cgroups {
			rec[i].Cgroups[c] = p
		}
	}
	return rec, nil
}

// Unrestored returns one line for each process the last Remove could not
// put back in a cgroup it came from, because that cgroup is gone, saying
// where it went instead.
func (g *Group) Unrestored() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.unrestored)
}

// moveBack moves each process in the group back to the cgroup it came
// from, in each hierarchy where the group still is: its own, as recorded
// by Add, or for a process born in the group that of its nearest
// ancestor with a record or outside the group (where it would have been
// born without the limit). When that cgroup is gone, the nearest parent
// of it that is there takes the process, and Unrestored says so.
func (g *Group) moveBack() error {
	rec, err := g.readRecord()
	if err != nil {
		return err
	}
	hs, err := g.hierarchies()
	if err != nil {
		return err
	}
	var errs []error
	for _, h := range hs {
		c, mount := h[0], h[1]
		pids, err := readPIDs(filepath.Join(mount, Parent, g.name, "cgroup.procs"))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, pid := range pids {
			want := g.originOf(pid, c, rec)
			to := want
			for to != "/" && !exists(filepath.Join(mount, to)) {
				to = filepath.Dir(to)
			}
			err := writePID(filepath.Join(mount, to, "cgroup.procs"), pid)
			if err != nil && to != "/" && !errors.Is(err, syscall.ESRCH) {
				// cgroup v2 keeps processes out of a group whose
				// children have controllers: the root takes any.
				to = "/"
				err = writePID(filepath.Join(mount, "cgroup.procs"), pid)
			}
			switch {
			case errors.Is(err, syscall.ESRCH):
				continue // gone
			case err != nil:
				errs = append(errs, fmt.Errorf("cannot move PID %d out of cgroup %s/%s: %w", pid, Parent, g.name, err))
				continue
			}
			if to != want {
				g.noteUnrestored(pid, c, want, to)
			}
		}
	}
	return errors.Join(errs...)
}

// noteUnrestored records that pid went to cgroup `to` of controller c
// instead of `want`, which is gone.
func (g *Group) noteUnrestored(pid int, c, want, to string) {
	what := "cgroup"
	if c != "" {
		what = c + " cgroup"
	}
	where := "the root " + what
	if to != "/" {
		where = to
	}
	line := fmt.Sprintf("PID %d went back to %s: its %s %s is gone", pid, where, what, want)
	g.mu.Lock()
	defer g.mu.Unlock()
	if !slices.Contains(g.unrestored, line) {
		g.unrestored = append(g.unrestored, line)
	}
}

// originOf returns the cgroup of controller c that pid goes back to: see
// moveBack; the root when no ancestor tells.
func (g *Group) originOf(pid int, c string, rec []origin) string {
	seen := map[int]bool{}
	for p := pid; p > 0 && !seen[p]; {
		seen[p] = true
		ppid, start, err := procStat(p)
		if err != nil {
			break
		}
		for _, r := range rec {
			if path, ok := r.Cgroups[c]; ok && r.PID == p && r.Start == start {
				return path
			}
		}
		if now, err := procCgroups(p); err == nil {
			if path, ok := now[c]; ok && !g.own(path) {
				return path
			}
		}
		p = ppid
	}
	return "/"
}

// procCgroups returns pid's cgroup path by controller, from
// /proc/PID/cgroup: "memory" → "/user/db" for v1 (each of co-mounted
// controllers, "cpu,cpuacct", gets the path), "" for the v2 hierarchy.
func procCgroups(pid int) (map[string]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		for _, c := range strings.Split(f[1], ",") {
			out[c] = f[2]
		}
	}
	return out, nil
}

// procStat returns pid's parent and start time from /proc/PID/stat.
func procStat(pid int) (ppid int, start uint64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, err
	}
	// pid (comm) state ppid ... starttime (field 22); comm may hold
	// spaces and parentheses.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 20 {
		return 0, 0, fmt.Errorf("malformed /proc/%d/stat", pid)
	}
	ppid, err = strconv.Atoi(f[1])
	if err != nil {
		return 0, 0, fmt.Errorf("malformed /proc/%d/stat: %w", pid, err)
	}
	start, err = strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("malformed /proc/%d/stat: %w", pid, err)
	}
	return ppid, start, nil
}

// readPIDs reads the PIDs of a cgroup.procs file.
func readPIDs(path string) ([]int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			out = append(out, pid)
		}
	}
	return out, nil
}

// writePID moves pid into the cgroup of the cgroup.procs file path.
func writePID(path string, pid int) error {
	return os.WriteFile(path, []byte(strconv.Itoa(pid)), 0)
}
