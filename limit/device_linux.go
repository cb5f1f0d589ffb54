package limit

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/stampede-bench/stampede/internal/lazyre"
)

// sysBlock is where the kernel lists block devices by MAJ:MIN (a variable
// for tests).
var sysBlock = "/sys/dev/block"

var majMin = lazyre.New(`^(\d+):(\d+)$`)

// ResolveDevice returns the device numbers of the whole disk that spec
// names: "MAJ:MIN", a /dev node, or any path on a filesystem (a data
// directory, a file). A partition maps to the disk holding it, since the
// kernel throttles whole disks only. A path that does not exist, a
// filesystem with no disk under it (tmpfs, overlayfs) and a device the
// kernel does not know are errors.
func ResolveDevice(spec string) (major, minor int64, err error) {
	if spec == "" {
		return 0, 0, errors.New("no device given: give MAJ:MIN (see lsblk) or a path on the disk")
	}
	if m := majMin().FindStringSubmatch(spec); m != nil {
		major, _ = strconv.ParseInt(m[1], 10, 64)
		minor, _ = strconv.ParseInt(m[2], 10, 64)
		if !exists(filepath.Join(sysBlock, spec)) {
			return 0, 0, fmt.Errorf("block device %s does not exist (no %s/%s): give MAJ:MIN of a disk from lsblk, or a path on it", spec, sysBlock, spec)
		}
		return wholeDisk(spec, major, minor)
	}
	var st unix.Stat_t
	if err := unix.Stat(spec, &st); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return 0, 0, fmt.Errorf("%s does not exist: give a data directory, a file, a /dev node or MAJ:MIN of a disk", spec)
		}
		return 0, 0, fmt.Errorf("cannot find the disk holding %s: %w", spec, err)
	}
	dev := st.Dev
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFBLK:
		dev = st.Rdev
	case unix.S_IFCHR:
		return 0, 0, fmt.Errorf("%s is a character device, not a block device: give a disk (/dev/sda), a path on it, or MAJ:MIN", spec)
	}
	major, minor = int64(unix.Major(dev)), int64(unix.Minor(dev))
	id := fmt.Sprintf("%d:%d", major, minor)
	if !exists(filepath.Join(sysBlock, id)) {
		return 0, 0, fmt.Errorf("%s is on device %s, which is not a block device (tmpfs, overlayfs and network filesystems have no disk to throttle): give MAJ:MIN of the disk underneath (see lsblk)", spec, id)
	}
	return wholeDisk(spec, major, minor)
}

// wholeDisk maps a partition to the disk holding it; other devices are
// returned as they are.
func wholeDisk(spec string, major, minor int64) (int64, int64, error) {
	dir := filepath.Join(sysBlock, fmt.Sprintf("%d:%d", major, minor))
	if !exists(filepath.Join(dir, "partition")) {
		return major, minor, nil
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return 0, 0, fmt.Errorf("cannot find the disk holding %s: %w", spec, err)
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(real), "dev"))
	if err != nil {
		return 0, 0, fmt.Errorf("cannot find the disk holding partition %d:%d (%s): %w", major, minor, spec, err)
	}
	m := majMin().FindStringSubmatch(strings.TrimSpace(string(b)))
	if m == nil {
		return 0, 0, fmt.Errorf("cannot find the disk holding partition %d:%d (%s): unexpected %q in %s", major, minor, spec, b, filepath.Join(filepath.Dir(real), "dev"))
	}
	major, _ = strconv.ParseInt(m[1], 10, 64)
	minor, _ = strconv.ParseInt(m[2], 10, 64)
	return major, minor, nil
}
