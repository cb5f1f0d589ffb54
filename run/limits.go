package run

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stampede-bench/stampede/limit"
	"github.com/stampede-bench/stampede/procmatch"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/telemetry"
)

// LimitsRecord is run.json's record of the limits a run applied
// (runlog.Info.Limits).
type LimitsRecord struct {
	// Text is the limits in one line, as `stampede limit` prints them.
	Text string `json:"text"`
	// Cgroup is the cgroup's path ("/sys/fs/cgroup/stampede/run-X");
	// runs of an older stampede recorded its description, version and
	// limits around the path ("cgroup v2 PATH: cpus 1.5"). Version is
	// "cgroup v1" or "cgroup v2".
	Cgroup      string           `json:"cgroup"`
	Version     string           `json:"cgroup_version"`
	CPUs        float64          `json:"cpus,omitempty"`
	MemoryBytes int64            `json:"memory_bytes,omitempty"`
	IO          []limit.DeviceIO `json:"io,omitempty"`
	Processes   []string         `json:"processes,omitempty"`
	Cmdlines    []string         `json:"cmdlines,omitempty"`
	PIDs        []int            `json:"pids,omitempty"`
}

// runLimits is a cgroup applied to the system under test for one run.
type runLimits struct {
	group  *limit.Group
	record json.RawMessage
	text   string
	stop   func()
	// release drops the run's hold on the group (limit.Group.Hold), nil
	// without one.
	release func()
	wg      sync.WaitGroup
	once    sync.Once
	moved   atomic.Int64
	// cpus is the CPU limit (0: none); from and to are the group's
	// counters at the measured period's start and end (see mark).
	cpus float64
	// targets names the patterns that choose the processes
	// (--limit-process postgres), "" when PIDs were given: with no
	// process moved in by the run's end, nothing was limited
	// (notLimited).
	targets  string
	mu       sync.Mutex
	from, to limit.Stats
	fromAt   time.Time
	toAt     time.Time
}

// CheckLimitTargets refuses, without touching cgroups, limits with no
// processes to apply to and process flags without a limit: what a run
// of s would refuse as it starts (a sweep asks before its first step).
func CheckLimitTargets(s Spec) error {
	f, tel := s.Limits, s.Telemetry
	if f.Limits.IsZero() {
		if len(f.Processes) > 0 || len(f.Cmdlines) > 0 || len(f.PIDs) > 0 {
			return inputf("--limit-process, --limit-cmdline and --limit-pid need a limit: --cpus, --memory, --io-read-bps, --io-write-bps, --io-read-iops or --io-write-iops")
		}
		return nil
	}
	if len(f.Processes)+len(f.Cmdlines)+len(f.PIDs)+len(tel.WatchProcess)+len(tel.WatchCmdline)+len(tel.WatchPIDs) == 0 {
		return inputf("limits apply to the system under test: say which processes with --limit-process REGEX (a process name, such as postgres), --limit-cmdline REGEX, --limit-pid PID, or --watch-process")
	}
	if len(f.Processes)+len(f.Cmdlines)+len(f.PIDs) == 0 {
		return refuseMachinePIDs("--watch-pid", tel.WatchPIDs) // the limits apply to the watched processes
	}
	return refuseMachinePIDs("--limit-pid", f.PIDs)
}

// refuseMachinePIDs refuses, as targets of a limit (given by flag), PID 1
// and stampede's own process and its ancestors: a limit applies to a
// process with its descendants, so it would throttle the whole machine,
// or stampede itself.
func refuseMachinePIDs(flag string, pids []int) error {
	const give = "give the server's PID (PostgreSQL's postmaster: the first line of postmaster.pid in its data directory)"
	for _, pid := range pids {
		switch {
		case pid == 1:
			return inputf("%s 1 is the machine's init process: a limit applies to a process and its descendants, so it would throttle every process of the machine; %s", flag, give)
		case limit.SelfOrAncestor(pid):
			return inputf("%s %d is stampede itself or a process it runs under (its shell or terminal): a limit on it would throttle stampede too; %s", flag, pid, give)
		}
	}
	return nil
}

