package sqlscript_test

import (
	"strings"
	"testing"
)

// TestInitFileWritesUsersTable: an init file's TRUNCATE, DELETE or
// UPDATE of a user's table ran, exit 0, emptying or changing the user's
// rows (issue 28). Each is refused before any statement runs, in one
// line naming the file's line, the table as schema.table, the statement
// and --force-drop; every row of the user's stays as it was; with
// --force-drop the file runs and init says first what it changes. The
// same statements on the file's own tables, and INSERT into the user's,
// run.
func TestInitFileWritesUsersTable(t *testing.T) {
	dir := t.TempDir()
	const user = `CREATE SCHEMA app; CREATE TABLE ut (id int PRIMARY KEY, n int);
INSERT INTO ut SELECT g, g FROM generate_series(1, 5) g;
CREATE TABLE app."Users" (id int PRIMARY KEY, n int); INSERT INTO app."Users" VALUES (1, 1), (2, 2);
CREATE TABLE uref (id int REFERENCES app."Users"); INSERT INTO uref VALUES (1)`
	// kept counts the user's rows as made: 5 + 2 + 1.
	const kept = `SELECT (SELECT count(*) FROM ut WHERE n = id) + (SELECT count(*) FROM app."Users" WHERE n = id) + (SELECT count(*) FROM uref)`
	const why = " (not made by stampede: no mark of stampede's init on it, so it is yours): no statement of the file ran; to run the file anyway, add --force-drop"
	for _, c := range []struct{ name, stmt, table, action, does string }{
		{"TRUNCATE", "TRUNCATE ut", "public.ut", "TRUNCATE", "empties it"},
		{"TRUNCATE a, b", "TRUNCATE a, ut", "public.ut", "TRUNCATE", "empties it"},
		{"TRUNCATE CASCADE", `TRUNCATE a, app."Users" CASCADE`, `app."Users"`, "TRUNCATE", "empties it"},
		{"DELETE", "DELETE FROM ut WHERE id > 2", "public.ut", "DELETE", "deletes its rows"},
		{"DELETE FROM ONLY", "DELETE FROM ONLY public.ut", "public.ut", "DELETE", "deletes its rows"},
		{"quoted", `DELETE FROM app."Users" WHERE id = 2`, `app."Users"`, "DELETE", "deletes its rows"},
		{"UPDATE FROM", "UPDATE ut AS u SET n = 0 FROM a WHERE a.id = u.id", "public.ut", "UPDATE", "changes its rows"},
		{"WITH DELETE", "WITH d AS (DELETE FROM ut RETURNING id) INSERT INTO a SELECT id FROM d", "public.ut", "DELETE", "deletes its rows"},
		{"search_path", "SET search_path = app, public;\nDELETE FROM \"Users\" WHERE id = 2", `app."Users"`, "DELETE", "deletes its rows"},
		{"DO block", "DO $$ BEGIN UPDATE ut SET n = 0; END $$", "public.ut", "UPDATE", "changes its rows"},
		{"MERGE", "MERGE INTO ut USING a ON a.id = ut.id WHEN MATCHED THEN DELETE", "public.ut", "MERGE", "changes or deletes its rows"},
		{"upsert", "INSERT INTO ut VALUES (1, 0) ON CONFLICT (id) DO UPDATE SET n = 0", "public.ut", "INSERT ... ON CONFLICT DO UPDATE", "changes its rows"},
		{"COMMENT ON", "COMMENT ON TABLE ut IS 'hello'", "public.ut", "COMMENT ON", "replaces its comment (where stampede's mark would make cleanup drop it)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			name, u, conn := freshDB(t, "sql28y")
			p := testURL(t, u)
			exec1(t, conn, user)
			write(t, dir, "init.sql", "CREATE TABLE a (id int);\n"+c.stmt+";\n")
			line := "2"
			if c.name == "search_path" {
				line = "3"
			}
			table := "table " + c.table
			refusedExactly(t, stampede(t, dir, "init", "sql", "--init-file", "init.sql", u),
				"init.sql:"+line+" changes "+table+` in database "`+name+`" on `+p.host+":"+p.port+" with "+c.action+", which "+c.does+why)
			if n := count(t, conn, kept); n != 8 {
				t.Fatalf("a refused init left %d of the user's 8 rows as they were", n)
			}
			if n := count(t, conn, "SELECT count(*) FROM pg_class WHERE relname = 'a'"); n != 0 {
				t.Fatal("a refused init ran the file's first statement")
			}
			r := stampede(t, dir, "init", "sql", "--force-drop", "--init-file", "init.sql", u)
			forced := "--force-drop: init.sql:" + line + " changes " + table + ", which stampede did not make, with " + c.action + "\n"
			if r.code != 0 || !strings.Contains(r.stdout+r.stderr, forced) {
				t.Fatalf("--force-drop: exit %d, want 0 and %q:\n%s%s", r.code, forced, r.stdout, r.stderr)
			}
			if n := count(t, conn, "SELECT count(*) FROM pg_class WHERE relname = 'a'"); n != 1 {
				t.Error("--force-drop: the file did not run")
			}
		})
	}
	t.Run("TRUNCATE CASCADE reaches a user's table", func(t *testing.T) {
		name, u, conn := freshDB(t, "sql28y")
		p := testURL(t, u)
		exec1(t, conn, user)
		// The table stampede made earlier, which the user's uref2 references.
		write(t, dir, "first.sql", "CREATE TABLE mine (id int PRIMARY KEY);\nINSERT INTO mine VALUES (1);\n")
		if r := stampede(t, dir, "init", "sql", "--init-file", "first.sql", u); r.code != 0 {
			t.Fatalf("init: exit %d: %s", r.code, r.stderr)
		}
		exec1(t, conn, "CREATE TABLE uref2 (id int REFERENCES mine); INSERT INTO uref2 VALUES (1)")
		write(t, dir, "init.sql", "CREATE TABLE a (id int);\nTRUNCATE mine CASCADE;\n")
		refusedExactly(t, stampede(t, dir, "init", "sql", "--init-file", "init.sql", u),
			`init.sql:2 changes table public.uref2 in database "`+name+`" on `+p.host+":"+p.port+" with TRUNCATE ... CASCADE of mine, which it references, which empties it"+why)
		if n := count(t, conn, "SELECT count(*) FROM uref2") + count(t, conn, "SELECT count(*) FROM mine"); n != 2 {
			t.Fatalf("a refused init left %d of 2 rows", n)
		}
	})
	t.Run("the file's own tables, and INSERT", func(t *testing.T) {
		_, u, conn := freshDB(t, "sql28y")
		exec1(t, conn, user)
		write(t, dir, "own.sql", `CREATE SCHEMA s;
SET search_path = s;
CREATE TABLE t (id int PRIMARY KEY, n int);
INSERT INTO t SELECT g, g FROM generate_series(1, 10) g;
DELETE FROM t WHERE id > 8;
UPDATE t SET n = t.n + 1 FROM public.ut WHERE ut.id = t.id;
TRUNCATE ONLY t;
COMMENT ON TABLE t IS 'the file''s own table';
DO $$ BEGIN DELETE FROM t; END $$;
INSERT INTO public.ut VALUES (100, 100);
INSERT INTO public.ut VALUES (100, 0) ON CONFLICT DO NOTHING;
COPY public.ut FROM STDIN;
101	101
\.
`)
		if r := stampede(t, dir, "init", "sql", "--init-file", "own.sql", u); r.code != 0 {
			t.Fatalf("init: exit %d: %s", r.code, r.stderr)
		}
		if n := count(t, conn, kept); n != 10 {
			t.Errorf("an init writing its own tables and adding to the user's left %d of the user's 10 rows, want 8 and the 2 it added", n)
		}
		// A second init of the same file, over its own (marked) tables:
		// --drop drops them first; and a file writing an earlier init's
		// table runs.
		write(t, dir, "again.sql", "DELETE FROM s.t;\nUPDATE s.t SET n = 0;\nTRUNCATE s.t;\n")
		if r := stampede(t, dir, "init", "sql", "--init-file", "again.sql", u); r.code != 0 {
			t.Fatalf("init writing an earlier init's table: exit %d: %s", r.code, r.stderr)
		}
	})
}

