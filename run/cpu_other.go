//go:build !unix

package run

// processCPU returns -1: the process's CPU time is not read on this
// system.
func processCPU() float64 { return -1 }