// applyLimits creates the run's cgroup with the limits the flags give,
// moves the target processes into it and keeps moving new ones. It returns
// nil when no limit was given. The caller must call remove, also after an
// interrupt.
func applyLimits(f Limits, tel Telemetry, runID string, stderr io.Writer) (*runLimits, error) {
	if err := CheckLimitTargets(Spec{Limits: f, Telemetry: tel}); err != nil || f.Limits.IsZero() {
		return nil, err
	}
	l := f.Limits
	procs, cmdlines, pids := f.Processes, f.Cmdlines, f.PIDs
	if len(procs) == 0 && len(cmdlines) == 0 && len(pids) == 0 {
		procs, cmdlines, pids = tel.WatchProcess, tel.WatchCmdline, tel.WatchPIDs
	}
	var pats []*procmatch.Pattern
	for _, kind := range []struct {
		flag    string
		exprs   []string
		cmdline bool
	}{{"--limit-process", procs, false}, {"--limit-cmdline", cmdlines, true}} {
		for _, e := range kind.exprs {
			p, err := procmatch.Compile(e, kind.cmdline)
			if err != nil {
				return nil, inputf("%s: %v", kind.flag, err)
			}
			pats = append(pats, p)
		}
	}
	g, err := limit.Create("run-"+runID, l)
	if err != nil {
		return nil, fmt.Errorf("cannot apply the limits: %w", err)
	}
	rl := &runLimits{group: g, text: l.String(), cpus: l.CPUs}
	if len(pids) == 0 {
		rl.targets = targetFlags(f, tel)
	}
	if rl.release, err = g.Hold(limit.HoldDir); err != nil {
		fmt.Fprintf(stderr, "warning: limits: cannot mark %s as this run's (%v): if the run is killed with SIGKILL, remove it with `stampede limit --remove %s`\n", g, err, g.Name())
	}
	for _, pid := range pids {
		if err := g.Add(pid); err != nil {
			_ = g.Remove()
			return nil, fmt.Errorf("cannot apply the limits: %w", err)
		}
		rl.moved.Add(1)
		// The processes the target forked already (a server's backends,
		// checkpointer, WAL writer) join it; those it forks later are
		// born inside the group.
		for _, child := range limit.Descendants(pid) {
			if g.Add(child) == nil { // a child that exited meanwhile needs no limit
				rl.moved.Add(1)
			}
		}
	}
	rec := LimitsRecord{Text: l.String(), Cgroup: g.Path(), Version: g.Mode().String(), CPUs: l.CPUs,
		MemoryBytes: l.MemoryBytes, IO: l.IO, Processes: procs, Cmdlines: cmdlines, PIDs: pids}
	rl.record, _ = json.Marshal(rec)
	ctx, cancel := context.WithCancel(context.Background())
	stopWeighing := keepWeighed(g, stderr)
	rl.stop = func() { cancel(); stopWeighing() }
	for _, p := range pats {
		rl.wg.Add(1)
		go func() {
			defer rl.wg.Done()
			err := g.Watch(ctx, p, 0, func(int, string) { rl.moved.Add(1) })
			if err != nil && ctx.Err() == nil {
				fmt.Fprintf(stderr, "warning: limits: stopped moving processes matching %q: %v\n", p, err)
			}
		}()
	}
	fmt.Fprintf(stderr, "limits on the system under test: %s (%s)\n", rl.text, g)
	return rl, nil
}

// targetFlags names the patterns that choose a limit's processes, as
// given: --limit-process postgres, --limit-cmdline 'data/pg', or the
// watched processes' flags when the limits apply to those.
func targetFlags(f Limits, tel Telemetry) string {
	var parts []string
	add := func(flag string, exprs []string) {
		for _, e := range exprs {
			parts = append(parts, flag+" "+e)
		}
	}
	add("--limit-process", f.Processes)
	add("--limit-cmdline", f.Cmdlines)
	if len(parts) == 0 {
		add("--watch-process", tel.WatchProcess)
		add("--watch-cmdline", tel.WatchCmdline)
	}
	return strings.Join(parts, ", ")
}

