package limit

import (
	"errors"
	"fmt"
	"math"

	"github.com/spf13/pflag"
)

// Flags are the command-line flags that set Limits: --cpus, --memory,
// --io-read-bps, --io-write-bps, --io-read-iops, --io-write-iops, and
// --io-path or --io-device for the disk the IO limits apply to. Register
// them on a flag set, parse it, then call Limits.
type Flags struct {
	CPUs                    float64
	Memory                  string
	IOReadBPS, IOWriteBPS   string
	IOReadIOPS, IOWriteIOPS int64
	IOPath, IODevice        string

	fs *pflag.FlagSet
}

// Register adds the flags to fs.
func (f *Flags) Register(fs *pflag.FlagSet) {
	f.fs = fs
	fs.Float64Var(&f.CPUs, "cpus", 0, "CPU quota in cores, as docker --cpus: 0.5 is half a core")
	fs.StringVar(&f.Memory, "memory", "", "memory limit, page cache included: 512K, 200M, 1.5G (1024-based); past it the kernel reclaims, then OOM-kills")
	fs.StringVar(&f.IOReadBPS, "io-read-bps", "", "disk read limit in bytes per second: 5M")
	fs.StringVar(&f.IOWriteBPS, "io-write-bps", "", "disk write limit in bytes per second: 5M (cgroup v1 throttles only direct IO writes)")
	fs.Int64Var(&f.IOReadIOPS, "io-read-iops", 0, "disk read limit in operations per second")
	fs.Int64Var(&f.IOWriteIOPS, "io-write-iops", 0, "disk write limit in operations per second")
	fs.StringVar(&f.IOPath, "io-path", "", "the disk the IO limits apply to, as a path on it: a data directory, a file or a /dev node")
	fs.StringVar(&f.IODevice, "io-device", "", "the disk the IO limits apply to, as MAJ:MIN (see lsblk)")
}

// changed reports whether the flag was given.
func (f *Flags) changed(name string) bool {
	return f.fs != nil && f.fs.Changed(name)
}

// Limits returns the limits the flags set, zero if none was given. Errors
// name the flag and say what to give instead.
func (f *Flags) Limits() (Limits, error) {
	var l Limits
	if f.changed("cpus") || f.CPUs != 0 {
		if math.IsNaN(f.CPUs) || f.CPUs <= 0 {
			return Limits{}, fmt.Errorf("--cpus %g: give a positive number of cores, such as 0.5", f.CPUs)
		}
		l.CPUs = f.CPUs
	}
	size := func(flag, v string) (int64, error) {
		if v == "" && !f.changed(flag) {
			return 0, nil
		}
		n, err := ParseSize(v)
		if err != nil {
			return 0, fmt.Errorf("--%s: %w", flag, err)
		}
		return n, nil
	}
	var err error
	if l.MemoryBytes, err = size("memory", f.Memory); err != nil {
		return Limits{}, err
	}
	d := DeviceIO{}
	var rbps, wbps int64
	if rbps, err = size("io-read-bps", f.IOReadBPS); err != nil {
		return Limits{}, err
	}
	if wbps, err = size("io-write-bps", f.IOWriteBPS); err != nil {
		return Limits{}, err
	}
	d.ReadBPS, d.WriteBPS = uint64(rbps), uint64(wbps)
	for _, o := range []struct {
		flag string
		v    int64
		to   *uint64
	}{{"io-read-iops", f.IOReadIOPS, &d.ReadIOPS}, {"io-write-iops", f.IOWriteIOPS, &d.WriteIOPS}} {
		if o.v < 0 || (o.v == 0 && f.changed(o.flag)) {
			return Limits{}, fmt.Errorf("--%s %d: give a positive number of operations per second", o.flag, o.v)
		}
		*o.to = uint64(o.v)
	}
	rates := d.ReadBPS != 0 || d.WriteBPS != 0 || d.ReadIOPS != 0 || d.WriteIOPS != 0
	switch {
	case f.IOPath != "" && f.IODevice != "":
		return Limits{}, errors.New("give either --io-path or --io-device, not both")
	case rates && f.IOPath == "" && f.IODevice == "":
		return Limits{}, errors.New("an IO limit needs a disk: give --io-path (a path on it, such as the data directory) or --io-device MAJ:MIN")
	case !rates && (f.IOPath != "" || f.IODevice != ""):
		return Limits{}, errors.New("--io-path and --io-device say which disk the IO limits apply to: give one of --io-read-bps, --io-write-bps, --io-read-iops, --io-write-iops too")
	case rates:
		d.Source = f.IOPath + f.IODevice
		flag := "--io-path"
		if f.IODevice != "" {
			flag = "--io-device"
		}
		if d.Major, d.Minor, err = ResolveDevice(d.Source); err != nil {
			return Limits{}, fmt.Errorf("%s: %w", flag, err)
		}
		l.IO = []DeviceIO{d}
	}
	if l.IsZero() {
		return l, nil
	}
	return l, l.Validate()
}
