//go:build linux

package telemetry

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"

	"github.com/stampede-bench/stampede/procmatch"
)

// userHZ is the unit of the tick counts of /proc/stat and /proc/PID/stat
// (USER_HZ, 100 on every Linux architecture; procfs assumes it too).
const userHZ = 100

// Sampler reads system figures from /proc. It is not safe for concurrent
// use.
type Sampler struct {
	fs       procfs.FS
	bfs      blockdevice.FS
	procRoot string
	groups   []group
	pageSize uint64
	clock    func() time.Time
	// skip holds this process and its ancestors (the shell or sudo that
	// started it, whose command lines often name the server it loads),
	// by PID, with their start times: patterns never match them.
	skip map[int]uint64

	// procs holds what the Sampler knows of each process it has seen,
	// by PID; gen marks those seen by the current Sample.
	procs map[int]*procState
	gen   uint64
	// gone holds the processes found to have exited during the current
	// Sample (or whose PID a new process took).
	gone []*procState

	// whole is the set of names in /sys/block (whole disks), nil when
	// /sys/block cannot be read; parts holds the other names of
	// /proc/diskstats (partitions), so that /sys/block is listed again
	// only for a name never seen before.
	whole map[string]bool
	parts map[string]bool

	prev *snapshot
}

type group struct {
	name  string
	pat   *procmatch.Pattern // nil for a PID group
	pid   int
	start uint64 // start time of the PID, in ticks since boot
}

// procState is what the Sampler remembers of one process.
type procState struct {
	start  uint64 // start time in ticks since boot: with the PID, the identity
	comm   string // an exec changes it, and then the process is classified again
	groups []int  // indexes of the groups it belongs to
	// based says ticks and threads hold the counters at the previous
	// sample, read at the clock time at.
	based   bool
	ticks   uint64
	threads map[int]ioCount // storage I/O of each live thread, by TID
	at      time.Time
	gen     uint64
	ppid    int
	// whole is the process's /proc/PID/io as read at sample wholeGen (0:
	// never): its own I/O with its exited threads' and reaped children's,
	// all of which its parent's takes in when it reaps it.
	whole    ioCount
	wholeGen uint64
	// exited is whole minus the live threads' own counts at the previous
	// sample: what its exited threads and reaped children did.
	exited ioCount
	// debt is what the process's exited threads and children were last
	// seen to have done and its exited share has not taken in yet (a
	// child reaped between the reads of its parent and its own).
	debt ioFloat
	// pend is this sample's reading, added to the groups once the
	// processes that exited since the previous sample are known.
	pend *pending
	// settled says the process belongs to no group and was old enough
	// when last checked that it is only checked again now and then.
	settled bool
}

// ioCount is a read of storage I/O counters: bytes read and written.
type ioCount struct{ read, write uint64 }

// ioFloat is a difference of storage I/O counters.
type ioFloat struct{ read, write float64 }

// pending is one watched process's storage I/O over the interval, before
// the share of its exited threads and children is settled.
type pending struct {
	secs float64
	// live is the growth of its live threads' own counters; exited the
	// growth of its exited share; known what the threads and children
	// that exited since were last seen to have done.
	live, exited, known ioFloat
	// unsure says the process's /proc/PID/io could not be read, or a
	// child that exited since was not read at the previous sample or
	// belonged to other groups: the exited share is then left out.
	unsure bool
}

// Processes that belong to no group are not read on every sample: one
// younger than youngSecs when checked is checked again on the next sample
// (a child between fork and exec, or a wrapper script, still has its
// parent's name), and an older one on one sample in recheckEvery (it may
// exec another program, or its PID may be reused). A child of a watched
// process is read on every sample, as its parent's exited share will
// take in its whole I/O (see settleIO).
const (
	youngSecs    = 10
	recheckEvery = 16
)

// snapshot holds the counters of one sample, with the clock times of
// their reads.
type snapshot struct {
	time   time.Time
	uptime float64 // seconds since boot
	cpu    procfs.CPUStat
	disks  map[string]blockdevice.IOStats
	net    procfs.NetDev
	// diskAt, netAt and procsAt are when diskstats and net/dev were read
	// and when the scan of the processes began.
	diskAt, netAt, procsAt time.Time
}

