//go:build linux

package cli_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/containerd/cgroups/v3"

	"github.com/stampede-bench/stampede/limit"
)

// TestLimitBadInput checks that bad input to `stampede limit` gives a
// one-line error, the right exit code, and leaves no group behind.
func TestLimitBadInput(t *testing.T) {
	name := fmt.Sprintf("clitest-%d", os.Getpid())
	dir := t.TempDir()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	sleeper := exec.Command("sleep", "60") // a live process no limit below reaches
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sleeper.Process.Kill(); _ = sleeper.Wait() })
	root := os.Geteuid() == 0 && (cgroups.Mode() == cgroups.Legacy || cgroups.Mode() == cgroups.Hybrid || cgroups.Mode() == cgroups.Unified)
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		want     string
		needRoot bool // the error comes after the root check
	}{
		{"keep with pid", []string{"limit", "--name", name, "--cpus", "0.5", "--keep", "--pid", "1"}, 2, "--keep applies to --watch and a command: with --pid the group always stays", false},
		{"no limit", []string{"limit", "--name", name, "--pid", "1"}, 2, "no limit given", false},
		{"no target", []string{"limit", "--name", name, "--cpus", "0.5"}, 2, "give exactly one of --pid PID, --watch REGEX, --watch-cmdline REGEX or -- COMMAND", false},
		{"two targets", []string{"limit", "--name", name, "--cpus", "0.5", "--pid", "1", "--watch", "postgres"}, 2, "exactly one of", false},
		{"command without dash", []string{"limit", "--name", name, "--cpus", "0.5", "sleep"}, 2, `unexpected argument "sleep": put the command after --`, false},
		{"zero cpus", []string{"limit", "--name", name, "--cpus", "0", "--pid", "1"}, 2, "--cpus 0: give a positive number", false},
		{"too many cpus", []string{"limit", "--name", name, "--cpus", "4096", "--pid", "1"}, 2, fmt.Sprintf("--cpus 4096 is above the %d cores this machine has: a cgroup CPU limit above the cores never binds", runtime.NumCPU()), false},
		{"zero memory", []string{"limit", "--name", name, "--memory", "0", "--pid", "1"}, 2, `--memory: size "0" is not positive`, false},
		{"malformed memory", []string{"limit", "--name", name, "--memory", "200Q", "--pid", "1"}, 2, `--memory: malformed size "200Q"`, false},
		{"malformed bps", []string{"limit", "--name", name, "--io-write-bps", "fast", "--io-path", dir, "--pid", "1"}, 2, `--io-write-bps: malformed size "fast"`, false},
		{"io without device", []string{"limit", "--name", name, "--io-write-bps", "5M", "--pid", "1"}, 2, "an IO limit needs a disk", false},
		{"missing io path", []string{"limit", "--name", name, "--io-write-bps", "5M", "--io-path", "/nonexistent/data", "--pid", "1"}, 2, "--io-path: /nonexistent/data does not exist", false},
		{"missing io device", []string{"limit", "--name", name, "--io-write-bps", "5M", "--io-device", "4095:7", "--pid", "1"}, 2, "--io-device: block device 4095:7 does not exist", false},
		{"bad regex", []string{"limit", "--name", name, "--cpus", "0.5", "--watch", "post(gres"}, 2, `malformed --watch regular expression "post(gres"`, false},
		{"bad cmdline regex", []string{"limit", "--name", name, "--cpus", "0.5", "--watch-cmdline", "post(gres"}, 2, `malformed --watch-cmdline regular expression "post(gres"`, false},
		{"name and cmdline", []string{"limit", "--name", name, "--cpus", "0.5", "--watch", "postgres", "--watch-cmdline", "postgres"}, 2, "exactly one of", false},
		{"duration without watch", []string{"limit", "--name", name, "--cpus", "0.5", "--pid", "1", "--duration", "1s"}, 2, "--duration bounds --watch and --watch-cmdline only", false},
		{"negative duration", []string{"limit", "--name", name, "--cpus", "0.5", "--watch", "x", "--duration", "-1s"}, 2, "--duration -1s is negative", false},
		{"bad pid", []string{"limit", "--name", name, "--cpus", "0.5", "--pid", "-4"}, 2, "--pid -4 is not a process ID", false},
		{"gone pid", []string{"limit", "--name", name, "--cpus", "0.5", "--pid", fmt.Sprint(gone.Process.Pid)}, 1, fmt.Sprintf("PID %d is gone", gone.Process.Pid), false},
		{"remove with limits", []string{"limit", "--remove", name, "--cpus", "0.5"}, 2, "--remove takes no other flags", false},
		{"bad name", []string{"limit", "--name", "a/b", "--cpus", "0.5", "--pid", fmt.Sprint(sleeper.Process.Pid)}, 2, `invalid group name "a/b"`, true},
		{"init's pid", []string{"limit", "--name", name, "--cpus", "0.5", "--pid", "1"}, 2, "--pid 1 is the machine's init process: a limit applies to a process and its descendants, so it would throttle every process of the machine; give the server's PID", false},
		{"an ancestor's pid", []string{"limit", "--name", name, "--cpus", "0.5", "--pid", fmt.Sprint(os.Getpid())}, 2, fmt.Sprintf("--pid %d is stampede itself or a process it runs under (its shell or terminal): a limit on it would throttle stampede too", os.Getpid()), false},
		{"run watching init under a limit", []string{"run", "ycsb", "--driver", "null", "--duration", "1s", "--cpus", "1", "--watch-pid", "1"}, 2, "--watch-pid 1 is the machine's init process", false},
		{"sweep limiting an ancestor", []string{"sweep", "ycsb", "--driver", "null", "--duration", "1s", "--cpus", "0.5,1", "--limit-pid", fmt.Sprint(os.Getpid())}, 2, fmt.Sprintf("--limit-pid %d is stampede itself", os.Getpid()), false},
		{"remove missing", []string{"limit", "--remove", name}, 1, "no cgroup " + limit.Parent + "/" + name, true},
		{"missing command", []string{"limit", "--name", name, "--cpus", "0.5", "--", "/nonexistent/prog"}, 1, "cannot run /nonexistent/prog", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.needRoot && !root {
				t.Skip("needs root and a cgroup hierarchy: without them the root check answers first")
			}
			r := stampede(t, tc.args...)
			checkOneLineError(t, r, tc.code, tc.want)
			checkNoGroup(t, name)
		})
	}
}

