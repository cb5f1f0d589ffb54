package sqlscript_test

import (
	"strings"
	"testing"
)

// initWithParts is an init file whose table carries its own index,
// trigger and primary key: what cleanup drops without a word.
const initWithParts = `CREATE TABLE a (id int PRIMARY KEY, n int, s serial);
CREATE INDEX a_idx ON a (n);
CREATE FUNCTION af() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NEW; END';
CREATE TRIGGER a_trg BEFORE INSERT ON a FOR EACH ROW EXECUTE FUNCTION af();
INSERT INTO a SELECT g, g FROM generate_series(1, 10) g;
`

// TestCleanupRefusesUsersPartsOfInitTables: cleanup sql and init sql
// --drop dropped, exit 0, a user's index, trigger, rule or filled column
// made on a table the init file created, with the table (issue 28). The
// table's mark now records what the file made on it; each of the user's
// is refused in one line naming it and --force-drop, and it and the
// table's rows stay; --force-drop drops it with the table. A user's view
// on the table is refused too (it depends on the table). The file's own
// index and trigger go without a word.
func TestCleanupRefusesUsersPartsOfInitTables(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "init.sql", initWithParts)
	for _, c := range []struct {
		name, sql, named, exists string
	}{
		{"index", "CREATE INDEX u_idx ON a (n, id)", "index u_idx on table a", "SELECT count(*) FROM pg_class WHERE relname = 'u_idx'"},
		{"trigger", "CREATE TRIGGER u_trg BEFORE UPDATE ON a FOR EACH ROW EXECUTE FUNCTION af()", "trigger u_trg on table a",
			"SELECT count(*) FROM pg_trigger WHERE tgname = 'u_trg'"},
		{"view", "CREATE VIEW u_v AS SELECT id FROM a", "view u_v depends on table a", "SELECT count(*) FROM pg_class WHERE relname = 'u_v'"},
		{"filled column", "ALTER TABLE a ADD COLUMN note text; UPDATE a SET note = 'mine'", "column note of table a (it holds data)",
			"SELECT count(*) FROM pg_attribute WHERE attrelid = to_regclass('a') AND attname = 'note'"},
		{"rule", "CREATE RULE u_r AS ON DELETE TO a DO INSTEAD NOTHING", "rule u_r on table a", "SELECT count(*) FROM pg_rewrite WHERE rulename = 'u_r'"},
		{"constraint", "ALTER TABLE a ADD CONSTRAINT u_c CHECK (n > 0)", "constraint u_c on table a", "SELECT count(*) FROM pg_constraint WHERE conname = 'u_c'"},
		// A sequence of the user's owned by the file's column goes with
		// the table, and its value with it (chk28b F3); the file's own
		// serial's sequence does not count.
		{"owned sequence", "CREATE SEQUENCE u_seq OWNED BY a.n; SELECT setval('u_seq', 500)", "sequence u_seq on table a",
			"SELECT count(*) FROM pg_class WHERE relname = 'u_seq'"},
	} {
		for _, form := range [][]string{{"cleanup", "sql"}, {"init", "sql", "--drop", "--init-file", "init.sql"}} {
			t.Run(c.name+"/"+strings.Join(form[:2], " "), func(t *testing.T) {
				_, u, conn := freshDB(t, "sql28ac")
				if r := stampede(t, dir, "init", "sql", "--init-file", "init.sql", u); r.code != 0 {
					t.Fatalf("init: exit %d: %s", r.code, r.stderr)
				}
				exec1(t, conn, c.sql)
				const record = "SELECT count(*) FROM stampede_load"
				want := map[string]int64{"the user's " + c.name: count(t, conn, c.exists), "the table's rows": 10, "stampede's record of the load": count(t, conn, record)}
				if want["the user's "+c.name] == 0 {
					t.Fatalf("%s: the user's %s is not there to keep", c.sql, c.name)
				}
				r := stampede(t, dir, append(form, u)...)
				oneLine(t, r, c.named)
				if !strings.HasSuffix(strings.TrimSpace(r.stderr), "add --force-drop") {
					t.Errorf("the refusal does not end with --force-drop: %s", r.stderr)
				}
				for what, n := range want {
					sql := c.exists
					if what == "stampede's record of the load" {
						// A refused cleanup keeps the record that tells a
						// copy of the database from it (chk28b F1).
						sql = record
					}
					if what == "the table's rows" {
						sql = "SELECT count(*) FROM a WHERE n = id"
						if c.name == "filled column" {
							sql += " AND note = 'mine'"
						}
					}
					if got := count(t, conn, sql); got != n {
						t.Errorf("after the refusal, %s: %d, want %d", what, got, n)
					}
				}
				r = stampede(t, dir, append(append(form, "--force-drop"), u)...)
				if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "--force-drop") {
					t.Fatalf("--force-drop: exit %d, want 0 and a line that says what goes:\n%s%s", r.code, r.stdout, r.stderr)
				}
				if n := count(t, conn, c.exists); n != 0 {
					t.Errorf("--force-drop left the user's %s", c.name)
				}
			})
		}
	}
	t.Run("the file's own parts", func(t *testing.T) {
		_, u, conn := freshDB(t, "sql28ac")
		for _, args := range [][]string{{"init", "sql", "--init-file", "init.sql", u}, {"init", "sql", "--drop", "--init-file", "init.sql", u}} {
			if r := stampede(t, dir, args...); r.code != 0 || strings.Contains(r.stderr, "--force-drop") {
				t.Fatalf("%s: exit %d: %s", strings.Join(args[:3], " "), r.code, r.stderr)
			}
		}
		// A column the user added but left empty is not data, and goes
		// with the table, as on every workload's. (A policy is refused,
		// as on every workload's: TestCleanupRefusesUsersAttachedParts.)
		exec1(t, conn, "ALTER TABLE a ADD COLUMN empty text")
		r := stampede(t, dir, "cleanup", "sql", u)
		if r.code != 0 || strings.Contains(r.stderr, "--force-drop") || !strings.Contains(r.stdout+r.stderr, "dropped table a\n") {
			t.Fatalf("cleanup sql: exit %d:\n%s%s", r.code, r.stdout, r.stderr)
		}
		if n := count(t, conn, "SELECT count(*) FROM pg_class WHERE relname IN ('a', 'a_idx')"); n != 0 {
			t.Errorf("cleanup left %d of the file's table and index", n)
		}
	})
	t.Run("a later file's column", func(t *testing.T) {
		// What a second init file adds to the first's table is init's.
		_, u, conn := freshDB(t, "sql28ac")
		write(t, dir, "more.sql", "ALTER TABLE a ADD COLUMN more int;\nUPDATE a SET more = 1;\nALTER TABLE a ADD CONSTRAINT more_c CHECK (more > 0);\n")
		for _, f := range []string{"init.sql", "more.sql"} {
			if r := stampede(t, dir, "init", "sql", "--init-file", f, u); r.code != 0 {
				t.Fatalf("init %s: exit %d: %s", f, r.code, r.stderr)
			}
		}
		if r := stampede(t, dir, "cleanup", "sql", u); r.code != 0 || strings.Contains(r.stderr, "--force-drop") {
			t.Fatalf("cleanup sql: exit %d:\n%s%s", r.code, r.stdout, r.stderr)
		}
		if n := count(t, conn, "SELECT count(*) FROM pg_class WHERE relname = 'a'"); n != 0 {
			t.Error("cleanup left the table")
		}
	})
	t.Run("a mark of an older stampede", func(t *testing.T) {
		// A table whose mark records no parts (an init of a stampede
		// before this one) is dropped with what is on it, as then.
		_, u, conn := freshDB(t, "sql28ac")
		if r := stampede(t, dir, "init", "sql", "--init-file", "init.sql", u); r.code != 0 {
			t.Fatalf("init: exit %d: %s", r.code, r.stderr)
		}
		exec1(t, conn, `DO $$ BEGIN EXECUTE 'COMMENT ON TABLE a IS ' || quote_literal(regexp_replace(obj_description('a'::regclass, 'pg_class'), '; made with [^;]*', '')); END $$`)
		if n := count(t, conn, "SELECT count(*) FROM pg_description WHERE objoid = 'a'::regclass AND description LIKE '%made with%'"); n != 0 {
			t.Fatal("the mark still records the parts")
		}
		exec1(t, conn, "CREATE INDEX u_idx ON a (n, id)")
		if r := stampede(t, dir, "cleanup", "sql", u); r.code != 0 || !strings.Contains(r.stdout+r.stderr, "dropped table a\n") {
			t.Fatalf("cleanup sql of an older mark: exit %d:\n%s%s", r.code, r.stdout, r.stderr)
		}
		if n := count(t, conn, "SELECT count(*) FROM pg_class WHERE relname = 'u_idx'"); n != 0 {
			t.Error("the older mark's table was kept")
		}
	})
}
