package sqlscript_test

import (
	"strings"
	"testing"
)

// refusedExactly checks that r is one refusal line, exit 2, that reads
// want after stampede's prefix.
func refusedExactly(t *testing.T, r result, want string) {
	t.Helper()
	oneLine(t, r, want)
	if got := strings.TrimSpace(r.stderr); !strings.HasSuffix(got, "stampede: error: "+want) {
		t.Errorf("refusal:\n got %q\nwant %q", got, want)
	}
}

// TestInitFileCascadeKeepsUsersObjects: an init file's DROP ... CASCADE
// of what an earlier init made took the user's objects that depend on it
// along, exit 0 (fix28e F3): a view over the table, the foreign key of
// the user's table, a column of the user's table of the type, a column's
// default on the sequence, a view calling the function, a view over a
// table in the schema; and a plain DROP TABLE of init's partitioned table
// took the user's partition with its rows. Each is refused before any
// statement runs, in one line naming the user's objects and
// --force-drop, and every row and object of the user's stays; with
// --force-drop init goes on and says what goes. Objects of init's own
// that depend on what the file drops are no reason to refuse.
func TestInitFileCascadeKeepsUsersObjects(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, file, user string
		// kept counts the user's objects and rows that must stay: it is
		// want before and after the refusal.
		kept            string
		want            int64
		refusal, forced string
	}{
		{"table", "DROP TABLE IF EXISTS t CASCADE;\nCREATE TABLE t (id int PRIMARY KEY, v text);\nINSERT INTO t VALUES (1, 'a');\n",
			"CREATE VIEW uv AS SELECT * FROM t; CREATE TABLE uchild (id int REFERENCES t, mine text); INSERT INTO uchild VALUES (1, 'mine')",
			"SELECT (SELECT count(*) FROM uv) + (SELECT count(*) FROM uchild WHERE mine = 'mine') + (SELECT count(*) FROM pg_constraint WHERE conname = 'uchild_id_fkey')", 3,
			"2 objects that stampede did not make depend on table t, which init.sql:1 drops with CASCADE (table constraint uchild_id_fkey on public.uchild, view public.uv): init sql drops nothing; to drop them too, add --force-drop",
			"--drop: --force-drop: dropping table t with CASCADE, and with it table constraint uchild_id_fkey on public.uchild, view public.uv, which stampede did not make"},
		{"schema", "DROP SCHEMA IF EXISTS app CASCADE;\nCREATE SCHEMA app;\nCREATE TABLE app.t (id int PRIMARY KEY);\nINSERT INTO app.t VALUES (1);\n",
			"CREATE VIEW uv AS SELECT id FROM app.t; CREATE TABLE mine (id int); INSERT INTO mine SELECT id FROM uv",
			"SELECT (SELECT count(*) FROM uv) + (SELECT count(*) FROM mine)", 2,
			"1 object that stampede did not make depends on schema app, which init.sql:1 drops with CASCADE (view public.uv): init sql drops nothing; to drop it too, add --force-drop",
			"--drop: --force-drop: dropping table app.t, schema app with CASCADE, and with them view public.uv, which stampede did not make"},
		{"view", "DROP VIEW IF EXISTS v CASCADE;\nCREATE VIEW v AS SELECT 1 AS x;\n",
			"CREATE VIEW uv AS SELECT x FROM v",
			"SELECT count(*) FROM uv", 1,
			"1 object that stampede did not make depends on view v, which init.sql:1 drops with CASCADE (view public.uv): init sql drops nothing; to drop it too, add --force-drop",
			"--drop: --force-drop: dropping view v with CASCADE, and with it view public.uv, which stampede did not make"},
		{"sequence", "DROP SEQUENCE IF EXISTS s CASCADE;\nCREATE SEQUENCE s;\n",
			"CREATE TABLE ut (id int DEFAULT nextval('s'), mine text); INSERT INTO ut (mine) VALUES ('mine')",
			"SELECT (SELECT count(*) FROM ut WHERE mine = 'mine') + (SELECT count(*) FROM pg_attrdef WHERE adrelid = 'ut'::regclass)", 2,
			"1 object that stampede did not make depends on sequence s, which init.sql:1 drops with CASCADE (default value for public.ut.id): init sql drops nothing; to drop it too, add --force-drop",
			"--drop: --force-drop: dropping sequence s with CASCADE, and with it default value for public.ut.id, which stampede did not make"},
		{"type", "DROP TYPE IF EXISTS mood CASCADE;\nCREATE TYPE mood AS ENUM ('a', 'b');\n",
			"CREATE TABLE ut (id int, m mood); INSERT INTO ut VALUES (1, 'a')",
			"SELECT count(*) FROM ut WHERE m = 'a'", 1,
			"1 object that stampede did not make depends on type mood, which init.sql:1 drops with CASCADE (table column public.ut.m): init sql drops nothing; to drop it too, add --force-drop",
			"--drop: --force-drop: dropping type mood with CASCADE, and with it table column public.ut.m, which stampede did not make"},
		{"function", "DROP FUNCTION IF EXISTS f(int) CASCADE;\nCREATE FUNCTION f(x int) RETURNS int LANGUAGE sql AS 'SELECT x';\n",
			"CREATE VIEW uv AS SELECT f(1) AS y",
			"SELECT count(*) FROM uv WHERE y = 1", 1,
			"1 object that stampede did not make depends on function f(int), which init.sql:1 drops with CASCADE (view public.uv): init sql drops nothing; to drop it too, add --force-drop",
			"--drop: --force-drop: dropping function f(integer) with CASCADE, and with it view public.uv, which stampede did not make"},
		{"partition, without CASCADE", "DROP TABLE IF EXISTS ev;\nCREATE TABLE ev (id int, v text) PARTITION BY RANGE (id);\n",
			"CREATE TABLE ev_mine PARTITION OF ev FOR VALUES FROM (0) TO (100); INSERT INTO ev VALUES (1, 'mine')",
			"SELECT count(*) FROM ev_mine WHERE v = 'mine'", 1,
			"1 object that stampede did not make depends on table ev, which init.sql:1 drops (table public.ev_mine (a partition of public.ev)): init sql drops nothing; to drop it too, add --force-drop",
			"--drop: --force-drop: dropping table public.ev_mine (a partition of public.ev), which stampede did not make, with its parent"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, u, conn := freshDB(t, "sql28e")
			write(t, dir, "init.sql", c.file)
			if r := stampede(t, dir, "init", "sql", "--init-file", "init.sql", u); r.code != 0 {
				t.Fatalf("first init: exit %d: %s", r.code, r.stderr)
			}
			exec1(t, conn, c.user)
			if n := count(t, conn, c.kept); n != c.want {
				t.Fatalf("the user's objects count %d before init, want %d", n, c.want)
			}
			refusedExactly(t, stampede(t, dir, "init", "sql", "--init-file", "init.sql", u), c.refusal)
			if n := count(t, conn, c.kept); n != c.want {
				t.Fatalf("a refused init left %d of the user's %d objects and rows", n, c.want)
			}
			r := stampede(t, dir, "init", "sql", "--force-drop", "--init-file", "init.sql", u)
			if r.code != 0 || !strings.Contains(r.stderr+r.stdout, c.forced+"\n") {
				t.Fatalf("--force-drop: exit %d, want 0 and the line %q:\n%s%s", r.code, c.forced, r.stdout, r.stderr)
			}
		})
	}
	// Objects of init's own (a view, a table's foreign key, a trigger)
	// that depend on the table the file drops with CASCADE: it runs.
	t.Run("init's own dependents", func(t *testing.T) {
		_, u, conn := freshDB(t, "sql28e")
		write(t, dir, "own.sql", `DROP TABLE IF EXISTS t CASCADE;
DROP TABLE IF EXISTS c;
CREATE TABLE t (id int PRIMARY KEY);
CREATE VIEW tv AS SELECT * FROM t;
CREATE TABLE c (id int REFERENCES t);
CREATE OR REPLACE FUNCTION tf() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NEW; END';
CREATE TRIGGER tt BEFORE INSERT ON t FOR EACH ROW EXECUTE FUNCTION tf();
INSERT INTO t VALUES (1);
`)
		for i := 1; i <= 2; i++ {
			if r := stampede(t, dir, "init", "sql", "--init-file", "own.sql", u); r.code != 0 {
				t.Fatalf("init %d: exit %d: %s", i, r.code, r.stderr)
			}
		}
		if n := count(t, conn, "SELECT count(*) FROM tv"); n != 1 {
			t.Errorf("the file's view holds %d rows, want 1", n)
		}
	})
	// cleanup sql refuses the user's view over init's table, naming
	// --force-drop, which drops it with CASCADE and says so.
	t.Run("cleanup", func(t *testing.T) {
		_, u, conn := freshDB(t, "sql28e")
		write(t, dir, "t.sql", "CREATE TABLE t (id int PRIMARY KEY);\nINSERT INTO t VALUES (1);\n")
		if r := stampede(t, dir, "init", "sql", "--init-file", "t.sql", u); r.code != 0 {
			t.Fatalf("init: exit %d: %s", r.code, r.stderr)
		}
		exec1(t, conn, "CREATE VIEW uv AS SELECT * FROM t")
		refusedExactly(t, stampede(t, dir, "cleanup", "sql", u),
			"kept 1 object that something stampede did not make depends on, directly or through them: table t (view uv depends on table t); nothing was dropped; drop or change that first (stampede drops only what it made, never with CASCADE), then run this again, or to drop it with what depends on it, add --force-drop")
		if n := count(t, conn, "SELECT count(*) FROM uv"); n != 1 {
			t.Fatalf("a refused cleanup left the user's view with %d rows of 1", n)
		}
		r := stampede(t, dir, "cleanup", "sql", "--force-drop", u)
		if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "--force-drop: dropping table t with CASCADE, and with it view public.uv, which stampede did not make\n") ||
			!strings.Contains(r.stdout+r.stderr, "dropped table t\n") {
			t.Fatalf("cleanup --force-drop: exit %d:\n%s%s", r.code, r.stdout, r.stderr)
		}
		if n := count(t, conn, "SELECT count(*) FROM pg_class WHERE relname IN ('t', 'uv')"); n != 0 {
			t.Errorf("cleanup --force-drop left %d of the 2 relations it said it dropped", n)
		}
	})
}

