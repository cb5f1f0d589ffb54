package sqlscript_test

import (
	"strings"
	"testing"
)

// TestCleanupKeepsRowsOfUsersTables: a table init sql made that is
// attached to a table of the user's (a partition of it, a child that
// inherits from it) and holds rows the user put in through their table
// is refused by cleanup sql and init sql --drop in one line naming it and
// its rows, nothing dropped; --force-drop drops it and says so. An empty
// one goes as any table init made.
func TestCleanupKeepsRowsOfUsersTables(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, user, file, fill, want string
	}{
		{"partition", "CREATE TABLE parent (a int) PARTITION BY RANGE (a)",
			"CREATE TABLE parent_1 PARTITION OF parent FOR VALUES FROM (0) TO (100);\nCREATE TABLE t2 (a int);\n",
			"INSERT INTO parent VALUES (5)",
			"table parent_1 is a partition of your table parent and holds 1 row: %s drops nothing; add --force-drop to drop it anyway"},
		{"inherits", "CREATE TABLE parent (a int)",
			"CREATE TABLE child (b int) INHERITS (parent);\nCREATE TABLE t2 (a int);\n",
			"INSERT INTO child VALUES (1, 2), (3, 4)",
			"table child inherits from your table parent and holds 2 rows: %s drops nothing; add --force-drop to drop it anyway"},
		{"empty partition", "CREATE TABLE parent (a int) PARTITION BY RANGE (a)",
			"CREATE TABLE parent_1 PARTITION OF parent FOR VALUES FROM (0) TO (100);\nCREATE TABLE t2 (a int);\n",
			"", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, u, conn := freshDB(t, "sqlattach")
			exec1(t, conn, c.user)
			write(t, dir, "init.sql", c.file)
			if r := stampede(t, dir, "init", "sql", "--init-file", "init.sql", u); r.code != 0 {
				t.Fatalf("init: exit %d: %s", r.code, r.stderr)
			}
			if c.fill != "" {
				exec1(t, conn, c.fill)
			}
			users := count(t, conn, "SELECT count(*) FROM parent")
			if c.want != "" {
				oneLine(t, stampede(t, dir, "cleanup", "sql", u), strings.Replace(c.want, "%s", "cleanup", 1))
				oneLine(t, stampede(t, dir, "init", "sql", "--drop", "--init-file", "init.sql", u), strings.Replace(c.want, "%s", "init sql --drop", 1))
				if n := count(t, conn, "SELECT count(*) FROM parent"); n != users || count(t, conn, "SELECT count(*) FROM pg_class WHERE relname = 't2'") != 1 {
					t.Fatalf("a refused cleanup dropped something: parent holds %d rows of %d", n, users)
				}
			}
			args := []string{"cleanup", "sql", u}
			if c.want != "" {
				args = []string{"cleanup", "sql", "--force-drop", u}
			}
			r := stampede(t, dir, args...)
			if r.code != 0 {
				t.Fatalf("cleanup: exit %d: %s", r.code, r.stderr)
			}
			if c.want != "" && !strings.Contains(r.stdout+r.stderr, "--force-drop: ") {
				t.Errorf("--force-drop did not say what goes: %s%s", r.stdout, r.stderr)
			}
			if n := count(t, conn, "SELECT count(*) FROM pg_class WHERE relname IN ('parent_1', 'child', 't2')"); n != 0 {
				t.Errorf("cleanup left %d of init's tables", n)
			}
			if n := count(t, conn, "SELECT count(*) FROM pg_class WHERE relname = 'parent'"); n != 1 {
				t.Error("the user's table parent is gone")
			}
		})
	}
}
