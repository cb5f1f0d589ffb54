package run

import (
	"github.com/stampede-bench/stampede/internal/membudget"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/workload"
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

// CheckSize refuses, with an error matching ErrInput, a size whose n units
// of per bytes each would not fit in half the available memory (or what
// ulimit -v leaves), before anything is allocated. name is how the caller
// knows the size (a flag, a Spec field); what names a unit ("worker");
// advice says what to do instead.
func CheckSize(name string, n, per int64, what, advice string) error {
	return asInput(membudget.Check(name, n, per, what, advice))
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

// checkSeries bounds a run's latency series (one per operation and per
// statement of a script, three each under a rate) by the memory of their
// histograms, so that a script of too many statements is refused in one
// line rather than ending in the Go runtime's "out of memory".
func checkSeries(n, shards int) error {
	per := stats.SeriesBytes(n, shards) / int64(max(n, 1))
	return CheckSize("latency series:", int64(n), per, "series",
		"or run fewer statements per script (each statement, script and operation is a series, three under a rate), or split the scripts over several commands")
}

// HumanBytes renders a size in B, kB, MB, GB, TB, PB or EB (1024-based).
func HumanBytes(n int64) string { return membudget.Human(n) }

// CheckWorkersOf is CheckWorkers for gen's workers, which may each hold
// more than the runner's own (a workload.WorkerSizer's buffers).
func CheckWorkersOf(name string, n int, threadIO bool, gen workload.Generator) error {
	ws, ok := gen.(workload.WorkerSizer)
	if !ok {
		return CheckWorkers(name, n, threadIO)
	}
	if err := CheckWorkers(name, n, threadIO); err != nil {
		return err
	}
	per, why := ws.WorkerBytes()
	return CheckSize(name, int64(n), bytesPerWorker+per, "worker, for "+why, "or lower those, or spread the workers over several client machines")
}
