// Package membudget says how much client memory a command may plan to
// allocate, so that a size given on the command line (tables, field
// lengths, workers) is refused in one line before it is allocated rather
// than ending in the Go runtime's fatal "out of memory". It is a leaf:
// workloads, the run package and the command-line parsers use it.
package membudget

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/prometheus/procfs"
	"golang.org/x/sys/unix"
)

// Budget returns how much memory a command may plan to allocate: half of
// the machine's available memory, less under an address-space limit
// (ulimit -v), and a description of where the figure comes from. It
// returns -1 when neither is known.
func Budget() (int64, string) {
	budget, from := int64(-1), ""
	if fs, err := procfs.NewDefaultFS(); err == nil {
		if mi, err := fs.Meminfo(); err == nil && mi.MemAvailable != nil {
			budget, from = int64(*mi.MemAvailable)*1024/2, "half of this machine's available memory"
		}
	}
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_AS, &lim) == nil && lim.Cur != unix.RLIM_INFINITY {
		left := int64(min(lim.Cur, math.MaxInt64)) - vmSize()
		if b := left / 2; budget < 0 || b < budget {
			budget, from = max(b, 0), "half of what the address-space limit (ulimit -v) leaves"
		}
	}
	return budget, from
}

// vmSize is this process's virtual memory size in bytes (0 if unknown).
func vmSize() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	pages, _ := strconv.ParseInt(f[0], 10, 64)
	return pages * int64(os.Getpagesize())
}

// Check returns an error when n units of per bytes each would not fit in
// the Budget, nil otherwise. name is the size as the user gave it (a
// flag: "--tables 100000000"), what names a unit ("table"), advice says
// what to do instead ("or spread ..."). The error is one line naming the
// size, what it would need, the budget and the largest value that fits.
func Check(name string, n, per int64, what, advice string) error {
	budget, from := Budget()
	return check(budget, from, name, n, per, what, advice)
}

// check is Check with the budget given.
func check(budget int64, from, name string, n, per int64, what, advice string) error {
	per = max(per, 1)
	if budget < 0 || n <= budget/per {
		return nil
	}
	return fmt.Errorf("%s %d would need about %s of client memory (%s per %s), more than %s (%s): use at most %d, %s",
		name, n, Human(Mul(n, per)), Human(per), what, from, Human(budget), budget/per, advice)
}

// Mul returns a×b for non-negative a and b, or math.MaxInt64 when the
// product does not fit.
func Mul(a, b int64) int64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

// Human renders a size in B, kB, MB, GB, TB, PB or EB (1024-based).
func Human(n int64) string {
	v := float64(n)
	for _, u := range []string{"B", "kB", "MB", "GB", "TB", "PB", "EB"} {
		if v < 1024 || u == "EB" {
			if u == "B" {
				return fmt.Sprintf("%d B", n)
			}
			return fmt.Sprintf("%.1f %s", v, u)
		}
		v /= 1024
	}
	return ""
}
