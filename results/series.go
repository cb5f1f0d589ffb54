package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/telemetry"
)

// Series is the time series of one run, interval by interval, for charts:
// what the run measured in each interval of its intervals log and, when it
// recorded telemetry, in each telemetry sample. Times are in seconds since
// the run's start.
//
// An interval much shorter than the run's usual one (shorter than half the
// median length, the display interval: a run's last, partial interval, a
// few milliseconds long when the run stops just after a tick) is merged
// into the interval before it (the first into the one after): its few
// operations make a rate of thousands per second out of a dozen, and a
// figure over a few milliseconds draws a spike that never happened. Merged,
// its operations, errors and latencies still count, in a point whose rate
// is exact over the merged span; dropped, they would be lost from the
// chart. A Series is a plain value; as with any Go value,
// concurrent reads are safe and writes need external synchronization.
type Series struct {
	// ID, Workload, Start and Tags identify the run (from run.json).
	ID       string
	Workload string
	Start    time.Time
	Tags     map[string]string
	// RampEnd is when the ramp-up ended, in seconds since the start; 0 when
	// the run had no ramp-up (see RampEnd).
	RampEnd float64
	// Ops holds one entry per operation series (see IsOp) that saw an
	// operation or an error, in the order of the run's series.
	Ops []OpSeries
	// Endpoints holds, when the run split its figures by endpoint, one
	// entry per part series (OP@ENDPOINT, see SplitSep) that saw an
	// operation or an error.
	Endpoints []OpSeries
	// Telemetry holds the run's telemetry samples; nil when the run has no
	// telemetry.ndjson (or no sample in it but the baseline).
	Telemetry *Telemetry
	// Warnings describe what could not be read (a truncated intervals or
	// telemetry log); the series hold what could.
	Warnings []string
}

// Span is a time span in seconds since a run's start.
type Span struct {
	// From and To bound the span.
	From float64 `json:"from_s"`
	To   float64 `json:"to_s"`
}

// OpSeries is one operation's figures in each interval of a run.
type OpSeries struct {
	// Name is the series name.
	Name string
	// Points holds one point per interval of the run (short intervals
	// merged, see Series), in order, including intervals in which the
	// operation did not run.
	Points []OpPoint
}

// OpPoint is one operation's figures over one interval.
type OpPoint struct {
	Span
	// Count is the number of successful operations (the interval
	// histogram's count) and Errors the number of failed ones.
	Count  int64 `json:"count"`
	Errors int64 `json:"errors"`
	// Rate is Count per second of the interval.
	Rate float64 `json:"ops_per_sec"`
	// P50, P95, P99 and Max are latencies in milliseconds, within the
	// histograms' precision (3 significant digits); all 0 when Count is 0.
	P50 float64 `json:"p50_ms"`
	P95 float64 `json:"p95_ms"`
	P99 float64 `json:"p99_ms"`
	Max float64 `json:"max_ms"`
}

// Telemetry is a run's telemetry samples, split into series. Every series
// has one point per sample, in order, except that the baseline sample
// (which covers no time) is left out, short samples are merged (see
// Series), and a disk or process group has points only for the samples
// that list it.
type Telemetry struct {
	// CPU is the host's CPU use.
	CPU []CPUPoint
	// Disks holds one series per block device, in order of first
	// appearance.
	Disks []DiskSeries
	// Procs holds one series per watched process group, in order of first
	// appearance.
	Procs []ProcSeries
	// Memory is the host's memory use at the end of each sample.
	Memory []MemPoint
	// Cgroup is the counters of the cgroup the run's limits applied
	// (stampede run --cpus, --memory, ...), per sample: empty for a run
	// without limits. The first sample has no point when the counters
	// were not read before it.
	Cgroup []CgroupPoint
}

