package telemetry

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// Stat is the average and the peak of one figure over a run.
type Stat struct {
	Avg float64 `json:"avg"`
	Max float64 `json:"max"`
}

// Summary holds the averages and peaks of every figure of a run's samples.
//
// Averages are what iostat, mpstat or pidstat would print for one interval
// spanning the whole run: each interval's figure weighs by its length, so
// that a run's last, partial interval (a few milliseconds when the run
// stops just after a tick) counts for its few milliseconds, not for a full
// one; per-request figures (r_await, w_await, await, areq-sz) weigh by the
// requests of the interval instead (reads, writes, or both; discards, which
// sysstat counts in await, are not in the weights). Levels (memory,
// process counts, RSS), read at the end of each interval, weigh by the
// interval's length too. Baseline samples have no rates and no length; a
// disk or interface missing from an interval (not yet attached, or idle
// since boot) counts as zero for it.
//
// Peaks of rates do not take alone an interval shorter than half the
// run's usual interval (the median length, the display interval): a rate
// over a few milliseconds says little (a dozen operations in 11 ms are a
// rate of thousands), and sysstat never prints such a short interval. It
// counts into the next whole interval (or the last one, for the run's
// last interval), as one interval spanning both, so that the peaks are
// over the same time as the averages and never below them. When every
// interval is that short, peaks come from all of them. Peaks of levels
// come from every sample, baseline included.
type Summary struct {
	// Start and End bound the samples.
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Intervals is the number of samples with rates, the short ones
	// included.
	Intervals int `json:"intervals"`
	// ShortIntervals is the number of intervals that count into a
	// neighbour's peak for being shorter than half the usual one.
	ShortIntervals int `json:"short_intervals,omitempty"`
	// Cores is the number of CPUs in the last sample.
	Cores int `json:"cores"`
	// CPUUnknown says the intervals lasted less than MinCPUInterval
	// in all: the CPU figures (the host's shares, the process groups'
	// cores) are noise, n/a in the report, and Bottleneck gives none.
	CPUUnknown bool               `json:"cpu_unknown,omitempty"`
	CPU        CPUSummary         `json:"cpu"`
	Memory     MemorySummary      `json:"memory"`
	Disks      []DiskSummary      `json:"disks,omitempty"`
	Net        []NetDevSummary    `json:"net,omitempty"`
	Procs      []ProcGroupSummary `json:"procs,omitempty"`
}

// CPUSummary summarizes the fields of [CPU], in percent of all CPUs.
type CPUSummary struct {
	User    Stat `json:"user_pct"`
	Nice    Stat `json:"nice_pct"`
	System  Stat `json:"system_pct"`
	IOWait  Stat `json:"iowait_pct"`
	IRQ     Stat `json:"irq_pct"`
	SoftIRQ Stat `json:"softirq_pct"`
	Steal   Stat `json:"steal_pct"`
	Idle    Stat `json:"idle_pct"`
}

// MemorySummary summarizes the fields of [Memory], in bytes.
type MemorySummary struct {
	// TotalBytes is MemTotal in the last sample.
	TotalBytes    uint64 `json:"total_bytes"`
	UsedBytes     Stat   `json:"used_bytes"`
	CacheBytes    Stat   `json:"cache_bytes"`
	SwapUsedBytes Stat   `json:"swap_used_bytes"`
}

// DiskSummary summarizes the fields of [Disk] for one device.
type DiskSummary struct {
	Name          string `json:"name"`
	ReadsPerSec   Stat   `json:"r_s"`
	WritesPerSec  Stat   `json:"w_s"`
	ReadKBPerSec  Stat   `json:"rkB_s"`
	WriteKBPerSec Stat   `json:"wkB_s"`
	AvgRequestKB  Stat   `json:"areq_sz_kB"`
	AvgQueueSize  Stat   `json:"aqu_sz"`
	ReadAwaitMs   Stat   `json:"r_await_ms"`
	WriteAwaitMs  Stat   `json:"w_await_ms"`
	AwaitMs       Stat   `json:"await_ms"`
	UtilPct       Stat   `json:"util_pct"`
}

// NetDevSummary summarizes the fields of [NetDev] for one interface.
type NetDevSummary struct {
	Name          string `json:"name"`
	RxBytesPerSec Stat   `json:"rx_bytes_s"`
	TxBytesPerSec Stat   `json:"tx_bytes_s"`
}

// ProcGroupSummary summarizes the fields of [ProcGroup] for one group.
type ProcGroupSummary struct {
	Name             string `json:"name"`
	Processes        Stat   `json:"processes"`
	CPUCores         Stat   `json:"cpu_cores"`
	RSSBytes         Stat   `json:"rss_bytes"`
	ReadBytesPerSec  Stat   `json:"read_bytes_s"`
	WriteBytesPerSec Stat   `json:"write_bytes_s"`
}

