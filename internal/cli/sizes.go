package cli

import (
	"os"
	"strconv"
	"strings"

	"github.com/prometheus/procfs"
	"golang.org/x/sys/unix"
)

// Client memory a size flag asks for, per unit: a conservative upper
// bound on what was measured (a null-driver YCSB worker costs about 12 kB,
// a bank worker 3 kB, a pgx connection a few tens of kB more; a tenant of
// a fleet 8-10 bytes while it is not active).
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

// checkSize refuses a size flag whose n units of per bytes each would not
// fit in memBudget, before anything is allocated. what names a unit
// ("worker"); advice says what to do instead.
func checkSize(flag string, n, per int64, what, advice string) error {
	budget, from := memBudget()
	if budget < 0 || n <= budget/per {
		return nil
	}
	return usagef("%s %d would need about %s of client memory (%s per %s), more than %s (%s): use at most %d, %s",
		flag, n, humanBytes(n*per), humanBytes(per), what, from, humanBytes(budget), budget/per, advice)
}

// checkWorkers bounds --concurrency by memory, and by threads in thread
// I/O.
func checkWorkers(flag string, n int, threadIO bool) error {
	if threadIO && n > maxThreadWorkers {
		return usagef("%s %d with --io-mode thread needs a thread per worker, and Go allows 10,000: use at most %d, or --io-mode poller", flag, n, maxThreadWorkers)
	}
	return checkSize(flag, int64(n), bytesPerWorker, "worker", "or spread the workers over several client machines")
}

// checkTenants bounds --tenants by memory.
func checkTenants(n int) error {
	return checkSize("--tenants", int64(n), bytesPerTenant, "tenant", "or split the fleet over several commands with --tenant-pattern")
}
