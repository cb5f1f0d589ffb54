package cli_test

import (
	"net/url"
	"strings"
	"testing"
)

// TestCopiedRunTablesRefused: a copy a user made (CREATE DATABASE ...
// TEMPLATE) of a database where only a run of bulk_insert made tables
// (sbtestN: no init, so no record of a load) was taken for stampede's:
// cleanup, init --drop and sysbench's cleanup dropped the copy's rows,
// exit 0 (chk28c F1). The row type of each table a run makes names the
// database it was made in, so each refuses the copy in one line, exit 2,
// naming --force-drop, and the copy's rows survive; the database the run
// made them in still cleans up.
func TestCopiedRunTablesRefused(t *testing.T) {
	srv := testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	src, cp := freshDB(t, "copiedrun_src"), freshDB(t, "copiedrun_copy")
	adminExec(t, "CREATE DATABASE "+src)
	mustRun(t, "run", "bulk_insert", "--duration", "1s", "--concurrency", "1", dbURL(t, src))
	adminExec(t, "CREATE DATABASE "+cp+" TEMPLATE "+src)
	want := queryInt(t, cp, "SELECT count(*) FROM sbtest1")
	if want == 0 {
		t.Fatal("bulk_insert inserted no rows")
	}
	u, err := url.Parse(srv)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"cleanup", "bulk_insert", dbURL(t, cp)},
		{"init", "bulk_insert", "--drop", dbURL(t, cp)},
		{"bulk_insert", "--db-driver=pgsql", "--pgsql-host=" + u.Hostname(), "--pgsql-port=" + u.Port(),
			"--pgsql-user=" + u.User.Username(), "--pgsql-db=" + cp, "--threads=1", "cleanup"},
	} {
		r := stampede(t, args...)
		checkOneLineError(t, r, 2, "looks like a copy of database \""+src+"\" made with CREATE DATABASE ... TEMPLATE (table sbtest1, which a run of stampede's made, was made there)")
		if !strings.Contains(r.stderr, "--force-drop") {
			t.Errorf("%v: the refusal does not name --force-drop: %s", args, r.stderr)
		}
		if got := queryInt(t, cp, "SELECT count(*) FROM sbtest1"); got != want {
			t.Fatalf("%v: %d rows in the copy after the refusal, want %d", args, got, want)
		}
	}
	mustRun(t, "cleanup", "bulk_insert", "--force-drop", dbURL(t, cp))
	if n := queryInt(t, cp, "SELECT count(*) FROM pg_class WHERE relname = 'sbtest1'"); n != 0 {
		t.Errorf("cleanup --force-drop left sbtest1 in the copy")
	}
	mustRun(t, "cleanup", "bulk_insert", dbURL(t, src))
	if n := queryInt(t, src, "SELECT count(*) FROM pg_class WHERE relname = 'sbtest1'"); n != 0 {
		t.Errorf("cleanup of the run's own database left sbtest1")
	}
}
