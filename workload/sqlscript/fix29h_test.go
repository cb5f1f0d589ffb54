package sqlscript_test

import (
	"strings"
	"testing"
)

// TestNameCommentTakenRunSQL: run sql runs a `-- name:` that two files
// share, and one that a file gives two statements, as pgbench runs them,
// where it refused them: the second statement of a name is NAME#2, said
// in one warning line on stderr for each, and each name's count is the
// rows its statement wrote on the server.
func TestNameCommentTakenRunSQL(t *testing.T) {
	dir := t.TempDir()
	_, u, conn := freshDB(t, "sqlnames")
	exec1(t, conn, "CREATE TABLE t (src text)")
	write(t, dir, "a.sql", "-- name: read\nINSERT INTO t VALUES ('a');\n")
	write(t, dir, "b.sql", "-- name: read\nINSERT INTO t VALUES ('b');\n")
	write(t, dir, "same.sql", "-- name: write\nINSERT INTO t VALUES ('s1');\n-- name: write\nINSERT INTO t VALUES ('s2');\n")
	r := stampede(t, dir, "run", "sql", "-f", "a.sql@3", "-f", "b.sql", "-f", "same.sql", "--max-ops", "600", "--concurrency", "2", u)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{
		"warning: b.sql:1: the statement name \"read\" is taken (a.sql:1): this statement is read#2 in the run log, report and compare",
		"warning: same.sql:3: the statement name \"write\" is taken (same.sql:1): this statement is write#2 in the run log, report and compare",
	} {
		if strings.Count(r.stderr, want) != 1 {
			t.Errorf("stderr does not say once %q:\n%s", want, r.stderr)
		}
	}
	rows := func(src string) int64 { return count(t, conn, "SELECT count(*) FROM t WHERE src = '"+src+"'") }
	ops := func(name string) int64 {
		n, _ := finalOps(t, r.stdout, name)
		return n
	}
	for _, c := range []struct {
		names []string // the script's, its statements'
		rows  int64
	}{
		{[]string{"a.sql", "read"}, rows("a")},
		{[]string{"b.sql", "read#2"}, rows("b")},
		{[]string{"same.sql", "write", "write#2"}, rows("s1")},
	} {
		for _, name := range c.names {
			if n := ops(name); n != c.rows || n == 0 {
				t.Errorf("%s counts %d operations, its statement wrote %d rows", name, n, c.rows)
			}
		}
	}
	if s1, s2 := rows("s1"), rows("s2"); s1 != s2 {
		t.Errorf("same.sql's statements wrote %d and %d rows", s1, s2)
	}
	if ops("") != 600 {
		t.Errorf("the total is %d, want 600", ops(""))
	}
}