// CgroupPoint is the change of the limits' cgroup counters over one
// telemetry sample (see limit.Stats).
type CgroupPoint struct {
	Span
	// CPUCores is the CPU time the cgroup used divided by the sample's
	// length; ThrottledPct the share of its CPU quota periods in which it
	// was throttled (0 without periods); ThrottledCores the time it
	// waited, divided by the sample's length.
	CPUCores       float64 `json:"cpu_cores"`
	ThrottledPct   float64 `json:"throttled_pct"`
	ThrottledCores float64 `json:"throttled_cores"`
	// MemoryBytes and MemoryLimitBytes are levels at the sample's end;
	// OOMKills and MemoryFailcnt count the events during the sample.
	MemoryBytes      uint64 `json:"memory_bytes"`
	MemoryLimitBytes uint64 `json:"memory_limit_bytes"`
	MemoryFailcnt    uint64 `json:"memory_failcnt"`
	OOMKills         uint64 `json:"oom_kills"`
	// ReadBytesPerSec and WriteBytesPerSec are the block IO of all its
	// devices, per second.
	ReadBytesPerSec  float64 `json:"read_bytes_s"`
	WriteBytesPerSec float64 `json:"write_bytes_s"`
}

// cgroupCounters is the "cgroup" field of a telemetry record: limit.Stats
// as `run` writes it (durations in nanoseconds), or {"error": ...} when
// they could not be read.
type cgroupCounters struct {
	Error                                    string `json:"error"`
	CPUUsage                                 int64
	Periods, ThrottledPeriods                uint64
	ThrottledTime                            int64
	MemoryUsage, MemoryMaxUsage, MemoryLimit uint64
	MemoryFailcnt, OOMKills                  uint64
	IO                                       []struct{ ReadBytes, WriteBytes uint64 }
}

// point returns the change from prev to c over secs seconds.
func (c *cgroupCounters) point(prev *cgroupCounters, span Span, secs float64) CgroupPoint {
	diff := func(a, b uint64) uint64 { // a counter reset (a new cgroup) counts from 0
		if a < b {
			return a
		}
		return a - b
	}
	io := func(x *cgroupCounters) (r, w uint64) {
		for _, d := range x.IO {
			r, w = r+d.ReadBytes, w+d.WriteBytes
		}
		return r, w
	}
	r1, w1 := io(c)
	r0, w0 := io(prev)
	p := CgroupPoint{Span: span,
		CPUCores:       float64(diff(uint64(max(c.CPUUsage, 0)), uint64(max(prev.CPUUsage, 0)))) / 1e9 / secs,
		ThrottledCores: float64(diff(uint64(max(c.ThrottledTime, 0)), uint64(max(prev.ThrottledTime, 0)))) / 1e9 / secs,
		MemoryBytes:    c.MemoryUsage, MemoryLimitBytes: c.MemoryLimit,
		MemoryFailcnt: diff(c.MemoryFailcnt, prev.MemoryFailcnt), OOMKills: diff(c.OOMKills, prev.OOMKills),
		ReadBytesPerSec: float64(diff(r1, r0)) / secs, WriteBytesPerSec: float64(diff(w1, w0)) / secs}
	if n := diff(c.Periods, prev.Periods); n > 0 {
		p.ThrottledPct = 100 * float64(diff(c.ThrottledPeriods, prev.ThrottledPeriods)) / float64(n)
	}
	return p
}

// MemPoint is the host's memory use at the end of one telemetry sample
// (of the last one, for samples merged), in bytes, as free(1) counts it
// (see telemetry.Memory).
type MemPoint struct {
	Span
	TotalBytes    uint64 `json:"total_bytes"`
	UsedBytes     uint64 `json:"used_bytes"`
	CacheBytes    uint64 `json:"cache_bytes"`
	SwapUsedBytes uint64 `json:"swap_used_bytes"`
}

// CPUPoint is the host's CPU use over one telemetry sample, in percent of
// all CPUs' time.
type CPUPoint struct {
	Span
	// User is user plus nice time; System is system plus irq and softirq
	// time; Busy is User + System.
	User   float64 `json:"user_pct"`
	System float64 `json:"system_pct"`
	Busy   float64 `json:"busy_pct"`
	// IOWait, Steal and Idle are the other states.
	IOWait float64 `json:"iowait_pct"`
	Steal  float64 `json:"steal_pct"`
	Idle   float64 `json:"idle_pct"`
}

