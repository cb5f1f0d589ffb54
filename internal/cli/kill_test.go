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
// interval and that `stampede report` reads it.
func TestKilledRunIsReadable(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "stampede")
	build := exec.Command("go", "build", "-o", bin, "github.com/stampede-bench/stampede/cmd/stampede")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	cmd := exec.Command(bin, "run", "ycsb", "--driver", "null", "--concurrency", "2", "--display-every", "200ms",
		"--results-dir", dir)
	cmd.Stdout, cmd.Stderr = nil, nil
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	runs, err := runlog.List(dir)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs after kill -9: %v %v", runs, err)
	}
	if runs[0].Status != "running" || runs[0].End != nil {
		t.Errorf("a killed run should still say running: %+v", runs[0])
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
	if r.code != 0 || !strings.Contains(r.stdout, "__result") || !strings.Contains(r.stdout, " read") {
		t.Fatalf("report of a killed run: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for i, f := range []string{"run.json", "intervals.hlog", "intervals.ndjson", "events.ndjson"} {
		b, _ := os.ReadFile(filepath.Join(run.Dir, f))
		if string(b) != before[i] {
			t.Errorf("report modified %s", f)
		}
	}
}
