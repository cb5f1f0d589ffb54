//go:build unix

package localpg

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// platformSupported reports whether Start can work on this platform.
const platformSupported = true

// setProcAttr makes cmd run in a process group of its own (so that a Ctrl-C
// in the terminal does not reach it), as the given OS user if as is non-nil,
// and, where the platform supports it, makes it receive deathSig when the
// thread that started it dies.
func setProcAttr(cmd *exec.Cmd, as *osUser, deathSig syscall.Signal) {
	attr := &syscall.SysProcAttr{Setpgid: true}
	if as != nil {
		// Groups is empty: the child drops root's supplementary groups.
		attr.Credential = &syscall.Credential{Uid: as.uid, Gid: as.gid}
	}
	setDeathSignal(attr, deathSig)
	cmd.SysProcAttr = attr
}

// signalGroup sends sig to every process in the process group led by pid
// (see setProcAttr).
func signalGroup(pid int, sig syscall.Signal) error {
	return syscall.Kill(-pid, sig)
}

// traverseHint explains an initdb failure caused by a directory on the way
// to dir that the server user cannot enter, or returns "".
func traverseHint(dir string, as *osUser) string {
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err == nil {
			st, ok := fi.Sys().(*syscall.Stat_t)
			perm := fi.Mode().Perm()
			if ok {
				canEnter := perm&0o001 != 0 ||
					(uint32(st.Uid) == as.uid && perm&0o100 != 0) ||
					(uint32(st.Gid) == as.gid && perm&0o010 != 0)
				if !canEnter {
					return fmt.Sprintf("the %s OS user cannot enter %s (mode %v): use a directory it can reach (Options.Dir or $TMPDIR)", as.name, d, perm)
				}
			}
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}
