package limit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/containerd/cgroups/v3"
	"github.com/containerd/cgroups/v3/cgroup1"
	"github.com/containerd/cgroups/v3/cgroup2"
	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// Group is one cgroup, "stampede/NAME", in every hierarchy it needs (v1) or
// in the unified hierarchy (v2). A Group is safe for concurrent use.
type Group struct {
	name   string
	mode   Mode
	root   string
	limits Limits
	// records is the directory of the group's record of where its
	// processes came from (origin_linux.go).
	records string
	// mu guards unrestored, what the last Remove could not put back.
	mu         sync.Mutex
	unrestored []string
	// v1 is set on cgroup v1, with subs the controllers the group is in.
	v1   cgroup1.Cgroup
	subs []cgroup1.Name
	// v2 is set on cgroup v2.
	v2 *cgroup2.Manager
}

// v1Controller is a cgroup v1 controller stampede uses, with a file that
// shows it is mounted.
type v1Controller struct {
	name cgroup1.Name
	file string
	// limit says which limit puts a group in it: a group is made, and its
	// processes moved, only in the controllers its limits use, so that a
	// CPU limit leaves a server's own memory and blkio cgroups alone.
	limit string
	// stats marks a controller used for the limit's counters only
	// (cpuacct's CPU time), joined when mounted and skipped when not.
	stats bool
}

var v1Controllers = []v1Controller{
	{cgroup1.Cpu, "cpu.cfs_quota_us", "CPU", false},
	{cgroup1.Cpuacct, "cpuacct.usage", "CPU", true},
	{cgroup1.Memory, "memory.limit_in_bytes", "memory", false},
	{cgroup1.Blkio, "blkio.throttle.write_bps_device", "IO", false},
}

// needs reports whether l has a limit of the given kind.
func (l Limits) needs(kind string) bool {
	switch kind {
	case "CPU":
		return l.CPUs != 0
	case "memory":
		return l.MemoryBytes != 0
	case "IO":
		return len(l.IO) != 0
	}
	return false
}

// groupPath is the group's path inside each hierarchy.
func groupPath(name string) string { return "/" + Parent + "/" + name }

// setup checks the name and the caller, and finds the cgroup version.
func setup(name string, opts []Option) (options, error) {
	o := buildOptions(opts)
	if err := checkName(name); err != nil {
		return o, err
	}
	system := o.root == DefaultRoot
	if o.mode == Auto {
		if system {
			switch cgroups.Mode() {
			case cgroups.Unavailable:
				return o, fmt.Errorf("no cgroup filesystem is mounted at %s: mount cgroup2 there (mount -t cgroup2 none %s) or the cgroup v1 controllers under it", DefaultRoot, DefaultRoot)
			case cgroups.Unified:
				o.mode = V2
			default:
				o.mode = V1
			}
		} else if _, err := os.Stat(filepath.Join(o.root, "cgroup.controllers")); err == nil {
			o.mode = V2
		} else {
			o.mode = V1
		}
	}
	if system && os.Geteuid() != 0 {
		return o, ErrNotRoot
	}
	return o, nil
}

// v1Hierarchy returns the mounted controllers that the limits in l use,
// or with a zero l all mounted controllers stampede uses (to find a
// group's directories), or an error naming one that a limit in l needs
// and is not mounted.
func v1Hierarchy(root string, l Limits) ([]cgroup1.Subsystem, []cgroup1.Name, error) {
	var subs []cgroup1.Subsystem
	var names []cgroup1.Name
	for _, c := range v1Controllers {
		if !l.IsZero() && !l.needs(c.limit) {
			continue
		}
		file := filepath.Join(root, string(c.name), c.file)
		if _, err := os.Stat(file); err != nil {
			if l.needs(c.limit) && !c.stats {
				return nil, nil, fmt.Errorf("the cgroup v1 %s controller is not mounted (no %s): mount it with `mount -t cgroup -o %s cgroup %s`, or drop the %s limit",
					c.name, file, c.name, filepath.Join(root, string(c.name)), c.limit)
			}
			continue
		}
		switch c.name {
		case cgroup1.Cpu:
			subs = append(subs, cgroup1.NewCpu(root))
		case cgroup1.Cpuacct:
			subs = append(subs, cgroup1.NewCpuacct(root))
		case cgroup1.Memory:
			subs = append(subs, cgroup1.NewMemory(root, cgroup1.OptionalSwap()))
		case cgroup1.Blkio:
			subs = append(subs, cgroup1.NewBlkio(root))
		}
		names = append(names, c.name)
	}
	if len(subs) == 0 {
		return nil, nil, fmt.Errorf("none of the cgroup v1 controllers cpu, cpuacct, memory, blkio is mounted under %s: mount them (mount -t cgroup -o cpu cgroup %s/cpu, and so on)", root, root)
	}
	return subs, names, nil
}

