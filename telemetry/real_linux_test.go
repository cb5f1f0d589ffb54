//go:build linux

package telemetry_test

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/stampede-bench/stampede/telemetry"
)

// procTicks returns the user + system CPU time of a process in ticks
// (1/100 s), read from /proc/PID/stat: the kernel's own count, for the
// tests to compare the sampler's figures with.
func procTicks(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	u, _ := strconv.ParseInt(f[11], 10, 64) // utime is field 14, 12th after the name
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return u + s
}

// wholeDisk returns the whole block device that holds path ("vda" for
// /dev/vda1), or "" when it is not on a block device.
func wholeDisk(path string) string {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return ""
	}
	link, err := os.Readlink(fmt.Sprintf("/sys/dev/block/%d:%d", unix.Major(st.Dev), unix.Minor(st.Dev)))
	if err != nil {
		return ""
	}
	_, rest, ok := strings.Cut(link, "/block/")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, "/")
	return name
}

// sectorsWritten returns the sectors written to disk since boot, from
// /proc/diskstats.
func sectorsWritten(t *testing.T, disk string) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/diskstats")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) > 9 && f[2] == disk {
			v, _ := strconv.ParseInt(f[9], 10, 64)
			return v
		}
	}
	t.Fatalf("%s is not in /proc/diskstats", disk)
	return 0
}

// TestRealDiskWriter has dd write 50 MiB with O_DIRECT to the disk that
// holds the test's temporary directory, at a steady 25 MiB/s, watched by
// PID and sampled every half second, and checks the bytes counted against
// what was written: the dd group's write bytes times each interval's length
// within 20% of 50 MiB, and the disk's wkB/s times each interval's length
// within 20% of the kernel's own count of the sectors written to it over
// the test (50 MiB, plus whatever other processes wrote meanwhile) and not
// below 80% of 50 MiB.
func TestRealDiskWriter(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 50 MiB")
	}
	const mib = 1 << 20
	const total = 50 * mib
	dir := t.TempDir()
	disk := wholeDisk(dir)
	if disk == "" {
		t.Skipf("%s is not on a block device", dir)
	}
	out := filepath.Join(dir, "out")
	// dd reads its blocks from a pipe and waits for a 51st that never
	// comes, so that it is still alive when the last sample is taken:
	// a process that exits loses its last partial interval.
	cmd := exec.Command("dd", "of="+out, "bs=1M", "count=51", "iflag=fullblock", "oflag=direct", "status=none")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot run dd: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		in.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	s, err := telemetry.New(telemetry.Config{WatchPIDs: []int{cmd.Process.Pid}})
	if err != nil {
		t.Fatal(err)
	}
	sectors0 := sectorsWritten(t, disk)
	if _, err := s.Sample(time.Now()); err != nil {
		t.Fatal(err)
	}
	var procBytes, diskBytes float64
	sample := func() telemetry.Sample {
		got, err := s.Sample(time.Now())
		if err != nil {
			t.Fatal(err)
		}
		secs := got.End.Sub(got.Start).Seconds()
		procBytes += got.Procs[0].WriteBytesPerSec * secs
		for _, d := range got.Disks {
			if d.Name == disk {
				diskBytes += d.WriteKBPerSec * 1024 * secs
			}
		}
		return got
	}
	fed := make(chan error, 1)
	go func() {
		// A steady writer, as a server is: a rate over an interval is
		// an average, which a burst shorter than the interval spreads
		// over whichever interval its reads fall in.
		block := make([]byte, mib)
		for range total / mib {
			if _, err := in.Write(block); err != nil {
				fed <- err
				return
			}
			time.Sleep(40 * time.Millisecond)
		}
		fed <- nil
	}()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		time.Sleep(500 * time.Millisecond)
		sample()
		if fi, err := os.Stat(out); err == nil && fi.Size() >= total {
			break
		}
		select {
		case err := <-done:
			t.Skipf("dd ended early (O_DIRECT unsupported here?): %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("dd did not write 50 MiB in 2 minutes")
		}
	}
	if err := <-fed; err != nil {
		t.Fatal(err)
	}
	last := sample()
	kernel := float64(sectorsWritten(t, disk)-sectors0) * 512
	t.Logf("written %d MiB: group %q counted %.1f MiB, disk %s %.1f MiB (the kernel's count over the test: %.1f MiB)",
		total/mib, last.Procs[0].Name, procBytes/mib, disk, diskBytes/mib, kernel/mib)
	if want := fmt.Sprintf("dd (pid %d)", cmd.Process.Pid); last.Procs[0].Name != want {
		t.Errorf("group name %q, want %q", last.Procs[0].Name, want)
	}
	if math.Abs(procBytes-total) > 0.2*total {
		t.Errorf("dd's write bytes: %.1f MiB counted, want 50 MiB within 20%%", procBytes/mib)
	}
	if math.Abs(diskBytes-kernel) > 0.2*kernel || diskBytes < 0.8*total {
		t.Errorf("disk %s: %.1f MiB counted, want the kernel's %.1f MiB within 20%%, and at least 80%% of 50 MiB", disk, diskBytes/mib, kernel/mib)
	}
}

