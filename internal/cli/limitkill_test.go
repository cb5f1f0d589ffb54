package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/limit"
)

// TestKilledRunsLimitsRemoved kills (SIGKILL) a run that holds a process
// under --cpus 0.5: its cgroup stays, holding the process. The next run,
// without limits, removes it, says so in one line, and the process is
// back in the root group; so does the next sweep, on its stderr (its
// steps' runs log nothing else there: issue 34, item 3).
func TestKilledRunsLimitsRemoved(t *testing.T) {
	requireLimitV1(t)
	if testing.Short() {
		t.Skip("builds the binary")
	}
	sleeper := exec.Command("sleep", "120")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sleeper.Process.Kill(); _ = sleeper.Wait() })
	pid := strconv.Itoa(sleeper.Process.Pid)
	cpuGroup := func() string {
		b, err := os.ReadFile("/proc/" + pid + "/cgroup")
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.SplitN(l, ":", 3); len(f) == 3 && strings.Contains(","+f[1]+",", ",cpu,") {
				return f[2]
			}
		}
		return ""
	}
	bin := buildStampede(t)
	for _, next := range []struct {
		name string
		args []string
	}{
		{"run", []string{"run", "ycsb", "--driver", "null", "--duration", "1s"}},
		{"sweep", []string{"sweep", "ycsb", "--driver", "null", "--concurrency", "1,2", "--duration", "1s"}},
	} {
		dir := t.TempDir()
		run := exec.Command(bin, "run", "ycsb", "--driver", "null", "--concurrency", "1", "--max-rate", "100", "--duration", "2m",
			"--cpus", "0.5", "--limit-pid", pid, "--results-dir", dir)
		if err := run.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = run.Process.Kill(); _ = run.Wait() })
		deadline := time.Now().Add(time.Minute)
		for !strings.HasPrefix(cpuGroup(), "/"+limit.Parent+"/run-") {
			if time.Now().After(deadline) {
				t.Fatalf("PID %s is not in a run's group after a minute: %q", pid, cpuGroup())
			}
			time.Sleep(20 * time.Millisecond)
		}
		name := filepath.Base(cpuGroup())
		if err := run.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = run.Wait()
		if _, err := limit.Load(name); err != nil {
			t.Fatalf("the killed run's group %s is gone already: %v", name, err)
		}
		if g := cpuGroup(); g != "/"+limit.Parent+"/"+name {
			t.Fatalf("PID %s left the killed run's group by itself: %q", pid, g)
		}
		r := stampede(t, append(next.args, "--results-dir", dir)...)
		if r.code != 0 {
			t.Fatalf("the next %s: exit %d\n%s", next.name, r.code, r.stderr)
		}
		want := regexp.MustCompile(`(?m)^removed cgroup ` + regexp.QuoteMeta(limit.Parent+"/"+name) + `, left by a killed run: its process runs without its limits again$`)
		if !want.MatchString(r.stderr) {
			t.Errorf("the next %s did not say it removed %s:\n%s", next.name, name, r.stderr)
		}
		if g := cpuGroup(); g != "/" {
			t.Errorf("PID %s is in %q after the next %s, want the root group", pid, g, next.name)
		}
		if _, err := limit.Load(name); err == nil {
			t.Errorf("the killed run's group %s is still there", name)
		}
		if r := stampede(t, "run", "ycsb", "--driver", "null", "--duration", "1s", "--results-dir", dir); strings.Contains(r.stderr, "left by a killed run") {
			t.Errorf("a second run removed it again:\n%s", r.stderr)
		}
	}
}
