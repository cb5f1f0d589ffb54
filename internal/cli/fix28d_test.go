package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFleetRoleRefusalNamesForeignTenants: a cleanup refused over a
// tenant role owning a user's object elsewhere named the role alone, and
// hid a database the pattern matches that stampede did not make (a
// user's, holding a row); --force-drop then dropped that database with
// the row (fix28d F2). The one refusal names both; nothing is dropped.
func TestFleetRoleRefusalNamesForeignTenants(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	pattern := fmt.Sprintf("f28d%d_%%d", time.Now().UnixNano()%1e6)
	r1, r2, r3 := fmt.Sprintf(pattern, 1), fmt.Sprintf(pattern, 2), fmt.Sprintf(pattern, 3)
	other := freshDB(t, "fix28d_other")
	adminExec(t, "CREATE DATABASE "+other)
	admin := dbURL(t, "postgres")
	t.Cleanup(func() {
		execIn(t, other, "DROP TABLE IF EXISTS owned2")
		execIn(t, "postgres", "DROP DATABASE IF EXISTS "+r1+" WITH (FORCE)", "DROP DATABASE IF EXISTS "+r2+" WITH (FORCE)",
			"DROP DATABASE IF EXISTS "+r3+" WITH (FORCE)", "DROP ROLE IF EXISTS "+r1, "DROP ROLE IF EXISTS "+r2)
	})
	if r := stampede(t, "init", "bank", "--rows", "10", "--tenant-roles", "--tenants", "2", "--tenant-pattern", pattern, admin); r.code != 0 {
		t.Fatalf("init: exit %d\n%s", r.code, r.stderr)
	}
	adminExec(t, "CREATE DATABASE "+r3)
	execIn(t, r3, "CREATE TABLE mine (a int)", "INSERT INTO mine VALUES (1)")
	execIn(t, other, "CREATE TABLE owned2 (a int)", "ALTER TABLE owned2 OWNER TO "+r1)
	fleet := []string{"--tenants", "3", "--tenant-pattern", pattern}
	r := stampede(t, append(append([]string{"cleanup", "bank"}, fleet...), admin)...)
	checkFinalError(t, r, 2, "role "+r1+" owns table public.owned2")
	if !strings.Contains(r.stderr, r3) {
		t.Errorf("the refusal does not name the database %s stampede did not make: %s", r3, r.stderr)
	}
	// fix28f F2: the role's "or add --force-drop to drop the tenants and
	// keep the role" came before the line's own "to drop them anyway, add
	// --force-drop": the flag once, at the end, with what it keeps.
	if strings.Count(r.stderr, "--force-drop") != 1 || !strings.HasSuffix(r.stderr, "; to drop them anyway and keep the role, add --force-drop\n") {
		t.Errorf("the refusal does not end with the flag once, keeping the role:\n%s", r.stderr)
	}
	if n := queryInt(t, "postgres", fmt.Sprintf("SELECT count(*) FROM pg_database WHERE datname IN ('%s', '%s', '%s')", r1, r2, r3)); n != 3 {
		t.Fatalf("a refused cleanup dropped %d databases", 3-n)
	}
	if n := queryInt(t, r3, "SELECT count(*) FROM mine"); n != 1 {
		t.Errorf("the user's table holds %d rows of 1", n)
	}
}

