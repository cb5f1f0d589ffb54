//go:build linux

package telemetry_test

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/telemetry"
)

// sysstatColumns returns the figures of one row of a sysstat report by
// column name: the last line whose first field is row (or, for row "",
// the line after the header), aligned on the header line that holds
// column, from the end (a header starts with a time or "avg-cpu:", its
// row with a time, "Average:" or nothing).
func sysstatColumns(t *testing.T, out, column, row string) map[string]float64 {
	t.Helper()
	lines := strings.Split(out, "\n")
	var header, values []string
	for i, l := range lines {
		f := strings.Fields(l)
		switch {
		case header == nil && containsField(f, column):
			header = f
			if row == "" && i+1 < len(lines) {
				values = strings.Fields(lines[i+1])
			}
		case header != nil && row != "" && len(f) > 0 && f[0] == row:
			values = f
		}
	}
	if header == nil || len(values) == 0 {
		t.Fatalf("no %s column with a %q row in:\n%s", column, row, out)
	}
	m := map[string]float64{}
	for i := 1; i <= min(len(header), len(values)); i++ {
		if v, err := strconv.ParseFloat(values[len(values)-i], 64); err == nil {
			m[header[len(header)-i]] = v
		}
	}
	return m
}

func containsField(fields []string, s string) bool {
	for _, f := range fields {
		if f == s {
			return true
		}
	}
	return false
}

