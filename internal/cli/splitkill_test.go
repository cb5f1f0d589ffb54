package cli_test

import (
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestTPCCSplitInitKilled kills a TPC-C split init (SIGKILL) once rows of
// its share are committed: its re-run refuses in one line (exit 2) that
// the share is partly loaded and names the way out, which works: cleanup,
// then every client's init, and check passes.
func TestTPCCSplitInitKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and loads 4 warehouses")
	}
	srv := testServer(t)
	db := freshDB(t, "stampede_splitkill")
	bin := buildStampede(t)
	share := func(i string) []string {
		return []string{"init", "tpcc", "--warehouses", "4", "--clients", "2", "--client-index", i, "--db", db, srv}
	}
	cmd := exec.Command(bin, share("0")...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for queryIntMaybe(db, "SELECT count(*) FROM stock") <= 0 {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatal("no stock row committed in 2 minutes")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	waitBackendsGone(t, db)
	if n := queryInt(t, db, "SELECT count(*) FROM stock"); n >= 200000 {
		t.Skipf("the share was complete (%d stock rows) before the kill landed", n)
	}
	r := stampede(t, share("0")...)
	checkFinalError(t, r, 2, "client 0 of 2's share of tpcc (warehouses 1-2 and the items) is partly loaded already in database \""+db+"\"")
	checkFinalError(t, r, 2, "start the split load over: `stampede cleanup tpcc --db "+db+" ")
	checkFinalError(t, r, 2, "`, then every client's init again")
	if r := stampede(t, "cleanup", "tpcc", "--db", db, srv); r.code != 0 {
		t.Fatalf("cleanup: exit %d\n%s", r.code, r.stderr)
	}
	for _, i := range []string{"0", "1"} {
		if r := stampede(t, share(i)...); r.code != 0 {
			t.Fatalf("init share %s after cleanup: exit %d\n%s", i, r.code, r.stderr)
		}
	}
	if n := queryInt(t, db, "SELECT count(*) FROM stock"); n != 400000 {
		t.Errorf("stock holds %d rows after both shares, want 400000", n)
	}
	if r := stampede(t, "check", "tpcc", "--warehouses", "4", "--db", db, srv); r.code != 0 {
		t.Errorf("check after the split load over: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestSysbenchSplitInitKilled kills a sysbench split init (SIGKILL) once
// rows of its share are committed, for a share of whole tables and a
// share of every table's ids: the tables have no primary key until the
// last share is in, yet the re-run refuses in one line (exit 2) before
// it loads a row, no id is in twice, and the way out works: cleanup,
// every client's init, and check passes.
func TestSysbenchSplitInitKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and loads 600,000 rows")
	}
	srv := testServer(t)
	bin := buildStampede(t)
	for _, c := range []struct {
		name, table, shareRows, of, ids string
		flags                           []string
	}{
		{"tables", "sbtest2", "SELECT count(*) FROM sbtest2", "table sbtest2",
			"SELECT (SELECT count(DISTINCT id) FROM sbtest1) + (SELECT count(DISTINCT id) FROM sbtest2)",
			[]string{"--tables", "2", "--table-size", "300000"}},
		{"rows", "sbtest1", "SELECT count(*) FROM sbtest1 WHERE id > 300000", "ids 300001-600000 of every table",
			"SELECT count(DISTINCT id) FROM sbtest1",
			[]string{"--tables", "1", "--table-size", "600000"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := freshDB(t, "stampede_sbsplitkill")
			share := func(i string) []string {
				return append([]string{"init", "oltp_read_write", "--clients", "2", "--client-index", i, "--db", db, srv}, c.flags...)
			}
			cmd := exec.Command(bin, share("1")...)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(2 * time.Minute)
			for queryIntMaybe(db, c.shareRows) <= 1000 {
				if time.Now().After(deadline) {
					_ = cmd.Process.Kill()
					t.Fatal("no row of the share committed in 2 minutes")
				}
				time.Sleep(20 * time.Millisecond)
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			waitBackendsGone(t, db)
			before := queryInt(t, db, c.shareRows)
			if before >= 300000 {
				t.Skipf("the share was complete (%d rows) before the kill landed", before)
			}
			r := stampede(t, share("1")...)
			checkFinalError(t, r, 2, "client 1 of 2's share of oltp_read_write ("+c.of+") is partly loaded already in database \""+db+"\"")
			checkFinalError(t, r, 2, "start the split load over: `stampede cleanup oltp_read_write ")
			if after := queryInt(t, db, c.shareRows); after != before {
				t.Errorf("the refused re-run changed the share's rows: %d before, %d after", before, after)
			}
			if n, d := queryInt(t, db, "SELECT count(*) FROM "+c.table), queryInt(t, db, "SELECT count(DISTINCT id) FROM "+c.table); n != d {
				t.Errorf("%s holds %d rows of %d distinct ids after the refused re-run", c.table, n, d)
			}
			if r := stampede(t, "cleanup", "oltp_read_write", "--db", db, srv); r.code != 0 {
				t.Fatalf("cleanup: exit %d\n%s", r.code, r.stderr)
			}
			for _, i := range []string{"0", "1"} {
				if r := stampede(t, share(i)...); r.code != 0 {
					t.Fatalf("init share %s after cleanup: exit %d\n%s", i, r.code, r.stderr)
				}
			}
			if n := queryInt(t, db, c.ids); n != 600000 {
				t.Errorf("the tables hold %d distinct ids after both shares, want 600000", n)
			}
			if r := stampede(t, "check", "oltp_read_write", "--db", db, srv); r.code != 0 {
				t.Errorf("check after the split load over: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
		})
	}
}

// TestSysbenchSplitFinishRefused gives the last share of a sysbench split
// load tables its index build cannot finish: a primary key built already
// (a finish killed midway) and a share's row in twice. Each is refused in
// one line naming cleanup (exit 2), not with the server's raw error.
func TestSysbenchSplitFinishRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	srv := testServer(t)
	for _, c := range []struct {
		name, damage, want string
	}{
		{"key built", "ALTER TABLE sbtest1 ADD PRIMARY KEY (id)", "has indexes built already (a finish of the load stopped before its end)"},
		{"rows twice", "INSERT INTO sbtest1 SELECT * FROM sbtest1 LIMIT 1", "holds a share's rows twice (building its unique index found duplicate keys)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := freshDB(t, "stampede_sbsplitfinish")
			share := func(i string) []string {
				return []string{"init", "oltp_read_write", "--tables", "1", "--table-size", "20000", "--clients", "2", "--client-index", i, "--db", db, srv}
			}
			if r := stampede(t, share("0")...); r.code != 0 {
				t.Fatalf("init share 0: exit %d\n%s", r.code, r.stderr)
			}
			execIn(t, db, c.damage)
			r := stampede(t, share("1")...)
			checkFinalError(t, r, 2, "the split load of oltp_read_write in database \""+db+"\" "+c.want+": start the split load over: `stampede cleanup oltp_read_write ")
			if strings.Contains(r.stderr, "SQLSTATE") {
				t.Errorf("the refusal shows the server's raw error:\n%s", r.stderr)
			}
		})
	}
}

// waitBackendsGone waits until no server process but the caller's serves
// database db: a killed client's backend that had a whole COPY batch
// commits it after the client died, and rows counted before that are not
// the share's (a CI run counted 150,000 before and 200,000 after).
func waitBackendsGone(t *testing.T, db string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for queryIntMaybe(db, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()") != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the killed client's server processes still serve %s after a minute", db)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