// TestInitFileForceDropLeavesTheFilesDrops: with --force-drop, init sql
// dropped a user's table that the file itself drops, then ran the file,
// whose plain DROP TABLE failed on the table gone ("does not exist"):
// the table lost and init failed, blaming the file (fix28d F5). The
// file's own DROP drops it now, once, and init succeeds. And a file
// dropping three of the user's tables was refused naming the first
// alone: the refusal names all three.
func TestInitFileForceDropLeavesTheFilesDrops(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "fix28d_f5")
	adminExec(t, "CREATE DATABASE "+db)
	execIn(t, db, "CREATE TABLE t1 (x int)", "INSERT INTO t1 VALUES (1)", "CREATE TABLE t2 (x int)", "CREATE TABLE t3 (x int)")
	dir := t.TempDir()
	three := filepath.Join(dir, "three.sql")
	if err := os.WriteFile(three, []byte("DROP TABLE t1;\nDROP TABLE t2;\nDROP TABLE t3;\nCREATE TABLE t1 (x int);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := stampede(t, "init", "sql", "--init-file", three, dbURL(t, db))
	checkFinalError(t, r, 2, "tables t1, t2, t3 in database")
	if n := queryInt(t, db, "SELECT count(*) FROM t1"); n != 1 {
		t.Fatalf("the refused init left t1 with %d rows of 1", n)
	}
	one := filepath.Join(dir, "one.sql")
	if err := os.WriteFile(one, []byte("DROP TABLE t1;\nCREATE TABLE t1 (x int);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = stampede(t, "init", "sql", "--force-drop", "--init-file", one, dbURL(t, db))
	if r.code != 0 {
		t.Fatalf("init sql --force-drop of a file that drops the user's t1 itself: exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr+r.stdout, "--force-drop: "+one+":1 drops table t1, which stampede did not make") {
		t.Errorf("init does not say the file drops the user's t1: %s%s", r.stdout, r.stderr)
	}
}

// TestCleanupKeepsMovedTable: a table of init's that the user moved to
// another schema to keep it (ALTER TABLE bank SET SCHEMA keep) was
// dropped by cleanup when the search path found it first (fix28d F6):
// init's tables are where its record is, so one elsewhere is the user's,
// as a renamed one is. Cleanup and init --drop refuse and keep its rows,
// saying that stampede's table was moved there (fix28f F6: the refusal
// said it had no mark of stampede's).
func TestCleanupKeepsMovedTable(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "fix28d_f6")
	adminExec(t, "CREATE DATABASE "+db)
	mustRun(t, "init", "bank", "--rows", "10", dbURL(t, db))
	execIn(t, db, "CREATE SCHEMA keep", "ALTER TABLE bank SET SCHEMA keep")
	u := dbURL(t, db)
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	why := "was moved out of stampede's load (stampede's init of bank made it in schema public, where stampede_load records the load, and it was moved to schema keep since: it is yours now): "
	for _, tc := range []struct {
		args   []string
		action string
	}{
		{[]string{"cleanup", "bank"}, "cleanup"},
		{[]string{"init", "bank", "--rows", "10", "--drop"}, "--drop"},
	} {
		r := stampede(t, append(tc.args, u+sep+"search_path=keep,public")...)
		checkFinalError(t, r, 2, "table keep.bank in database \""+db+"\" on ")
		if want := why + tc.action + " leaves it alone; to drop it anyway, add --force-drop\n"; !strings.HasSuffix(r.stderr, want) {
			t.Errorf("%s: the refusal does not end %q:\n%s", tc.args, want, r.stderr)
		}
		if n := queryInt(t, db, "SELECT count(*) FROM keep.bank"); n != 10 {
			t.Errorf("%s: the moved table holds %d rows of 10", tc.args, n)
		}
	}
}

// TestInitFileDropsTheStaticReadingMissed: an init file's DROP of the
// user's table after \; and its DROP OWNED BY or DROP DATABASE ran at
// exit 0 (fix28d F4): each is refused in one line before any statement
// runs, and the user's table keeps its row.
func TestInitFileDropsTheStaticReadingMissed(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "fix28d_f4")
	adminExec(t, "CREATE DATABASE "+db)
	execIn(t, db, "CREATE TABLE mine2 (x int)", "INSERT INTO mine2 VALUES (1)")
	dir := t.TempDir()
	for i, c := range []struct{ file, want string }{
		{"SELECT 1\\; DROP TABLE mine2;\n", "table mine2 in database"},
		{"CREATE TABLE t (x int);\nDROP OWNED BY postgres;\n", ":2: DROP OWNED in an init file"},
		{"DROP DATABASE IF EXISTS other;\n", ":1: DROP DATABASE in an init file"},
		{"DROP TABLE U&\"mi\\006Ee2\";\n", ":1: a DROP of a name written with Unicode escapes"},
	} {
		f := filepath.Join(dir, fmt.Sprintf("f%d.sql", i))
		if err := os.WriteFile(f, []byte(c.file), 0o644); err != nil {
			t.Fatal(err)
		}
		r := stampede(t, "init", "sql", "--init-file", f, dbURL(t, db))
		checkFinalError(t, r, 2, c.want)
		if n := queryInt(t, db, "SELECT count(*) FROM mine2"); n != 1 {
			t.Fatalf("%q: the user's mine2 holds %d rows of 1", c.file, n)
		}
	}
}
