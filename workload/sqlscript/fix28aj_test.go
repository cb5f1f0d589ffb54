package sqlscript_test

import (
	"strings"
	"testing"
)

// TestRefusalNamesEveryRenamedObject (chk28d F2): with a table of the
// init file's renamed (t to t2) and an index of another table of it
// renamed (t3_idx to keep_t3_idx), cleanup sql and init sql --drop
// refused naming the table alone, and --force-drop then dropped the
// index too, which no refusal had named. One refusal names both now;
// on the old code the index was missing from it.
func TestRefusalNamesEveryRenamedObject(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "f3.sql", "CREATE TABLE t (id int PRIMARY KEY);\nCREATE TABLE t3 (id int PRIMARY KEY, v int);\nCREATE INDEX t3_idx ON t3 (v);\n")
	for _, form := range [][]string{{"cleanup", "sql"}, {"init", "sql", "--drop", "--init-file", "f3.sql"}} {
		t.Run(strings.Join(form[:2], " "), func(t *testing.T) {
			_, u, conn := freshDB(t, "sql28aj")
			if r := stampede(t, dir, "init", "sql", "--init-file", "f3.sql", u); r.code != 0 {
				t.Fatalf("init: exit %d: %s", r.code, r.stderr)
			}
			exec1(t, conn, "ALTER TABLE t RENAME TO t2")
			exec1(t, conn, "ALTER INDEX t3_idx RENAME TO keep_t3_idx")
			r := stampede(t, dir, append(form, u)...)
			for _, want := range []string{"table public.t2 (made as public.t)", "index keep_t3_idx on table t3 (made as t3_idx)"} {
				oneLine(t, r, want)
			}
			if n := count(t, conn, "SELECT count(*) FROM pg_class WHERE relname IN ('t2', 't3', 'keep_t3_idx')"); n != 3 {
				t.Errorf("after the refusal %d of t2, t3 and keep_t3_idx are left, want 3", n)
			}
		})
	}
}
