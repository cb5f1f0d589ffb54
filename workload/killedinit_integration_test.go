package workload_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/sqlx"
)

// TestKilledInitCleansUp kills (SIGKILL) a built stampede during an init
// of many small tables, once it has committed 1, 3, 5, ... of them (six
// kills that leave tables behind), and each time runs cleanup (with init's --tables:
// the kill may come before init's record) without --force-drop: it exits
// 0 and leaves no table of stampede's (issue 28 F4: a kill between CREATE TABLE
// and its COMMENT left sbtestN unmarked, which cleanup refused as the
// user's).
func TestKilledInitCleansUp(t *testing.T) {
	db := testdb.Fresh(t, "stampede_killedinit_test", sqlx.Options{MaxConns: 1})
	server := testdb.URL(t)
	url := strings.Replace(server, "/postgres?", "/"+db.Database()+"?", 1)
	if url == server {
		t.Fatalf("cannot name the test database in %s", server)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "stampede")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/stampede-bench/stampede/cmd/stampede").CombinedOutput(); err != nil {
		t.Fatalf("building stampede: %v\n%s", err, out)
	}
	stampede := func(args ...string) *exec.Cmd {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "STAMPEDE_RESULTS_DIR="+filepath.Join(dir, "results"))
		return cmd
	}
	ctx := context.Background()
	tables := func() int64 {
		var n int64
		if err := db.QueryRow(ctx, "SELECT count(*) FROM pg_class WHERE relkind IN ('r', 'p') AND relname LIKE 'sbtest%'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	cleanup := func(what string) {
		t.Helper()
		out, err := stampede("cleanup", "oltp_read_only", "--tables", "12", url).CombinedOutput()
		if err != nil {
			t.Fatalf("cleanup after %s: %v\n%s", what, err, out)
		}
		if n := tables(); n != 0 {
			t.Fatalf("%d sbtest tables left after cleanup after %s:\n%s", n, what, out)
		}
		var marked int64
		if err := db.QueryRow(ctx, "SELECT count(*) FROM pg_class WHERE obj_description(oid, 'pg_class') LIKE 'made by stampede%'").Scan(&marked); err != nil {
			t.Fatal(err)
		}
		if marked != 0 {
			t.Fatalf("%d objects with stampede's mark left after cleanup after %s:\n%s", marked, what, out)
		}
	}
	// Kill on progress, not after fixed delays: a 12-table init takes
	// ~150 ms on an idle machine and seconds on a loaded one, so the
	// kill comes once init has committed 1, 3, 5, ... tables, while it
	// makes the next one.
	const wantKills = 6
	kills := 0
	for attempt := 0; attempt < 4*wantKills && kills < wantKills; attempt++ {
		target := int64(1 + 2*(kills%6))
		cmd := stampede("init", "oltp_read_only", "--tables", "12", "--table_size", "10", url)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		deadline := time.Now().Add(time.Minute)
	poll:
		for time.Now().Before(deadline) {
			select {
			case <-done:
				break poll
			default:
			}
			if tables() >= target {
				break
			}
			time.Sleep(time.Millisecond)
		}
		_ = cmd.Process.Kill()
		<-done
		if cmd.ProcessState.Success() || tables() == 0 {
			// Finished before the kill, or killed before any table.
			cleanup("an init not killed mid-way")
			continue
		}
		kills++
		t.Logf("init killed after %d tables committed left %d tables", target, tables())
		cleanup("a killed init")
	}
	if kills < wantKills {
		t.Fatalf("%d kills of %d left tables of the init behind", kills, wantKills)
	}
}
