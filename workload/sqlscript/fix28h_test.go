package sqlscript_test

import (
	"strings"
	"testing"
)

// TestInitSQLRefusedDropKeepsRecord: init sql --drop deleted stampede's
// record of the load (stampede_load) and dropped what an earlier init
// made before the file's reading refused it, so a refused --drop lost
// the record, and stampede forgot what it made (fix28h 4). The file is
// now judged before anything is dropped: after the refusal init's table
// and rows, the user's table and the record are all there, and cleanup
// sql drops init's table alone.
func TestInitSQLRefusedDropKeepsRecord(t *testing.T) {
	dir := t.TempDir()
	name, u, conn := freshDB(t, "sql28h")
	p := testURL(t, u)
	write(t, dir, "t.sql", "CREATE TABLE t (id int PRIMARY KEY);\nINSERT INTO t VALUES (1), (2);\n")
	if r := stampede(t, dir, "init", "sql", "--init-file", "t.sql", u); r.code != 0 {
		t.Fatalf("init: exit %d: %s", r.code, r.stderr)
	}
	exec1(t, conn, "CREATE TABLE user_t (id int, mine text); INSERT INTO user_t VALUES (1, 'mine')")
	const record = "SELECT count(*) FROM stampede_load WHERE workload = 'sql'"
	if n := count(t, conn, record); n != 1 {
		t.Fatalf("init left %d records of its load, want 1", n)
	}
	write(t, dir, "bad.sql", "DROP TABLE user_t;\nCREATE TABLE t (id int PRIMARY KEY);\n")
	refusedExactly(t, stampede(t, dir, "init", "sql", "--drop", "--init-file", "bad.sql", u),
		`table user_t in database "`+name+`" on `+p.host+":"+p.port+` was not made by stampede (bad.sql:1 drops it, and the one there carries no mark of stampede's init: it is yours; no statement of the file ran): init sql leaves it alone; to drop it anyway, add --force-drop`)
	for _, c := range []struct {
		what, sql string
		want      int64
	}{
		{"the record of init's load", record, 1},
		{"init's table's rows", "SELECT count(*) FROM t", 2},
		{"the user's row", "SELECT count(*) FROM user_t WHERE mine = 'mine'", 1},
	} {
		if n := count(t, conn, c.sql); n != c.want {
			t.Errorf("after a refused --drop, %s: %d, want %d", c.what, n, c.want)
		}
	}
	r := stampede(t, dir, "cleanup", "sql", u)
	if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "dropped table t\n") {
		t.Fatalf("cleanup sql after a refused --drop: exit %d, want 0 and dropped table t:\n%s%s", r.code, r.stdout, r.stderr)
	}
	if n := count(t, conn, "SELECT count(*) FROM pg_class WHERE relname IN ('t', 'stampede_load')"); n != 0 {
		t.Errorf("cleanup left %d of init's table and record", n)
	}
	if n := count(t, conn, "SELECT count(*) FROM user_t WHERE mine = 'mine'"); n != 1 {
		t.Errorf("cleanup left %d of the user's 1 row", n)
	}
}

