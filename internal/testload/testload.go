// Package testload tells tests that time things how busy the machine is,
// so that a figure other processes' load can move is judged only when it
// means something, and otherwise logged with the reason.
package testload

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// PerCPU is the one-minute load average divided by the CPUs, and false
// when /proc/loadavg cannot be read.
func PerCPU() (float64, bool) {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, false
	}
	fields := strings.Fields(string(raw))
	if len(fields) == 0 {
		return 0, false
	}
	l1, err := strconv.ParseFloat(fields[0], 64)
	if err != nil {
		return 0, false
	}
	return l1 / float64(runtime.NumCPU()), true
}

// Busy reports whether the load average per CPU is above limit, and says
// so in a sentence for the test's log.
func Busy(limit float64) (bool, string) {
	l, ok := PerCPU()
	if !ok || l <= limit {
		return false, ""
	}
	return true, fmt.Sprintf("load average %.1f a CPU on %d CPUs (above %.1f): other processes' load moves this figure beyond what the test judges", l, runtime.NumCPU(), limit)
}

// Skipper is the part of testing.TB that SkipIfBusy uses.
type Skipper interface {
	Helper()
	Skip(args ...any)
}

// SkipIfBusy skips the test, saying why, when the load average per CPU is
// above limit.
func SkipIfBusy(t Skipper, limit float64) {
	t.Helper()
	if busy, why := Busy(limit); busy {
		t.Skip(why)
	}
}