// TestInitFileRenamesUsersObjects: an init file that renames a user's
// relation (or moves it to another schema) and then drops it under the
// new name dropped it, exit 0 (fix28e F4): the reading of the file's
// drops judges each name by what it denotes before the file runs. A file
// that renames or moves what init sql did not make (a table, view,
// sequence, index, schema, type, function, or a schema of init's that
// holds the user's table), or attaches a user's relation to what it then
// drops (ATTACH PARTITION, INHERIT, a sequence OWNED BY), is refused before any statement runs, in one
// line naming it, the file's line and --force-drop, and every row stays;
// with --force-drop the file runs and init says what it renamed. A file
// renaming init's own table runs.
func TestInitFileRenamesUsersObjects(t *testing.T) {
	dir := t.TempDir()
	const why = "not made by stampede: no mark of stampede's init on it, so it is yours"
	const tail = "): init sql judges each DROP of the file by what its name denotes before the file runs, so it refuses a file that renames, moves or attaches what is not init's; no statement of the file ran; to run the file anyway, add --force-drop"
	for _, c := range []struct {
		name, pre, user, file, kept, what string
	}{
		{"table", "", "CREATE TABLE user_t (id int, mine text); INSERT INTO user_t VALUES (1, 'mine')",
			"ALTER TABLE user_t RENAME TO x;\nDROP TABLE x;\n", "SELECT count(*) FROM user_t WHERE mine = 'mine'",
			"init.sql:1 renames table user_t in database %q on %h (" + why},
		{"SET SCHEMA", "", "CREATE SCHEMA s2; CREATE TABLE user_t (id int, mine text); INSERT INTO user_t VALUES (1, 'mine')",
			"CREATE TABLE a (id int);\nALTER TABLE IF EXISTS user_t SET SCHEMA s2;\nDROP TABLE s2.user_t;\n", "SELECT count(*) FROM public.user_t WHERE mine = 'mine'",
			"init.sql:2 moves table user_t to another schema in database %q on %h (" + why},
		{"view", "", "CREATE TABLE user_t (id int, mine text); INSERT INTO user_t VALUES (1, 'mine'); CREATE VIEW uv AS SELECT * FROM user_t",
			"ALTER VIEW uv RENAME TO x;\nDROP VIEW x;\n", "SELECT count(*) FROM uv WHERE mine = 'mine'",
			"init.sql:1 renames view uv in database %q on %h (" + why},
		{"sequence", "", "CREATE SEQUENCE useq; SELECT nextval('useq')",
			"ALTER SEQUENCE useq RENAME TO x;\nDROP SEQUENCE x;\n", "SELECT last_value FROM useq",
			"init.sql:1 renames sequence useq in database %q on %h (" + why},
		{"index", "", "CREATE TABLE user_t (id int, mine text); INSERT INTO user_t VALUES (1, 'mine'); CREATE INDEX uidx ON user_t (id)",
			"ALTER INDEX uidx RENAME TO x;\nDROP INDEX x;\n", "SELECT count(*) FROM pg_class WHERE relname = 'uidx'",
			"init.sql:1 renames index uidx in database %q on %h (" + why},
		{"schema", "", "CREATE SCHEMA app; CREATE TABLE app.t (id int, mine text); INSERT INTO app.t VALUES (1, 'mine')",
			"ALTER SCHEMA app RENAME TO app2;\nDROP SCHEMA app2 CASCADE;\n", "SELECT count(*) FROM app.t WHERE mine = 'mine'",
			"init.sql:1 renames schema app in database %q on %h (" + why},
		{"init's schema holding the user's table", "CREATE SCHEMA app;\n", "CREATE TABLE app.t (id int, mine text); INSERT INTO app.t VALUES (1, 'mine')",
			"ALTER SCHEMA app RENAME TO app2;\nDROP SCHEMA app2 CASCADE;\n", "SELECT count(*) FROM app.t WHERE mine = 'mine'",
			"init.sql:1 renames schema app in database %q on %h (init sql made it, but it holds table app.t, which init sql did not make"},
		{"ATTACH PARTITION", "", "CREATE TABLE user_t (id int, mine text); INSERT INTO user_t VALUES (1, 'mine')",
			"CREATE TABLE a (id int, mine text) PARTITION BY RANGE (id);\nALTER TABLE a ATTACH PARTITION user_t FOR VALUES FROM (0) TO (10);\nDROP TABLE a;\n",
			"SELECT count(*) FROM user_t WHERE mine = 'mine'",
			"init.sql:2 attaches table user_t as a partition of another table in database %q on %h (" + why},
		{"INHERIT", "", "CREATE TABLE user_t (id int, mine text); INSERT INTO user_t VALUES (1, 'mine')",
			"CREATE TABLE a (id int, mine text);\nALTER TABLE user_t INHERIT a;\nDROP TABLE a CASCADE;\n",
			"SELECT count(*) FROM user_t WHERE mine = 'mine'",
			"init.sql:2 makes table user_t inherit from another table in database %q on %h (" + why},
		{"OWNED BY", "", "CREATE SEQUENCE useq; SELECT nextval('useq')",
			"CREATE TABLE a (id int);\nALTER SEQUENCE useq OWNED BY a.id;\nDROP TABLE a;\n", "SELECT last_value FROM useq",
			"init.sql:2 makes sequence useq owned by a column in database %q on %h (" + why},
		{"type", "", "CREATE TYPE ut AS ENUM ('a'); CREATE TABLE user_t (id int, m ut); INSERT INTO user_t VALUES (1, 'a')",
			"ALTER TYPE ut RENAME TO x;\nDROP TYPE x CASCADE;\n", "SELECT count(*) FROM user_t WHERE m = 'a'",
			"init.sql:1 renames type ut in database %q on %h (" + why},
		{"function", "", "CREATE FUNCTION uf() RETURNS int LANGUAGE sql AS 'SELECT 1'",
			"ALTER FUNCTION uf() RENAME TO x;\nDROP FUNCTION x;\n", "SELECT uf()",
			"init.sql:1 renames function uf() in database %q on %h (" + why},
	} {
		t.Run(c.name, func(t *testing.T) {
			name, u, conn := freshDB(t, "sql28e")
			p := testURL(t, u)
			if c.pre != "" {
				write(t, dir, "pre.sql", c.pre)
				if r := stampede(t, dir, "init", "sql", "--init-file", "pre.sql", u); r.code != 0 {
					t.Fatalf("earlier init: exit %d: %s", r.code, r.stderr)
				}
			}
			exec1(t, conn, c.user)
			want := strings.NewReplacer("%q", `"`+name+`"`, "%h", p.host+":"+p.port).Replace(c.what)
			write(t, dir, "init.sql", c.file)
			refusedExactly(t, stampede(t, dir, "init", "sql", "--init-file", "init.sql", u), want+tail)
			if n := count(t, conn, c.kept); n != 1 {
				t.Fatalf("a refused init left %d of the user's 1", n)
			}
			if n := count(t, conn, "SELECT count(*) FROM pg_class WHERE relname IN ('a', 'x')"); n != 0 {
				t.Fatalf("a refused init ran the file: %d of its relations exist", n)
			}
			if c.pre != "" {
				return // --force-drop implies --drop, which drops init's schema first
			}
			r := stampede(t, dir, "init", "sql", "--force-drop", "--init-file", "init.sql", u)
			said := "--force-drop: " + strings.Replace(want, ` in database "`+name+`" on `+p.host+":"+p.port, "", 1) + ")\n"
			if r.code != 0 || !strings.Contains(r.stdout+r.stderr, said) {
				t.Fatalf("--force-drop: exit %d, want 0 and %q:\n%s%s", r.code, said, r.stdout, r.stderr)
			}
		})
	}
	t.Run("init's own table", func(t *testing.T) {
		_, u, conn := freshDB(t, "sql28e")
		write(t, dir, "pre.sql", "CREATE TABLE mine_t (id int);\n")
		if r := stampede(t, dir, "init", "sql", "--init-file", "pre.sql", u); r.code != 0 {
			t.Fatalf("earlier init: exit %d: %s", r.code, r.stderr)
		}
		write(t, dir, "init.sql", "ALTER TABLE mine_t RENAME TO x;\nDROP TABLE x;\n")
		if r := stampede(t, dir, "init", "sql", "--init-file", "init.sql", u); r.code != 0 {
			t.Fatalf("init renaming init's own table: exit %d: %s", r.code, r.stderr)
		}
		if n := count(t, conn, "SELECT count(*) FROM pg_class WHERE relname IN ('mine_t', 'x')"); n != 0 {
			t.Errorf("the file's rename and drop of init's table left %d relations", n)
		}
	})
}