// DiskSeries is one block device's throughput in each telemetry sample.
type DiskSeries struct {
	// Name is the device's name, such as "vda".
	Name string
	// Points holds the device's throughput per sample.
	Points []DiskPoint
}

// DiskPoint is one block device's throughput over one telemetry sample.
type DiskPoint struct {
	Span
	// ReadKBPerSec and WriteKBPerSec are kilobytes (1024 bytes) per second.
	ReadKBPerSec  float64 `json:"rkB_s"`
	WriteKBPerSec float64 `json:"wkB_s"`
}

// ProcSeries is one watched process group's figures in each telemetry
// sample.
type ProcSeries struct {
	// Name is the group's name: its pattern, "cmdline PATTERN", or
	// "NAME (pid N)".
	Name string
	// Points holds the group's figures per sample.
	Points []ProcPoint
}

// ProcPoint is one watched process group's figures over one telemetry
// sample.
type ProcPoint struct {
	Span
	// CPUCores is the CPU time used divided by the sample's length.
	CPUCores float64 `json:"cpu_cores"`
	// ReadBytesPerSec and WriteBytesPerSec are the storage I/O the group
	// caused, per second.
	ReadBytesPerSec  float64 `json:"read_bytes_s"`
	WriteBytesPerSec float64 `json:"write_bytes_s"`
	// RSSBytes and Processes are levels at the sample's end (of the last
	// sample, for samples merged): the resident memory summed over the
	// group's processes, and how many there were.
	RSSBytes  uint64 `json:"rss_bytes"`
	Processes int    `json:"processes"`
}

// TimeSeries reads run's intervals and telemetry into a Series: per
// operation and interval the throughput, the p50, p95, p99 and maximum
// latency and the errors, and the telemetry samples. It covers the whole
// run, ramp-up included. A truncated intervals or telemetry log (a killed
// run) is not an error: the Series holds what comes before the damage, and
// a warning says where it stopped. TimeSeries fails if the intervals
// cannot be read at all. It never modifies the run directory and is safe
// for concurrent use.
func TimeSeries(run *runlog.Run) (Series, error) {
	return timeSeries(run, nil)
}

// TelemetrySeries reads run's telemetry samples as TimeSeries does
// (Series.Telemetry), without its intervals: nil when the run has none. A
// truncated telemetry log is not an error: the samples before the damage
// are returned with a warning saying where it stopped, as are other
// failures to read it.
func TelemetrySeries(run *runlog.Run) (*Telemetry, []string) {
	tel, err := readTelemetry(run, run.Info.Start)
	if err != nil {
		return tel, []string{fmt.Sprintf("run %s: %v", run.Info.ID, err)}
	}
	return tel, nil
}

// TimeSeriesBy is TimeSeries with the part series of the operations
// (Series.Endpoints) by endpoint (by "endpoint") or merged exactly by the
// endpoints' localities (by "locality": OP@LOCALITY, from the run's
// endpoint events; parts of endpoints without one are left out); "" is
// TimeSeries.
func TimeSeriesBy(run *runlog.Run, by string) (Series, error) {
	if by != "locality" {
		return timeSeries(run, nil)
	}
	locs := Localities(run)
	return timeSeries(run, func(name string) (string, bool) {
		op, ep, ok := SplitName(name)
		if !ok {
			return name, true
		}
		loc := locs[ep]
		return op + SplitSep + loc, loc != ""
	})
}

