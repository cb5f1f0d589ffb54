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

// TestKilledInitCleanupFindsMarks kills (SIGKILL) a built stampede's init
// of oltp_read_write --tables 4 once its four tables exist, marked, and
// before it records its load, then runs a bare cleanup (the default
// --tables 1): it drops every table that carries the mark of stampede's
// init of the data, says so, and keeps a user's own sbtest9 without the
// mark (issue 28 NIT 6: sbtest2..sbtest4 were left behind).
func TestKilledInitCleanupFindsMarks(t *testing.T) {
	db := testdb.Fresh(t, "stampede_killedmark_test", sqlx.Options{MaxConns: 1})
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
	count := func(q string) int64 {
		t.Helper()
		var n int64
		if err := db.QueryRow(ctx, q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	const (
		marked   = "SELECT count(*) FROM pg_class WHERE relkind = 'r' AND relname ~ '^sbtest[1-4]$' AND obj_description(oid, 'pg_class') LIKE 'made by stampede init of %'"
		recorded = "SELECT count(*) FROM pg_class WHERE relname = 'stampede_load'"
	)
	if _, err := db.Exec(ctx, "CREATE TABLE sbtest9 (id int PRIMARY KEY, note text)"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, "INSERT INTO sbtest9 VALUES (1, 'MINE')"); err != nil {
		t.Fatal(err)
	}
	cmd := stampede("init", "oltp_read_write", "--tables", "4", "--table_size", "500000", url)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for count(marked) < 4 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if cmd.ProcessState.Success() || count(marked) != 4 || count(recorded) != 0 {
		t.Fatalf("init was not killed between its four tables and its record: exit %v, %d marked tables, record %d",
			cmd.ProcessState, count(marked), count(recorded))
	}
	out, err := stampede("cleanup", "oltp_read_write", url).CombinedOutput()
	if err != nil {
		t.Fatalf("cleanup after the killed init: %v\n%s", err, out)
	}
	const note = "note: 3 tables (sbtest2, sbtest3, sbtest4) carry the mark of stampede's init of oltp_read_write though its flags do not name them (a load with other flags, or an init that ended before it recorded its load): cleanup drops them too\n"
	if !strings.HasPrefix(string(out), note) {
		t.Errorf("cleanup does not lead with %q:\n%s", note, out)
	}
	for _, tbl := range []string{"sbtest1", "sbtest2", "sbtest3", "sbtest4"} {
		if !strings.Contains(string(out), "dropped table "+tbl+"\n") {
			t.Errorf("cleanup does not say it dropped %s:\n%s", tbl, out)
		}
	}
	if n := count("SELECT count(*) FROM pg_class WHERE obj_description(oid, 'pg_class') LIKE 'made by stampede%'"); n != 0 {
		t.Errorf("%d objects with stampede's mark left after cleanup:\n%s", n, out)
	}
	if n := count("SELECT count(*) FROM pg_class WHERE relkind = 'r' AND relname ~ '^sbtest[1-4]$'"); n != 0 {
		t.Errorf("%d of sbtest1..sbtest4 left after cleanup:\n%s", n, out)
	}
	if n := count("SELECT count(*) FROM sbtest9 WHERE note = 'MINE'"); n != 1 {
		t.Errorf("the user's sbtest9 lost its row")
	}
}
