package sqlscript_test

import (
	"strings"
	"testing"
)

// TestSimpleProtocolVariables: under --protocol simple, run sql writes
// the variables' values into a statement's text as pgbench does, so a
// statement the server cannot prepare with $N parameters (:a + :b, a
// table named with a variable) runs, as with pgbench -M simple; the
// prepared protocol refuses it before the run, naming the file and line.
func TestSimpleProtocolVariables(t *testing.T) {
	dir := t.TempDir()
	name, u, conn := freshDB(t, "sqlsimplevars")
	exec1(t, conn, "CREATE TABLE acc_1 (a int)")
	exec1(t, conn, "INSERT INTO acc_1 VALUES (1)")
	write(t, dir, "add.sql", "\\set a 1\n\\set b 2\nSELECT :a + :b;\n")
	write(t, dir, "part.sql", "\\set p 1\nSELECT count(*) FROM acc_:p;\n")
	for _, f := range []string{"add.sql", "part.sql"} {
		pgbench(t, dir, name, "-n", "-t", "3", "-M", "simple", "-f", f)
		if r := stampede(t, dir, "run", "sql", "--protocol", "simple", "-f", f, "--max-ops", "20", u); r.code != 0 {
			t.Errorf("--protocol simple -f %s: exit %d\n%s", f, r.code, r.stderr)
		}
		r := stampede(t, dir, "run", "sql", "-f", f, "--max-ops", "20", u)
		oneLine(t, r, f+":")
	}
}

// TestFleetConnPerWorker: a fleet's run sql gives each tenant a
// connection per worker by default, so --concurrency 2 runs on complete
// tenants; --conns-per-tenant below the workers is refused in one line
// naming it, never calling a tenant missing.
func TestFleetConnPerWorker(t *testing.T) {
	dir := t.TempDir()
	name, u, _ := freshDB(t, "sqlfleetconns")
	write(t, dir, "schema.sql", "CREATE TABLE kv (k int PRIMARY KEY, v int);\nINSERT INTO kv SELECT g, 0 FROM generate_series(1, 1000) g;\n")
	write(t, dir, "point.sql", "\\set k random(1, :maxid)\nSELECT v FROM kv WHERE k = :k;\n")
	fl := []string{"--tenants", "2", "--tenant-mode", "schema", "--tenant-pattern", name + "_%d"}
	if r := stampede(t, dir, append(append([]string{"init", "sql", "--init-file", "schema.sql"}, fl...), u)...); r.code != 0 {
		t.Fatalf("init: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	t.Cleanup(func() { stampede(t, dir, append(append([]string{"cleanup", "sql"}, fl...), u)...) })
	runArgs := append([]string{"run", "sql", "-f", "point.sql", "-D", "maxid=1000", "--duration", "2s", "--concurrency", "2"}, fl...)
	r := stampede(t, dir, append(runArgs, u)...)
	if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "2 workers and 2 connections each") {
		t.Errorf("run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = stampede(t, dir, append(runArgs, "--conns-per-tenant", "1", u)...)
	oneLine(t, r, "--conns-per-tenant 1 is fewer than each tenant's 2 workers")
	if strings.Contains(r.stderr, "missing") {
		t.Errorf("a complete tenant called missing: %s", r.stderr)
	}
	// --conns, refused in a fleet, points to --conns-per-tenant with
	// run sql's default.
	r = stampede(t, dir, append(runArgs, "--conns", "2", u)...)
	oneLine(t, r, "give --conns-per-tenant N (each active tenant's connections, default one per worker)")
}

// TestUnsetOnABranch: a variable one \if branch sets is a warning naming
// the file and line of its use, and a statement that meets it unset
// fails there, sending nothing (pgbench -M prepared, and stampede
// pgbench, send NULL: TestUnsetOnABranchAsPgbench): the run stops, exit
// 1, with "ifset.sql:4: variable y is not set"; with --tolerate-errors
// the failures are counted and the run goes on. No NULL reaches the
// table.
func TestUnsetOnABranch(t *testing.T) {
	dir := t.TempDir()
	_, u, conn := freshDB(t, "sqlunsetbranch")
	exec1(t, conn, "CREATE TABLE t (v int)")
	write(t, dir, "ifset.sql", "\\if random(0, 9) = 0\n\\set y 1\n\\endif\nINSERT INTO t VALUES (:y);\n")
	args := []string{"run", "sql", "-f", "ifset.sql", "--concurrency", "4", "--max-ops", "200", u}
	r := stampede(t, dir, args...)
	if !strings.Contains(r.stderr, `warning: ifset.sql:4: the statement uses :y, which the \if at line 1 leaves unset on some of its branches: a transaction that reaches it unset fails there (variable y is not set), sending nothing, where pgbench -M prepared (and stampede pgbench) sends NULL for it`) {
		t.Errorf("no warning naming ifset.sql:4:\n%s", r.stderr)
	}
	if r.code != 1 || !strings.Contains(r.stderr, "ifset.sql:4: variable y is not set") {
		t.Errorf("exit %d, want 1 with ifset.sql:4: variable y is not set\n%s", r.code, r.stderr)
	}
	// The stopped run may have written a row or two before its first
	// failure (a transaction that drew y set): count from here.
	before := count(t, conn, "SELECT count(*) FROM t")
	r = stampede(t, dir, append([]string{"run", "sql", "--tolerate-errors"}, args[2:]...)...)
	ops, errs := finalOps(t, r.stdout, "ifset.sql")
	if r.code != 0 || errs == 0 || ops+errs != 200 {
		t.Errorf("--tolerate-errors: exit %d, %d operations and %d errors, want 0 and 200 in all, some failed\n%s", r.code, ops, errs, r.stderr)
	}
	if n := count(t, conn, "SELECT count(*) FROM t WHERE v IS NULL"); n != 0 {
		t.Errorf("%d NULL rows written", n)
	}
	if n := count(t, conn, "SELECT count(*) FROM t") - before; n != ops {
		t.Errorf("%d rows written by the --tolerate-errors run (%d before it), %d operations succeeded", n, before, ops)
	}
}