// timeSeries is TimeSeries with the series renamed by rename (nil: kept):
// series renamed alike are merged, and those it refuses (false) are left
// out.
func timeSeries(run *runlog.Run, rename func(string) (string, bool)) (Series, error) {
	if rename == nil && run.Info.Status == runlog.StatusCompleted {
		s, err := loadSeries(run)
		if err == nil {
			// The telemetry as streamSeries reads it.
			tel, err := readTelemetry(run, run.Info.Start)
			var trunc *runlog.TruncatedError
			if errors.As(err, &trunc) {
				err = trunc
			}
			if err != nil {
				s.Warnings = append(s.Warnings, fmt.Sprintf("run %s: %v", run.Info.ID, err))
			}
			s.Telemetry = tel
			return s, nil
		}
		s, serr := streamSeries(run, rename)
		if !errors.Is(err, errNoSeries) {
			s.Warnings = append([]string{fmt.Sprintf("run %s: %v (ignored: the run's intervals were read instead)", run.Info.ID, err)}, s.Warnings...)
		}
		return s, serr
	}
	return streamSeries(run, rename)
}

// streamSeries is timeSeries from the run's intervals log, each interval
// decoded.
func streamSeries(run *runlog.Run, rename func(string) (string, bool)) (Series, error) {
	start := run.Info.Start
	s := Series{ID: run.Info.ID, Workload: run.Info.Workload, Start: start, Tags: run.Info.Tags}
	warn := func(err error) { s.Warnings = append(s.Warnings, fmt.Sprintf("run %s: %v", run.Info.ID, err)) }
	if t, ok := RampEnd(run, warn); ok {
		s.RampEnd = t.Sub(start).Seconds()
	}
	var names []string
	index := map[string]int{}
	sources := map[string][]string{} // the run's series of each output series
	addName := func(src string) {
		n, keep := src, true
		if rename != nil {
			n, keep = rename(src)
		}
		if !keep || slices.Contains(sources[n], src) {
			return
		}
		if _, ok := index[n]; !ok {
			index[n] = len(names)
			names = append(names, n)
		}
		sources[n] = append(sources[n], src)
	}
	for _, n := range run.Info.Series {
		addName(n)
	}
	// The first read: each interval's own point for each series, and its
	// bounds. pts[i] holds the points of names[i] from the interval where
	// it was first met.
	var (
		bounds  [][2]time.Time
		pts     [][]OpPoint
		firstAt []int
		srcs    []string
		scratch merger
	)
	err := run.Scan(func(iv *runlog.ScanInterval) error {
		bounds = append(bounds, [2]time.Time{iv.Start, iv.End})
		srcs = srcs[:0]
		for _, ss := range iv.Series {
			srcs = append(srcs, ss.Name)
		}
		slices.Sort(srcs)
		for _, n := range srcs {
			addName(n)
		}
		span := Span{From: iv.Start.Sub(start).Seconds(), To: iv.End.Sub(start).Seconds()}
		secs := iv.End.Sub(iv.Start).Seconds()
		for i, n := range names {
			if i == len(pts) {
				pts = append(pts, nil)
				firstAt = append(firstAt, iv.Index)
			}
			scratch.reset()
			for _, src := range sources[n] {
				if d := iv.Get(src); d != nil {
					scratch.add(d.Hist, d.Errors)
				}
			}
			pts[i] = append(pts[i], scratch.point(span, secs))
		}
		return nil
	})
	var trunc *runlog.TruncatedError
	if errors.As(err, &trunc) {
		warn(trunc)
	} else if err != nil {
		return Series{}, err
	}
	lens := make([]time.Duration, len(bounds))
	for k, b := range bounds {
		lens[k] = b[1].Sub(b[0])
	}
	groups := mergeShort(lens)
	ops := make([]OpSeries, len(names))
	used := make([]bool, len(names))
	point := func(i, k int) OpPoint { // names[i]'s point of interval k alone
		if k < firstAt[i] {
			b := bounds[k]
			return OpPoint{Span: Span{From: b[0].Sub(start).Seconds(), To: b[1].Sub(start).Seconds()}}
		}
		return pts[i][k-firstAt[i]]
	}
	// The second read, for the groups of several intervals (a short one
	// merged): their histograms merged exactly.
	merged := map[int][]OpPoint{} // by group
	groupOf := map[int]int{}      // interval -> its group, for those
	for g, ks := range groups {
		if len(ks) > 1 {
			for _, k := range ks {
				groupOf[k] = g
			}
		}
	}
	if len(groupOf) > 0 {
		mergers := make([]merger, len(names))
		for i := range mergers {
			mergers[i].eager = true
		}
		last := 0
		for k := range groupOf {
			last = max(last, k)
		}
		err := run.ScanWith(runlog.ScanOptions{Decode: func(k int) bool { _, ok := groupOf[k]; return ok }}, func(iv *runlog.ScanInterval) error {
			g, ok := groupOf[iv.Index]
			if !ok {
				return nil
			}
			ks := groups[g]
			if iv.Index == ks[0] {
				for i := range mergers {
					mergers[i].reset()
				}
			}
			for i, n := range names {
				for _, src := range sources[n] {
					if d := iv.Get(src); d != nil {
						mergers[i].add(d.Hist, d.Errors)
					}
				}
			}
			if iv.Index == ks[len(ks)-1] {
				first, end := bounds[ks[0]][0], bounds[ks[len(ks)-1]][1]
				span := Span{From: first.Sub(start).Seconds(), To: end.Sub(start).Seconds()}
				out := make([]OpPoint, len(names))
				for i := range names {
					out[i] = mergers[i].point(span, end.Sub(first).Seconds())
				}
				merged[g] = out
			}
			if iv.Index >= last {
				return runlog.ErrStopScan
			}
			return nil
		})
		if err != nil && !errors.As(err, &trunc) {
			return Series{}, err
		}
	}
	for i, n := range names {
		ops[i] = OpSeries{Name: n, Points: make([]OpPoint, len(groups))}
		for k, g := range groups {
			p := point(i, g[0])
			if len(g) > 1 {
				p = merged[k][i]
			}
			if p.Count > 0 || p.Errors > 0 {
				used[i] = true
			}
			ops[i].Points[k] = p
		}
	}
	for i, op := range ops {
		switch {
		case !used[i]:
		case IsSplit(op.Name):
			s.Endpoints = append(s.Endpoints, op)
		case IsOp(op.Name):
			s.Ops = append(s.Ops, op)
		}
	}

	tel, err := readTelemetry(run, start)
	if errors.As(err, &trunc) {
		warn(trunc)
	} else if err != nil {
		warn(err)
	}
	s.Telemetry = tel
	return s, nil
}