// v2Check returns an error naming a controller that a limit in l needs and
// the cgroup2 root does not offer.
func v2Check(root string, l Limits) error {
	file := filepath.Join(root, "cgroup.controllers")
	b, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("cannot read %s: %w: is cgroup2 mounted at %s?", file, err, root)
	}
	have := strings.Fields(string(b))
	for _, c := range []struct{ name, limit string }{{"cpu", "CPU"}, {"memory", "memory"}, {"io", "IO"}} {
		if l.needs(c.limit) && !slices.Contains(have, c.name) {
			return fmt.Errorf("the cgroup v2 %s controller is not available (not in %s): enable it in the kernel or in the parent cgroups, or drop the %s limit", c.name, file, c.limit)
		}
	}
	return nil
}

// Create makes the group stampede/NAME with limits l. The group must not
// exist yet. Nothing is left half-applied: if any step fails, what was
// made is removed.
func Create(name string, l Limits, opts ...Option) (*Group, error) {
	o, err := setup(name, opts)
	if err != nil {
		return nil, err
	}
	if err := l.Validate(); err != nil {
		return nil, err
	}
	path := groupPath(name)
	g := &Group{name: name, mode: o.mode, root: o.root, limits: l, records: o.records}
	switch o.mode {
	case V1:
		subs, names, err := v1Hierarchy(o.root, l)
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			if dir := filepath.Join(o.root, string(n), path); exists(dir) {
				return nil, errExists(name, dir)
			}
		}
		memsw := exists(filepath.Join(o.root, "memory", "memory.memsw.limit_in_bytes"))
		h := func() ([]cgroup1.Subsystem, error) { return subs, nil }
		cg, err := cgroup1.New(cgroup1.StaticPath(path), v1Resources(l, memsw), cgroup1.WithHierarchy(h))
		if err != nil {
			// cgroup1.New stops at the first failing controller and leaves
			// the directories it made: remove them (they hold no process).
			for _, n := range names {
				_ = os.Remove(filepath.Join(o.root, string(n), path))
			}
			return nil, applyError(name, l, err)
		}
		g.v1, g.subs = cg, names
	case V2:
		if err := v2Check(o.root, l); err != nil {
			return nil, err
		}
		if dir := filepath.Join(o.root, path); exists(dir) {
			return nil, errExists(name, dir)
		}
		// NewManager removes the group's directory itself when a write fails.
		m, err := cgroup2.NewManager(o.root, path, v2Resources(l))
		if err != nil {
			return nil, applyError(name, l, err)
		}
		g.v2 = m
	default:
		return nil, fmt.Errorf("unknown cgroup mode %d", o.mode)
	}
	// A record under the new group's name is a removed group's.
	_ = os.Remove(g.recordPath())
	return g, nil
}

// v1Resources turns l into containerd's resources for cgroup v1.
func v1Resources(l Limits, memsw bool) *specs.LinuxResources {
	r := &specs.LinuxResources{}
	if l.CPUs != 0 {
		period, quota := uint64(cfsPeriod), l.cpuQuota()
		r.CPU = &specs.LinuxCPU{Period: &period, Quota: &quota}
	}
	if l.MemoryBytes != 0 {
		m := l.MemoryBytes
		r.Memory = &specs.LinuxMemory{Limit: &m}
		if memsw {
			// memory+swap as large as memory: the limit holds with swap on.
			r.Memory.Swap = &m
		}
	}
	if len(l.IO) != 0 {
		b := &specs.LinuxBlockIO{}
		dev := func(d DeviceIO, rate uint64) specs.LinuxThrottleDevice {
			t := specs.LinuxThrottleDevice{Rate: rate}
			t.Major, t.Minor = d.Major, d.Minor
			return t
		}
		for _, d := range l.IO {
			if d.ReadBPS != 0 {
				b.ThrottleReadBpsDevice = append(b.ThrottleReadBpsDevice, dev(d, d.ReadBPS))
			}
			if d.WriteBPS != 0 {
				b.ThrottleWriteBpsDevice = append(b.ThrottleWriteBpsDevice, dev(d, d.WriteBPS))
			}
			if d.ReadIOPS != 0 {
				b.ThrottleReadIOPSDevice = append(b.ThrottleReadIOPSDevice, dev(d, d.ReadIOPS))
			}
			if d.WriteIOPS != 0 {
				b.ThrottleWriteIOPSDevice = append(b.ThrottleWriteIOPSDevice, dev(d, d.WriteIOPS))
			}
		}
		r.BlockIO = b
	}
	return r
}

