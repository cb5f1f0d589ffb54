package runlog

import (
	"os"
	"syscall"
)

// preallocate gives f size bytes of real blocks without writing them
// (fallocate), so that a later write within them cannot fail for want of
// space. It fails, leaving f as it was, when the disk lacks the room or
// the file system cannot preallocate.
func preallocate(f *os.File, size int64) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) {
		ferr = syscall.Fallocate(int(fd), 0, 0, size)
	}); err != nil {
		return err
	}
	return ferr
}