// opPoint is the figures of the data ds (one series' in consecutive
// intervals) over span, secs long: counts and errors summed, the rate per
// second of it, latencies from the histograms merged exactly.
func opPoint(span Span, secs float64, ds []*runlog.IntervalData) OpPoint {
	p := OpPoint{Span: span}
	for _, d := range ds {
		p.Count += d.Packed.TotalCount()
		p.Errors += d.Errors
	}
	if secs > 0 {
		p.Rate = float64(p.Count) / secs
	}
	if p.Count > 0 {
		v, mx := latencies(ds, []float64{50, 95, 99})
		p.P50, p.P95, p.P99 = stats.Ms(v[0]), stats.Ms(v[1]), stats.Ms(v[2])
		p.Max = stats.Ms(mx)
	}
	return p
}

// IntervalPoint is one operation's figures in one interval, as a live
// view receives them.
type IntervalPoint struct {
	// Name is the operation series' name.
	Name string `json:"name"`
	OpPoint
}

// IntervalPoints returns the figures of each operation series (see IsOp;
// the parts by endpoint are left out) of one interval of run: the point
// TimeSeries draws for that interval when it is not merged with another
// (a run's short last interval is, once the run has ended). Operations
// are in the order of the run's series, then by name.
func IntervalPoints(run *runlog.Run, iv *runlog.Interval) []IntervalPoint {
	start := run.Info.Start
	span := Span{From: iv.Start.Sub(start).Seconds(), To: iv.End.Sub(start).Seconds()}
	var out []IntervalPoint
	seen := map[string]bool{}
	add := func(name string) {
		d := iv.Series[name]
		if seen[name] || d == nil || !IsOp(name) || IsSplit(name) {
			return
		}
		seen[name] = true
		out = append(out, IntervalPoint{Name: name, OpPoint: opPoint(span, iv.End.Sub(iv.Start).Seconds(), []*runlog.IntervalData{d})})
	}
	for _, n := range run.Info.Series {
		add(n)
	}
	for _, n := range sortedKeys(iv.Series) {
		add(n)
	}
	return out
}