// New checks cfg and returns a Sampler. It fails when /proc cannot be
// read, when a pattern is not a valid regular expression or is listed
// twice, or when a PID does not exist.
func New(cfg Config) (*Sampler, error) {
	if cfg.ProcRoot == "" {
		cfg.ProcRoot = procfs.DefaultMountPoint
	}
	if cfg.SysRoot == "" {
		cfg.SysRoot = "/sys"
	}
	fs, err := procfs.NewFS(cfg.ProcRoot)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s (%w): system telemetry needs the proc file system mounted there", cfg.ProcRoot, err)
	}
	if _, err := fs.Stat(); err != nil {
		return nil, fmt.Errorf("cannot read %s: %w: system telemetry needs the proc file system mounted there", filepath.Join(cfg.ProcRoot, "stat"), err)
	}
	s := &Sampler{
		fs:       fs,
		procRoot: cfg.ProcRoot,
		pageSize: uint64(os.Getpagesize()),
		clock:    cfg.Clock,
		procs:    map[int]*procState{},
		parts:    map[string]bool{},
	}
	// blockdevice wants both roots to be directories; without /sys, hand
	// it /proc for both and report every device.
	sys := cfg.SysRoot
	if fi, err := os.Stat(sys); err != nil || !fi.IsDir() {
		sys = cfg.ProcRoot
	}
	if s.bfs, err = blockdevice.NewFS(cfg.ProcRoot, sys); err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", cfg.ProcRoot, err)
	}
	if s.clock == nil {
		s.clock = time.Now
	}
	s.listWholeDisks()
	for _, kind := range []struct {
		exprs   []string
		cmdline bool
		prefix  string
	}{{cfg.WatchProcess, false, ""}, {cfg.WatchCmdline, true, "cmdline "}} {
		for i, e := range kind.exprs {
			if slices.Contains(kind.exprs[:i], e) {
				return nil, fmt.Errorf("process pattern %q is listed twice; list each pattern once", e)
			}
			p, err := procmatch.Compile(e, kind.cmdline)
			if err != nil {
				return nil, err
			}
			s.groups = append(s.groups, group{name: kind.prefix + e, pat: p})
		}
	}
	for i, pid := range cfg.WatchPIDs {
		if slices.Contains(cfg.WatchPIDs[:i], pid) {
			return nil, fmt.Errorf("PID %d is listed twice; list each PID once", pid)
		}
		st, err := s.procStat(pid)
		if err != nil {
			return nil, fmt.Errorf("PID %d is gone: %w; watch a running process", pid, err)
		}
		s.groups = append(s.groups, group{name: fmt.Sprintf("%s (pid %d)", st.Comm, pid), pid: pid, start: st.Starttime})
	}
	s.skip = s.ancestors()
	return s, nil
}

// ancestors returns this process and its ancestors up to init, by PID,
// with their start times.
func (s *Sampler) ancestors() map[int]uint64 {
	out := map[int]uint64{}
	for pid := os.Getpid(); pid > 1 && len(out) < maxAncestry; {
		if _, seen := out[pid]; seen {
			break
		}
		st, err := s.procStat(pid)
		if err != nil {
			break // a fake ProcRoot, which does not hold us
		}
		out[pid] = st.Starttime
		pid = st.PPID
	}
	return out
}

func (s *Sampler) procStat(pid int) (procfs.ProcStat, error) {
	p, err := s.fs.Proc(pid)
	if err != nil {
		return procfs.ProcStat{}, err
	}
	return p.Stat()
}

func (s *Sampler) listWholeDisks() {
	names, err := s.bfs.SysBlockDevices()
	if err != nil || len(names) == 0 {
		s.whole = nil
		return
	}
	s.whole = make(map[string]bool, len(names))
	for _, n := range names {
		s.whole[n] = true
	}
}