// TestRealCPUBurner watches, by PID, a shell that burns CPU in a loop
// between two reads of its standard input, and checks the CPU the sampler
// reports against the kernel's count of the shell's CPU time. The times
// given to Sample are a second apart while the samples are taken every
// 200 ms: the figures must follow the time between the sampler's own reads
// (cores × the real time between them add up to the CPU time), not the
// labels.
func TestRealCPUBurner(t *testing.T) {
	cmd := exec.Command("sh", "-c", `read go; i=0; while [ $i -lt 1000000 ]; do i=$((i+1)); done; echo done; read stop`)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot run sh: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	pid := cmd.Process.Pid
	s, err := telemetry.New(telemetry.Config{WatchPIDs: []int{pid}})
	if err != nil {
		t.Fatal(err)
	}
	label := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := s.Sample(label); err != nil {
		t.Fatal(err)
	}
	prev := time.Now()
	ticks0 := procTicks(t, pid) // the shell waits on its input: stable
	finished := make(chan struct{})
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		if line == "done\n" {
			close(finished)
		}
	}()
	if _, err := io.WriteString(in, "go\n"); err != nil {
		t.Fatal(err)
	}
	var counted, peak float64
	var got telemetry.Sample
	for running := true; running; {
		select {
		case <-finished:
			running = false
		case <-time.After(200 * time.Millisecond):
		}
		label = label.Add(time.Second)
		now := time.Now()
		if got, err = s.Sample(label); err != nil {
			t.Fatal(err)
		}
		g := got.Procs[0]
		counted += g.CPUCores * now.Sub(prev).Seconds()
		peak = max(peak, g.CPUCores)
		prev = now
	}
	ticks := procTicks(t, pid) - ticks0
	t.Logf("burner: %d ticks by the kernel, %.1f counted from the samples; peak %.2f cores; host CPU %+v", ticks, counted*100, peak, got.CPU)
	if ticks < 10 {
		t.Fatalf("the burner used only %d ticks", ticks)
	}
	if g := got.Procs[0]; g.Processes != 1 || g.Name != fmt.Sprintf("sh (pid %d)", pid) {
		t.Errorf("group %+v, want 1 process named sh (pid %d)", g, pid)
	}
	if math.Abs(counted*100-float64(ticks)) > 0.03*float64(ticks)+2 {
		t.Errorf("CPU time counted %.1f ticks, the kernel's %d: want within 3%% + 2 ticks", counted*100, ticks)
	}
	// Ticks are whole: one more in an interval of 200 ms is 0.05 cores.
	if peak > 1.1 {
		t.Errorf("a single-threaded shell used %.2f cores in one interval", peak)
	}
	if got.Memory.TotalBytes == 0 || got.Memory.UsedBytes == 0 || got.CPU.Cores < 1 {
		t.Errorf("host figures = %+v %+v", got.CPU, got.Memory)
	}
}
