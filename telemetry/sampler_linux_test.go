//go:build linux

package telemetry_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/telemetry"
)

// fakeSampler is a Sampler of a fake tree whose clock reads the time given
// to Sample plus skew, so that reads are timed as the test says.
type fakeSampler struct {
	*telemetry.Sampler
	now  time.Time
	skew time.Duration
}

// newSampler returns a fakeSampler for cfg (whose Clock it sets).
func newSampler(cfg telemetry.Config) (*fakeSampler, error) {
	f := &fakeSampler{}
	cfg.Clock = func() time.Time { return f.now.Add(f.skew) }
	s, err := telemetry.New(cfg)
	if err != nil {
		return nil, err
	}
	f.Sampler = s
	return f, nil
}

// Sample samples at now, with reads timed at now plus the skew.
func (f *fakeSampler) Sample(now time.Time) (telemetry.Sample, error) {
	f.now = now
	return f.Sampler.Sample(now)
}

// fakeTree is a fake /proc and /sys in a temporary directory, written in
// the kernel's formats.
type fakeTree struct {
	t         testing.TB
	proc, sys string
}

func newFakeTree(t testing.TB) *fakeTree {
	dir := t.TempDir()
	f := &fakeTree{t: t, proc: filepath.Join(dir, "proc"), sys: filepath.Join(dir, "sys")}
	for _, d := range []string{"vda", "vda/vda1", "sda", "loop0"} {
		f.mkdir(filepath.Join(f.sys, "block", d))
	}
	return f
}