// TestInitFileReplacesUsersObjects: CREATE OR REPLACE of a user's
// function, procedure, aggregate, trigger or rule replaced it in place,
// exit 0 (fix28h 3), where OR REPLACE VIEW was refused in words that
// said "drop". Each is refused before any statement runs, in one line
// naming it, the file's line and --force-drop ("to replace it anyway");
// the user's object is as it was; with --force-drop the file runs and
// init says first what it replaces. A file replacing init's own runs.
func TestInitFileReplacesUsersObjects(t *testing.T) {
	dir := t.TempDir()
	const user = `CREATE TABLE ut (id int); INSERT INTO ut VALUES (1);
CREATE FUNCTION uf(x int) RETURNS int LANGUAGE sql AS 'SELECT 1';
CREATE PROCEDURE up() LANGUAGE sql AS 'SELECT 1';
CREATE AGGREGATE usum(int) (SFUNC = int4pl, STYPE = int);
CREATE FUNCTION tf() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NEW; END';
CREATE TRIGGER utt BEFORE INSERT ON ut FOR EACH ROW EXECUTE FUNCTION tf();
CREATE RULE ur AS ON DELETE TO ut DO INSTEAD NOTHING;
CREATE VIEW uv AS SELECT 1 AS x`
	// kept reads the user's objects as they were made: 8 when all are.
	const kept = `SELECT (SELECT count(*) FROM ut) + (SELECT uf(0)) + (SELECT count(*) FROM uv WHERE x = 1)
		+ (SELECT count(*) FROM pg_proc WHERE proname = 'up' AND prosrc = 'SELECT 1')
		+ (SELECT count(*) FROM pg_aggregate WHERE aggfnoid = 'usum(int)'::regprocedure AND aggtransfn = 'int4pl'::regproc)
		+ (SELECT count(*) FROM pg_trigger WHERE tgname = 'utt' AND tgtype & 2 = 2)
		+ (SELECT count(*) FROM pg_rewrite r WHERE rulename = 'ur' AND is_instead)
		+ (SELECT count(*) FROM pg_proc WHERE proname = 'tf' AND prosrc LIKE '%RETURN NEW%')`
	const tail = ", and the one there carries no mark of stampede's init: it is yours; no statement of the file ran): init sql leaves it alone; to replace it anyway, add --force-drop"
	const onTable = ", and its table carries no mark of stampede's init: it is yours; no statement of the file ran): init sql leaves it alone; to replace it anyway, add --force-drop"
	for _, c := range []struct{ name, file, refusal, forced string }{
		{"function", "CREATE TABLE a (id int);\nCREATE OR REPLACE FUNCTION uf(x int DEFAULT 3) RETURNS int LANGUAGE sql AS 'SELECT 2';\n",
			"function uf(int) in %w was not made by stampede (init.sql:2 replaces it" + tail, "--force-drop: init.sql:2 replaces function uf(int), which stampede did not make"},
		{"procedure", "CREATE TABLE a (id int);\nCREATE OR REPLACE PROCEDURE up() LANGUAGE sql AS 'SELECT 2';\n",
			"procedure up() in %w was not made by stampede (init.sql:2 replaces it" + tail, "--force-drop: init.sql:2 replaces procedure up(), which stampede did not make"},
		{"aggregate", "CREATE TABLE a (id int);\nCREATE OR REPLACE AGGREGATE usum(int) (SFUNC = int4mi, STYPE = int);\n",
			"aggregate usum(int) in %w was not made by stampede (init.sql:2 replaces it" + tail, "--force-drop: init.sql:2 replaces aggregate usum(int), which stampede did not make"},
		{"trigger", "CREATE TABLE a (id int);\nCREATE OR REPLACE TRIGGER utt AFTER INSERT ON ut FOR EACH ROW EXECUTE FUNCTION tf();\n",
			"trigger utt on ut in %w was not made by stampede (init.sql:2 replaces it" + onTable, "--force-drop: init.sql:2 replaces trigger utt on ut, which stampede did not make"},
		{"rule", "CREATE TABLE a (id int);\nCREATE OR REPLACE RULE ur AS ON DELETE TO ut DO ALSO NOTHING;\n",
			"rule ur on ut in %w was not made by stampede (init.sql:2 replaces it" + onTable, "--force-drop: init.sql:2 replaces rule ur on ut, which stampede did not make"},
		{"trigger's function", "CREATE TABLE a (id int);\nCREATE OR REPLACE FUNCTION tf() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NULL; END';\n",
			"function tf() in %w was not made by stampede (init.sql:2 replaces it" + tail, "--force-drop: init.sql:2 replaces function tf(), which stampede did not make"},
		{"view", "CREATE TABLE a (id int);\nCREATE OR REPLACE VIEW uv AS SELECT 2 AS x;\n",
			"view uv in %w was not made by stampede (init.sql:2 replaces it" + tail, "--force-drop: init.sql:2 replaces view uv, which stampede did not make, in place: nothing is dropped"},
	} {
		t.Run(c.name, func(t *testing.T) {
			name, u, conn := freshDB(t, "sql28h")
			p := testURL(t, u)
			exec1(t, conn, user)
			write(t, dir, "init.sql", c.file)
			want := strings.Replace(c.refusal, "%w", `database "`+name+`" on `+p.host+":"+p.port, 1)
			refusedExactly(t, stampede(t, dir, "init", "sql", "--init-file", "init.sql", u), want)
			if n := count(t, conn, kept); n != 8 {
				t.Fatalf("a refused init left %d of the user's 8 objects and rows as they were", n)
			}
			if n := count(t, conn, "SELECT count(*) FROM pg_class WHERE relname = 'a'"); n != 0 {
				t.Fatal("a refused init ran the file's first statement")
			}
			r := stampede(t, dir, "init", "sql", "--force-drop", "--init-file", "init.sql", u)
			if r.code != 0 || !strings.Contains(r.stdout+r.stderr, c.forced+"\n") {
				t.Fatalf("--force-drop: exit %d, want 0 and %q:\n%s%s", r.code, c.forced, r.stdout, r.stderr)
			}
			if n := count(t, conn, "SELECT count(*) FROM pg_class WHERE relname = 'a'"); n != 1 {
				t.Fatal("--force-drop: the file did not run")
			}
		})
	}
	t.Run("init's own", func(t *testing.T) {
		_, u, conn := freshDB(t, "sql28h")
		write(t, dir, "own.sql", `CREATE TABLE IF NOT EXISTS t (id int);
CREATE OR REPLACE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1';
CREATE OR REPLACE FUNCTION tf() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NEW; END';
CREATE OR REPLACE TRIGGER tt BEFORE INSERT ON t FOR EACH ROW EXECUTE FUNCTION tf();
CREATE OR REPLACE RULE tr AS ON DELETE TO t DO INSTEAD NOTHING;
`)
		for i := 1; i <= 2; i++ {
			if r := stampede(t, dir, "init", "sql", "--init-file", "own.sql", u); r.code != 0 {
				t.Fatalf("init %d: exit %d: %s", i, r.code, r.stderr)
			}
		}
		if n := count(t, conn, "SELECT f()"); n != 1 {
			t.Errorf("init's own function returns %d, want 1", n)
		}
	})
}

