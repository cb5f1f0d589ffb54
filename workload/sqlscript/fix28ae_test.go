package sqlscript_test

import (
	"strings"
	"testing"
)

// TestCleanupRefusesRenamedPartsOfInitTables: an index of the init
// file's table that the user renamed (ALTER INDEX a_idx RENAME TO
// keep_a_idx), the way a user says "keep this", was dropped with the
// table by cleanup sql at exit 0, without a word (chk28b F4), though a
// renamed table is kept as the user's. init's mark records the name each
// part of the table was made under now: a renamed index, trigger,
// constraint or column is refused in one line naming it, what it was made
// as and --force-drop, and stays; --force-drop drops it with the table
// and says so; the parts under their own names go without a word.
func TestCleanupRefusesRenamedPartsOfInitTables(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "init.sql", initWithParts)
	for _, c := range []struct {
		name, sql, named, exists string
	}{
		{"index", "ALTER INDEX a_idx RENAME TO keep_a_idx", "index keep_a_idx on table a (made as a_idx)",
			"SELECT count(*) FROM pg_class WHERE relname = 'keep_a_idx'"},
		{"trigger", "ALTER TRIGGER a_trg ON a RENAME TO keep_trg", "trigger keep_trg on table a (made as a_trg)",
			"SELECT count(*) FROM pg_trigger WHERE tgname = 'keep_trg'"},
		{"constraint", "ALTER TABLE a RENAME CONSTRAINT a_pkey TO keep_pkey", "constraint keep_pkey on table a (made as a_pkey)",
			"SELECT count(*) FROM pg_constraint WHERE conname = 'keep_pkey'"},
		{"column", "ALTER TABLE a RENAME COLUMN n TO keep_n", "column keep_n on table a (made as n)",
			"SELECT count(*) FROM pg_attribute WHERE attrelid = to_regclass('a') AND attname = 'keep_n'"},
	} {
		for _, form := range [][]string{{"cleanup", "sql"}, {"init", "sql", "--drop", "--init-file", "init.sql"}} {
			t.Run(c.name+"/"+strings.Join(form[:2], " "), func(t *testing.T) {
				_, u, conn := freshDB(t, "sql28ae")
				if r := stampede(t, dir, "init", "sql", "--init-file", "init.sql", u); r.code != 0 {
					t.Fatalf("init: exit %d: %s", r.code, r.stderr)
				}
				exec1(t, conn, c.sql)
				r := stampede(t, dir, append(form, u)...)
				oneLine(t, r, c.named)
				if !strings.HasSuffix(strings.TrimSpace(r.stderr), "add --force-drop") {
					t.Errorf("the refusal does not end with --force-drop: %s", r.stderr)
				}
				if n := count(t, conn, c.exists); n != 1 {
					t.Errorf("after the refusal the renamed %s is gone", c.name)
				}
				if n := count(t, conn, "SELECT count(*) FROM a"); n != 10 {
					t.Errorf("after the refusal the table holds %d rows, want 10", n)
				}
				r = stampede(t, dir, append(append(form, "--force-drop"), u)...)
				if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "--force-drop: dropping "+c.named+", which init sql made and you renamed since") {
					t.Fatalf("--force-drop: exit %d, want 0 and a line that says what goes:\n%s%s", r.code, r.stdout, r.stderr)
				}
				if n := count(t, conn, c.exists); n != 0 && form[0] == "cleanup" {
					t.Errorf("--force-drop left the renamed %s", c.name)
				}
			})
		}
	}
	t.Run("a second init file keeps the names recorded", func(t *testing.T) {
		// A later file that adds to the table records its new parts,
		// and the renamed index stays renamed in the record.
		_, u, conn := freshDB(t, "sql28ae")
		write(t, dir, "more.sql", "ALTER TABLE a ADD COLUMN more int;\n")
		if r := stampede(t, dir, "init", "sql", "--init-file", "init.sql", u); r.code != 0 {
			t.Fatalf("init: exit %d: %s", r.code, r.stderr)
		}
		exec1(t, conn, "ALTER INDEX a_idx RENAME TO keep_a_idx")
		if r := stampede(t, dir, "init", "sql", "--init-file", "more.sql", u); r.code != 0 {
			t.Fatalf("init more.sql: exit %d: %s", r.code, r.stderr)
		}
		oneLine(t, stampede(t, dir, "cleanup", "sql", u), "index keep_a_idx on table a (made as a_idx)")
	})
}
