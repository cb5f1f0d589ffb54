package limit

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/stampede-bench/stampede/internal/lazyre"
)

// Mode is a cgroup version.
type Mode int

const (
	// Auto finds the version at run time: v2 when the whole hierarchy is
	// unified, else v1 (hybrid systems keep their controllers on v1).
	Auto Mode = iota
	// V1 is cgroup v1: one hierarchy per controller.
	V1
	// V2 is cgroup v2: one unified hierarchy.
	V2
)

// String returns "cgroup v1", "cgroup v2" or "cgroup (auto)".
func (m Mode) String() string {
	switch m {
	case V1:
		return "cgroup v1"
	case V2:
		return "cgroup v2"
	}
	return "cgroup (auto)"
}

// DefaultRoot is where cgroups are mounted: the cgroup2 mount on v2, the
// directory holding one mount per controller on v1.
const DefaultRoot = "/sys/fs/cgroup"

// ParentEnv names the environment variable that replaces Parent (and
// puts HoldDir under /run/PARENT): scripts/test gives each of its
// concurrent test workers a parent of its own, so that one worker's run
// does not remove another's groups as a killed run's.
const ParentEnv = "STAMPEDE_CGROUP_PARENT"

// Parent is the group under which every stampede group is made:
// stampede/NAME (or $STAMPEDE_CGROUP_PARENT/NAME).
var Parent = parentFromEnv()

// errParent is why $STAMPEDE_CGROUP_PARENT was not taken: Create, Load,
// Remove and RemoveAbandoned return it.
var errParent error

// parentFromEnv returns $STAMPEDE_CGROUP_PARENT when set, else
// "stampede"; a value that is no group name leaves "stampede" and sets
// errParent, so that no group is made anywhere the user did not mean.
func parentFromEnv() string {
	p, ok := os.LookupEnv(ParentEnv)
	if !ok {
		return "stampede"
	}
	if !validName().MatchString(p) {
		errParent = fmt.Errorf("%s=%q is no cgroup name: use letters, digits, '.', '_' and '-' (at most 64, starting with a letter or digit), or unset it for %q", ParentEnv, p, "stampede")
		return "stampede"
	}
	return p
}

// Option changes where and how groups are made.
type Option func(*options)

type options struct {
	mode    Mode
	root    string
	records string
}

// WithMode picks the cgroup version instead of finding it at run time.
func WithMode(m Mode) Option { return func(o *options) { o.mode = m } }

// WithRoot makes groups under dir instead of DefaultRoot: on v2 a cgroup2
// mount (or a fake tree of files, for tests), on v1 a directory holding one
// directory per controller (cpu, cpuacct, memory, blkio). Outside
// DefaultRoot, Create, Load and Remove do not insist on root.
func WithRoot(dir string) Option { return func(o *options) { o.root = dir } }

// WithRecordDir keeps the groups' records of where their processes came
// from in dir instead of HoldDir (for tests on a fake tree).
func WithRecordDir(dir string) Option { return func(o *options) { o.records = dir } }

func buildOptions(opts []Option) options {
	o := options{root: DefaultRoot, records: HoldDir}
	for _, f := range opts {
		f(&o)
	}
	return o
}

// ErrNotRoot is returned when the process may not write cgroups.
var ErrNotRoot = errors.New("stampede limit needs root (cgroups are writable only by root): run it with sudo")

// ErrNotExist is wrapped by Load and Remove when the group does not exist.
var ErrNotExist = errors.New("no such group")

// ErrExists is returned by Create for a name that another group has.
var ErrExists = errors.New("group exists")

// validName is what a group name may be: one path element.
var validName = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// checkName checks a group name.
func checkName(name string) error {
	if errParent != nil {
		return errParent
	}
	if !validName().MatchString(name) {
		return fmt.Errorf("invalid group name %q: use letters, digits, '.', '_' and '-' (at most 64, starting with a letter or digit)", name)
	}
	return nil
}

// DefaultWatchEvery is how often Watch scans for processes when not told.
const DefaultWatchEvery = 250 * time.Millisecond

// Stats are a group's counters since it was made. Counters a controller
// does not provide (cpuacct not mounted, memory.peak on old kernels) are
// zero.
type Stats struct {
	// CPUUsage is the CPU time the group's processes used (v1
	// cpuacct.usage, v2 cpu.stat usage_usec).
	CPUUsage time.Duration
	// Periods is the number of CPU quota periods in which the group ran;
	// ThrottledPeriods those in which it used its whole quota and had to
	// wait; ThrottledTime the total time it waited (v1 and v2 cpu.stat).
	Periods, ThrottledPeriods uint64
	ThrottledTime             time.Duration
	// MemoryUsage, MemoryMaxUsage and MemoryLimit are bytes: current use,
	// highest use (v1 memory.max_usage_in_bytes, v2 memory.peak) and the
	// limit.
	MemoryUsage, MemoryMaxUsage, MemoryLimit uint64
	// MemoryFailcnt counts the times the group hit its memory limit (v1
	// memory.failcnt plus memory.memsw.failcnt, v2 memory.events max).
	// Some kernels (6.18 with cgroup v1) leave it at 0; OOMKills is the
	// dependable sign of a group that ran out of memory.
	MemoryFailcnt uint64
	// OOMKills counts the processes the kernel's OOM killer killed in the
	// group (v1 memory.oom_control oom_kill, v2 memory.events oom_kill).
	OOMKills uint64
	// IO are the group's block IO counters, one entry per device it used
	// (v1 blkio.throttle.io_service_bytes and io_serviced, v2 io.stat).
	// v1 counts an IO when it is submitted, including IO the limit still
	// holds back; v2 counts it when the limit lets it through.
	IO []IOStats
}

// IOStats are one device's block IO counters.
type IOStats struct {
	Major, Minor          int64
	ReadBytes, WriteBytes uint64
	ReadOps, WriteOps     uint64
}

// Device returns the counters of device major:minor (zero if the group did
// no IO on it).
func (s Stats) Device(major, minor int64) IOStats {
	for _, d := range s.IO {
		if d.Major == major && d.Minor == minor {
			return d
		}
	}
	return IOStats{Major: major, Minor: minor}
}

// ioEntry returns a pointer to the entry for major:minor, adding it.
func (s *Stats) ioEntry(major, minor int64) *IOStats {
	for i := range s.IO {
		if s.IO[i].Major == major && s.IO[i].Minor == minor {
			return &s.IO[i]
		}
	}
	s.IO = append(s.IO, IOStats{Major: major, Minor: minor})
	return &s.IO[len(s.IO)-1]
}