// TestLimitNotRoot checks the message for a user who is not root.
func TestLimitNotRoot(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("runs as root: the not-root message cannot show")
	}
	r := stampede(t, "limit", "--name", "x", "--cpus", "0.5", "--pid", fmt.Sprint(os.Getpid()))
	if r.code == 0 || !strings.Contains(r.stderr, "needs root") || !strings.Contains(r.stderr, "sudo") {
		t.Errorf("exit %d, stderr %q: want the needs-root error", r.code, r.stderr)
	}
}

// checkNoGroup fails the test if a group named name is left on this
// machine, and removes it.
func checkNoGroup(t *testing.T, name string) {
	t.Helper()
	for _, c := range []string{"cpu", "cpuacct", "memory", "blkio", ""} {
		p := filepath.Join(limit.DefaultRoot, c, limit.Parent, name)
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s left behind", p)
			_ = limit.Remove(name)
		}
	}
}

// requireLimitV1 skips the test unless it can drive real cgroup v1.
func requireLimitV1(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: cgroups are writable only by root (run go test as root)")
	}
	if m := cgroups.Mode(); m != cgroups.Legacy && m != cgroups.Hybrid {
		t.Skipf("needs cgroup v1 controllers; this machine has cgroups mode %d", m)
	}
	for _, c := range []string{"cpu", "cpuacct", "memory"} {
		if _, err := os.Stat(filepath.Join(limit.DefaultRoot, c, "cgroup.procs")); err != nil {
			t.Skipf("needs the cgroup v1 %s controller mounted", c)
		}
	}
}

