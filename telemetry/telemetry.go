package telemetry

import "time"

// Config says where to read system figures and which processes to watch.
type Config struct {
	// ProcRoot is the proc file system; "" means "/proc". Tests point it
	// at a fake tree.
	ProcRoot string
	// SysRoot is the sys file system; "" means "/sys". It is only used to
	// tell whole disks (/sys/block/NAME) from partitions; when it cannot
	// be read, every device of /proc/diskstats is reported.
	SysRoot string
	// WatchProcess holds regular expressions (Go syntax) matched against
	// each process's name (its command name, /proc/PID/comm, as pidstat -C
	// and pgrep match it; see package procmatch for the exact rule). The
	// figures of all matching processes are summed into one group per
	// pattern, named after the pattern. A process may belong to several
	// groups.
	WatchProcess []string
	// WatchCmdline holds regular expressions matched against each
	// process's full command line (arguments joined by spaces, as pgrep -f
	// matches it), each its own group named "cmdline PATTERN". Use it for
	// what only the command line tells, such as one PostgreSQL backend
	// role ("postgres: .* walwriter"), knowing that the command lines of
	// clients and monitors often name the server too.
	WatchCmdline []string
	// WatchPIDs lists processes to watch by PID, each its own group named
	// "NAME (pid N)" after the process's name, that also holds the
	// process's descendants (a database server's postmaster and the
	// backends it forks). The process must exist when the Sampler is
	// created; if it exits, its group reports zero processes from then on
	// (a later process that reuses the PID is not counted).
	WatchPIDs []int
	// Clock times the Sampler's reads of the kernel's counters, so that
	// each counter is divided by the time between its own two reads; nil
	// means time.Now. Tests that replay a fake ProcRoot pass a clock that
	// follows the times they give Sample.
	Clock func() time.Time
}

// Sample holds the system figures of one interval. Rates are averages over
// [Start, End], each counter divided by the time between the Sampler's two
// reads of it (which lag Start and End by the moment Sample was called and
// reached it); levels (memory, RSS, process counts) are read at End. A
// baseline sample, the first a Sampler returns, has Start equal to End and
// zero rates.
type Sample struct {
	// Start and End bound the interval.
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// CPU is the host's CPU use over the interval.
	CPU CPU `json:"cpu"`
	// Memory is the host's memory use at End.
	Memory Memory `json:"memory"`
	// Disks holds one entry per whole block device that has done any
	// I/O since boot (ram* devices are skipped), sorted by name.
	Disks []Disk `json:"disks,omitempty"`
	// Net holds one entry per network interface that has moved any byte
	// since boot (including lo), sorted by name.
	Net []NetDev `json:"net,omitempty"`
	// Procs holds one entry per Config.WatchProcess pattern, then one per
	// Config.WatchCmdline pattern, then one per Config.WatchPIDs entry, in
	// the order of the Config.
	Procs []ProcGroup `json:"procs,omitempty"`
}

// CPU is the host's CPU time split into states, each in percent of all
// CPUs' time (the states sum to 100), as mpstat reports them: System is
// mpstat's %sys, kernel time outside interrupt handlers, which iostat's
// %system and vmstat's sy exceed by IRQ and SoftIRQ. Guest time is part of
// User and Nice, as the kernel counts it.
type CPU struct {
	// Cores is the number of CPUs the kernel reports in /proc/stat.
	Cores   int     `json:"cores"`
	User    float64 `json:"user_pct"`
	Nice    float64 `json:"nice_pct"`
	System  float64 `json:"system_pct"`
	IOWait  float64 `json:"iowait_pct"`
	IRQ     float64 `json:"irq_pct"`
	SoftIRQ float64 `json:"softirq_pct"`
	Steal   float64 `json:"steal_pct"`
	Idle    float64 `json:"idle_pct"`
}

