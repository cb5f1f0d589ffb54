package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/runlog"
)

// TestKilledRunIsReadable builds stampede, kills a run with SIGKILL in the
// middle, and checks that its directory is intact up to the last complete
// interval, that `stampede report` reads it, and that it is shown as
// killed (its run.json still says running), while a run in progress is
// shown as running.
func TestKilledRunIsReadable(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildStampede(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "run", "ycsb", "--driver", "null", "--concurrency", "2", "--display-every", "200ms",
		"--results-dir", dir)
	cmd.Stdout, cmd.Stderr = nil, nil
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	// While it runs, its writer holds the run's lock: running.
	if alive, err := runlog.List(dir); err != nil || len(alive) != 1 || alive[0].Status != runlog.StatusRunning {
		t.Errorf("a run in progress: %+v %v, want status running", alive, err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	runs, err := runlog.List(dir)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs after kill -9: %v %v", runs, err)
	}
	if runs[0].Status != runlog.StatusKilled || runs[0].End != nil {
		t.Errorf("a killed run should be shown as killed: %+v", runs[0])
	}
	if b, _ := os.ReadFile(filepath.Join(dir, runs[0].ID, "run.json")); !strings.Contains(string(b), `"status": "running"`) {
		t.Errorf("run.json changed by reading it: %s", b)
	}
	if r := stampede(t, "runs", "--results-dir", dir); !strings.Contains(r.stdout, " killed ") {
		t.Errorf("runs does not show the run as killed:\n%s", r.stdout)
	}
	run, err := runlog.Open(filepath.Join(dir, runs[0].ID))
	if err != nil {
		t.Fatal(err)
	}
	ivs, _ := run.Intervals() // a torn last line is allowed
	if len(ivs) < 3 {
		t.Fatalf("only %d complete intervals survived 1.5s of 200ms intervals", len(ivs))
	}
	var before []string
	for _, f := range []string{"run.json", "intervals.hlog", "intervals.ndjson", "events.ndjson"} {
		b, err := os.ReadFile(filepath.Join(run.Dir, f))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		before = append(before, string(b))
	}
	r := stampede(t, "report", runs[0].ID, "--results-dir", dir)
	if r.code != 0 || !strings.Contains(r.stdout, "__result") || !strings.Contains(r.stdout, " read") || !strings.Contains(r.stdout, "killed") {
		t.Fatalf("report of a killed run: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for i, f := range []string{"run.json", "intervals.hlog", "intervals.ndjson", "events.ndjson"} {
		b, _ := os.ReadFile(filepath.Join(run.Dir, f))
		if string(b) != before[i] {
			t.Errorf("report modified %s", f)
		}
	}
}