// mergeShort groups the indexes of intervals of the given lengths: each
// interval shorter than half the usual (median) length joins the group
// before it, and the interval after a group that is still that short
// joins it (so a short first interval joins the second).
func mergeShort(lens []time.Duration) [][]int {
	var groups [][]int
	eachGroupStart(lens, func(i int, begins bool) {
		if begins {
			groups = append(groups, []int{i})
		} else {
			groups[len(groups)-1] = append(groups[len(groups)-1], i)
		}
	})
	return groups
}

// eachGroupStart calls fn with each interval of mergeShort's in order,
// and whether it begins a group.
func eachGroupStart(lens []time.Duration, fn func(i int, begins bool)) {
	var pos []time.Duration
	for _, d := range lens {
		if d > 0 {
			pos = append(pos, d)
		}
	}
	slices.Sort(pos)
	var short time.Duration
	if len(pos) > 0 {
		short = pos[len(pos)/2] / 2
	}
	pos = nil
	var cur time.Duration // the length of the last group
	for i, d := range lens {
		if i > 0 && (d < short || cur < short) {
			fn(i, false)
			cur += d
			continue
		}
		fn(i, true)
		cur = d
	}
}

// latencies returns the percentiles and the maximum of the latencies of ds
// (at least one, not all empty), merged exactly when there are several.
func latencies(ds []*runlog.IntervalData, pcts []float64) ([]int64, int64) {
	var nonEmpty []*runlog.IntervalData
	for _, d := range ds {
		if d.Packed.TotalCount() > 0 {
			nonEmpty = append(nonEmpty, d)
		}
	}
	if len(nonEmpty) == 1 {
		p := nonEmpty[0].Packed
		return p.ValueAtPercentilesSlice(pcts), p.Max()
	}
	h := nonEmpty[0].Histogram()
	for _, d := range nonEmpty[1:] {
		d.MergeInto(h)
	}
	return h.ValueAtPercentilesSlice(pcts), h.Max()
}

// mergeSamples returns one sample over the span of ss (consecutive
// samples): its rates are those of ss weighted by their lengths, a disk or
// group absent from one counting as zero there; its levels are the last
// sample's.
func mergeSamples(ss []telemetry.Sample) telemetry.Sample {
	if len(ss) == 1 {
		return ss[0]
	}
	out := ss[len(ss)-1]
	out.Start = ss[0].Start
	total := out.End.Sub(out.Start).Seconds()
	if total <= 0 {
		return out
	}
	out.CPU = telemetry.CPU{Cores: out.CPU.Cores}
	out.Disks, out.Procs = nil, nil
	disks, procs := map[string]int{}, map[string]int{}
	for _, s := range ss {
		w := s.End.Sub(s.Start).Seconds() / total
		c := s.CPU
		for _, f := range []struct {
			dst *float64
			v   float64
		}{{&out.CPU.User, c.User}, {&out.CPU.Nice, c.Nice},
			{&out.CPU.System, c.System}, {&out.CPU.IOWait, c.IOWait}, {&out.CPU.IRQ, c.IRQ},
			{&out.CPU.SoftIRQ, c.SoftIRQ}, {&out.CPU.Steal, c.Steal}, {&out.CPU.Idle, c.Idle}} {
			*f.dst += f.v * w
		}
		for _, d := range s.Disks {
			i, ok := disks[d.Name]
			if !ok {
				i = len(out.Disks)
				disks[d.Name] = i
				out.Disks = append(out.Disks, telemetry.Disk{Name: d.Name})
			}
			out.Disks[i].ReadKBPerSec += d.ReadKBPerSec * w
			out.Disks[i].WriteKBPerSec += d.WriteKBPerSec * w
		}
		for _, g := range s.Procs {
			i, ok := procs[g.Name]
			if !ok {
				i = len(out.Procs)
				procs[g.Name] = i
				out.Procs = append(out.Procs, telemetry.ProcGroup{Name: g.Name})
			}
			out.Procs[i].CPUCores += g.CPUCores * w
			out.Procs[i].ReadBytesPerSec += g.ReadBytesPerSec * w
			out.Procs[i].WriteBytesPerSec += g.WriteBytesPerSec * w
			// Levels: the last sample's.
			out.Procs[i].RSSBytes, out.Procs[i].Processes = g.RSSBytes, g.Processes
		}
	}
	return out
}