// v2Resources turns l into containerd's resources for cgroup v2.
func v2Resources(l Limits) *cgroup2.Resources {
	r := &cgroup2.Resources{}
	if l.CPUs != 0 {
		period, quota := uint64(cfsPeriod), l.cpuQuota()
		r.CPU = &cgroup2.CPU{Max: cgroup2.NewCPUMax(&quota, &period)}
	}
	if l.MemoryBytes != 0 {
		m := l.MemoryBytes
		r.Memory = &cgroup2.Memory{Max: &m}
	}
	if len(l.IO) != 0 {
		io := &cgroup2.IO{}
		for _, d := range l.IO {
			for _, e := range []struct {
				t cgroup2.IOType
				v uint64
			}{{cgroup2.ReadBPS, d.ReadBPS}, {cgroup2.WriteBPS, d.WriteBPS}, {cgroup2.ReadIOPS, d.ReadIOPS}, {cgroup2.WriteIOPS, d.WriteIOPS}} {
				if e.v != 0 {
					io.Max = append(io.Max, cgroup2.Entry{Type: e.t, Major: d.Major, Minor: d.Minor, Rate: e.v})
				}
			}
		}
		r.IO = io
	}
	return r
}

// applyError explains a failure to write a group's files.
func applyError(name string, l Limits, err error) error {
	switch {
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("cannot write cgroup %s/%s: %w: %s", Parent, name, err, ErrNotRoot.Error())
	case (errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENODEV)) && len(l.IO) != 0:
		return fmt.Errorf("the kernel refused the limits for cgroup %s/%s (%s): %w: an IO limit must name a whole disk that exists (see lsblk)", Parent, name, l, err)
	}
	return fmt.Errorf("cannot apply %s to cgroup %s/%s: %w", l, Parent, name, err)
}

func errExists(name, dir string) error {
	return existsError{fmt.Sprintf("cgroup %s/%s already exists (%s): pick another name, or remove it with `stampede limit --remove %s`", Parent, name, dir, name)}
}

// existsError is Create's error for a taken name; it matches ErrExists.
type existsError struct{ msg string }

func (e existsError) Error() string        { return e.msg }
func (e existsError) Is(target error) bool { return target == ErrExists }

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// Load opens the existing group stampede/NAME. Its Limits are unknown
// (zero).
func Load(name string, opts ...Option) (*Group, error) {
	o, err := setup(name, opts)
	if err != nil {
		return nil, err
	}
	path := groupPath(name)
	g := &Group{name: name, mode: o.mode, root: o.root, records: o.records}
	switch o.mode {
	case V1:
		subs, _, err := v1Hierarchy(o.root, Limits{})
		if err != nil {
			return nil, err
		}
		h := func() ([]cgroup1.Subsystem, error) { return subs, nil }
		cg, err := cgroup1.Load(cgroup1.StaticPath(path), cgroup1.WithHierarchy(h))
		if errors.Is(err, cgroup1.ErrCgroupDeleted) {
			return nil, fmt.Errorf("no cgroup %s/%s under %s: %w", Parent, name, o.root, ErrNotExist)
		}
		if err != nil {
			return nil, fmt.Errorf("cannot load cgroup %s/%s: %w", Parent, name, err)
		}
		g.v1 = cg
		for _, s := range cg.Subsystems() {
			g.subs = append(g.subs, s.Name())
		}
	case V2:
		if !exists(filepath.Join(o.root, path)) {
			return nil, fmt.Errorf("no cgroup %s/%s under %s: %w", Parent, name, o.root, ErrNotExist)
		}
		m, err := cgroup2.Load(path, cgroup2.WithMountpoint(o.root))
		if err != nil {
			return nil, fmt.Errorf("cannot load cgroup %s/%s: %w", Parent, name, err)
		}
		g.v2 = m
	}
	return g, nil
}

// Name returns the group's name (without the stampede/ prefix).
func (g *Group) Name() string { return g.name }

// Mode returns the group's cgroup version.
func (g *Group) Mode() Mode { return g.mode }

// Limits returns the limits the group was created with (zero for a loaded
// group).
func (g *Group) Limits() Limits { return g.limits }

// Paths returns the group's directories: one per controller on v1, one on
// v2.
func (g *Group) Paths() []string {
	if g.mode == V2 {
		return []string{filepath.Join(g.root, groupPath(g.name))}
	}
	var out []string
	for _, s := range g.subs {
		out = append(out, filepath.Join(g.root, string(s), groupPath(g.name)))
	}
	return out
}

