package limit

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
)

// Limits are the resource limits of one group. A zero field sets no limit.
type Limits struct {
	// CPUs is the CPU quota in cores: 0.5 is half a core, 2 is two cores'
	// worth of time spread over any number of cores. It becomes
	// cpu.cfs_quota_us over a cpu.cfs_period_us of 100ms on cgroup v1 and
	// cpu.max on cgroup v2.
	CPUs float64
	// MemoryBytes is the most memory the group's processes may use (page
	// cache included): memory.limit_in_bytes on cgroup v1 (and
	// memory.memsw.limit_in_bytes, so that swapping does not escape it) and
	// memory.max on cgroup v2. Past it the kernel reclaims, then OOM-kills.
	MemoryBytes int64
	// IO are the block IO limits, one entry per disk.
	IO []DeviceIO
}

// DeviceIO are the IO limits on one block device: on cgroup v1
// blkio.throttle.{read,write}_{bps,iops}_device, on cgroup v2 io.max. A zero
// rate sets no limit.
type DeviceIO struct {
	// Major and Minor are the device numbers of a whole disk (8:0 for sda,
	// 254:0 for vda); the kernel does not throttle partitions.
	Major, Minor int64
	// Source is what the user gave for the device (a path or MAJ:MIN), for
	// messages.
	Source string
	// ReadBPS and WriteBPS are bytes per second.
	ReadBPS, WriteBPS uint64
	// ReadIOPS and WriteIOPS are operations per second.
	ReadIOPS, WriteIOPS uint64
}

// MinCPUs is the smallest CPU quota: the kernel wants at least 1ms of CPU
// time per 100ms period.
const MinCPUs = 0.01

// MinMemoryBytes is the smallest memory limit Validate accepts: less does
// not leave room for a process to start.
const MinMemoryBytes = 4 << 20

// cfsPeriod is the CPU quota period in microseconds (the kernel's default).
const cfsPeriod = 100000

// cpuQuota returns the CPU quota in microseconds per cfsPeriod.
func (l Limits) cpuQuota() int64 {
	return int64(math.Round(l.CPUs * cfsPeriod))
}

// IsZero reports whether l sets no limit at all.
func (l Limits) IsZero() bool {
	return l.CPUs == 0 && l.MemoryBytes == 0 && len(l.IO) == 0
}

// Validate checks that l sets at least one limit and that each one is one
// the kernel accepts.
func (l Limits) Validate() error {
	if l.IsZero() {
		return errors.New("no limit given: set a CPU quota, a memory limit or an IO limit")
	}
	if n := runtime.NumCPU(); l.CPUs > float64(n) {
		return fmt.Errorf("--cpus %g is above the %d cores this machine has: a cgroup CPU limit above the cores never binds (its processes cannot use more than %d); give between %g and %d, or leave --cpus out for no limit", l.CPUs, n, n, MinCPUs, n)
	} else if l.CPUs != 0 && (math.IsNaN(l.CPUs) || l.CPUs < MinCPUs) {
		return fmt.Errorf("CPU quota %g is out of range: give between %g and %d cores (this machine has %d)", l.CPUs, MinCPUs, n, n)
	}
	if l.MemoryBytes < 0 {
		return fmt.Errorf("memory limit %d is negative: give a positive size such as 200M", l.MemoryBytes)
	}
	if l.MemoryBytes != 0 && l.MemoryBytes < MinMemoryBytes {
		return fmt.Errorf("memory limit %s is too small: give at least %s", FormatSize(l.MemoryBytes), FormatSize(MinMemoryBytes))
	}
	seen := map[[2]int64]string{}
	for _, d := range l.IO {
		name := d.name()
		if d.Major < 0 || d.Minor < 0 {
			return fmt.Errorf("IO limit on %s: device numbers cannot be negative", name)
		}
		if d.ReadBPS == 0 && d.WriteBPS == 0 && d.ReadIOPS == 0 && d.WriteIOPS == 0 {
			return fmt.Errorf("IO limit on %s sets no rate: give a read or write rate in bytes or operations per second", name)
		}
		key := [2]int64{d.Major, d.Minor}
		if prev, ok := seen[key]; ok {
			return fmt.Errorf("IO limits on %s and %s are for the same device %d:%d: give one entry per device", prev, name, d.Major, d.Minor)
		}
		seen[key] = name
	}
	return nil
}