// TestLimitCommand runs commands under `stampede limit -- ...`: exit
// statuses, the OOM message, and the group removed at the end.
func TestLimitCommand(t *testing.T) {
	requireLimitV1(t)
	name := fmt.Sprintf("clitest-%d-cmd", os.Getpid())
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	r := stampedeCtx(t, ctx, "limit", "--name", name, "--cpus", "0.5", "--", "sh", "-c", `grep -q ":/`+limit.Parent+`/`+name+`$" /proc/self/cgroup && echo inside`)
	if r.code != 0 || strings.TrimSpace(r.stdout) != "inside" {
		t.Errorf("command in the group: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "cgroup v1 ") || !strings.Contains(r.stderr, "cpus 0.5") {
		t.Errorf("stderr %q: want the applied limits", r.stderr)
	}
	checkNoGroup(t, name)

	// Without --name, as with cgexec: the group is named after the
	// command, with the first free number.
	r = stampedeCtx(t, ctx, "limit", "--cpus", "0.5", "--", "sh", "-c", `grep -o ":/`+limit.Parent+`/sh-[0-9]*$" /proc/self/cgroup | head -1`)
	unnamed := strings.TrimPrefix(strings.TrimSpace(r.stdout), ":/"+limit.Parent+"/")
	if r.code != 0 || !strings.HasPrefix(unnamed, "sh-") {
		t.Errorf("command without --name: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	checkNoGroup(t, unnamed)

	r = stampedeCtx(t, ctx, "limit", "--name", name, "--cpus", "0.5", "--", "sh", "-c", "exit 3")
	if r.code == 0 || !strings.Contains(r.stderr, "sh exited with status 3") {
		t.Errorf("exit 3: exit %d, stderr %q", r.code, r.stderr)
	}
	checkNoGroup(t, name)

	// dd with a 256 MiB block size fills a 256 MiB buffer: far past 50 MiB.
	r = stampedeCtx(t, ctx, "limit", "--name", name, "--memory", "50M", "--", "dd", "if=/dev/zero", "of=/dev/null", "bs=256M", "count=1")
	t.Logf("dd under --memory 50M: exit %d, stderr %q", r.code, r.stderr)
	if r.code == 0 || !strings.Contains(r.stderr, "dd was killed by the kernel's OOM killer: memory limit 50 MiB reached") {
		t.Errorf("OOM: exit %d, stderr %q", r.code, r.stderr)
	}
	checkNoGroup(t, name)
}

// TestLimitPIDAndRemove moves a running process with --pid, then removes
// the group with --remove.
func TestLimitPIDAndRemove(t *testing.T) {
	requireLimitV1(t)
	name := fmt.Sprintf("clitest-%d-pid", os.Getpid())
	sleep := exec.Command("sleep", "30")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = sleep.Process.Kill()
		_ = sleep.Wait()
		_ = limit.Remove(name)
	})
	r := stampede(t, "limit", "--name", name, "--cpus", "0.25", "--memory", "64M", "--pid", fmt.Sprint(sleep.Process.Pid))
	if r.code != 0 || !strings.Contains(r.stdout, "cpus 0.25, memory 64 MiB") {
		t.Fatalf("--pid: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", sleep.Process.Pid))
	if !strings.Contains(string(b), "cpu:/"+limit.Parent+"/"+name+"\n") {
		t.Errorf("/proc/PID/cgroup: %s", b)
	}
	if r := stampede(t, "limit", "--name", name, "--cpus", "0.25", "--pid", fmt.Sprint(sleep.Process.Pid)); r.code == 0 || !strings.Contains(r.stderr, "already exists") {
		t.Errorf("second --pid on the same name: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := stampede(t, "limit", "--remove", name); r.code != 0 {
		t.Errorf("--remove: exit %d, stderr %q", r.code, r.stderr)
	}
	checkNoGroup(t, name)
}

// TestLimitWatch runs watch mode for a bounded time, by command line and
// by name, and checks that the matching process was moved and the group
// removed, and that a process whose command line only mentions the name
// was not moved by the name pattern.
func TestLimitWatch(t *testing.T) {
	requireLimitV1(t)
	name := fmt.Sprintf("clitest-%d-watch", os.Getpid())
	tag := fmt.Sprintf("29.%d", 1000+os.Getpid()%9000)
	sleep := exec.Command("sleep", tag)
	prog := filepath.Join(t.TempDir(), fmt.Sprintf("clw%d", os.Getpid())) // sleep under another name
	if err := os.Symlink("/bin/sleep", prog); err != nil {
		t.Fatal(err)
	}
	named := exec.Command(prog, "29")
	mention := exec.Command("sh", "-c", "sleep 29; : "+filepath.Base(prog))
	for _, c := range []*exec.Cmd{sleep, named, mention} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = c.Process.Kill()
			_ = c.Wait()
		})
	}
	r := stampede(t, "limit", "--name", name, "--cpus", "0.5", "--watch-cmdline", "^sleep "+strings.ReplaceAll(tag, ".", `\.`)+"$", "--duration", "1s")
	if r.code != 0 || !strings.Contains(r.stdout, fmt.Sprintf("moved PID %d", sleep.Process.Pid)) || !strings.Contains(r.stdout, "removed cgroup "+limit.Parent+"/"+name) {
		t.Errorf("--watch-cmdline: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	checkNoGroup(t, name)
	r = stampede(t, "limit", "--name", name, "--cpus", "0.5", "--watch", "^"+filepath.Base(prog)+"$", "--duration", "1s")
	if r.code != 0 || !strings.Contains(r.stdout, fmt.Sprintf("moved PID %d", named.Process.Pid)) || strings.Contains(r.stdout, fmt.Sprintf("moved PID %d", mention.Process.Pid)) {
		t.Errorf("--watch by name: exit %d, stdout %q, stderr %q; want PID %d moved and not PID %d", r.code, r.stdout, r.stderr, named.Process.Pid, mention.Process.Pid)
	}
	checkNoGroup(t, name)
}
