package cli_test

import (
	"strings"
	"testing"
)

// TestTemplateCopyNeverDrops: a database a user copied with CREATE
// DATABASE ... TEMPLATE from one stampede loaded keeps every table's OID,
// so the tables' bound marks match, and init's record with them; the
// record's database OID (written by init) is the source's, so cleanup and
// init --drop on the copy refuse in one line naming the source and
// --force-drop, exit 2, and every row survives; --force-drop drops; and
// cleanup of the source still works.
func TestTemplateCopyNeverDrops(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	src, cp := freshDB(t, "fix28z_src"), freshDB(t, "fix28z_copy")
	mustRun(t, "init", "bank", "--rows", "40", dbURL(t, src))
	adminExec(t, "CREATE DATABASE "+cp+" TEMPLATE "+src)
	// The user's edit: a transfer of 7, which keeps bank's invariant.
	execIn(t, cp, "UPDATE bank SET balance = balance + 7 WHERE id = 1", "UPDATE bank SET balance = balance - 7 WHERE id = 2")
	want := queryInt(t, cp, "SELECT balance FROM bank WHERE id = 1")
	for _, args := range [][]string{
		{"cleanup", "bank", dbURL(t, cp)},
		{"init", "bank", "--drop", "--rows", "40", dbURL(t, cp)},
	} {
		r := stampede(t, args...)
		checkOneLineError(t, r, 2, "looks like a copy of database \""+src+"\"")
		for _, w := range []string{"CREATE DATABASE ... TEMPLATE", "--force-drop"} {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%v: the refusal does not say %s: %s", args, w, r.stderr)
			}
		}
		if got := queryInt(t, cp, "SELECT count(*) FROM bank"); got != 40 {
			t.Fatalf("%v: %d rows of bank left in the copy, want 40", args, got)
		}
		if got := queryInt(t, cp, "SELECT balance FROM bank WHERE id = 1"); got != want {
			t.Fatalf("%v: the copy's edited balance is %d, want %d", args, got, want)
		}
	}
	// run and check do not drop: they work on the copy.
	mustRun(t, "check", "bank", dbURL(t, cp))
	r := mustRun(t, "cleanup", "bank", "--force-drop", dbURL(t, cp))
	if !strings.Contains(r.stdout+r.stderr, "looks like a copy") {
		t.Errorf("--force-drop does not say it drops a copy's tables: %s%s", r.stdout, r.stderr)
	}
	if n := queryInt(t, cp, "SELECT count(*) FROM pg_class WHERE relname = 'bank'"); n != 0 {
		t.Errorf("--force-drop left bank in the copy")
	}
	mustRun(t, "cleanup", "bank", dbURL(t, src))
	if n := queryInt(t, src, "SELECT count(*) FROM pg_class WHERE relname = 'bank'"); n != 0 {
		t.Errorf("cleanup of stampede's own load left bank")
	}
}