// acc accumulates one figure: a weighted average, and the peak of the
// values eligible for it (of all values when none is). A value that is
// not eligible (a short interval's) counts into the peak of the next
// eligible one, or of the last when none comes after it, as one interval
// spanning both: the peak is then over a partition of the run, and the
// average, over the same intervals, is never above it.
type acc struct {
	sum, weight float64
	max, maxAll float64
	n, nAll     int
	// pendSum and pendWeight are the short values since the last
	// eligible one; last and lastWeight the last eligible one (merged
	// with the short ones before it), whose merge with the short ones
	// after it stat makes; before is the peak before it.
	pendSum, pendWeight float64
	last, lastWeight    float64
	before              float64
}

// merge is the value of an interval of v and weight w joined by short
// ones of weighted sum ps and weight pw.
func merge(v, w, ps, pw float64) float64 {
	if w+pw <= 0 {
		return v
	}
	return (v*w + ps) / (w + pw)
}

// add adds value v of weight w; peak says whether it may set the peak.
func (a *acc) add(v, w float64, peak bool) {
	if a.nAll == 0 || v > a.maxAll {
		a.maxAll = v
	}
	a.nAll++
	a.sum += v * w
	a.weight += w
	if !peak {
		a.pendSum += v * w
		a.pendWeight += w
		return
	}
	m := merge(v, w, a.pendSum, a.pendWeight)
	if a.n > 0 {
		a.before = max(a.before, a.last)
	}
	a.last, a.lastWeight = m, w+a.pendWeight
	a.pendSum, a.pendWeight = 0, 0
	if a.n == 0 || m > a.max {
		a.max = m
	}
	a.n++
}

func (a acc) stat() Stat {
	var s Stat
	if a.weight > 0 {
		s.Avg = a.sum / a.weight
	}
	switch {
	case a.n > 0 && a.pendWeight > 0:
		// Short intervals after the last eligible one join it.
		s.Max = merge(a.last, a.lastWeight, a.pendSum, a.pendWeight)
		if a.n > 1 {
			s.Max = max(s.Max, a.before)
		}
	case a.n > 0:
		s.Max = a.max
	case a.nAll > 0:
		s.Max = a.maxAll
	}
	return s
}

func stats(accs []acc) []Stat {
	out := make([]Stat, len(accs))
	for i, a := range accs {
		out[i] = a.stat()
	}
	return out
}

// The figures of each kind, in a fixed order shared by Summarize and Flat.
func cpuValues(c CPU) []float64 {
	return []float64{c.User, c.Nice, c.System, c.IOWait, c.IRQ, c.SoftIRQ, c.Steal, c.Idle}
}

func diskValues(d Disk) []float64 {
	return []float64{d.ReadsPerSec, d.WritesPerSec, d.ReadKBPerSec, d.WriteKBPerSec, d.AvgRequestKB,
		d.AvgQueueSize, d.ReadAwaitMs, d.WriteAwaitMs, d.AwaitMs, d.UtilPct}
}

// diskWeights returns the weights of diskValues over an interval of secs:
// per-request figures weigh by their requests.
func diskWeights(d Disk, secs float64) []float64 {
	r, w := d.ReadsPerSec*secs, d.WritesPerSec*secs
	return []float64{secs, secs, secs, secs, r + w, secs, r, w, r + w, secs}
}

func (d DiskSummary) stats() []Stat {
	return []Stat{d.ReadsPerSec, d.WritesPerSec, d.ReadKBPerSec, d.WriteKBPerSec, d.AvgRequestKB,
		d.AvgQueueSize, d.ReadAwaitMs, d.WriteAwaitMs, d.AwaitMs, d.UtilPct}
}

func netValues(n NetDev) []float64 { return []float64{n.RxBytesPerSec, n.TxBytesPerSec} }

// procLevels and procRates split a group's figures into levels (from all
// samples) and rates (from intervals only).
func procLevels(g ProcGroup) []float64 { return []float64{float64(g.Processes), float64(g.RSSBytes)} }
func procRates(g ProcGroup) []float64 {
	return []float64{g.CPUCores, g.ReadBytesPerSec, g.WriteBytesPerSec}
}

// series accumulates the figures of named things (disks, interfaces,
// groups) in order of first appearance.
type series struct {
	names []string
	accs  map[string][]acc
	width int
}

func newSeries(width int) *series { return &series{accs: map[string][]acc{}, width: width} }

