//go:build unix && !linux

package localpg

import "syscall"

// setDeathSignal does nothing: only Linux has a parent-death signal.
func setDeathSignal(attr *syscall.SysProcAttr, sig syscall.Signal) {}

// groupAlive reports whether the process group pgid still has members.
func groupAlive(pgid int) bool {
	return syscall.Kill(-pgid, 0) == nil
}
