package run

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// saveRootError says, in one line, why no run directory can be made under
// root (err is runlog.Create's): the directory, the reason in words rather
// than the system call's text, and what to do. A directory that cannot
// hold runs (it refuses new entries, is not a directory, is read-only) is
// bad input (ErrInput); other failures (a full disk) stay failures, as
// cannotSave says them.
func saveRootError(root string, err error) error {
	st, statErr := os.Stat(root)
	var reason string
	switch {
	case statErr == nil && !st.IsDir():
		reason = "it is not a directory"
	case errors.Is(err, syscall.ENOTDIR):
		reason = "a part of its path is a file, not a directory"
	case errors.Is(err, fs.ErrPermission):
		reason = "you may not write in it (permission denied)"
	case errors.Is(err, syscall.EROFS):
		reason = "it is on a read-only file system"
	case errors.Is(err, fs.ErrNotExist) && statErr == nil:
		// /proc and its kind: the directory exists and takes no new entries.
		reason = "it exists, but the system refuses new directories in it (a special file system such as /proc)"
	case errors.Is(err, fs.ErrNotExist):
		// MkdirAll makes missing parents: only a special file system
		// refuses so.
		reason = "the system refuses to make it (a special file system such as /proc)"
	default:
		// A full disk and the rest: not the directory's fault
		// (cannotSave names the cause and what to do).
		return cannotSave(root, err)
	}
	return asInput(fmt.Errorf("cannot save results in %s: %s: give --results-dir a directory you can write (or --results-dir none with a --results-url store)", root, reason))
}
