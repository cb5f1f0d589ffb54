//go:build !unix

package localpg

import (
	"errors"
	"os/exec"
	"syscall"
)

// platformSupported reports whether Start can work on this platform.
const platformSupported = false

// setProcAttr does nothing on this platform.
func setProcAttr(cmd *exec.Cmd, as *osUser, deathSig syscall.Signal) {}

// signalGroup is not supported on this platform.
func signalGroup(pid int, sig syscall.Signal) error {
	return errors.New("process groups are not supported on this platform")
}

// traverseHint returns "" on this platform.
func traverseHint(dir string, as *osUser) string { return "" }

// groupAlive reports false: there are no process groups on this platform.
func groupAlive(pgid int) bool { return false }