// TestAgainstSysstat has sysstat's own tools (sar -d, iostat -x, iostat -c
// and mpstat, from the sysstat package) read the same two sets of kernel
// counters as the sampler, in a mount namespace where files of the test
// are bound over /proc/stat, /proc/diskstats, /proc/uptime and
// /sys/block, and checks every figure against the tool whose name it
// bears. The counters hold discards and interrupt time, so that they
// tell the definitions apart: await and areq-sz count reads, writes and
// discards as sar -d's do (over reads and writes alone they would read
// 3.38 ms and 40 kB here, not 2.8 ms and 48 kB), and sys is mpstat's %sys,
// which iostat's %system exceeds by %irq and %soft. It needs root (for
// unshare and mount) and sysstat; without them it is skipped.
func TestAgainstSysstat(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("binds files over /proc in a mount namespace: needs root")
	}
	for _, tool := range []string{"sar", "iostat", "mpstat", "unshare", "mount"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (sysstat: apt-get install sysstat)", tool)
		}
	}
	// Two readings 2 s apart (by /proc/uptime): user, nice, system,
	// idle, iowait, irq, softirq, steal ticks; then a disk's reads,
	// sectors read, read ms, writes, sectors written, write ms, io ms,
	// weighted ms, discards, sectors discarded, discard ms.
	type reading struct {
		uptime float64
		cpu    [10]int
		disk   [11]int
	}
	readings := []reading{
		{1000, [10]int{1000, 100, 500, 8000, 200, 10, 20, 30, 0, 0}, [11]int{1000, 80000, 500, 2000, 160000, 3000, 4000, 3500, 10, 800, 5}},
		{1002, [10]int{1200, 100, 600, 8460, 220, 18, 32, 30, 0, 0}, [11]int{1200, 96000, 800, 2600, 208000, 5400, 5000, 6300, 210, 32800, 105}},
	}
	diskLine := func(d [11]int) string { // the 17 fields after the name
		return fmt.Sprintf("%d 0 %d %d %d 0 %d %d 0 %d %d %d 0 %d %d 0 0", d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9], d[10])
	}

	// The sampler, on a fake tree.
	f := newFakeTree(t)
	var s *fakeSampler
	var got telemetry.Sample
	var err error
	for _, r := range readings {
		f.host(r.uptime, r.cpu, []string{"254 0 vda " + diskLine(r.disk)}, []string{netdev("lo", 1, 1)})
		if s == nil {
			if s, err = newSampler(telemetry.Config{ProcRoot: f.proc, SysRoot: f.sys}); err != nil {
				t.Fatal(err)
			}
		}
		if got, err = s.Sample(t0.Add(time.Duration(r.uptime-readings[0].uptime) * time.Second)); err != nil {
			t.Fatal(err)
		}
	}

	// sysstat, on the same counters.
	dir := t.TempDir()
	live := func(r reading) {
		f.host(r.uptime, r.cpu, []string{"254 0 vda " + diskLine(r.disk)}, []string{netdev("lo", 1, 1)})
		for _, name := range []string{"stat", "diskstats", "uptime"} {
			b, err := os.ReadFile(filepath.Join(f.proc, name))
			if err != nil {
				t.Fatal(err)
			}
			// In place: the bind mounts hold the files' inodes.
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.MkdirAll(filepath.Join(dir, "block", "vda"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "block", "vda", "stat"), []byte(diskLine(r.disk)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	live(readings[0])
	tools := map[string]string{
		"sar":     "sar -d -p 2 1",
		"iostatx": "iostat -x -d -y 2 1",
		"iostatc": "iostat -c -y 2 1",
		"mpstat":  "mpstat 2 1",
	}
	script := fmt.Sprintf("set -e; cd %q; for f in stat diskstats uptime; do mount --bind $f /proc/$f; done; mount --bind block /sys/block; ", dir)
	for name, cmd := range tools {
		script += fmt.Sprintf("%s > %s.out 2>&1 & ", cmd, name)
	}
	script += "wait"
	cmd := exec.Command("unshare", "--mount", "--propagation", "private", "sh", "-c", script)
	cmd.Env = append(os.Environ(), "LC_ALL=C", "S_COLORS=never")
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot run unshare: %v", err)
	}
	// The tools read the counters as they start and 2 s later.
	time.Sleep(time.Second)
	live(readings[1])
	if err := cmd.Wait(); err != nil {
		t.Skipf("cannot bind files over /proc in a mount namespace here: %v %s", err, stderr.String())
	}
	outs := map[string]string{}
	for name := range tools {
		b, err := os.ReadFile(filepath.Join(dir, name+".out"))
		if err != nil {
			t.Fatal(err)
		}
		outs[name] = string(b)
	}
	sar := sysstatColumns(t, outs["sar"], "await", "Average:")
	iox := sysstatColumns(t, outs["iostatx"], "r_await", "vda")
	ioc := sysstatColumns(t, outs["iostatc"], "%system", "")
	mp := sysstatColumns(t, outs["mpstat"], "%sys", "Average:")
	c, d := got.CPU, got.Disks[0]
	for _, tc := range []struct {
		figure, tool string
		got, want    float64
	}{
		{"cpu usr", "mpstat %usr", c.User, mp["%usr"]},
		{"cpu nice", "mpstat %nice", c.Nice, mp["%nice"]},
		{"cpu sys", "mpstat %sys", c.System, mp["%sys"]},
		{"cpu iowait", "mpstat %iowait", c.IOWait, mp["%iowait"]},
		{"cpu irq", "mpstat %irq", c.IRQ, mp["%irq"]},
		{"cpu softirq", "mpstat %soft", c.SoftIRQ, mp["%soft"]},
		{"cpu steal", "mpstat %steal", c.Steal, mp["%steal"]},
		{"cpu idle", "mpstat %idle", c.Idle, mp["%idle"]},
		{"cpu sys + irq + softirq", "iostat -c %system", c.System + c.IRQ + c.SoftIRQ, ioc["%system"]},
		{"r/s", "iostat -x r/s", d.ReadsPerSec, iox["r/s"]},
		{"w/s", "iostat -x w/s", d.WritesPerSec, iox["w/s"]},
		{"rkB/s", "iostat -x rkB/s", d.ReadKBPerSec, iox["rkB/s"]},
		{"wkB/s", "iostat -x wkB/s", d.WriteKBPerSec, iox["wkB/s"]},
		{"r_await", "iostat -x r_await", d.ReadAwaitMs, iox["r_await"]},
		{"w_await", "iostat -x w_await", d.WriteAwaitMs, iox["w_await"]},
		{"aqu-sz", "iostat -x aqu-sz", d.AvgQueueSize, iox["aqu-sz"]},
		{"%util", "iostat -x %util", d.UtilPct, iox["%util"]},
		{"await", "sar -d await", d.AwaitMs, sar["await"]},
		{"areq-sz", "sar -d areq-sz", d.AvgRequestKB, sar["areq-sz"]},
		{"aqu-sz", "sar -d aqu-sz", d.AvgQueueSize, sar["aqu-sz"]},
		{"%util", "sar -d %util", d.UtilPct, sar["%util"]},
	} {
		// sysstat prints two decimals.
		if math.Abs(tc.got-tc.want) > 0.006 {
			t.Errorf("%s = %.4f, %s %.2f", tc.figure, tc.got, tc.tool, tc.want)
		}
	}
	// The counters tell the definitions apart.
	rw := float64((800-500)+(5400-3000)) / float64((1200-1000)+(2600-2000))
	if math.Abs(sar["await"]-rw) < 0.1 || math.Abs(ioc["%system"]-mp["%sys"]) < 0.1 {
		t.Errorf("the test's counters do not tell await over reads and writes (%.2f) from sar's (%.2f), or %%system (%.2f) from %%sys (%.2f)",
			rw, sar["await"], ioc["%system"], mp["%sys"])
	}
	t.Logf("await %.2f ms (sar -d %.2f; over reads and writes alone %.2f), areq-sz %.2f kB (sar -d %.2f), sys %.2f%% (mpstat %%sys %.2f, iostat %%system %.2f)",
		d.AwaitMs, sar["await"], rw, d.AvgRequestKB, sar["areq-sz"], c.System, mp["%sys"], ioc["%system"])
}
