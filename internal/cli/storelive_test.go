package cli_test

import (
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/results/store"
)

// TestLiveRunInStore (issue 31): a run in progress written into a
// PostgreSQL store alone (--results-dir none) is listed by `runs` as
// running and reported by `report --tag` with the status line a run
// directory in progress gives, though no process holds a lock on the
// copy report fetches; killed with SIGKILL, it reads as killed once its
// writer has been silent for store.StaleAfter its beat (its interval),
// and not before.
func TestLiveRunInStore(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	st := storeDB(t)
	t.Setenv("STAMPEDE_RESULTS_URL", "")
	bin := buildStampede(t)
	const every = 200 * time.Millisecond
	start := func(args ...string) *exec.Cmd {
		cmd := exec.Command(bin, append(strs("run", "ycsb", "--driver", "null", "--max-rate", "500", "--duration", "2m", "--display-every", every.String()), args...)...)
		cmd.Env = append(cmd.Environ(), "TMPDIR="+t.TempDir())
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd
	}
	dir := t.TempDir()
	start("--results-dir", dir, "--tag", "job=livedir")
	live := start("--results-dir", "none", "--results-url", st, "--tag", "job=livestore")

	listed := func(status string, within time.Duration) (time.Time, bool) {
		deadline := time.Now().Add(within)
		for {
			r := stampede(t, "runs", "--results-dir", "none", "--results-url", st, "--tag", "job=livestore")
			if r.code == 0 && regexp.MustCompile(`ycsb\s+`+status+`\s`).MatchString(r.stdout) {
				return time.Now(), true
			}
			if time.Now().After(deadline) {
				t.Logf("runs: %d\n%s%s", r.code, r.stdout, r.stderr)
				return time.Now(), false
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	if _, ok := listed("running", 30*time.Second); !ok {
		t.Fatal("the run in progress is not listed as running by `stampede runs` from the store")
	}
	time.Sleep(time.Second) // an interval or more in each
	statusLine := func(r result) string {
		t.Helper()
		m := regexp.MustCompile(`(?m)^run \S+: ycsb, started \S+, (.*)$`).FindStringSubmatch(r.stdout)
		if r.code != 0 || m == nil {
			t.Fatalf("report: %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		return m[1]
	}
	fromDir := statusLine(stampede(t, "report", "--results-dir", dir, "--results-url", "", "--tag", "job=livedir"))
	rep := stampede(t, "report", "--results-dir", "none", "--results-url", st, "--tag", "job=livestore")
	// The store knows its writer is alive; a directory cannot tell a
	// run in progress from one killed on another machine.
	if fromStore := statusLine(rep); fromStore != "running (its writer alive when the results store was read)" || fromDir != "running (or killed on another machine)" {
		t.Errorf("report of the run in progress from the store says %q, from a directory %q", fromStore, fromDir)
	}
	if strings.Contains(rep.stderr, "no such file") {
		t.Errorf("report of the run in progress from the store:\n%s%s", rep.stdout, rep.stderr)
	}

	if err := live.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	_ = live.Wait()
	stale := store.StaleAfter(every)
	at, ok := listed("killed", stale+20*time.Second)
	if !ok {
		t.Fatalf("the killed run is not listed as killed within %s of its kill", stale+20*time.Second)
	}
	// Its last ship was at most a beat and a half before the kill.
	if early := stale - every*3/2 - 500*time.Millisecond; at.Sub(killed) < early {
		t.Errorf("listed as killed %s after its kill, before its writer could have been silent for %s", at.Sub(killed).Round(time.Millisecond), stale)
	}
	rep = stampede(t, "report", "--results-dir", "none", "--results-url", st, "--tag", "job=livestore")
	if s := statusLine(rep); !strings.HasPrefix(s, "killed (its process died") {
		t.Errorf("report of the killed run from the store says %q", s)
	}
}
