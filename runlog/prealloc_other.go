//go:build !linux

package runlog

import (
	"errors"
	"os"
)

// preallocate is not supported here: the reserve is written instead.
func preallocate(*os.File, int64) error { return errors.ErrUnsupported }