// notLimited says, when not "", that no process matched the limit's
// patterns by the end of the run (none was moved into its cgroup), so
// that its limits held nothing: "no process matched --limit-process
// postgrez: nothing was limited". The run is not refused at its start
// for it, as a server may start after the run does; it is said at the
// end, in a warning, the run log and the run's summary (NotLimited).
// Safe to call after remove.
func (rl *runLimits) notLimited() string {
	if rl == nil || rl.targets == "" || rl.moved.Load() > 0 {
		return ""
	}
	return fmt.Sprintf("no process matched %s: nothing was limited (list the processes with `ps -eo pid,comm,args`)", rl.targets)
}

// reweighEvery is how often a run's cgroup is given the CPU weight of the
// threads in it (limit.Group.Reweigh): the server's backends come and go.
const reweighEvery = time.Second

// weightWarning says that g could not be given its processes' CPU weight
// (limit.Group.Reweigh), and what that means.
func weightWarning(g *limit.Group, err error) string {
	return fmt.Sprintf("cannot give %s the CPU weight of its processes (%v): on a busy machine they get less CPU than outside it, whatever the limit", g, err)
}

// keepWeighed keeps g's CPU weight that of the threads in it until the
// returned stop is called (stop returns once it has stopped), so that
// its limits change only what they limit; it warns once when the weight
// cannot be written.
func keepWeighed(g *limit.Group, stderr io.Writer) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(reweighEvery)
		defer t.Stop()
		for {
			if err := g.Reweigh(); err != nil {
				fmt.Fprintf(stderr, "warning: limits: %s\n", weightWarning(g, err))
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() { cancel(); <-done }
}

// stats returns the cgroup's counters for the telemetry record.
func (rl *runLimits) stats() any {
	st, err := rl.group.Stats()
	if err != nil {
		return map[string]string{"error": err.Error()}
	}
	return st
}

// mark reads the group's counters at the measured period's start (end
// false) or end, for cpuBound; a CPU limit's only.
func (rl *runLimits) mark(end bool) {
	if rl == nil || rl.cpus == 0 {
		return
	}
	st, err := rl.group.Stats()
	now := time.Now()
	rl.mu.Lock()
	defer rl.mu.Unlock()
	switch {
	case err != nil:
		rl.fromAt, rl.toAt = time.Time{}, time.Time{} // not known: no bound said
	case end:
		rl.to, rl.toAt = st, now
	default:
		rl.from, rl.fromAt = st, now
	}
}

// cpuBound is how the CPU limit bore on the server over the measured
// period (limit.Bound): its processes' CPU from tel's watched groups,
// or the group's own without any; nil without a CPU limit or counters.
func (rl *runLimits) cpuBound(tel *telemetry.Summary) *limit.CPUBound {
	if rl == nil || rl.cpus == 0 {
		return nil
	}
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if rl.fromAt.IsZero() || rl.toAt.IsZero() {
		return nil
	}
	used := -1.0
	if tel != nil && len(tel.Procs) > 0 {
		used = 0
		for _, p := range tel.Procs {
			used += p.CPUCores.Avg
		}
	}
	b := limit.Bound(rl.cpus, rl.from, rl.to, rl.toAt.Sub(rl.fromAt), used)
	return &b
}

// remove stops moving processes and deletes the cgroup, moving its
// processes back to the cgroups they came from (saying, in a warning and
// an event, which it could not); they keep running without its limits.
func (rl *runLimits) remove(w *runlog.Writer, stderr io.Writer) {
	if rl == nil {
		return
	}
	rl.once.Do(func() { rl.removeOnce(w, stderr) })
}

func (rl *runLimits) removeOnce(w *runlog.Writer, stderr io.Writer) {
	rl.stop()
	rl.wg.Wait()
	if w != nil {
		n, noun := rl.moved.Load(), "processes"
		if n == 1 {
			noun = "process"
		}
		w.Event(runlog.Event{Kind: "limits", Code: "removed", Message: fmt.Sprintf("%s; %d %s moved in during the run", rl.text, n, noun)})
	}
	if line := rl.notLimited(); line != "" {
		fmt.Fprintf(stderr, "warning: limits: %s\n", line)
		if w != nil {
			w.Event(runlog.Event{Kind: "limits", Code: "nothing-limited", Message: line})
		}
	}
	err := rl.group.Remove()
	for _, line := range rl.group.Unrestored() {
		fmt.Fprintf(stderr, "warning: limits: %s\n", line)
		if w != nil {
			w.Event(runlog.Event{Kind: "limits", Code: "not-restored", Message: line})
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "warning: cannot remove the cgroup %s: %v; `stampede limit --remove %s` removes it\n", rl.group, err, rl.group.Name())
		return
	}
	if rl.release != nil {
		rl.release()
	}
	fmt.Fprintf(stderr, "limits removed (%s)\n", rl.group)
}

// removeAbandonedLimits removes the cgroups of runs that were killed
// before they could (SIGKILL), which would hold the system under test
// under their limits in every later run, and says so on stderr.
func removeAbandonedLimits(stderr io.Writer) {
	found, err := limit.RemoveAbandoned(limit.HoldDir)
	if err != nil {
		fmt.Fprintf(stderr, "warning: limits: cannot look for the cgroups of killed runs in %s: %v\n", limit.HoldDir, err)
	}
	for _, a := range found {
		if a.Err != nil {
			fmt.Fprintf(stderr, "warning: cgroup %s/%s, left by a killed run, still holds %d processes under its limits and cannot be removed (%v): remove it with `stampede limit --remove %s`\n", limit.Parent, a.Name, a.Processes, a.Err, a.Name)
			continue
		}
		procs := fmt.Sprintf("its %d processes run", a.Processes)
		if a.Processes == 1 {
			procs = "its process runs"
		}
		fmt.Fprintf(stderr, "removed cgroup %s/%s, left by a killed run: %s without its limits again\n", limit.Parent, a.Name, procs)
		for _, line := range a.Unrestored {
			fmt.Fprintf(stderr, "warning: limits: %s\n", line)
		}
	}
}

// Items describes the record as (what, value) pairs, in a fixed order:
// cpus, memory, each device's rates, what the limits applied to, and
// the cgroup. Limits the record does not set are left out.
func (r LimitsRecord) Items() [][2]string {
	var out [][2]string
	if r.CPUs != 0 {
		out = append(out, [2]string{"cpus", fmt.Sprintf("%g", r.CPUs)})
	}
	if r.MemoryBytes != 0 {
		out = append(out, [2]string{"memory", limit.FormatSize(r.MemoryBytes)})
	}
	for _, d := range r.IO {
		dev := fmt.Sprintf("io %d:%d", d.Major, d.Minor)
		for _, rate := range []struct {
			what string
			v    uint64
			iops bool
		}{{"read", d.ReadBPS, false}, {"write", d.WriteBPS, false}, {"read", d.ReadIOPS, true}, {"write", d.WriteIOPS, true}} {
			switch {
			case rate.v == 0:
			case rate.iops:
				out = append(out, [2]string{dev + " " + rate.what, fmt.Sprintf("%d IOPS", rate.v)})
			default:
				out = append(out, [2]string{dev + " " + rate.what, limit.FormatSize(int64(rate.v)) + "/s"})
			}
		}
	}
	var on []string
	on = append(on, r.Processes...)
	on = append(on, r.Cmdlines...)
	for _, pid := range r.PIDs {
		on = append(on, fmt.Sprintf("pid %d", pid))
	}
	if len(on) > 0 {
		out = append(out, [2]string{"applied to", strings.Join(on, ", ")})
	}
	if r.Cgroup != "" {
		// The path once, after the version ("v2 /sys/fs/cgroup/..."),
		// also from an older record's description ("cgroup v2 PATH:
		// LIMITS"), whose limits are the rows above.
		path := strings.TrimPrefix(r.Cgroup, r.Version+" ")
		if i := strings.Index(path, ": "); i >= 0 {
			path = path[:i]
		}
		out = append(out, [2]string{"cgroup", strings.TrimSpace(strings.TrimPrefix(r.Version, "cgroup ") + " " + path)})
	}
	return out
}
