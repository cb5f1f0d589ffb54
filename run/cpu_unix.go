//go:build unix

package run

import "syscall"

// processCPU returns the user and system CPU time this process has used,
// in seconds, or -1 when it cannot be read.
func processCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