func (f *fakeTree) mkdir(dir string) {
	f.t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fakeTree) write(rel, content string) {
	f.t.Helper()
	path := filepath.Join(f.proc, rel)
	f.mkdir(filepath.Dir(path))
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// host writes the host-wide files: uptime in seconds, the aggregate cpu
// line's ten tick counts (two CPUs), diskstats lines and net/dev lines.
func (f *fakeTree) host(uptime float64, cpu [10]int, disks, nets []string) {
	f.t.Helper()
	f.write("uptime", fmt.Sprintf("%.2f %.2f\n", uptime, uptime*1.5))
	var c []string
	for _, v := range cpu {
		c = append(c, fmt.Sprint(v))
	}
	half := make([]string, len(cpu))
	for i, v := range cpu {
		half[i] = fmt.Sprint(v / 2)
	}
	f.write("stat", "cpu  "+strings.Join(c, " ")+"\n"+
		"cpu0 "+strings.Join(half, " ")+"\n"+
		"cpu1 "+strings.Join(half, " ")+"\n"+
		"intr 12345 0 9 0 0 0\n"+
		"ctxt 987654\n"+
		"btime 1760000000\n"+
		"processes 4321\n"+
		"procs_running 2\n"+
		"procs_blocked 0\n"+
		"softirq 5000 1 2 3 4 5 6 7 8 9 10\n")
	f.write("meminfo", `MemTotal:       16000000 kB
MemFree:         4000000 kB
MemAvailable:    9000000 kB
Buffers:          500000 kB
Cached:          3000000 kB
SwapCached:            0 kB
Active:          6000000 kB
Inactive:        3000000 kB
SwapTotal:       2000000 kB
SwapFree:        1500000 kB
Dirty:              1000 kB
Shmem:             10000 kB
Slab:             700000 kB
SReclaimable:     500000 kB
SUnreclaim:       200000 kB
HugePages_Total:       0
Hugepagesize:       2048 kB
`)
	f.write("diskstats", lines(disks))
	f.write("net/dev", "Inter-|   Receive                                                |  Transmit\n"+
		" face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n"+
		lines(nets))
}

func lines(l []string) string {
	var b strings.Builder
	for _, s := range l {
		b.WriteString(s + "\n")
	}
	return b.String()
}

// fakeProc describes one process of the fake tree.
type fakeProc struct {
	pid         int
	comm        string
	cmdline     []string
	utime       int // ticks
	stime       int
	start       int // ticks since boot
	rssPages    int
	read, write int
	ppid        int // 0: 1
	// threads holds the I/O of the process's other threads, by TID.
	threads map[int][2]int
	// exitedRead and exitedWrite are what /proc/PID/io takes in beyond
	// the live threads: the whole I/O of its exited threads and of the
	// children it reaped.
	exitedRead, exitedWrite int
}

func (f *fakeTree) proc1(p fakeProc) {
	f.t.Helper()
	dir := fmt.Sprint(p.pid)
	if p.ppid == 0 {
		p.ppid = 1
	}
	// 52 fields, as Linux 5.x and later write them.
	f.write(dir+"/stat", fmt.Sprintf("%d (%s) S %d %d %d 0 -1 4194560 100 0 0 0 %d %d 0 0 20 0 %d 0 %d 123456789 %d 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
		p.pid, p.comm, p.ppid, p.pid, p.pid, p.utime, p.stime, 1+len(p.threads), p.start, p.rssPages))
	f.write(dir+"/comm", p.comm+"\n")
	cmd := ""
	if len(p.cmdline) > 0 {
		cmd = strings.Join(p.cmdline, "\x00") + "\x00"
	}
	f.write(dir+"/cmdline", cmd)
	io := func(read, write int) string {
		return fmt.Sprintf("rchar: %d\nwchar: %d\nsyscr: 10\nsyscw: 20\nread_bytes: %d\nwrite_bytes: %d\ncancelled_write_bytes: 0\n",
			read*2, write*2, read, write)
	}
	if err := os.RemoveAll(filepath.Join(f.proc, dir, "task")); err != nil {
		f.t.Fatal(err)
	}
	f.write(fmt.Sprintf("%s/task/%d/io", dir, p.pid), io(p.read, p.write))
	read, write := p.read+p.exitedRead, p.write+p.exitedWrite
	for tid, rw := range p.threads {
		f.write(fmt.Sprintf("%s/task/%d/io", dir, tid), io(rw[0], rw[1]))
		read, write = read+rw[0], write+rw[1]
	}
	f.write(dir+"/io", io(read, write))
	f.write(dir+"/status", fmt.Sprintf("Name:\t%s\nState:\tS (sleeping)\nTgid:\t%d\nPid:\t%d\nPPid:\t%d\nVmRSS:\t%d kB\nThreads:\t%d\n",
		p.comm, p.pid, p.pid, p.ppid, p.rssPages*4, 1+len(p.threads)))
}

func (f *fakeTree) remove(pid int) {
	f.t.Helper()
	if err := os.RemoveAll(filepath.Join(f.proc, fmt.Sprint(pid))); err != nil {
		f.t.Fatal(err)
	}
}

// disk formats a /proc/diskstats line (Linux 5.5+: 20 fields).
func disk(major, minor int, name string, rd, rdSect, rdMs, wr, wrSect, wrMs, ioMs, weightedMs, dc, dcSect, dcMs int) string {
	return fmt.Sprintf("%4d %7d %s %d 0 %d %d %d 0 %d %d 0 %d %d %d 0 %d %d 0 0",
		major, minor, name, rd, rdSect, rdMs, wr, wrSect, wrMs, ioMs, weightedMs, dc, dcSect, dcMs)
}

// netdev formats a /proc/net/dev line.
func netdev(name string, rx, tx int) string {
	return fmt.Sprintf("%6s: %d 100 0 0 0 0 0 0 %d 100 0 0 0 0 0 0", name, rx, tx)
}

// twoSamples builds the fake tree of the main scenario and returns the
// baseline and the sample two seconds later.
func twoSamples(t *testing.T) (base, s telemetry.Sample) {
	f := newFakeTree(t)
	pgMain := fakeProc{pid: 100, comm: "postgres", cmdline: []string{"postgres", "-D", "/data"}, utime: 500, stime: 100, start: 5000, rssPages: 1000, read: 1000000}
	pgCkpt := fakeProc{pid: 101, comm: "postgres", cmdline: []string{"postgres: checkpointer"}, utime: 10, stime: 10, start: 5100, rssPages: 500}
	loadgen := fakeProc{pid: 200, comm: "python3", cmdline: []string{"python3", "/opt/loadgen.py", "--target", "postgres"}, utime: 100, start: 6000, rssPages: 2000,
		threads: map[int][2]int{201: {0, 1000000}}}
	exiting := fakeProc{pid: 400, comm: "postgres", cmdline: []string{"postgres: autovacuum worker"}, utime: 50, start: 7000, rssPages: 100, write: 600000000, ppid: 100}
	kthread := fakeProc{pid: 500, comm: "kworker/0:1", start: 10}
	wrapper := fakeProc{pid: 600, comm: "sh", cmdline: []string{"sh", "-c", "exec postgres --single"}, start: 99950, rssPages: 50}
	for _, p := range []fakeProc{pgMain, pgCkpt, loadgen, exiting, kthread, wrapper} {
		f.proc1(p)
	}
	f.host(1000,
		[10]int{1000, 100, 500, 8000, 200, 10, 20, 30, 0, 0},
		[]string{
			disk(7, 0, "loop0", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
			disk(1, 0, "ram0", 10, 80, 1, 0, 0, 0, 1, 1, 0, 0, 0),
			disk(8, 0, "sda", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
			disk(254, 0, "vda", 1000, 80000, 500, 2000, 160000, 3000, 4000, 3500, 10, 800, 5),
			disk(254, 1, "vda1", 900, 70000, 450, 1900, 150000, 2900, 3900, 3400, 10, 800, 5),
		},
		[]string{netdev("lo", 1000, 1000), netdev("eth0", 10000, 5000), netdev("docker0", 0, 0)})

	s1, err := newSampler(telemetry.Config{
		ProcRoot:     f.proc,
		SysRoot:      f.sys,
		WatchProcess: []string{`^postgres`},
		WatchCmdline: []string{`loadgen`},
		WatchPIDs:    []int{200},
	})
	if err != nil {
		t.Fatal(err)
	}
	if base, err = s1.Sample(t0); err != nil {
		t.Fatal(err)
	}

	// Two seconds later.
	pgMain.utime, pgMain.stime, pgMain.read, pgMain.write = 600, 150, 3000000, 4000000
	// The postmaster reaped the worker, which had written 600 MB when
	// last seen and 1 MB since: /proc/PID/io takes in all 601 MB, but
	// only the last 1 MB is new.
	pgMain.exitedWrite = 601000000
	pgCkpt.utime, pgCkpt.stime, pgCkpt.write = 30, 30, 1000000
	loadgen.utime, loadgen.stime = 300, 100
	// Thread 201 exited (its 1 MB, seen at the baseline, and 0.4 MB
	// since move to the process's exited share); thread 202 started and
	// wrote 3 MB.
	loadgen.threads, loadgen.exitedWrite = map[int][2]int{202: {0, 3000000}}, 1400000
	// New since the baseline, started during the interval: counts from 0.
	newWorker := fakeProc{pid: 300, comm: "postgres", cmdline: []string{"postgres: autovacuum worker"}, utime: 20, stime: 20, start: 100100, rssPages: 200, write: 2000000}
	// New since the baseline but started before it: counts from now.
	oldUnseen := fakeProc{pid: 301, comm: "postgres", cmdline: []string{"postgres: walsender"}, utime: 900, stime: 900, start: 90000, rssPages: 300, write: 9000000}
	// The wrapper exec'd postgres: same PID and start, new name.
	wrapper.comm, wrapper.cmdline, wrapper.utime = "postgres", []string{"postgres", "--single"}, 70
	for _, p := range []fakeProc{pgMain, pgCkpt, loadgen, newWorker, oldUnseen, wrapper} {
		f.proc1(p)
	}
	f.remove(exiting.pid)
	f.mkdir(filepath.Join(f.sys, "block", "sdb")) // attached during the interval
	f.host(1002,
		[10]int{1100, 100, 550, 8230, 210, 14, 26, 30, 0, 0},
		[]string{
			disk(7, 0, "loop0", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
			disk(1, 0, "ram0", 20, 160, 2, 0, 0, 0, 2, 2, 0, 0, 0),
			disk(8, 0, "sda", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
			disk(8, 16, "sdb", 10, 80, 30, 0, 0, 0, 30, 30, 0, 0, 0),
			disk(254, 0, "vda", 1100, 88000, 650, 2300, 184000, 4200, 4500, 4900, 110, 16800, 55),
			disk(254, 1, "vda1", 1000, 78000, 600, 2200, 174000, 4100, 4400, 4800, 110, 16800, 55),
		},
		[]string{netdev("lo", 3000, 3000), netdev("eth0", 30000, 9000), netdev("docker0", 0, 0)})
	if s, err = s1.Sample(t0.Add(2 * time.Second)); err != nil {
		t.Fatal(err)
	}
	return base, s
}

func TestSampleDisks(t *testing.T) {
	base, s := twoSamples(t)
	if len(base.Disks) != 1 || base.Disks[0] != (telemetry.Disk{Name: "vda"}) {
		t.Errorf("baseline disks = %+v, want vda with zero rates", base.Disks)
	}
	// Worked by hand from the iostat formulas over Δt = 2 s:
	// vda: Δreads 100, Δrsect 8000, Δrms 150; Δwrites 300, Δwsect 24000,
	// Δwms 1200; Δdiscards 100, Δdsect 16000, Δdms 50; Δio_ms 500;
	// Δweighted_ms 1400.
	// sdb: new, counted from zero: 10 reads, 80 sectors, 30 ms.
	want := []telemetry.Disk{
		{Name: "sdb", ReadsPerSec: 5, ReadKBPerSec: 80 * 0.5 / 2, AvgRequestKB: 80 * 0.5 / 10,
			AvgQueueSize: 30.0 / 2000, ReadAwaitMs: 3, AwaitMs: 3, UtilPct: 30.0 / 2000 * 100},
		{
			Name:          "vda",
			ReadsPerSec:   50,   // 100 / 2
			WritesPerSec:  150,  // 300 / 2
			ReadKBPerSec:  2000, // 8000 * 512/1024 / 2
			WriteKBPerSec: 6000, // 24000 * 512/1024 / 2
			AvgRequestKB:  48,   // (8000+24000+16000) * 512/1024 / (100+300+100)
			AvgQueueSize:  0.7,  // 1400 / 2000
			ReadAwaitMs:   1.5,  // 150 / 100
			WriteAwaitMs:  4,    // 1200 / 300
			AwaitMs:       2.8,  // (150+1200+50) / (100+300+100)
			UtilPct:       25,   // 500 / 2000 * 100
		},
	}
	if len(s.Disks) != len(want) {
		t.Fatalf("disks = %+v, want %+v (loop0 and sda idle, ram0 skipped, vda1 a partition)", s.Disks, want)
	}
	for i, w := range want {
		if s.Disks[i] != w {
			t.Errorf("disk %d:\n got %+v\nwant %+v", i, s.Disks[i], w)
		}
	}
}

func TestSampleHost(t *testing.T) {
	base, s := twoSamples(t)
	if !base.Start.Equal(t0) || !base.End.Equal(t0) || !s.Start.Equal(t0) || !s.End.Equal(t0.Add(2*time.Second)) {
		t.Errorf("intervals = [%v, %v] and [%v, %v]", base.Start, base.End, s.Start, s.End)
	}
	if base.CPU != (telemetry.CPU{Cores: 2}) {
		t.Errorf("baseline CPU = %+v, want zero rates on 2 cores", base.CPU)
	}
	// Δ ticks over 2 CPUs × 2 s = 400: user 100, system 50, idle 230,
	// iowait 10, irq 4, softirq 6.
	wantCPU := telemetry.CPU{Cores: 2, User: 25, System: 12.5, Idle: 57.5, IOWait: 2.5, IRQ: 1, SoftIRQ: 1.5}
	c := s.CPU
	for _, f := range []struct {
		name      string
		got, want float64
	}{
		{"user", c.User, wantCPU.User}, {"nice", c.Nice, 0}, {"system", c.System, wantCPU.System},
		{"iowait", c.IOWait, wantCPU.IOWait}, {"irq", c.IRQ, wantCPU.IRQ}, {"softirq", c.SoftIRQ, wantCPU.SoftIRQ},
		{"steal", c.Steal, 0}, {"idle", c.Idle, wantCPU.Idle},
		{"sum", c.User + c.Nice + c.System + c.IOWait + c.IRQ + c.SoftIRQ + c.Steal + c.Idle, 100},
	} {
		if !approx(f.got, f.want) {
			t.Errorf("cpu %s = %v%%, want %v%%", f.name, f.got, f.want)
		}
	}
	if c.Cores != 2 {
		t.Errorf("cores = %d, want 2", c.Cores)
	}
	const kB = 1024
	wantMem := telemetry.Memory{
		TotalBytes:    16000000 * kB,
		UsedBytes:     (16000000 - 4000000 - 500000 - 3000000 - 500000) * kB,
		CacheBytes:    (500000 + 3000000 + 500000) * kB,
		SwapUsedBytes: 500000 * kB,
	}
	if base.Memory != wantMem || s.Memory != wantMem {
		t.Errorf("memory = %+v (baseline %+v), want %+v", s.Memory, base.Memory, wantMem)
	}
	wantNet := []telemetry.NetDev{{Name: "eth0", RxBytesPerSec: 10000, TxBytesPerSec: 2000}, {Name: "lo", RxBytesPerSec: 1000, TxBytesPerSec: 1000}}
	if fmt.Sprint(s.Net) != fmt.Sprint(wantNet) {
		t.Errorf("net = %+v, want %+v (docker0 never used)", s.Net, wantNet)
	}
}

func TestSampleProcs(t *testing.T) {
	base, s := twoSamples(t)
	page := uint64(os.Getpagesize())
	for _, tc := range []struct {
		name string
		got  telemetry.ProcGroup
		want telemetry.ProcGroup
	}{
		// 100, 101 and 400 match ^postgres on their name; 200 matches
		// loadgen on its command line (a --watch-cmdline group); sh
		// (600) does not match yet. The PID group is named after its
		// process.
		{"baseline ^postgres", base.Procs[0], telemetry.ProcGroup{Name: "^postgres", Processes: 3, RSSBytes: 1600 * page}},
		{"baseline loadgen", base.Procs[1], telemetry.ProcGroup{Name: "cmdline loadgen", Processes: 1, RSSBytes: 2000 * page}},
		{"baseline pid", base.Procs[2], telemetry.ProcGroup{Name: "python3 (pid 200)", Processes: 1, RSSBytes: 2000 * page}},
		// 100: Δ150 ticks, Δread 2 MB, Δwrite 4 MB, and 1 MB its
		// reaped child 400 wrote since last seen; 101: Δ40 ticks,
		// Δwrite 1 MB; 300 (started in the interval): 40 ticks, write
		// 2 MB; 301 (older, first seen) and 600 (exec'd) count from now.
		// Over 2 s: 230 ticks = 1.15 cores.
		{"^postgres", s.Procs[0], telemetry.ProcGroup{Name: "^postgres", Processes: 5, CPUCores: 1.15,
			RSSBytes: (1000 + 500 + 200 + 300 + 50) * page, ReadBytesPerSec: 1e6, WriteBytesPerSec: 4e6}},
		// 200: its new thread's 3 MB and its exited thread's last
		// 0.4 MB, over 2 s.
		{"loadgen", s.Procs[1], telemetry.ProcGroup{Name: "cmdline loadgen", Processes: 1, CPUCores: 1.5, RSSBytes: 2000 * page, WriteBytesPerSec: 1.7e6}},
		{"pid", s.Procs[2], telemetry.ProcGroup{Name: "python3 (pid 200)", Processes: 1, CPUCores: 1.5, RSSBytes: 2000 * page, WriteBytesPerSec: 1.7e6}},
	} {
		g, w := tc.got, tc.want
		if g.Name != w.Name || g.Processes != w.Processes || g.RSSBytes != w.RSSBytes || !approx(g.CPUCores, w.CPUCores) ||
			!approx(g.ReadBytesPerSec, w.ReadBytesPerSec) || !approx(g.WriteBytesPerSec, w.WriteBytesPerSec) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.name, g, w)
		}
	}
	if len(s.Procs) != 3 {
		t.Errorf("%d groups, want 3", len(s.Procs))
	}
}

// TestMatching checks which processes a pattern counts: by default the
// ones whose name matches (so not a client or a monitor whose arguments
// name the server, the processes that inflated the server's figures when
// patterns also matched command lines), and with WatchCmdline those whose
// command line does.
func TestMatching(t *testing.T) {
	f := newFakeTree(t)
	f.host(1000, [10]int{1, 0, 1, 10, 0, 0, 0, 0, 0, 0}, nil, nil)
	for _, p := range []fakeProc{
		{pid: 10, comm: "postgres", cmdline: []string{"/usr/lib/postgresql/16/bin/postgres", "-D", "/var/lib/pg"}},
		{pid: 11, comm: "postgres", cmdline: []string{"postgres: 16/main: checkpointer "}},
		{pid: 12, comm: "mysqld", cmdline: []string{"/usr/sbin/mysqld", "--datadir=/var/lib/mysql"}},
		{pid: 13, comm: "java", cmdline: []string{"java", "-jar", "/opt/ycsb/ycsb.jar", "run"}},
		{pid: 14, comm: "kthreadd"},
		{pid: 15, comm: "pidstat", cmdline: []string{"pidstat", "-C", "postgres", "1"}},
		{pid: 16, comm: "stampede", cmdline: []string{"stampede", "run", "oltp_read_write", "postgresql://app@db/shop"}},
		{pid: 17, comm: "yugabyte-tserve", cmdline: []string{"/home/yb/bin/yugabyte-tserver", "--fs_data_dirs=/mnt/d0"}},
	} {
		f.proc1(p)
	}
	for _, tc := range []struct {
		pattern string
		cmdline bool
		want    int
	}{
		{`^postgres$`, false, 2}, // the name
		{`postgres`, false, 2},   // not pidstat -C postgres, not a client of postgresql://
		{`postgres`, true, 4},    // asked for: the command lines
		{`checkpointer`, false, 0},
		{`checkpointer`, true, 1},
		{`bin/postgres -D`, true, 1}, // arguments joined by spaces
		{`^(postgres|mysqld)$`, false, 3},
		{`ycsb\.jar`, false, 0},
		{`ycsb\.jar`, true, 1},
		{`^java$`, false, 1},
		{`kthreadd`, false, 1}, // kernel threads have a name but no command line
		{`kthreadd`, true, 0},
		{`^yugabyte-tserver$`, false, 1}, // a name the kernel cut to 15 bytes
		{`^nothing$`, false, 0},
		{`(?i)MYSQL`, false, 1},
	} {
		t.Run(fmt.Sprintf("%s/cmdline=%v", tc.pattern, tc.cmdline), func(t *testing.T) {
			cfg := telemetry.Config{ProcRoot: f.proc, SysRoot: f.sys, WatchProcess: []string{tc.pattern}}
			if tc.cmdline {
				cfg.WatchProcess, cfg.WatchCmdline = nil, []string{tc.pattern}
			}
			s, err := newSampler(cfg)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.Sample(t0)
			if err != nil {
				t.Fatal(err)
			}
			if n := got.Procs[0].Processes; n != tc.want {
				t.Errorf("%q matches %d processes, want %d", tc.pattern, n, tc.want)
			}
		})
	}
}

func TestNewErrors(t *testing.T) {
	f := newFakeTree(t)
	f.host(1000, [10]int{1, 0, 1, 10, 0, 0, 0, 0, 0, 0}, nil, nil)
	f.proc1(fakeProc{pid: 10, comm: "postgres"})
	empty := t.TempDir()
	for _, tc := range []struct {
		name string
		cfg  telemetry.Config
		want string // in the error; "" for none
	}{
		{"ok", telemetry.Config{ProcRoot: f.proc, SysRoot: f.sys, WatchProcess: []string{"^postgres"}, WatchPIDs: []int{10}}, ""},
		{"no sys", telemetry.Config{ProcRoot: f.proc, SysRoot: filepath.Join(empty, "nosys")}, ""},
		{"bad regex", telemetry.Config{ProcRoot: f.proc, SysRoot: f.sys, WatchProcess: []string{"^postgres", "pg(bouncer"}}, `invalid process pattern "pg(bouncer"`},
		{"gone pid", telemetry.Config{ProcRoot: f.proc, SysRoot: f.sys, WatchPIDs: []int{10, 123}}, "PID 123 is gone: "},
		{"twice", telemetry.Config{ProcRoot: f.proc, SysRoot: f.sys, WatchProcess: []string{"^postgres", "^postgres"}}, `pattern "^postgres" is listed twice`},
		{"cmdline twice", telemetry.Config{ProcRoot: f.proc, SysRoot: f.sys, WatchCmdline: []string{"walwriter", "walwriter"}}, `pattern "walwriter" is listed twice`},
		{"bad cmdline regex", telemetry.Config{ProcRoot: f.proc, SysRoot: f.sys, WatchCmdline: []string{"pg(bouncer"}}, `invalid process pattern "pg(bouncer"`},
		{"name and cmdline", telemetry.Config{ProcRoot: f.proc, SysRoot: f.sys, WatchProcess: []string{"postgres"}, WatchCmdline: []string{"postgres"}}, ""},
		{"pid twice", telemetry.Config{ProcRoot: f.proc, SysRoot: f.sys, WatchPIDs: []int{10, 10}}, "PID 10 is listed twice"},
		{"no proc", telemetry.Config{ProcRoot: filepath.Join(empty, "noproc")}, "cannot read " + filepath.Join(empty, "noproc")},
		{"not proc", telemetry.Config{ProcRoot: empty}, "cannot read " + filepath.Join(empty, "stat")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := newSampler(tc.cfg)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("New: %v", err)
			case tc.want == "":
				if _, err := s.Sample(t0); err != nil {
					t.Errorf("Sample: %v", err)
				}
			case err == nil:
				t.Fatalf("New succeeded, want an error with %q", tc.want)
			case !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n"):
				t.Errorf("error %q, want one line with %q", err, tc.want)
			}
		})
	}
}

func TestPIDGroupIgnoresReuse(t *testing.T) {
	f := newFakeTree(t)
	f.host(1000, [10]int{1, 0, 1, 10, 0, 0, 0, 0, 0, 0}, nil, nil)
	f.proc1(fakeProc{pid: 10, comm: "postgres", start: 5000, utime: 10})
	s, err := newSampler(telemetry.Config{ProcRoot: f.proc, SysRoot: f.sys, WatchPIDs: []int{10}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sample(t0); err != nil {
		t.Fatal(err)
	}
	// PID 10 exited and the PID went to another process.
	f.proc1(fakeProc{pid: 10, comm: "bash", start: 100050, utime: 50})
	f.host(1001, [10]int{2, 0, 2, 20, 0, 0, 0, 0, 0, 0}, nil, nil)
	got, err := s.Sample(t0.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if g := got.Procs[0]; g.Processes != 0 || g.CPUCores != 0 {
		t.Errorf("group = %+v, want no process (PID reused)", g)
	}
}

// TestSettledProcessExec checks that an old process that matched no
// pattern, and so is read only now and then, is noticed within 16 samples
// once it execs a watched program.
func TestSettledProcessExec(t *testing.T) {
	f := newFakeTree(t)
	f.host(1000, [10]int{1, 0, 1, 10, 0, 0, 0, 0, 0, 0}, nil, nil)
	f.proc1(fakeProc{pid: 700, comm: "bash", cmdline: []string{"bash", "start.sh"}, start: 100})
	s, err := newSampler(telemetry.Config{ProcRoot: f.proc, SysRoot: f.sys, WatchProcess: []string{"^postgres$"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sample(t0); err != nil {
		t.Fatal(err)
	}
	f.proc1(fakeProc{pid: 700, comm: "postgres", cmdline: []string{"postgres", "-D", "/data"}, start: 100, utime: 10})
	for i := 1; i <= 16; i++ {
		got, err := s.Sample(t0.Add(time.Duration(i) * time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if got.Procs[0].Processes == 1 {
			return
		}
	}
	t.Errorf("the exec'd process was not noticed within 16 samples")
}

// TestPIDGroupDescendants watches a server by its postmaster's PID: the
// group holds its children and grandchildren, also children listed before
// their parent (PIDs wrap), from the next sample on.
func TestPIDGroupDescendants(t *testing.T) {
	f := newFakeTree(t)
	f.host(1000, [10]int{1, 0, 1, 10, 0, 0, 0, 0, 0, 0}, nil, nil)
	procs := []fakeProc{
		{pid: 50, comm: "postgres", ppid: 100, start: 90000, utime: 10},  // grandchild, listed first
		{pid: 100, comm: "postgres", ppid: 500, start: 80000, utime: 10}, // child with a lower PID
		{pid: 500, comm: "postgres", start: 5000, utime: 10},             // the postmaster
		{pid: 600, comm: "postgres", ppid: 500, start: 90000, utime: 10}, // child
		{pid: 700, comm: "postgres", start: 90000, utime: 10},            // another server's
	}
	for _, p := range procs {
		f.proc1(p)
	}
	s, err := newSampler(telemetry.Config{ProcRoot: f.proc, SysRoot: f.sys, WatchPIDs: []int{500}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		for _, p := range procs {
			p.utime += 100 * i
			f.proc1(p)
		}
		f.host(1000+float64(i), [10]int{1 + i, 0, 1, 10, 0, 0, 0, 0, 0, 0}, nil, nil)
		got, err := s.Sample(t0.Add(time.Duration(i) * time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if i >= 2 && got.Procs[0].Processes != 4 {
			t.Errorf("sample %d: group has %d processes, want the postmaster and its 3 descendants", i, got.Procs[0].Processes)
		}
	}
}

// TestRatesUseReadTimes checks that each counter is divided by the time
// between the sampler's own two reads of it, not by the interval's
// nominal length: the sample labelled [0 s, 1 s] reads its counters 1.15 s
// after the baseline's reads (the sampler was called late), the next one,
// labelled [1 s, 2 s], 0.85 s after.
func TestRatesUseReadTimes(t *testing.T) {
	f := newFakeTree(t)
	disks := func(wsect, ioMs int) []string {
		return []string{disk(254, 0, "vda", 0, 0, 0, 100, wsect, 10, ioMs, 10, 0, 0, 0)}
	}
	server := fakeProc{pid: 10, comm: "postgres", start: 100, write: 1000}
	f.proc1(server)
	f.host(1000, [10]int{100, 0, 100, 1000, 0, 0, 0, 0, 0, 0}, disks(0, 0), []string{netdev("lo", 1000, 1000)})
	s, err := newSampler(telemetry.Config{ProcRoot: f.proc, SysRoot: f.sys, WatchProcess: []string{"^postgres$"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sample(t0); err != nil {
		t.Fatal(err)
	}
	// Read 1.15 s after the baseline: the server used 115 ticks and
	// wrote 1.15 MB; a worker born meanwhile used 23 ticks; the disk
	// wrote 2300 sectors (1150 kB) and was busy 115 ms, lo received 1150
	// bytes.
	s.skew = 150 * time.Millisecond
	server.utime, server.write = 115, 1000+1150000
	f.proc1(server)
	f.proc1(fakeProc{pid: 11, comm: "postgres", ppid: 10, start: 100050, utime: 23})
	f.host(1001.15, [10]int{200, 0, 200, 1100, 0, 0, 0, 0, 0, 0}, disks(2300, 115), []string{netdev("lo", 2150, 1000)})
	got, err := s.Sample(t0.Add(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	g := got.Procs[0]
	if !approx(g.CPUCores, 1.2) || !approx(g.WriteBytesPerSec, 1e6) || g.Processes != 2 {
		t.Errorf("late sample: group %+v, want 1.2 cores (1 + 0.2 of the new worker) and 1 MB/s written over 1.15 s", g)
	}
	if d := got.Disks[0]; !approx(d.WriteKBPerSec, 1000) || !approx(d.UtilPct, 10) {
		t.Errorf("late sample: disk %+v, want 1000 kB/s written over 1.15 s", d)
	}
	if n := got.Net[0]; !approx(n.RxBytesPerSec, 1000) {
		t.Errorf("late sample: net %+v, want 1000 B/s received over 1.15 s", n)
	}
	// Read on time, 0.85 s after the previous reads.
	s.skew = 0
	server.utime = 115 + 85
	f.proc1(server)
	f.host(1002, [10]int{300, 0, 300, 1200, 0, 0, 0, 0, 0, 0}, disks(2300+1700, 115), []string{netdev("lo", 2150+850, 1000)})
	if got, err = s.Sample(t0.Add(2 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if g := got.Procs[0]; !approx(g.CPUCores, 1) || g.WriteBytesPerSec != 0 {
		t.Errorf("sample on time: group %+v, want 1 core over 0.85 s", g)
	}
	if d := got.Disks[0]; !approx(d.WriteKBPerSec, 1000) {
		t.Errorf("sample on time: disk %+v, want 1000 kB/s over 0.85 s", d)
	}
	if !got.Start.Equal(t0.Add(time.Second)) || !got.End.Equal(t0.Add(2*time.Second)) {
		t.Errorf("interval [%v, %v], want the times given to Sample", got.Start, got.End)
	}
}

// TestSummaryIsOneLongInterval checks the averages of a run against their
// independent truth: the figures of one interval spanning the whole run,
// computed by a second sampler that reads the same counters only at the
// run's start and end (as iostat, mpstat and pidstat would report an
// interval of the run's length). The run has whole intervals of 1 s and a
// last one of 10 ms, in which every tick is system time and the disk does a
// burst of slow writes.
func TestSummaryIsOneLongInterval(t *testing.T) {
	f := newFakeTree(t)
	type state struct {
		ms                        int // since the start
		usr, sys, idle            int // ticks
		writes, wsect, wms, iomsW int // disk counters (iomsW: io_ms and weighted ms)
		reads, rsect, rms         int
		rx                        int
		pgTicks, pgWrite          int
	}
	states := []state{
		{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		{1000, 120, 80, 0, 100, 1600, 200, 300, 50, 800, 50, 1e6, 120, 4e6},
		{2000, 220, 173, 7, 400, 6400, 1400, 900, 50, 800, 50, 3e6, 260, 9e6},
		{3000, 310, 233, 57, 420, 7000, 1500, 950, 250, 4800, 650, 3e6, 350, 9.5e6},
		{3010, 310, 235, 57, 460, 17000, 3500, 960, 250, 4800, 650, 3e6, 350, 9.6e6},
	}
	write := func(st state) {
		f.host(1000+float64(st.ms)/1000, [10]int{1000 + st.usr, 0, 1000 + st.sys, 9000 + st.idle, 0, 0, 0, 0, 0, 0},
			[]string{disk(254, 0, "vda", 1+st.reads, st.rsect, st.rms, 1+st.writes, st.wsect, st.wms, st.iomsW, st.iomsW+st.rms+st.wms, 0, 0, 0)},
			[]string{netdev("lo", 1+st.rx, 1)})
		f.proc1(fakeProc{pid: 10, comm: "postgres", start: 100, utime: st.pgTicks, write: st.pgWrite})
	}
	write(states[0])
	cfg := telemetry.Config{ProcRoot: f.proc, SysRoot: f.sys, WatchProcess: []string{"^postgres$"}}
	run, err := newSampler(cfg)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := newSampler(cfg)
	if err != nil {
		t.Fatal(err)
	}
	// joined samples one interval over the last whole one and the short
	// one after it: the interval the short one joins for peaks.
	joined, err := newSampler(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var samples []telemetry.Sample
	var truth, join telemetry.Sample
	for i, st := range states {
		write(st)
		at := t0.Add(time.Duration(st.ms) * time.Millisecond)
		s, err := run.Sample(at)
		if err != nil {
			t.Fatal(err)
		}
		samples = append(samples, s)
		if i == len(states)-3 || i == len(states)-1 {
			if join, err = joined.Sample(at); err != nil {
				t.Fatal(err)
			}
		}
		if i == 0 || i == len(states)-1 {
			if truth, err = whole.Sample(at); err != nil {
				t.Fatal(err)
			}
		}
	}
	sum := telemetry.Summarize(samples)
	d, td := sum.Disks[0], truth.Disks[0]
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		{"cpu usr %", sum.CPU.User.Avg, truth.CPU.User},
		{"cpu sys %", sum.CPU.System.Avg, truth.CPU.System},
		{"cpu idle %", sum.CPU.Idle.Avg, truth.CPU.Idle},
		{"r/s", d.ReadsPerSec.Avg, td.ReadsPerSec},
		{"w/s", d.WritesPerSec.Avg, td.WritesPerSec},
		{"rkB/s", d.ReadKBPerSec.Avg, td.ReadKBPerSec},
		{"wkB/s", d.WriteKBPerSec.Avg, td.WriteKBPerSec},
		{"areq-sz", d.AvgRequestKB.Avg, td.AvgRequestKB},
		{"aqu-sz", d.AvgQueueSize.Avg, td.AvgQueueSize},
		{"r_await", d.ReadAwaitMs.Avg, td.ReadAwaitMs},
		{"w_await", d.WriteAwaitMs.Avg, td.WriteAwaitMs},
		{"await", d.AwaitMs.Avg, td.AwaitMs},
		{"%util", d.UtilPct.Avg, td.UtilPct},
		{"lo rx", sum.Net[0].RxBytesPerSec.Avg, truth.Net[0].RxBytesPerSec},
		{"postgres cores", sum.Procs[0].CPUCores.Avg, truth.Procs[0].CPUCores},
		{"postgres write", sum.Procs[0].WriteBytesPerSec.Avg, truth.Procs[0].WriteBytesPerSec},
	} {
		if math.Abs(tc.got-tc.want) > 1e-9*math.Max(1, math.Abs(tc.want)) {
			t.Errorf("%s: average %v, one interval over the run %v", tc.name, tc.got, tc.want)
		}
	}
	// The last 10 ms (all system time, slow writes) set no peak alone:
	// they join the second before them, as one interval sampled over both.
	last := samples[len(samples)-1]
	if last.CPU.System != 100 || last.Disks[0].WriteAwaitMs != 50 {
		t.Fatalf("the last interval is not the one described: %+v %+v", last.CPU, last.Disks[0])
	}
	sys, wawait := join.CPU.System, join.Disks[0].WriteAwaitMs
	for _, s := range samples[1:3] {
		sys, wawait = max(sys, s.CPU.System), max(wawait, s.Disks[0].WriteAwaitMs)
	}
	if got := sum.CPU.System.Max; math.Abs(got-sys) > 1e-9*sys {
		t.Errorf("sys peak %v%%, want %v%% (of the whole intervals, the last joined by the short one)", got, sys)
	}
	if got := d.WriteAwaitMs.Max; math.Abs(got-wawait) > 1e-9*wawait {
		t.Errorf("w_await peak %v ms, want %v (of the whole intervals, the last joined by the short one)", got, wawait)
	}
	if last.CPU.System <= sys || last.Disks[0].WriteAwaitMs <= wawait {
		t.Errorf("the short interval's sys %v, w_await %v are not above the peaks: the test shows nothing", last.CPU.System, last.Disks[0].WriteAwaitMs)
	}
}

// TestExitedShare follows a watched parent through the exits of its
// children, one sample a second, and checks the bytes its group is counted
// each second: what each process did itself, each byte once, whatever the
// kernel's /proc/PID/io of the parent takes in when it reaps a child (its
// whole I/O, counted already while it lived).
func TestExitedShare(t *testing.T) {
	f := newFakeTree(t)
	parent := fakeProc{pid: 100, comm: "postgres", start: 100}
	backend := fakeProc{pid: 101, comm: "postgres", start: 200, ppid: 100, write: 10e6}
	copier := fakeProc{pid: 102, comm: "cp", start: 300, ppid: 100, write: 50e6}
	f.host(1000, [10]int{}, nil, nil)
	for _, p := range []fakeProc{parent, backend, copier} {
		f.proc1(p)
	}
	s, err := newSampler(telemetry.Config{ProcRoot: f.proc, SysRoot: f.sys, WatchProcess: []string{"^postgres$"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sample(t0); err != nil {
		t.Fatal(err)
	}
	for i, step := range []struct {
		name   string
		change func()
		want   float64 // bytes written in the second
	}{
		{"the backend writes 2 MB, the unwatched copier 10 MB", func() {
			backend.write, copier.write = 12e6, 60e6
			f.proc1(backend)
			f.proc1(copier)
		}, 2e6},
		{"the parent reaps the copier, which wrote 5 MB since: not a postgres process's", func() {
			f.remove(copier.pid)
			parent.exitedWrite = 65e6
			f.proc1(parent)
		}, 0},
		{"the backend exits, its parent's count has not taken it in yet", func() {
			f.remove(backend.pid)
		}, 0},
		{"the parent's count takes in the backend's 12 MB and 1 MB since: the 1 MB counts", func() {
			parent.exitedWrite = 78e6
			f.proc1(parent)
		}, 1e6},
		{"a child never seen writes 4 MB and is reaped", func() {
			parent.exitedWrite = 82e6
			f.proc1(parent)
		}, 4e6},
		{"the parent writes 3 MB itself", func() {
			parent.write = 3e6
			f.proc1(parent)
		}, 3e6},
	} {
		step.change()
		f.host(1001+float64(i), [10]int{}, nil, nil)
		got, err := s.Sample(t0.Add(time.Duration(i+1) * time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if w := got.Procs[0].WriteBytesPerSec; !approx(w, step.want) {
			t.Errorf("%s: %.0f bytes counted, want %.0f", step.name, w, step.want)
		}
	}
}