// TestInitFileAltersUsersTable: an init file's ALTER TABLE that loses
// data or constraints of a user's table (DROP COLUMN, a column's new
// TYPE, DROP CONSTRAINT, DROP NOT NULL, DETACH PARTITION, NO INHERIT,
// DISABLE TRIGGER) ran, exit 0 (fix28h 1). Each is refused before any
// statement runs, in one line naming the file's line, the table, the
// action and --force-drop; every column, constraint and row stays; with
// --force-drop the file runs and init says first what it changes. An
// ALTER TABLE that adds to a user's table, or any of init's own, runs.
func TestInitFileAltersUsersTable(t *testing.T) {
	dir := t.TempDir()
	const user = `CREATE TABLE ut (id int PRIMARY KEY, x text NOT NULL CHECK (x <> ''), n int);
INSERT INTO ut VALUES (1, 'mine', 7);
CREATE TABLE up (id int) PARTITION BY RANGE (id); CREATE TABLE up1 PARTITION OF up FOR VALUES FROM (0) TO (10); INSERT INTO up VALUES (1);
CREATE TABLE uparent (id int); CREATE TABLE uchild () INHERITS (uparent); INSERT INTO uchild VALUES (1);
CREATE FUNCTION tf() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NEW; END';
CREATE TRIGGER utt BEFORE INSERT ON ut FOR EACH ROW EXECUTE FUNCTION tf()`
	// kept counts the user's rows, columns and constraints as made: 8.
	const kept = `SELECT (SELECT count(*) FROM ut WHERE x = 'mine' AND n::text = '7')
		+ (SELECT count(*) FROM pg_attribute WHERE attrelid = 'ut'::regclass AND attname = 'n' AND atttypid = 'int'::regtype)
		+ (SELECT count(*) FROM pg_constraint WHERE conrelid = 'ut'::regclass AND conname = 'ut_x_check')
		+ (SELECT count(*) FROM pg_attribute WHERE attrelid = 'ut'::regclass AND attname = 'x' AND attnotnull AND atttypid = 'text'::regtype)
		+ (SELECT count(*) FROM up) + (SELECT count(*) FROM uparent)
		+ (SELECT count(*) FROM pg_trigger WHERE tgname = 'utt' AND tgenabled = 'O')
		+ (SELECT count(*) FROM pg_inherits WHERE inhrelid = 'uchild'::regclass)`
	const why = ", which loses its data or constraints (not made by stampede: no mark of stampede's init on it, so it is yours): no statement of the file ran; to run the file anyway, add --force-drop"
	for _, c := range []struct{ name, stmt, table, action string }{
		{"DROP COLUMN", "ALTER TABLE ut DROP COLUMN n", "ut", "DROP COLUMN n"},
		{"DROP without COLUMN", "ALTER TABLE IF EXISTS ut ADD COLUMN y int, DROP n CASCADE", "ut", "DROP n CASCADE"},
		{"TYPE", "ALTER TABLE ut ALTER COLUMN n TYPE text", "ut", "ALTER COLUMN n TYPE text"},
		{"SET DATA TYPE", "ALTER TABLE ONLY ut ALTER n SET DATA TYPE bigint", "ut", "ALTER n SET DATA TYPE bigint"},
		{"DROP CONSTRAINT", "ALTER TABLE ut DROP CONSTRAINT ut_x_check", "ut", "DROP CONSTRAINT ut_x_check"},
		{"DROP NOT NULL", "ALTER TABLE ut ALTER COLUMN x DROP NOT NULL", "ut", "ALTER COLUMN x DROP NOT NULL"},
		{"DETACH PARTITION", "ALTER TABLE up DETACH PARTITION up1", "up", "DETACH PARTITION up1"},
		{"NO INHERIT", "ALTER TABLE uchild NO INHERIT uparent", "uchild", "NO INHERIT uparent"},
		{"DISABLE TRIGGER", "ALTER TABLE ut DISABLE TRIGGER utt", "ut", "DISABLE TRIGGER utt"},
	} {
		t.Run(c.name, func(t *testing.T) {
			name, u, conn := freshDB(t, "sql28h")
			p := testURL(t, u)
			exec1(t, conn, user)
			write(t, dir, "init.sql", "CREATE TABLE a (id int);\n"+c.stmt+";\n")
			kind := "table"
			if c.table == "up" {
				kind = "partitioned table"
			}
			refusedExactly(t, stampede(t, dir, "init", "sql", "--init-file", "init.sql", u),
				"init.sql:2 changes "+kind+" "+c.table+` in database "`+name+`" on `+p.host+":"+p.port+" with "+c.action+why)
			if n := count(t, conn, kept); n != 8 {
				t.Fatalf("a refused init left %d of the user's 8 rows, columns and constraints as they were", n)
			}
			if n := count(t, conn, "SELECT count(*) FROM pg_class WHERE relname = 'a'"); n != 0 {
				t.Fatal("a refused init ran the file's first statement")
			}
			r := stampede(t, dir, "init", "sql", "--force-drop", "--init-file", "init.sql", u)
			forced := "--force-drop: init.sql:2 changes " + kind + " " + c.table + ", which stampede did not make, with " + c.action + "\n"
			if r.code != 0 || !strings.Contains(r.stdout+r.stderr, forced) {
				t.Fatalf("--force-drop: exit %d, want 0 and %q:\n%s%s", r.code, forced, r.stdout, r.stderr)
			}
			if n := count(t, conn, "SELECT count(*) FROM pg_class WHERE relname = 'a'"); n != 1 {
				t.Error("--force-drop: the file did not run")
			}
		})
	}
	t.Run("adds, or init's own", func(t *testing.T) {
		_, u, conn := freshDB(t, "sql28h")
		exec1(t, conn, user)
		write(t, dir, "own.sql", `ALTER TABLE ut ADD COLUMN type int, ADD CONSTRAINT c CHECK (x <> 'drop');
CREATE TABLE t (id int, v text);
ALTER TABLE t DROP COLUMN v, ALTER COLUMN id TYPE bigint;
`)
		if r := stampede(t, dir, "init", "sql", "--init-file", "own.sql", u); r.code != 0 {
			t.Fatalf("init: exit %d: %s", r.code, r.stderr)
		}
		if n := count(t, conn, kept); n != 8 {
			t.Errorf("an init adding to the user's table left %d of its 8 rows, columns and constraints", n)
		}
	})
}

