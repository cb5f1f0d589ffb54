package sqlscript_test

import (
	"os"
	"path/filepath"
	"testing"
)

// TestScriptsOfOneName: two scripts of one file name in two directories,
// and one file given twice, run as pgbench runs them, as scripts of their
// own: the second of a name is NAME#2, its statements NAME#2:LINE and a
// `-- name: x` x#2, and each name's count is the rows its script wrote
// on the server.
func TestScriptsOfOneName(t *testing.T) {
	dir := t.TempDir()
	_, u, conn := freshDB(t, "sqlsame")
	exec1(t, conn, "CREATE TABLE t (src text)")
	for _, d := range []string{"a", "b"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
		write(t, dir, d+"/ins.sql", "INSERT INTO t VALUES ('"+d+"');\n")
	}
	write(t, dir, "one.sql", "-- name: one\nINSERT INTO t VALUES ('one');\n")
	r := stampede(t, dir, "run", "sql", "-f", "a/ins.sql@3", "-f", "b/ins.sql", "-f", "one.sql", "-f", "one.sql", "--max-ops", "600", "--concurrency", "2", u)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	rows := func(src string) int64 { return count(t, conn, "SELECT count(*) FROM t WHERE src = '"+src+"'") }
	ops := func(name string) int64 {
		n, _ := finalOps(t, r.stdout, name)
		return n
	}
	for _, c := range []struct {
		names []string // the script's, its statement's
		rows  int64
	}{
		{[]string{"ins.sql", "ins.sql:1"}, rows("a")},
		{[]string{"ins.sql#2", "ins.sql#2:1"}, rows("b")},
	} {
		for _, name := range c.names {
			if n := ops(name); n != c.rows || n == 0 {
				t.Errorf("%s counts %d operations, its script wrote %d rows", name, n, c.rows)
			}
		}
	}
	one, one2 := ops("one.sql"), ops("one.sql#2")
	if ops("one") != one || ops("one#2") != one2 || one == 0 || one2 == 0 || one+one2 != rows("one") {
		t.Errorf("one.sql %d (its statement one %d), one.sql#2 %d (one#2 %d); the server holds %d rows of theirs",
			one, ops("one"), one2, ops("one#2"), rows("one"))
	}
	if total := count(t, conn, "SELECT count(*) FROM t"); total != 600 || ops("") != 600 {
		t.Errorf("the server holds %d rows and the total is %d, want 600", total, ops(""))
	}
}
