package run

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/prometheus/procfs"
	"golang.org/x/sys/unix"
)

// Client memory a size asks for, per unit: a conservative upper bound on
// what was measured (a null-driver YCSB worker costs about 12 kB, a bank
// worker 3 kB, a pgx connection a few tens of kB more; a tenant of a fleet
// 8-10 bytes while it is not active).
const (
	bytesPerWorker = 64 << 10
	bytesPerTenant = 64
	// bytesPerLoader is a COPY stream's: its batches of rows in flight.
	bytesPerLoader = 4 << 20
)

// maxThreadWorkers bounds the workers of thread I/O, which holds a thread
// per worker: Go's runtime stops the process at 10,000 threads.
const maxThreadWorkers = 8000

// memBudget returns how much memory a command may plan to allocate: half
// of the machine's available memory, less under an address-space limit
// (ulimit -v), and a description of where the figure comes from.
func memBudget() (int64, string) {
	budget, from := int64(-1), ""
	if fs, err := procfs.NewDefaultFS(); err == nil {
		if mi, err := fs.Meminfo(); err == nil && mi.MemAvailable != nil {
			budget, from = int64(*mi.MemAvailable)*1024/2, "half of this machine's available memory"
		}
	}
	var lim unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_AS, &lim) == nil && lim.Cur != unix.RLIM_INFINITY {
		left := int64(lim.Cur) - vmSize()
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
	pages, _ := strconv.ParseInt(strings.Fields(string(b))[0], 10, 64)
	return pages * int64(os.Getpagesize())
}

// CheckSize refuses, with an error matching ErrInput, a size whose n units
// of per bytes each would not fit in half the available memory (or what
// ulimit -v leaves), before anything is allocated. name is how the caller
// knows the size (a flag, a Spec field); what names a unit ("worker");
// advice says what to do instead.
func CheckSize(name string, n, per int64, what, advice string) error {
	budget, from := memBudget()
	if budget < 0 || n <= budget/per {
		return nil
	}
	return inputf("%s %d would need about %s of client memory (%s per %s), more than %s (%s): use at most %d, %s",
		name, n, HumanBytes(n*per), HumanBytes(per), what, from, HumanBytes(budget), budget/per, advice)
}

// CheckWorkers bounds a number of workers by memory, and by threads in
// thread I/O.
func CheckWorkers(name string, n int, threadIO bool) error {
	if threadIO && n > maxThreadWorkers {
		return inputf("%s %d with --io-mode thread needs a thread per worker, and Go allows 10,000: use at most %d, or --io-mode poller", name, n, maxThreadWorkers)
	}
	return CheckSize(name, int64(n), bytesPerWorker, "worker", "or spread the workers over several client machines")
}

// CheckTenants bounds a fleet's number of tenants by memory.
func CheckTenants(name string, n int) error {
	return CheckSize(name, int64(n), bytesPerTenant, "tenant", "or split the fleet over several commands with --tenant-pattern")
}

// CheckLoaders bounds init's COPY streams by memory.
func CheckLoaders(name string, n int) error {
	return CheckSize(name, int64(n), bytesPerLoader, "COPY stream", "a few per CPU of the server are enough")
}

// HumanBytes renders a size in B, kB, MB, GB, TB or PB (1024-based).
func HumanBytes(n int64) string {
	v := float64(n)
	for _, u := range []string{"B", "kB", "MB", "GB", "TB", "PB"} {
		if v < 1024 || u == "PB" {
			if u == "B" {
				return fmt.Sprintf("%d B", n)
			}
			return fmt.Sprintf("%.1f %s", v, u)
		}
		v /= 1024
	}
	return ""
}