// String describes the group in one line: version, directories and
// limits, as in "cgroup v1 /sys/fs/cgroup/{cpu,cpuacct,memory,blkio}/stampede/db:
// cpus 0.5, memory 200 MiB".
func (g *Group) String() string {
	s := g.mode.String() + " " + g.Path()
	if !g.limits.IsZero() {
		s += ": " + g.limits.String()
	}
	return s
}

// Add moves the running process pid (with all its threads) into the group,
// after recording the cgroups it is in, where Remove puts it back. Its
// children stay where they are; those it starts later are born in the
// group.
func (g *Group) Add(pid int) error {
	if pid <= 0 {
		return fmt.Errorf("%d is not a process ID", pid)
	}
	if !exists(fmt.Sprintf("/proc/%d", pid)) {
		return fmt.Errorf("PID %d is gone", pid)
	}
	// Where it is now is where Remove puts it back.
	err := g.record(pid)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ESRCH):
		return fmt.Errorf("PID %d is gone", pid)
	case err != nil:
		return fmt.Errorf("cannot record the cgroups of PID %d in %s before moving it into cgroup %s/%s: %w", pid, g.recordPath(), Parent, g.name, err)
	}
	if g.v2 != nil {
		err = g.v2.AddProc(uint64(pid))
	} else {
		err = g.v1.Add(cgroup1.Process{Pid: pid})
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.ESRCH):
		return fmt.Errorf("PID %d is gone", pid)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("cannot move PID %d into cgroup %s/%s: %w: %s", pid, Parent, g.name, err, ErrNotRoot.Error())
	}
	return fmt.Errorf("cannot move PID %d into cgroup %s/%s: %w", pid, Parent, g.name, err)
}

// PIDs returns the processes in the group (on v1, in its first
// controller).
func (g *Group) PIDs() ([]int, error) {
	var pids []int
	if g.v2 != nil {
		ps, err := g.v2.Procs(true)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			pids = append(pids, int(p))
		}
		return pids, nil
	}
	ps, err := g.v1.Processes(g.subs[0], true)
	if err != nil {
		return nil, err
	}
	for _, p := range ps {
		pids = append(pids, p.Pid)
	}
	return pids, nil
}

// Stats reads the group's counters.
func (g *Group) Stats() (Stats, error) {
	var s Stats
	if g.v2 != nil {
		m, err := g.v2.StatFiltered(cgroup2.StatCPU | cgroup2.StatMemory | cgroup2.StatMemoryEvents | cgroup2.StatIO)
		if err != nil {
			return s, fmt.Errorf("cannot read the counters of cgroup %s/%s: %w", Parent, g.name, err)
		}
		if c := m.CPU; c != nil {
			s.CPUUsage = time.Duration(c.UsageUsec) * time.Microsecond
			s.Periods, s.ThrottledPeriods = c.NrPeriods, c.NrThrottled
			s.ThrottledTime = time.Duration(c.ThrottledUsec) * time.Microsecond
		}
		if mem := m.Memory; mem != nil {
			s.MemoryUsage, s.MemoryMaxUsage, s.MemoryLimit = mem.Usage, mem.MaxUsage, mem.UsageLimit
		}
		if ev := m.MemoryEvents; ev != nil {
			s.MemoryFailcnt, s.OOMKills = ev.Max, ev.OomKill
		}
		if m.Io != nil {
			for _, e := range m.Io.Usage {
				d := s.ioEntry(int64(e.Major), int64(e.Minor))
				d.ReadBytes, d.WriteBytes, d.ReadOps, d.WriteOps = e.Rbytes, e.Wbytes, e.Rios, e.Wios
			}
		}
		return s, nil
	}
	m, err := g.v1.Stat(cgroup1.IgnoreNotExist)
	if err != nil {
		return s, fmt.Errorf("cannot read the counters of cgroup %s/%s: %w", Parent, g.name, err)
	}
	if c := m.CPU; c != nil {
		if c.Usage != nil {
			s.CPUUsage = time.Duration(c.Usage.Total)
		}
		if t := c.Throttling; t != nil {
			s.Periods, s.ThrottledPeriods, s.ThrottledTime = t.Periods, t.ThrottledPeriods, time.Duration(t.ThrottledTime)
		}
	}
	if mem := m.Memory; mem != nil && mem.Usage != nil {
		s.MemoryUsage, s.MemoryMaxUsage, s.MemoryLimit, s.MemoryFailcnt = mem.Usage.Usage, mem.Usage.Max, mem.Usage.Limit, mem.Usage.Failcnt
		if mem.Swap != nil {
			// With memory.memsw.limit_in_bytes as large as the limit, the
			// memory+swap counter is the one that fails first.
			s.MemoryFailcnt += mem.Swap.Failcnt
		}
	}
	if m.MemoryOomControl != nil {
		s.OOMKills = m.MemoryOomControl.OomKill
	}
	if b := m.Blkio; b != nil {
		for _, e := range b.IoServiceBytesRecursive {
			d := s.ioEntry(int64(e.Major), int64(e.Minor))
			switch e.Op {
			case "Read":
				d.ReadBytes = e.Value
			case "Write":
				d.WriteBytes = e.Value
			}
		}
		for _, e := range b.IoServicedRecursive {
			d := s.ioEntry(int64(e.Major), int64(e.Minor))
			switch e.Op {
			case "Read":
				d.ReadOps = e.Value
			case "Write":
				d.WriteOps = e.Value
			}
		}
	}
	return s, nil
}