// Memory is the host's memory use, computed from /proc/meminfo as free(1)
// does.
type Memory struct {
	// TotalBytes is MemTotal.
	TotalBytes uint64 `json:"total_bytes"`
	// UsedBytes is MemTotal - MemFree - CacheBytes (MemTotal - MemFree
	// when that would be negative, as free does).
	UsedBytes uint64 `json:"used_bytes"`
	// CacheBytes is Buffers + Cached + SReclaimable (free's buff/cache).
	CacheBytes uint64 `json:"cache_bytes"`
	// SwapUsedBytes is SwapTotal - SwapFree.
	SwapUsedBytes uint64 `json:"swap_used_bytes"`
}

// Disk is one block device's extended statistics over the interval, with
// iostat -x names and formulas, and sar -d's for await and areq-sz (see
// the package documentation).
type Disk struct {
	// Name is the kernel's device name, such as "vda" or "nvme0n1".
	Name string `json:"name"`
	// ReadsPerSec and WritesPerSec are completed requests per second
	// (r/s, w/s).
	ReadsPerSec  float64 `json:"r_s"`
	WritesPerSec float64 `json:"w_s"`
	// ReadKBPerSec and WriteKBPerSec are kilobytes (1024 bytes) per
	// second (rkB/s, wkB/s).
	ReadKBPerSec  float64 `json:"rkB_s"`
	WriteKBPerSec float64 `json:"wkB_s"`
	// AvgRequestKB is the average request size in kilobytes over reads,
	// writes and discards (sar -d's areq-sz).
	AvgRequestKB float64 `json:"areq_sz_kB"`
	// AvgQueueSize is the average number of requests in flight (aqu-sz).
	AvgQueueSize float64 `json:"aqu_sz"`
	// ReadAwaitMs, WriteAwaitMs and AwaitMs are the average times in
	// milliseconds from issue to completion, queueing included, of reads
	// (iostat -x's r_await), of writes (w_await) and of reads, writes and
	// discards together (sar -d's await).
	ReadAwaitMs  float64 `json:"r_await_ms"`
	WriteAwaitMs float64 `json:"w_await_ms"`
	AwaitMs      float64 `json:"await_ms"`
	// UtilPct is the share of the interval during which the device had
	// requests in flight (%util); like iostat it is not capped, and it
	// says little about devices that serve requests in parallel.
	UtilPct float64 `json:"util_pct"`
}

// NetDev is one network interface's throughput over the interval.
type NetDev struct {
	// Name is the interface name, such as "lo" or "eth0".
	Name          string  `json:"name"`
	RxBytesPerSec float64 `json:"rx_bytes_s"`
	TxBytesPerSec float64 `json:"tx_bytes_s"`
}

// ProcGroup sums the figures of the watched processes of one pattern or
// PID. A process seen for the first time counts from its start if it
// started during the interval, and from its first sighting otherwise;
// a process that exits drops out (its last partial interval is lost).
// Each process's counters are divided by the time between the Sampler's
// own two reads of them, which can differ from the interval's nominal
// length by the time the Sampler took to be called and to reach it.
type ProcGroup struct {
	// Name is the pattern, "cmdline PATTERN", or "NAME (pid N)".
	Name string `json:"name"`
	// Processes is the number of matching processes at End.
	Processes int `json:"processes"`
	// CPUCores is the CPU time (user + system) used over the interval
	// divided by its length: 1.5 means one and a half cores busy.
	CPUCores float64 `json:"cpu_cores"`
	// RSSBytes is the resident memory at End, summed (shared pages are
	// counted once per process, as ps does).
	RSSBytes uint64 `json:"rss_bytes"`
	// ReadBytesPerSec and WriteBytesPerSec are the bytes the processes
	// caused to be read from and sent to the storage layer, per second,
	// each byte once: read_bytes and write_bytes of each of their threads'
	// /proc/PID/task/TID/io, which hold what the thread did itself, and
	// of a thread or child that exited, what it did since it was last
	// seen. (/proc/PID/io takes in, when they end, the whole I/O of exited
	// threads and reaped children, which counted it twice.) A child too
	// short-lived to be seen once counts with its parent. They are zero
	// for processes whose io files are not readable (other users'
	// processes when not root).
	ReadBytesPerSec  float64 `json:"read_bytes_s"`
	WriteBytesPerSec float64 `json:"write_bytes_s"`
}