// parseTelemetryLine parses one line of telemetry.ndjson: the sample and
// the cgroup's counters read with it (nil when the run applied no limits
// or they could not be read then).
func parseTelemetryLine(line []byte) (telemetry.Sample, *cgroupCounters, error) {
	var rec struct {
		telemetry.Sample
		Cgroup *cgroupCounters `json:"cgroup"`
	}
	if err := json.Unmarshal(line, &rec); err != nil {
		return telemetry.Sample{}, nil, fmt.Errorf("invalid JSON: %v", err)
	}
	if rec.Start.IsZero() || rec.End.IsZero() {
		return telemetry.Sample{}, nil, errors.New("sample without start or end")
	}
	if rec.Cgroup != nil && rec.Cgroup.Error != "" {
		rec.Cgroup = nil // the counters could not be read then
	}
	return rec.Sample, rec.Cgroup, nil
}

// readTelemetry reads telemetry.ndjson; it returns nil when the run has no
// sample that covers time.
func readTelemetry(run *runlog.Run, start time.Time) (*Telemetry, error) {
	var samples []telemetry.Sample
	// cgroups[i] is the cgroup's counters read with samples[i] (nil when
	// the run applied no limits); base those read with the baseline.
	var cgroups []*cgroupCounters
	var base *cgroupCounters
	err := run.Telemetry(func(line []byte) error {
		smp, cg, err := parseTelemetryLine(line)
		if err != nil {
			return err
		}
		if smp.End.After(smp.Start) { // not the baseline, which has no rates
			samples = append(samples, smp)
			cgroups = append(cgroups, cg)
		} else if len(samples) == 0 {
			base = cg
		}
		return nil
	})
	lens := make([]time.Duration, len(samples))
	for i, s := range samples {
		lens[i] = s.End.Sub(s.Start)
	}
	var t Telemetry
	disks, procs := map[string]int{}, map[string]int{}
	for _, g := range mergeShort(lens) {
		smp := mergeSamples(samples[g[0] : g[len(g)-1]+1])
		span := Span{From: smp.Start.Sub(start).Seconds(), To: smp.End.Sub(start).Seconds()}
		// The cgroup's counters are cumulative: a point is the change
		// from those read at the end of the sample before the group (or
		// with the baseline) to those read at its end.
		prev := base
		if g[0] > 0 {
			prev = cgroups[g[0]-1]
		}
		if cur := cgroups[g[len(g)-1]]; cur != nil && prev != nil {
			prevEnd := smp.Start
			if g[0] > 0 {
				prevEnd = samples[g[0]-1].End
			}
			if secs := smp.End.Sub(prevEnd).Seconds(); secs > 0 {
				t.Cgroup = append(t.Cgroup, cur.point(prev, span, secs))
			}
		}
		c := smp.CPU
		user, sys := c.User+c.Nice, c.System+c.IRQ+c.SoftIRQ
		t.CPU = append(t.CPU, CPUPoint{Span: span, User: user, System: sys, Busy: user + sys,
			IOWait: c.IOWait, Steal: c.Steal, Idle: c.Idle})
		m := smp.Memory
		t.Memory = append(t.Memory, MemPoint{Span: span, TotalBytes: m.TotalBytes, UsedBytes: m.UsedBytes,
			CacheBytes: m.CacheBytes, SwapUsedBytes: m.SwapUsedBytes})
		for _, d := range smp.Disks {
			i, ok := disks[d.Name]
			if !ok {
				i = len(t.Disks)
				disks[d.Name] = i
				t.Disks = append(t.Disks, DiskSeries{Name: d.Name})
			}
			t.Disks[i].Points = append(t.Disks[i].Points, DiskPoint{Span: span, ReadKBPerSec: d.ReadKBPerSec, WriteKBPerSec: d.WriteKBPerSec})
		}
		for _, g := range smp.Procs {
			i, ok := procs[g.Name]
			if !ok {
				i = len(t.Procs)
				procs[g.Name] = i
				t.Procs = append(t.Procs, ProcSeries{Name: g.Name})
			}
			t.Procs[i].Points = append(t.Procs[i].Points, ProcPoint{Span: span, CPUCores: g.CPUCores,
				ReadBytesPerSec: g.ReadBytesPerSec, WriteBytesPerSec: g.WriteBytesPerSec,
				RSSBytes: g.RSSBytes, Processes: g.Processes})
		}
	}
	if len(t.CPU) == 0 {
		return nil, err
	}
	return &t, err
}