// TestCleanupDropsInitsIndexAndTrigger: an index or trigger that an init
// file made on a user's table was no object of init's, so cleanup sql
// left it on the user's table (issue 28). init now marks them (bound to
// their OIDs); cleanup sql drops exactly those, and the user's rows, own
// index and own trigger on the same table stay; init --drop drops them
// before it runs the file again.
func TestCleanupDropsInitsIndexAndTrigger(t *testing.T) {
	dir := t.TempDir()
	_, u, conn := freshDB(t, "sql28y")
	exec1(t, conn, `CREATE TABLE ut (id int PRIMARY KEY, n int);
INSERT INTO ut SELECT g, g FROM generate_series(1, 5) g;
CREATE INDEX ut_user_idx ON ut (n);
CREATE FUNCTION utf() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NEW; END';
CREATE TRIGGER ut_user_trg BEFORE INSERT ON ut FOR EACH ROW EXECUTE FUNCTION utf()`)
	write(t, dir, "init.sql", `CREATE TABLE a (id int);
CREATE INDEX a_idx ON a (id);
CREATE INDEX ut_init_idx ON ut (id, n);
CREATE INDEX ON ut ((n + 1));
CREATE FUNCTION itf() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NEW; END';
CREATE TRIGGER ut_init_trg BEFORE UPDATE ON ut FOR EACH ROW EXECUTE FUNCTION itf();
`)
	const indexes = `SELECT count(*) FROM pg_index WHERE indrelid = 'ut'::regclass`
	const triggers = `SELECT count(*) FROM pg_trigger WHERE tgrelid = 'ut'::regclass AND NOT tgisinternal`
	for _, args := range [][]string{
		{"init", "sql", "--init-file", "init.sql", u},
		{"init", "sql", "--drop", "--init-file", "init.sql", u},
	} {
		if r := stampede(t, dir, args...); r.code != 0 {
			t.Fatalf("%s: exit %d: %s", strings.Join(args[:3], " "), r.code, r.stderr)
		}
		// pkey, the user's, and the file's two; the user's and the file's.
		if n, m := count(t, conn, indexes), count(t, conn, triggers); n != 4 || m != 2 {
			t.Fatalf("after %s: %d indexes and %d triggers on ut, want 4 and 2", args[1], n, m)
		}
	}
	// The marks are bound to the OIDs of the file's index and trigger.
	if n := count(t, conn, `SELECT count(*) FROM pg_description WHERE description ~ ('; oid ' || objoid || '$')
		AND (objoid = 'ut_init_idx'::regclass OR objoid = (SELECT oid FROM pg_trigger WHERE tgname = 'ut_init_trg'))`); n != 2 {
		t.Errorf("%d of the file's index and trigger carry a mark bound to their OID, want 2", n)
	}
	r := stampede(t, dir, "cleanup", "sql", u)
	out := r.stdout + r.stderr
	for _, want := range []string{"dropped index ut_init_idx\n", "dropped index ut_expr_idx\n", "dropped trigger ut_init_trg ON ut\n", "dropped table a\n", "dropped function itf()\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("cleanup sql: want %q in:\n%s", want, out)
		}
	}
	if r.code != 0 {
		t.Fatalf("cleanup sql: exit %d:\n%s", r.code, out)
	}
	for _, c := range []struct {
		what, sql string
		want      int64
	}{
		{"the user's rows", "SELECT count(*) FROM ut WHERE n = id", 5},
		{"the user's index and the primary key", indexes, 2},
		{"the user's index", "SELECT count(*) FROM pg_class WHERE relname = 'ut_user_idx'", 1},
		{"the user's trigger", "SELECT count(*) FROM pg_trigger WHERE tgname = 'ut_user_trg' AND tgrelid = 'ut'::regclass", 1},
		{"triggers on ut", triggers, 1},
		{"the file's table and function", "SELECT count(*) FROM pg_class WHERE relname = 'a'", 0},
	} {
		if n := count(t, conn, c.sql); n != c.want {
			t.Errorf("after cleanup sql, %s: %d, want %d", c.what, n, c.want)
		}
	}
}