// TestInitFileDropsUsersOtherKinds: the reading of an init file's drops
// judged relations, schemas, types and routines alone, so DROP SCHEMA of
// a user's empty schema (its grants with it), DROP PUBLICATION,
// EXTENSION, TRIGGER, POLICY, RULE, STATISTICS or COLLATION of the
// user's ran, exit 0 (fix28h 2). Each is refused before any statement
// runs, in one line naming it, the file's line and --force-drop; a kind
// the reading cannot judge (an operator) is refused naming it; a role is
// refused whatever the flags; every object stays; with --force-drop the
// file runs and init says first what it drops.
func TestInitFileDropsUsersOtherKinds(t *testing.T) {
	dir := t.TempDir()
	const user = `CREATE SCHEMA app; GRANT USAGE ON SCHEMA app TO PUBLIC;
CREATE TABLE ut (id int, v int); INSERT INTO ut VALUES (1, 1);
CREATE PUBLICATION pb FOR TABLE ut; CREATE EXTENSION pg_trgm;
CREATE FUNCTION tf() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NEW; END';
CREATE TRIGGER utt BEFORE INSERT ON ut FOR EACH ROW EXECUTE FUNCTION tf();
CREATE POLICY upol ON ut USING (true); CREATE RULE ur AS ON DELETE TO ut DO INSTEAD NOTHING;
CREATE STATISTICS ust ON id, v FROM ut; CREATE COLLATION ucoll (provider = icu, locale = 'und')`
	const kept = `SELECT (SELECT count(*) FROM ut) + (SELECT count(*) FROM pg_namespace WHERE nspname = 'app' AND nspacl IS NOT NULL)
		+ (SELECT count(*) FROM pg_publication_tables WHERE pubname = 'pb') + (SELECT count(*) FROM pg_extension WHERE extname = 'pg_trgm')
		+ (SELECT count(*) FROM pg_trigger WHERE tgname = 'utt') + (SELECT count(*) FROM pg_policy WHERE polname = 'upol')
		+ (SELECT count(*) FROM pg_rewrite WHERE rulename = 'ur') + (SELECT count(*) FROM pg_statistic_ext WHERE stxname = 'ust')
		+ (SELECT count(*) FROM pg_collation WHERE collname = 'ucoll')`
	const yours = "carries no mark of stampede's init: it is yours"
	for _, c := range []struct{ name, stmt, refusal, forced string }{
		{"empty schema", "DROP SCHEMA app", "schema app in %w was not made by stampede (init.sql:2 drops it, and it " + yours + ", with its grants; no statement of the file ran): init sql leaves it alone; to drop it anyway, add --force-drop",
			"--force-drop: init.sql:2 drops schema app, which stampede did not make"},
		{"publication", "DROP PUBLICATION IF EXISTS pb", "publication pb in %w was not made by stampede (init.sql:2 drops it, and it " + yours + "; no statement of the file ran): init sql leaves it alone; to drop it anyway, add --force-drop",
			"--force-drop: init.sql:2 drops publication pb, which stampede did not make"},
		{"extension", "DROP EXTENSION pg_trgm", "extension pg_trgm in %w was not made by stampede (init.sql:2 drops it, and init sql marks no extension it makes, so one there before init is yours; no statement of the file ran): init sql leaves it alone; to drop it anyway, add --force-drop",
			"--force-drop: init.sql:2 drops extension pg_trgm, which stampede did not make"},
		{"trigger", "DROP TRIGGER utt ON ut", "trigger utt on ut in %w was not made by stampede (init.sql:2 drops it, and its table " + yours + "; no statement of the file ran): init sql leaves it alone; to drop it anyway, add --force-drop",
			"--force-drop: init.sql:2 drops trigger utt on ut, which stampede did not make"},
		{"policy", "DROP POLICY upol ON public.ut", "policy upol on public.ut in %w was not made by stampede (init.sql:2 drops it, and its table " + yours + "; no statement of the file ran): init sql leaves it alone; to drop it anyway, add --force-drop",
			"--force-drop: init.sql:2 drops policy upol on public.ut, which stampede did not make"},
		{"rule", "DROP RULE IF EXISTS ur ON ut", "rule ur on ut in %w was not made by stampede (init.sql:2 drops it, and its table " + yours + "; no statement of the file ran): init sql leaves it alone; to drop it anyway, add --force-drop",
			"--force-drop: init.sql:2 drops rule ur on ut, which stampede did not make"},
		{"statistics", "DROP STATISTICS ust", "statistics ust in %w was not made by stampede (init.sql:2 drops it, and it " + yours + "; no statement of the file ran): init sql leaves it alone; to drop it anyway, add --force-drop",
			"--force-drop: init.sql:2 drops statistics ust, which stampede did not make"},
		{"collation", "DROP COLLATION ucoll", "collation ucoll in %w was not made by stampede (init.sql:2 drops it, and init sql marks no collation it makes, so one there before init is yours; no statement of the file ran): init sql leaves it alone; to drop it anyway, add --force-drop",
			"--force-drop: init.sql:2 drops collation ucoll, which stampede did not make"},
		{"operator", "DROP OPERATOR IF EXISTS === (int, int)", "init.sql:2: DROP OPERATOR === (int, int) in an init file drops what init sql cannot judge (it cannot tell yours from the file's): no statement of the file ran; to run the file anyway, add --force-drop",
			"--force-drop: init.sql:2 runs DROP OPERATOR === (int, int), which init sql cannot judge"},
		{"role", "DROP ROLE IF EXISTS nobody28h", "init.sql:2: DROP ROLE in an init file drops what is the server's, not the file's: init sql runs no DROP of a role, user, group or tablespace; no statement of the file ran", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			name, u, conn := freshDB(t, "sql28h")
			p := testURL(t, u)
			exec1(t, conn, user)
			write(t, dir, "init.sql", "CREATE TABLE a (id int);\n"+c.stmt+";\n")
			want := strings.Replace(c.refusal, "%w", `database "`+name+`" on `+p.host+":"+p.port, 1)
			refusedExactly(t, stampede(t, dir, "init", "sql", "--init-file", "init.sql", u), want)
			if n := count(t, conn, kept); n != 9 {
				t.Fatalf("a refused init left %d of the user's 9 objects and rows", n)
			}
			if n := count(t, conn, "SELECT count(*) FROM pg_class WHERE relname = 'a'"); n != 0 {
				t.Fatal("a refused init ran the file's first statement")
			}
			r := stampede(t, dir, "init", "sql", "--force-drop", "--init-file", "init.sql", u)
			if c.forced == "" {
				refusedExactly(t, r, want)
				return
			}
			if r.code != 0 || !strings.Contains(r.stdout+r.stderr, c.forced+"\n") {
				t.Fatalf("--force-drop: exit %d, want 0 and %q:\n%s%s", r.code, c.forced, r.stdout, r.stderr)
			}
		})
	}
}
