//go:build unix && !linux

package localpg

import "syscall"

// setDeathSignal does nothing: only Linux has a parent-death signal.
func setDeathSignal(attr *syscall.SysProcAttr, sig syscall.Signal) {}