// Sample reads the counters at now. The first call returns a baseline
// (Start == End, rates zero, levels filled); each later call returns the
// rates over the interval since the previous call: now and the previous
// call's now bound the interval, and each counter is divided by the
// Config.Clock time between its two reads. It fails only when a
// host-wide file (stat, meminfo, diskstats, net/dev, uptime) cannot be
// read; processes that exit while being read are skipped.
func (s *Sampler) Sample(now time.Time) (Sample, error) {
	cur := &snapshot{time: now}
	out := Sample{Start: now, End: now}
	prev := s.prev
	if prev != nil {
		out.Start = prev.time
	}
	elapsed := out.End.Sub(out.Start).Seconds()

	var err error
	if cur.uptime, err = s.readUptime(); err != nil {
		return Sample{}, err
	}
	stat, err := s.fs.Stat()
	if err != nil {
		return Sample{}, fmt.Errorf("read %s: %w", filepath.Join(s.procRoot, "stat"), err)
	}
	cur.cpu = stat.CPUTotal
	out.CPU.Cores = len(stat.CPU)
	if prev != nil {
		out.CPU = cpuPercent(prev.cpu, cur.cpu, out.CPU.Cores)
	}

	mem, err := s.fs.Meminfo()
	if err != nil {
		return Sample{}, fmt.Errorf("read %s: %w", filepath.Join(s.procRoot, "meminfo"), err)
	}
	out.Memory = memory(mem)

	if out.Disks, err = s.disks(prev, cur, elapsed); err != nil {
		return Sample{}, err
	}

	if cur.net, err = s.fs.NetDev(); err != nil {
		return Sample{}, fmt.Errorf("read %s: %w", filepath.Join(s.procRoot, "net/dev"), err)
	}
	cur.netAt = s.clock()
	if prev != nil {
		elapsed = since(prev.netAt, cur.netAt, elapsed)
	}
	out.Net = netRates(prev, cur.net, elapsed)

	if len(s.groups) > 0 {
		out.Procs = s.sampleProcs(prev, cur)
	}
	s.prev = cur
	return out, nil
}

// since returns the seconds from a to b, or fallback when the clock did not
// move forward between them.
func since(a, b time.Time, fallback float64) float64 {
	if d := b.Sub(a).Seconds(); d > 0 {
		return d
	}
	return fallback
}

// readUptime returns the first field of /proc/uptime (procfs has no
// reader for it): seconds since boot, on the clock of process start times.
func (s *Sampler) readUptime() (float64, error) {
	path := filepath.Join(s.procRoot, "uptime")
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", path, err)
	}
	f, _, _ := bytes.Cut(bytes.TrimSpace(b), []byte(" "))
	v, err := strconv.ParseFloat(string(f), 64)
	if err != nil {
		return 0, fmt.Errorf("read %s: unexpected content %q", path, b)
	}
	return v, nil
}

func cpuPercent(p, c procfs.CPUStat, cores int) CPU {
	d := func(a, b float64) float64 { return max(b-a, 0) }
	out := CPU{
		Cores:   cores,
		User:    d(p.User, c.User),
		Nice:    d(p.Nice, c.Nice),
		System:  d(p.System, c.System),
		IOWait:  d(p.Iowait, c.Iowait),
		IRQ:     d(p.IRQ, c.IRQ),
		SoftIRQ: d(p.SoftIRQ, c.SoftIRQ),
		Steal:   d(p.Steal, c.Steal),
		Idle:    d(p.Idle, c.Idle),
	}
	total := out.User + out.Nice + out.System + out.IOWait + out.IRQ + out.SoftIRQ + out.Steal + out.Idle
	if total == 0 {
		return CPU{Cores: cores}
	}
	for _, f := range []*float64{&out.User, &out.Nice, &out.System, &out.IOWait, &out.IRQ, &out.SoftIRQ, &out.Steal, &out.Idle} {
		*f = *f / total * 100
	}
	return out
}

