package cli_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/stampede-bench/stampede/internal/cgrouptest"
	"github.com/stampede-bench/stampede/limit"
)

// TestLimitsRestoreUserCgroups keeps a PostgreSQL server (the postmaster
// and its processes) in cgroups of the test's own, as a user does: cpu,
// cpuacct, and memory with a 1 GiB limit. Runs, a sweep over --cpus
// 0.5,1, `stampede limit --pid` and a run killed with SIGKILL put it
// under --cpus only: its memory cgroup never changes, and when the limit
// ends (normally, by --remove, or by the next run's cleanup of the killed
// run's group) every process of the server, the backends forked under
// the limit too, is back in its own cpu and cpuacct cgroups (issue 34,
// v34 F2: they went to the root cgroups, the memory one too).
func TestLimitsRestoreUserCgroups(t *testing.T) {
	requireLimitV1(t)
	if testing.Short() {
		t.Skip("starts its own PostgreSQL")
	}
	user := cgrouptest.Make(t, fmt.Sprintf("clitest-user-%d", os.Getpid()), 1<<30, "cpu", "cpuacct", "memory")
	srv := ownServer(t) // stopped before the cgroups go
	url := srv.URL("sbtest")
	if r := stampede(t, "init", "oltp_read_only", "--tables", "1", "--table_size", "1000", url); r.code != 0 {
		t.Fatalf("init: %s", r.stderr)
	}
	pm := postmasterPID(t, srv)
	for _, pid := range cgrouptest.Tree(pm) {
		cgrouptest.Move(t, pid, user)
	}
	pmArg := strconv.Itoa(pm)
	// restored checks that every process of the server is in the user's
	// cgroups again, and that there are backends among them that the
	// limit saw forked.
	restored := func(when string, backends ...int) {
		t.Helper()
		tree := cgrouptest.Tree(pm)
		for _, pid := range tree {
			cgrouptest.Check(t, when, pid, user)
		}
		for _, b := range backends {
			cgrouptest.Check(t, when+", the backend forked under the limit", b, user)
		}
		t.Logf("%s: the postmaster and its %d processes are back in %v", when, len(tree)-1, user)
	}
	results := t.TempDir()
	runArgs := []string{"oltp_read_only", "--tables", "1", "--table_size", "1000", "--threads", "2", "--results-dir", results}

	r := stampede(t, append(append([]string{"run"}, runArgs...), "--duration", "2s", "--cpus", "1", "--limit-pid", pmArg, url)...)
	if r.code != 0 || !strings.Contains(r.stderr, "limits removed") {
		t.Fatalf("run --cpus 1: exit %d\n%s", r.code, r.stderr)
	}
	restored("after a run under --cpus 1")

	r = stampede(t, append(append([]string{"sweep"}, runArgs...), "--duration", "1s", "--cpus", "0.5,1", "--limit-pid", pmArg, url)...)
	if r.code != 0 {
		t.Fatalf("sweep --cpus 0.5,1: exit %d\n%s", r.code, r.stderr)
	}
	restored("after a sweep over --cpus 0.5,1")

	ctx := context.Background()
	name := fmt.Sprintf("clitest-%d-restore", os.Getpid())
	t.Cleanup(func() { _ = limit.Remove(name) })
	if r := stampede(t, "limit", "--name", name, "--cpus", "0.5", "--pid", pmArg); r.code != 0 {
		t.Fatalf("limit --pid: exit %d\n%s", r.code, r.stderr)
	}
	own := "/" + limit.Parent + "/" + name
	cgrouptest.Check(t, "under limit --cpus 0.5 --pid", pm, map[string]string{"cpu": own, "cpuacct": own, "memory": user["memory"]})
	conn, backend := connectBackend(t, ctx, url)
	cgrouptest.Check(t, "a backend forked under limit --pid", backend, map[string]string{"cpu": own, "memory": user["memory"]})
	if r := stampede(t, "limit", "--remove", name); r.code != 0 || strings.Contains(r.stdout+r.stderr, "warning") {
		t.Fatalf("limit --remove: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	restored("after limit --remove", backend)
	conn.Close(ctx)

	run := exec.Command(buildStampede(t), append(append([]string{"run"}, runArgs...), "--duration", "2m", "--max-rate", "50", "--cpus", "0.5", "--limit-pid", pmArg, url)...)
	stderr := filepath.Join(t.TempDir(), "stderr")
	out, err := os.Create(stderr)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	run.Stderr = out
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = run.Process.Kill(); _ = run.Wait() })
	// The run says so once it has moved the server's processes.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if b, _ := os.ReadFile(stderr); strings.Contains(string(b), "limits on the system under test") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run did not apply its limits in a minute: %v", cgrouptest.Of(pm))
		}
	}
	group := cgrouptest.Of(pm)["cpu"]
	if !strings.HasPrefix(group, "/"+limit.Parent+"/run-") {
		t.Fatalf("the postmaster is in cpu cgroup %q under the run's limits", group)
	}
	cgrouptest.Check(t, "under a run's --cpus 0.5", pm, map[string]string{"cpuacct": group, "memory": user["memory"]})
	conn, backend = connectBackend(t, ctx, url)
	defer conn.Close(ctx)
	cgrouptest.Check(t, "a backend forked under the run's limit", backend, map[string]string{"cpu": group, "memory": user["memory"]})
	if err := run.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = run.Wait()
	cgrouptest.Check(t, "after the run's SIGKILL", pm, map[string]string{"cpu": group})
	r = stampede(t, "run", "ycsb", "--driver", "null", "--duration", "1s", "--results-dir", results)
	if r.code != 0 || !strings.Contains(r.stderr, "removed cgroup "+strings.TrimPrefix(group, "/")+", left by a killed run") || strings.Contains(r.stderr, "warning") {
		t.Fatalf("the next run: exit %d, want it to remove %s and say so, without warnings:\n%s", r.code, group, r.stderr)
	}
	restored("after the next run removed the killed run's group", backend)
	if left, _ := filepath.Glob(filepath.Join(limit.HoldDir, filepath.Base(group)+".*")); len(left) > 0 {
		t.Errorf("the killed run's files are left: %v", left)
	}
}

// connectBackend opens a connection to url and returns it with its
// backend's PID.
func connectBackend(t *testing.T, ctx context.Context, url string) (*pgx.Conn, int) {
	t.Helper()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	return conn, pid
}
