package localpg

import "syscall"

// setDeathSignal asks the kernel to send sig to the child when the thread
// that started it dies (see startChild, which keeps that thread alive for as
// long as the child runs).
func setDeathSignal(attr *syscall.SysProcAttr, sig syscall.Signal) {
	attr.Pdeathsig = sig
}