// name names the device for messages: "254:0 (/var/lib/postgresql)".
func (d DeviceIO) name() string {
	dev := fmt.Sprintf("%d:%d", d.Major, d.Minor)
	if d.Source != "" && d.Source != dev {
		return dev + " (" + d.Source + ")"
	}
	return dev
}

// String describes the limits in one line: "cpus 0.5, memory 200 MiB, io
// 254:0 (/tmp) write 5 MiB/s".
func (l Limits) String() string {
	var parts []string
	if l.CPUs != 0 {
		parts = append(parts, fmt.Sprintf("cpus %g", l.CPUs))
	}
	if l.MemoryBytes != 0 {
		parts = append(parts, "memory "+FormatSize(l.MemoryBytes))
	}
	for _, d := range l.IO {
		s := "io " + d.name()
		for _, r := range []struct {
			what string
			v    uint64
			unit string
		}{{"read", d.ReadBPS, "/s"}, {"write", d.WriteBPS, "/s"}, {"read", d.ReadIOPS, " IOPS"}, {"write", d.WriteIOPS, " IOPS"}} {
			if r.v == 0 {
				continue
			}
			if r.unit == "/s" {
				s += fmt.Sprintf(" %s %s/s", r.what, FormatSize(int64(r.v)))
			} else {
				s += fmt.Sprintf(" %s %d IOPS", r.what, r.v)
			}
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return "no limits"
	}
	return strings.Join(parts, ", ")
}

// sizeUnits are the multipliers ParseSize accepts, all 1024-based.
var sizeUnits = map[string]int64{
	"": 1, "b": 1,
	"k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10,
	"m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20,
	"g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30,
	"t": 1 << 40, "tb": 1 << 40, "tib": 1 << 40,
}

// sizeForms says what ParseSize accepts, for its errors.
const sizeForms = "give a positive number of bytes with an optional K, M, G or T suffix (1024-based; KB, KiB and so on also work), such as 512K, 200M, 1.5G or 1048576"

// ParseSize parses a size in bytes: "1048576", "512K", "200M", "1.5G",
// "2T". Suffixes are 1024-based and case-insensitive, and may be written
// K, KB or KiB (and so on). A fraction is allowed with a suffix and rounded
// to whole bytes. Zero, negative and malformed sizes are errors that name
// the value and the accepted forms.
func ParseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i < 0 {
		i = len(t)
	}
	num, unit := t[:i], strings.TrimSpace(t[i:])
	mult, ok := sizeUnits[unit]
	if !ok || num == "" {
		if strings.HasPrefix(t, "-") {
			return 0, fmt.Errorf("size %q is negative: %s", s, sizeForms)
		}
		return 0, fmt.Errorf("malformed size %q: %s", s, sizeForms)
	}
	var v float64
	if mult == 1 {
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("malformed size %q: %s", s, sizeForms)
		}
		v = float64(n)
	} else {
		f, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return 0, fmt.Errorf("malformed size %q: %s", s, sizeForms)
		}
		v = math.Round(f * float64(mult))
	}
	if v <= 0 {
		return 0, fmt.Errorf("size %q is not positive: %s", s, sizeForms)
	}
	if v >= math.MaxInt64 {
		return 0, fmt.Errorf("size %q is too large: %s", s, sizeForms)
	}
	return int64(v), nil
}

// FormatSize formats a byte count with a binary unit: "200 MiB", "1.5 GiB",
// "512 B".
func FormatSize(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size {
			if n%u.size == 0 {
				return fmt.Sprintf("%d %s", n/u.size, u.name)
			}
			f := strconv.FormatFloat(float64(n)/float64(u.size), 'f', 2, 64)
			return strings.TrimRight(strings.TrimRight(f, "0"), ".") + " " + u.name
		}
	}
	return fmt.Sprintf("%d B", n)
}

// ShortSize formats a byte count as a flag takes it, in the largest unit
// it is an exact multiple of a hundredth of: "5M", "1G", "1.5G", "1.25K",
// or else bytes ("1000"); ParseSize reads it back as n.
func ShortSize(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"T", 1 << 40}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}} {
		if n < u.size {
			continue
		}
		if n%u.size == 0 || n <= math.MaxInt64/100 && n*100%u.size == 0 {
			return strconv.FormatFloat(float64(n)/float64(u.size), 'f', -1, 64) + u.name
		}
	}
	return strconv.FormatInt(n, 10)
}