func memory(m procfs.Meminfo) Memory {
	v := func(p *uint64) uint64 {
		if p == nil {
			return 0
		}
		return *p
	}
	total, free := v(m.MemTotalBytes), v(m.MemFreeBytes)
	out := Memory{
		TotalBytes: total,
		CacheBytes: v(m.BuffersBytes) + v(m.CachedBytes) + v(m.SReclaimableBytes),
	}
	if total >= free+out.CacheBytes {
		out.UsedBytes = total - free - out.CacheBytes
	} else if total >= free {
		out.UsedBytes = total - free
	}
	if st, sf := v(m.SwapTotalBytes), v(m.SwapFreeBytes); st > sf {
		out.SwapUsedBytes = st - sf
	}
	return out
}

// delta returns c - p, or 0 when the counter went backwards.
func delta(p, c uint64) float64 {
	if c < p {
		return 0
	}
	return float64(c - p)
}

func div(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// disks reads /proc/diskstats into cur and computes iostat -x figures for
// the whole disks that have done any I/O since boot, over the time since
// the previous read (elapsed when the clock did not move).
func (s *Sampler) disks(prev, snap *snapshot, elapsed float64) ([]Disk, error) {
	stats, err := s.bfs.ProcDiskstats()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Join(s.procRoot, "diskstats"), err)
	}
	snap.diskAt = s.clock()
	if prev != nil {
		elapsed = since(prev.diskAt, snap.diskAt, elapsed)
	}
	cur := make(map[string]blockdevice.IOStats, len(stats))
	snap.disks = cur
	var out []Disk
	relisted := false
	for _, d := range stats {
		cur[d.DeviceName] = d.IOStats
		if strings.HasPrefix(d.DeviceName, "ram") || d.ReadIOs+d.WriteIOs+d.DiscardIOs == 0 {
			continue
		}
		if s.whole != nil && !s.whole[d.DeviceName] {
			if s.parts[d.DeviceName] {
				continue
			}
			if !relisted {
				s.listWholeDisks() // a disk attached since the last listing?
				relisted = true
			}
			if s.whole != nil && !s.whole[d.DeviceName] {
				s.parts[d.DeviceName] = true
				continue
			}
		}
		disk := Disk{Name: d.DeviceName}
		if prev != nil {
			disk = iostat(d.DeviceName, prev.disks[d.DeviceName], d.IOStats, elapsed)
		}
		out = append(out, disk)
	}
	slices.SortFunc(out, func(a, b Disk) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// iostat computes the figures of iostat -x from two readings of a device's
// counters taken secs apart (see the package documentation). A device
// missing from the previous reading counts from zero.
func iostat(name string, p, c blockdevice.IOStats, secs float64) Disk {
	const kbPerSector = 512.0 / 1024
	rd, wr, dc := delta(p.ReadIOs, c.ReadIOs), delta(p.WriteIOs, c.WriteIOs), delta(p.DiscardIOs, c.DiscardIOs)
	rt, wt, dt := delta(p.ReadTicks, c.ReadTicks), delta(p.WriteTicks, c.WriteTicks), delta(p.DiscardTicks, c.DiscardTicks)
	rs, ws, ds := delta(p.ReadSectors, c.ReadSectors), delta(p.WriteSectors, c.WriteSectors), delta(p.DiscardSectors, c.DiscardSectors)
	ms := secs * 1000
	return Disk{
		Name:          name,
		ReadsPerSec:   div(rd, secs),
		WritesPerSec:  div(wr, secs),
		ReadKBPerSec:  div(rs*kbPerSector, secs),
		WriteKBPerSec: div(ws*kbPerSector, secs),
		AvgRequestKB:  div((rs+ws+ds)*kbPerSector, rd+wr+dc),
		AvgQueueSize:  div(delta(p.WeightedIOTicks, c.WeightedIOTicks), ms),
		ReadAwaitMs:   div(rt, rd),
		WriteAwaitMs:  div(wt, wr),
		AwaitMs:       div(rt+wt+dt, rd+wr+dc),
		UtilPct:       div(delta(p.IOsTotalTicks, c.IOsTotalTicks), ms) * 100,
	}
}

// netRates computes the throughput of the interfaces that have moved any
// byte since boot.
func netRates(prev *snapshot, cur procfs.NetDev, elapsed float64) []NetDev {
	var out []NetDev
	for name, l := range cur {
		if l.RxBytes+l.TxBytes == 0 {
			continue
		}
		n := NetDev{Name: name}
		if prev != nil {
			p := prev.net[name]
			n.RxBytesPerSec = div(delta(p.RxBytes, l.RxBytes), elapsed)
			n.TxBytesPerSec = div(delta(p.TxBytes, l.TxBytes), elapsed)
		}
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b NetDev) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// sampleProcs reads the watched processes and sums them per group.
func (s *Sampler) sampleProcs(prev, cur *snapshot) []ProcGroup {
	out := make([]ProcGroup, len(s.groups))
	for i, g := range s.groups {
		out[i].Name = g.name
	}
	s.gen++
	cur.procsAt = s.clock()
	// Every process is looked at, also for PID groups, which include the
	// descendants of their process (a server's forked backends).
	if len(s.groups) > 0 {
		all, err := s.fs.AllProcs()
		if err == nil {
			for _, p := range all {
				s.sampleProc(p, prev, cur, out)
			}
		}
	}
	for pid, ps := range s.procs {
		if ps.gen != s.gen {
			s.gone = append(s.gone, ps)
			delete(s.procs, pid)
		}
	}
	s.settleIO(s.gone, out)
	s.gone = s.gone[:0]
	return out
}

// statReadSlack is how long a read of a process's stat may take before
// sampleProc reads it again to know when its ticks were counted.
const statReadSlack = 2 * time.Millisecond

// sampleProc adds one process's figures to the groups it belongs to: its
// counters' growth since its previous read, divided by the time since
// that read.
func (s *Sampler) sampleProc(p procfs.Proc, prev, cur *snapshot, out []ProcGroup) {
	ps := s.procs[p.PID]
	if ps != nil && ps.settled && (uint64(p.PID)+s.gen)%recheckEvery != 0 {
		ps.gen = s.gen
		return
	}
	before := s.clock()
	st, err := p.Stat()
	if err != nil {
		return // exited
	}
	after := s.clock()
	switch {
	case ps == nil || ps.start != st.Starttime:
		if ps != nil {
			s.gone = append(s.gone, ps) // its PID was reused
		}
		ps = &procState{start: st.Starttime, comm: st.Comm}
		ps.groups = s.classify(p, st)
		s.procs[p.PID] = ps
	case ps.comm != st.Comm: // exec'd another program
		ps.comm = st.Comm
		ps.groups = s.classify(p, st)
		if len(ps.groups) == 0 {
			ps.based = false
		}
	case len(ps.groups) == 0:
		// Looked at again (every sample while young, then every
		// recheckEvery samples): its parent may have joined a PID group
		// since (a child listed before its parent, PIDs having wrapped),
		// or its command line changed (a PostgreSQL backend's ps display).
		ps.groups = s.classify(p, st)
	}
	ps.gen = s.gen
	ps.ppid = st.PPID
	if len(ps.groups) == 0 {
		if parent := s.procs[st.PPID]; parent != nil && len(parent.groups) > 0 {
			// A watched process's child: its parent takes in its whole
			// I/O when it reaps it, which must be known then.
			s.readWhole(p, ps)
			ps.settled = false
			return
		}
		ps.settled = cur.uptime-float64(st.Starttime)/userHZ >= youngSecs
		return
	}
	ps.settled = false
	// The ticks are divided by the time between two reads of them: the
	// time of a read is the middle of the clock readings around it. A
	// read the sampler was descheduled around (a loaded machine) is done
	// again, so that its time is known to within statReadSlack: dividing
	// 200 ms of ticks by the 140 ms left after a 60 ms preemption showed
	// a single-threaded process using 1.4 cores.
	for try := 0; after.Sub(before) > statReadSlack && try < 2; try++ {
		before = s.clock()
		if st, err = p.Stat(); err != nil {
			return
		}
		after = s.clock()
	}
	at := before.Add(after.Sub(before) / 2)
	ticks := uint64(st.UTime + st.STime)
	// The whole count first: a thread that exits between the two reads
	// is then in the exited share, and its last own count is known.
	was, wasGen := ps.whole, ps.wholeGen
	whole, wholeOK := s.readWhole(p, ps)
	var threads map[int]ioCount
	if _, one := ps.threads[p.PID]; ps.based && one && len(ps.threads) == 1 && st.NumThreads == 1 &&
		wholeOK && wasGen == s.gen-1 && whole == was {
		// Still one thread, and nothing counted since: its own count
		// and its exited share, which add up to the whole count and
		// never decrease, are what they were.
		threads = ps.threads
	} else {
		threads = s.threadIO(p, st.NumThreads)
	}
	var live ioCount
	for _, c := range threads {
		live.read += c.read
		live.write += c.write
	}
	var exited ioCount
	if wholeOK {
		exited = ioCount{read: whole.read - min(whole.read, live.read), write: whole.write - min(whole.write, live.write)}
	}
	if !ps.based {
		ps.based = true
		ps.ticks, ps.threads, ps.exited, ps.at = ticks, threads, exited, at
		// A process that started during the interval counts from zero,
		// over the interval since the previous scan; one that was
		// already running counts from now on. Both clocks tick in
		// hundredths of a second: a process first seen now that
		// started in the hundredth the previous sample read its uptime
		// in was not there for that sample's scan (or it would have
		// been seen), so it started during the interval too (a child
		// forked just after a sample counted nothing of what it wrote).
		if prev != nil && float64(st.Starttime)/userHZ >= prev.uptime {
			ps.ticks, ps.threads, ps.exited, ps.at = 0, nil, ioCount{}, prev.procsAt
		}
	}
	pd := &pending{secs: max(at.Sub(ps.at).Seconds(), 0)}
	dt := delta(ps.ticks, ticks)
	// A thread not seen at the previous sample started since: it counts
	// from zero. A thread gone since was last seen to have done what
	// its count said then.
	for tid, c := range threads {
		was := ps.threads[tid]
		pd.live.read += delta(was.read, c.read)
		pd.live.write += delta(was.write, c.write)
	}
	for tid, c := range ps.threads {
		if _, ok := threads[tid]; !ok {
			pd.known.read += float64(c.read)
			pd.known.write += float64(c.write)
		}
	}
	if wholeOK {
		pd.exited = ioFloat{delta(ps.exited.read, exited.read), delta(ps.exited.write, exited.write)}
	} else {
		pd.unsure = true
	}
	ps.ticks, ps.threads, ps.exited, ps.at, ps.pend = ticks, threads, exited, at, pd
	rss := uint64(max(st.RSS, 0)) * s.pageSize
	for _, i := range ps.groups {
		g := &out[i]
		g.Processes++
		g.RSSBytes += rss
		g.CPUCores += div(dt/userHZ, pd.secs)
	}
}

// readWhole reads /proc/PID/io of p into ps (with the sample it was read
// at and the parent it had then) and returns it.
func (s *Sampler) readWhole(p procfs.Proc, ps *procState) (ioCount, bool) {
	io, err := p.IO()
	if err != nil {
		return ioCount{}, false
	}
	ps.whole, ps.wholeGen = ioCount{read: io.ReadBytes, write: io.WriteBytes}, s.gen
	return ps.whole, true
}

// settleIO adds to the groups the storage I/O of the watched processes
// read by this sample, once gone holds the processes that exited since
// the previous one. A process's own is its live threads'; its exited
// threads and reaped children, whose whole I/O the kernel adds to its
// exited share, were counted while they lived up to the previous sample,
// and only what they did since counts: the growth of the exited share
// less what they were last seen to have done. A child too short-lived to
// be seen once counts with its parent. When that cannot be told (a child
// not read at the previous sample, or of other groups than its parent),
// the exited share is left out for that interval.
func (s *Sampler) settleIO(gone []*procState, out []ProcGroup) {
	for _, c := range gone {
		parent := s.procs[c.ppid]
		if parent == nil || parent.gen != s.gen || parent.pend == nil || parent.start > c.start {
			continue
		}
		if c.wholeGen != s.gen-1 || !slices.Equal(c.groups, parent.groups) {
			parent.pend.unsure = true
		}
		parent.pend.known.read += float64(c.whole.read)
		parent.pend.known.write += float64(c.whole.write)
	}
	for _, ps := range s.procs {
		pd := ps.pend
		if ps.gen != s.gen || pd == nil {
			continue
		}
		ps.pend = nil
		// What the exited share took in beyond what was known: the
		// last part of what they did, or a debt carried over when the
		// share has not taken it in yet.
		extra := func(exited, known float64, debt *float64) float64 {
			v := exited - known - *debt
			*debt = max(-v, 0)
			if pd.unsure {
				return 0
			}
			return max(v, 0)
		}
		r := pd.live.read + extra(pd.exited.read, pd.known.read, &ps.debt.read)
		w := pd.live.write + extra(pd.exited.write, pd.known.write, &ps.debt.write)
		for _, i := range ps.groups {
			out[i].ReadBytesPerSec += div(r, pd.secs)
			out[i].WriteBytesPerSec += div(w, pd.secs)
		}
	}
}

// threadIO reads the storage I/O of each thread of p from
// /proc/PID/task/TID/io, by TID. These counters hold only what each thread
// did itself: /proc/PID/io also takes in, when they end, the whole I/O of
// the process's exited threads and of the children it reaped, so that a
// PostgreSQL backend's lifetime writes reappeared in the postmaster's in
// the second it was reaped, as writes that never happened then (settleIO
// counts only what they did since they were last seen).
//
// A process with one thread (as its stat said; most server processes)
// has its one task read without listing the task directory. A thread it
// starts after that is seen at the next sample, and counts from zero.
func (s *Sampler) threadIO(p procfs.Proc, threads int) map[int]ioCount {
	var tasks procfs.Procs
	if threads == 1 {
		t, err := s.fs.Thread(p.PID, p.PID)
		if err != nil {
			return nil // exited
		}
		tasks = procfs.Procs{t}
	} else {
		var err error
		if tasks, err = s.fs.AllThreads(p.PID); err != nil {
			return nil // exited
		}
	}
	out := make(map[int]ioCount, len(tasks))
	for _, t := range tasks {
		if io, err := t.IO(); err == nil {
			out[t.PID] = ioCount{read: io.ReadBytes, write: io.WriteBytes}
		}
	}
	return out
}

// maxAncestry bounds the walk up a process's ancestors.
const maxAncestry = 64

// inGroup reports whether process pid belongs to group i. A process not
// seen yet (a parent listed after its child, PIDs having wrapped) is
// classified now, walking up its own ancestors as needed.
func (s *Sampler) inGroup(pid, i, depth int) bool {
	ps := s.procs[pid]
	if ps == nil {
		if pid <= 1 || depth > maxAncestry {
			return false
		}
		p, err := s.fs.Proc(pid)
		if err != nil {
			return false
		}
		st, err := p.Stat()
		if err != nil {
			return false
		}
		ps = &procState{start: st.Starttime, comm: st.Comm}
		ps.groups = s.classifyAt(p, st, depth+1)
		s.procs[pid] = ps
	}
	return slices.Contains(ps.groups, i)
}

// classify returns the indexes of the groups a process belongs to. It
// reads the command line only when a pattern needs it.
func (s *Sampler) classify(p procfs.Proc, st procfs.ProcStat) []int {
	return s.classifyAt(p, st, 0)
}

// classifyAt is classify for a process depth generations below the one
// being sampled.
func (s *Sampler) classifyAt(p procfs.Proc, st procfs.ProcStat, depth int) []int {
	var groups []int
	var cmdline []string
	read := false
	args := func() []string {
		if !read {
			read = true
			cmdline, _ = p.CmdLine()
		}
		return cmdline
	}
	for i, g := range s.groups {
		if g.pat == nil {
			if (g.pid == p.PID && g.start == st.Starttime) || s.inGroup(st.PPID, i, depth) {
				groups = append(groups, i)
			}
			continue
		}
		if start, ok := s.skip[p.PID]; ok && start == st.Starttime {
			continue // stampede, or what started it: their command lines name the server
		}
		if g.pat.Match(st.Comm, args) {
			groups = append(groups, i)
		}
	}
	return groups
}