func (s *series) get(name string) []acc {
	a, ok := s.accs[name]
	if !ok {
		a = make([]acc, s.width)
		s.accs[name] = a
		s.names = append(s.names, name)
	}
	return a
}

// add adds vals, each of weight w, or of weights[i] when weights is not
// nil.
func (s *series) add(name string, vals []float64, w float64, weights []float64, peak bool) {
	a := s.get(name)
	for i, v := range vals {
		if weights != nil {
			w = weights[i]
		}
		a[i].add(v, w, peak)
	}
}

// peakShare is the shortest interval, as a share of the usual one, whose
// rates may set a peak.
const peakShare = 0.5

// UsualInterval returns the usual length of the intervals of samples: the
// median length of those with rates (the larger middle one of an even
// number), 0 when there is none. It is the display interval whenever most
// intervals are whole.
func UsualInterval(samples []Sample) time.Duration {
	var ds []time.Duration
	for _, s := range samples {
		if d := length(s); d > 0 {
			ds = append(ds, d)
		}
	}
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// length returns the length of a sample's interval on the wall clock, as
// the sample's JSON records it (without the monotonic clock readings of a
// live time.Time), so that a summary recomputed from telemetry.ndjson is
// the one computed during the run.
func length(s Sample) time.Duration { return s.End.Round(0).Sub(s.Start.Round(0)) }

// Summarize computes the averages and peaks of samples (in time order), as
// the Summary type describes.
func Summarize(samples []Sample) Summary {
	var sum Summary
	if len(samples) == 0 {
		return sum
	}
	sum.Start, sum.End = samples[0].Start, samples[len(samples)-1].End
	last := samples[len(samples)-1]
	sum.Cores = last.CPU.Cores
	sum.Memory.TotalBytes = last.Memory.TotalBytes

	// Every name that appears anywhere, so that absences count as zero.
	disks, nets := newSeries(10), newSeries(2)
	levels, rates := newSeries(2), newSeries(3)
	for _, s := range samples {
		for _, d := range s.Disks {
			disks.get(d.Name)
		}
		for _, n := range s.Net {
			nets.get(n.Name)
		}
		for _, g := range s.Procs {
			levels.get(g.Name)
			rates.get(g.Name)
		}
	}
	slices.Sort(disks.names)
	slices.Sort(nets.names)

	minPeak := time.Duration(float64(UsualInterval(samples)) * peakShare)
	cpu := make([]acc, 8)
	var rated time.Duration // the intervals' time
	var used, cache, swap acc
	for _, s := range samples {
		d := length(s)
		secs := max(d.Seconds(), 0)
		used.add(float64(s.Memory.UsedBytes), secs, true)
		cache.add(float64(s.Memory.CacheBytes), secs, true)
		swap.add(float64(s.Memory.SwapUsedBytes), secs, true)
		for _, g := range s.Procs {
			levels.add(g.Name, procLevels(g), secs, nil, true)
		}
		if d <= 0 {
			continue // a baseline: no rates
		}
		sum.Intervals++
		peak := d >= minPeak
		if !peak {
			sum.ShortIntervals++
		}
		rated += d
		for i, v := range cpuValues(s.CPU) {
			cpu[i].add(v, secs, peak)
		}
		for _, name := range disks.names {
			d := Disk{}
			if i := slices.IndexFunc(s.Disks, func(d Disk) bool { return d.Name == name }); i >= 0 {
				d = s.Disks[i]
			}
			disks.add(name, diskValues(d), 0, diskWeights(d, secs), peak)
		}
		for _, name := range nets.names {
			n := NetDev{}
			if i := slices.IndexFunc(s.Net, func(n NetDev) bool { return n.Name == name }); i >= 0 {
				n = s.Net[i]
			}
			nets.add(name, netValues(n), secs, nil, peak)
		}
		for _, name := range rates.names {
			g := ProcGroup{}
			if i := slices.IndexFunc(s.Procs, func(g ProcGroup) bool { return g.Name == name }); i >= 0 {
				g = s.Procs[i]
			}
			rates.add(name, procRates(g), secs, nil, peak)
		}
	}
	// CPU time counts in clock ticks: over less than MinCPUInterval
	// the shares and cores are noise (a tick in 174 µs is 57 cores).
	sum.CPUUnknown = sum.Intervals > 0 && rated < MinCPUInterval

	if sum.ShortIntervals == sum.Intervals {
		sum.ShortIntervals = 0 // all short: peaks come from all of them
	}
	c := stats(cpu)
	sum.CPU = CPUSummary{User: c[0], Nice: c[1], System: c[2], IOWait: c[3], IRQ: c[4], SoftIRQ: c[5], Steal: c[6], Idle: c[7]}
	sum.Memory.UsedBytes, sum.Memory.CacheBytes, sum.Memory.SwapUsedBytes = used.stat(), cache.stat(), swap.stat()
	for _, name := range disks.names {
		d := stats(disks.accs[name])
		sum.Disks = append(sum.Disks, DiskSummary{Name: name,
			ReadsPerSec: d[0], WritesPerSec: d[1], ReadKBPerSec: d[2], WriteKBPerSec: d[3], AvgRequestKB: d[4],
			AvgQueueSize: d[5], ReadAwaitMs: d[6], WriteAwaitMs: d[7], AwaitMs: d[8], UtilPct: d[9]})
	}
	for _, name := range nets.names {
		n := stats(nets.accs[name])
		sum.Net = append(sum.Net, NetDevSummary{Name: name, RxBytesPerSec: n[0], TxBytesPerSec: n[1]})
	}
	for _, name := range levels.names {
		l, r := stats(levels.accs[name]), stats(rates.accs[name])
		sum.Procs = append(sum.Procs, ProcGroupSummary{Name: name,
			Processes: l[0], RSSBytes: l[1], CPUCores: r[0], ReadBytesPerSec: r[1], WriteBytesPerSec: r[2]})
	}
	return sum
}

// Figure is one named figure of a Summary, for side-by-side comparisons.
type Figure struct {
	// Name is stable across runs: a kind, the device or group, the
	// figure and its unit, then avg or max, such as "disk_vda_wkB_s_avg"
	// or "proc_postgres_cpu_cores_max".
	Name string `json:"name"`
	// Label is what the figure is, as `stampede report`'s telemetry
	// block names it (its Row's Label), then "avg" or "max": "cpu sys %
	// (excl. irq, softirq) avg", "vda await ms (incl. discards) max".
	Label string `json:"label"`
	// Value is the figure, in Unit.
	Value float64 `json:"value"`
	// Unit is "%", "bytes", "bytes/s", "kB", "kB/s", "1/s", "ms",
	// "requests", "cores", "processes" or "CPUs".
	Unit string `json:"unit"`
}

// figureName is one figure's name, unit and label (see Row).
type figureName struct{ name, unit, label string }

// The figures' labels are iostat's, sar's and mpstat's column names, with
// what sets them apart from a reader's other meaning: sys is mpstat's
// %sys, kernel time outside interrupts (iostat's %system adds irq and
// softirq); areq-sz and await count reads, writes and discards, as
// sar -d's do.
var (
	cpuFigures = []figureName{{"user_pct", "%", "cpu usr %"}, {"nice_pct", "%", "cpu nice %"},
		{"system_pct", "%", "cpu sys % (excl. irq, softirq)"}, {"iowait_pct", "%", "cpu iowait %"},
		{"irq_pct", "%", "cpu irq %"}, {"softirq_pct", "%", "cpu softirq %"}, {"steal_pct", "%", "cpu steal %"},
		{"idle_pct", "%", "cpu idle %"}}
	memFigures  = []figureName{{"used_bytes", "bytes", "mem used"}, {"cache_bytes", "bytes", "mem buff/cache"}, {"swap_used_bytes", "bytes", "swap used"}}
	diskFigures = []figureName{{"r_s", "1/s", "r/s"}, {"w_s", "1/s", "w/s"}, {"rkB_s", "kB/s", "rkB/s"}, {"wkB_s", "kB/s", "wkB/s"},
		{"areq_sz_kB", "kB", "areq-sz kB (incl. discards)"}, {"aqu_sz", "requests", "aqu-sz"}, {"r_await_ms", "ms", "r_await ms"},
		{"w_await_ms", "ms", "w_await ms"}, {"await_ms", "ms", "await ms (incl. discards)"}, {"util_pct", "%", "%util"}}
	netFigures  = []figureName{{"rx_bytes_s", "bytes/s", "rx"}, {"tx_bytes_s", "bytes/s", "tx"}}
	procFigures = []figureName{{"processes", "processes", "procs"}, {"cpu_cores", "cores", "cores"}, {"rss_bytes", "bytes", "rss"},
		{"read_bytes_s", "bytes/s", "read"}, {"write_bytes_s", "bytes/s", "dirtied (pidstat kB_wr/s)"}}
)

// Row is one figure of a Summary with its average and peak: a row of
// `stampede report`'s telemetry block, and two Figures (Flat).
type Row struct {
	// Name is the figure's stable name without "_avg" or "_max"
	// ("cpu_system_pct", "disk_vda_await_ms"); Label what it is, as
	// the report prints it ("cpu sys % (excl. irq, softirq)", "vda
	// await ms (incl. discards)"); Unit as Figure's.
	Name, Label, Unit string
	// Kind is "cpu", "mem", "disk", "net" or "proc"; Of the device,
	// interface or process group ("" for cpu and mem).
	Kind, Of string
	Stat     Stat
}

// Rows lists the figures of s with their averages and peaks, in the
// order of the report's telemetry block: CPU, memory, then each disk,
// network interface and process group (see Flat for the names).
func (s Summary) Rows() []Row {
	var out []Row
	add := func(kind, of, prefix, labelPrefix string, names []figureName, vals []Stat) {
		for i, n := range names {
			out = append(out, Row{Name: prefix + n.name, Label: labelPrefix + n.label, Unit: n.unit, Kind: kind, Of: of, Stat: vals[i]})
		}
	}
	c := s.CPU
	add("cpu", "", "cpu_", "", cpuFigures, []Stat{c.User, c.Nice, c.System, c.IOWait, c.IRQ, c.SoftIRQ, c.Steal, c.Idle})
	add("mem", "", "mem_", "", memFigures, []Stat{s.Memory.UsedBytes, s.Memory.CacheBytes, s.Memory.SwapUsedBytes})
	for _, d := range s.Disks {
		add("disk", d.Name, "disk_"+d.Name+"_", d.Name+" ", diskFigures, d.stats())
	}
	for _, n := range s.Net {
		add("net", n.Name, "net_"+n.Name+"_", n.Name+" ", netFigures, []Stat{n.RxBytesPerSec, n.TxBytesPerSec})
	}
	taken := map[string]bool{}
	for _, g := range s.Procs {
		name := FigureName(g.Name)
		for i := 2; taken[name]; i++ {
			name = FigureName(g.Name) + "_" + strconv.Itoa(i)
		}
		taken[name] = true
		add("proc", g.Name, "proc_"+name+"_", g.Name+" ", procFigures, []Stat{g.Processes, g.CPUCores, g.RSSBytes, g.ReadBytesPerSec, g.WriteBytesPerSec})
	}
	return out
}

// Flat lists every figure of s under a stable name, avg then max for each:
// cpu_cores, cpu_*_pct, mem_total_bytes, mem_*_bytes, disk_NAME_*,
// net_NAME_*, proc_GROUP_* (see [Figure]), the Rows' figures. GROUP is
// the group's name with each run of characters other than ASCII letters
// and digits replaced by "_" ("^postgres" gives "postgres", "postgres
// (pid 42)" gives "postgres_pid_42"); a name already taken gets a suffix
// "_2", "_3" and so on.
func (s Summary) Flat() []Figure {
	out := []Figure{{Name: "cpu_cores", Label: "CPUs", Value: float64(s.Cores), Unit: "CPUs"}}
	for _, r := range s.Rows() {
		if r.Kind == "mem" && len(out) > 0 && out[len(out)-1].Name == "cpu_idle_pct_max" {
			out = append(out, Figure{Name: "mem_total_bytes", Label: "mem total", Value: float64(s.Memory.TotalBytes), Unit: "bytes"})
		}
		out = append(out,
			Figure{Name: r.Name + "_avg", Label: r.Label + " avg", Value: r.Stat.Avg, Unit: r.Unit},
			Figure{Name: r.Name + "_max", Label: r.Label + " max", Value: r.Stat.Max, Unit: r.Unit})
	}
	return out
}

// FigureName turns a group name (a pattern, "cmdline PATTERN" or "NAME
// (pid N)") into the part of a figure name that stands for it: runs of
// characters other than ASCII letters and digits become "_", trimmed at
// both ends; "" becomes "group".
func FigureName(s string) string {
	var b strings.Builder
	under := false
	for _, r := range s {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			if under && b.Len() > 0 {
				b.WriteByte('_')
			}
			under = false
			b.WriteRune(r)
			continue
		}
		under = true
	}
	if b.Len() == 0 {
		return "group"
	}
	return b.String()
}

// BusyPct is the host's CPU busy on average, in percent of all CPUs: 100
// less idle and iowait (a sweep's cpu% column).
func (s *Summary) BusyPct() float64 { return 100 - s.CPU.Idle.Avg - s.CPU.IOWait.Avg }

// DiskMBPerSec is the disks' reads and writes on average, summed, in MB
// (1024 KB) per second (a sweep's disk(MB/s) column).
func (s *Summary) DiskMBPerSec() float64 {
	var kb float64
	for _, d := range s.Disks {
		kb += d.ReadKBPerSec.Avg + d.WriteKBPerSec.Avg
	}
	return kb / 1024
}