// TestInitFileDropsUsersTypesAndRoutines: the reading of an init file's
// drops judged relations and schemas alone, so DROP TYPE, DOMAIN,
// FUNCTION or PROCEDURE of a user's dropped it (with CASCADE, the user's
// column of the type too), exit 0 (fix28e F3). Each is refused in one
// line naming it, its line and --force-drop, before any statement runs
// (a routine named with its arguments' names and modes too); every
// object and row stays; with --force-drop the file drops it and init
// says so first.
func TestInitFileDropsUsersTypesAndRoutines(t *testing.T) {
	dir := t.TempDir()
	const user = `CREATE TYPE ut AS ENUM ('a'); CREATE DOMAIN ud AS int CHECK (VALUE > 0);
CREATE TABLE mine (m ut, d ud); INSERT INTO mine VALUES ('a', 1);
CREATE FUNCTION uf(x int, y double precision) RETURNS int LANGUAGE sql AS 'SELECT 1';
CREATE PROCEDURE up() LANGUAGE sql AS 'SELECT 1'`
	const kept = `SELECT (SELECT count(*) FROM mine WHERE m = 'a' AND d = 1) + (SELECT count(*) FROM pg_type WHERE typname IN ('ut', 'ud'))
		+ (SELECT count(*) FROM pg_proc WHERE proname IN ('uf', 'up'))`
	for _, c := range []struct{ name, file, what, forced, gone string }{
		{"type", "CREATE TABLE a (id int);\nDROP TYPE ut CASCADE;\n", "type ut in database %q on %h was not made by stampede (init.sql:2 drops it",
			"--force-drop: init.sql:2 drops type ut, which stampede did not make", "SELECT count(*) FROM pg_type WHERE typname = 'ut'"},
		{"domain", "DROP DOMAIN IF EXISTS ud CASCADE;\n", "domain ud in database %q on %h was not made by stampede (init.sql:1 drops it",
			"--force-drop: init.sql:1 drops domain ud, which stampede did not make", "SELECT count(*) FROM pg_type WHERE typname = 'ud'"},
		{"function", "DROP FUNCTION IF EXISTS uf(IN x int, y double precision);\n", "function uf(int,double precision) in database %q on %h was not made by stampede (init.sql:1 drops it",
			"--force-drop: init.sql:1 drops function uf(int,double precision), which stampede did not make", "SELECT count(*) FROM pg_proc WHERE proname = 'uf'"},
		{"procedure", "DROP PROCEDURE up;\n", "procedure up in database %q on %h was not made by stampede (init.sql:1 drops it",
			"--force-drop: init.sql:1 drops procedure up, which stampede did not make", "SELECT count(*) FROM pg_proc WHERE proname = 'up'"},
	} {
		t.Run(c.name, func(t *testing.T) {
			name, u, conn := freshDB(t, "sql28e")
			p := testURL(t, u)
			exec1(t, conn, user)
			write(t, dir, "init.sql", c.file)
			want := strings.NewReplacer("%q", `"`+name+`"`, "%h", p.host+":"+p.port).Replace(c.what)
			r := stampede(t, dir, "init", "sql", "--init-file", "init.sql", u)
			oneLine(t, r, want)
			if !strings.Contains(r.stderr, "--force-drop") {
				t.Errorf("the refusal does not name --force-drop: %s", r.stderr)
			}
			if n := count(t, conn, kept); n != 5 {
				t.Fatalf("a refused init left %d of the user's 4 objects and 1 row", n)
			}
			if n := count(t, conn, "SELECT count(*) FROM pg_class WHERE relname = 'a'"); n != 0 {
				t.Fatal("a refused init ran the file's first statement")
			}
			r = stampede(t, dir, "init", "sql", "--force-drop", "--init-file", "init.sql", u)
			if r.code != 0 || !strings.Contains(r.stdout+r.stderr, c.forced+"\n") {
				t.Fatalf("--force-drop: exit %d, want 0 and %q:\n%s%s", r.code, c.forced, r.stdout, r.stderr)
			}
			if n := count(t, conn, c.gone); n != 0 {
				t.Errorf("--force-drop: the file did not drop what init said it drops")
			}
		})
	}
}