// Remove moves the processes still in the group back to the cgroups they
// came from (see Unrestored for those it could not), then deletes the
// group and its record. It retries for a while if processes fork into
// the group meanwhile.
func (g *Group) Remove() error {
	var err error
	for attempt := 0; attempt < 10; attempt++ {
		if attempt > 0 {
			time.Sleep(50 * time.Millisecond)
		}
		if err = g.moveBack(); err != nil {
			continue
		}
		if g.v2 != nil {
			err = g.v2.Delete()
		} else {
			err = g.v1.Delete()
		}
		if err == nil || errors.Is(err, cgroup1.ErrCgroupDeleted) {
			g.removeParent()
			_ = os.Remove(g.recordPath())
			return nil
		}
	}
	return fmt.Errorf("cannot remove cgroup %s/%s: %w", Parent, g.name, err)
}

// hierarchies returns, for each hierarchy where the group's directory is
// still there, the controller's key in /proc/PID/cgroup ("" on v2) and
// the hierarchy's mount. In v1 it looks at every mounted controller
// stampede uses: an earlier attempt of Remove may have deleted the group
// from some (a process forked into it in between kept the others busy),
// and a group loaded by name may be in any of them.
func (g *Group) hierarchies() ([][2]string, error) {
	if g.mode == V2 {
		if !exists(filepath.Join(g.root, Parent, g.name)) {
			return nil, nil
		}
		return [][2]string{{"", g.root}}, nil
	}
	_, names, err := v1Hierarchy(g.root, Limits{})
	if err != nil {
		return nil, err
	}
	var out [][2]string
	for _, n := range names {
		mount := filepath.Join(g.root, string(n))
		if exists(filepath.Join(mount, Parent, g.name)) {
			out = append(out, [2]string{string(n), mount})
		}
	}
	return out, nil
}

// removeParent deletes the stampede parent group when no group is left in
// it. It is best effort: rmdir fails on a parent that still has groups,
// which is what should happen.
func (g *Group) removeParent() {
	if g.mode == V2 {
		dir := filepath.Join(g.root, Parent)
		if entries, err := os.ReadDir(dir); err == nil && !slices.ContainsFunc(entries, fs.DirEntry.IsDir) {
			// containerd has no call to delete a group it did not make:
			// rmdir (or, on a fake tree, removing its files) is all it takes.
			_ = os.Remove(dir)
		}
		_ = reweighParent(dir, "cpu.weight", minWeight, maxWeight)
		return
	}
	for _, s := range g.subs {
		_ = os.Remove(filepath.Join(g.root, string(s), Parent))
	}
	// A parent that other groups keep weighs what they weigh (Reweigh).
	_ = reweighParent(filepath.Join(g.root, "cpu", Parent), "cpu.shares", minShares, maxShares)
}

// Remove deletes the group stampede/NAME, moving the processes still in
// it back to the cgroups they came from (Group.Remove).
func Remove(name string, opts ...Option) error {
	g, err := Load(name, opts...)
	if err != nil {
		return err
	}
	return g.Remove()
}

// Path is where the group is: its directory, or with cgroup v1 its
// directory under each controller's, as ROOT/{cpu,memory,...}/NAME.
func (g *Group) Path() string {
	if g.mode == V1 {
		names := make([]string, len(g.subs))
		for i, s := range g.subs {
			names[i] = string(s)
		}
		return filepath.Join(g.root, "{"+strings.Join(names, ",")+"}", groupPath(g.name))
	}
	return filepath.Join(g.root, groupPath(g.name))
}