// merger accumulates one series' histograms and errors over one or more
// intervals (or parts), for the point of their span: one histogram alone
// gives its own figures, several are merged exactly into a dense
// histogram of the first one's geometry. It keeps a histogram of the
// interval being read until another comes (runlog.Hist lives until its
// callback returns); eager merges every one at once, for a merger that
// spans intervals.
type merger struct {
	count, errors int64
	single        *runlog.Hist
	dense         *hdrhistogram.Histogram
	merged        bool // dense holds the values
	eager         bool
}

// reset empties m for the next point, keeping its dense histogram.
func (m *merger) reset() {
	m.count, m.errors, m.single, m.merged = 0, 0, nil, false
}

// add adds one histogram and its errors.
func (m *merger) add(h *runlog.Hist, errors int64) {
	m.errors += errors
	if h.TotalCount() == 0 {
		return
	}
	m.count += h.TotalCount()
	switch {
	case m.merged:
		h.MergeInto(m.dense)
	case m.single == nil && !m.eager:
		m.single = h
	default:
		first := m.single
		if first == nil {
			first = h
		}
		lo, hi, digits := first.Geometry()
		if m.dense != nil && m.dense.LowestTrackableValue() == lo && m.dense.HighestTrackableValue() == hi && m.dense.SignificantFigures() == int64(digits) {
			m.dense.Reset()
		} else {
			m.dense = hdrhistogram.New(lo, hi, digits)
		}
		m.merged = true
		if m.single != nil {
			m.single.MergeInto(m.dense)
			m.single = nil
		}
		h.MergeInto(m.dense)
	}
}

// point returns the figures over span, secs long.
func (m *merger) point(span Span, secs float64) OpPoint {
	p := OpPoint{Span: span, Count: m.count, Errors: m.errors}
	if secs > 0 {
		p.Rate = float64(p.Count) / secs
	}
	if p.Count == 0 {
		return p
	}
	var v []int64
	var mx int64
	if m.merged {
		v, mx = m.dense.ValueAtPercentilesSlice(seriesPercentiles), m.dense.Max()
	} else {
		v, mx = m.single.ValueAtPercentiles(seriesPercentiles), m.single.Max()
	}
	p.P50, p.P95, p.P99, p.Max = stats.Ms(v[0]), stats.Ms(v[1]), stats.Ms(v[2]), stats.Ms(mx)
	return p
}

// seriesPercentiles are the percentiles of an OpPoint.
var seriesPercentiles = []float64{50, 95, 99}
