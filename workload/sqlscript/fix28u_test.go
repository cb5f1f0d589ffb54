package sqlscript_test

import (
	"context"
	"strings"
	"testing"
)

// TestInitFileReplacesUsersViewInPlace: with --force-drop, an init
// file's CREATE OR REPLACE VIEW of a user's view dropped the view with
// CASCADE and ran the file again, taking the user's views over it
// without a word (fix28u 1). It now replaces the view in place, as the
// statement does, and drops nothing: the user's view over it stays and
// reads the new one. Without --force-drop it is refused naming the
// file's line. A CREATE TABLE of a user's table under --force-drop still
// drops it (the statement cannot replace it), and says first each
// object that goes with it.
func TestInitFileReplacesUsersViewInPlace(t *testing.T) {
	dir := t.TempDir()
	name, u, conn := freshDB(t, "sql28u")
	p := testURL(t, u)
	exec1(t, conn, `CREATE VIEW uv AS SELECT 1 AS x; CREATE VIEW uv2 AS SELECT x FROM uv;
CREATE TABLE tt (id int); CREATE VIEW tv AS SELECT id FROM tt`)
	write(t, dir, "view.sql", "CREATE TABLE a (id int);\nCREATE OR REPLACE VIEW uv AS SELECT 2 AS x;\n")
	refusedExactly(t, stampede(t, dir, "init", "sql", "--init-file", "view.sql", u),
		`view uv in database "`+name+`" on `+p.host+":"+p.port+` was not made by stampede (view.sql:2 replaces it, and the one there carries no mark of stampede's init: it is yours; no statement of the file ran): init sql leaves it alone; to replace it anyway, add --force-drop`)
	if n := count(t, conn, "SELECT x FROM uv2"); n != 1 {
		t.Fatalf("after the refusal the user's view over uv reads %d, want 1", n)
	}
	r := stampede(t, dir, "init", "sql", "--force-drop", "--init-file", "view.sql", u)
	const forced = "--force-drop: view.sql:2 replaces view uv, which stampede did not make, in place: nothing is dropped\n"
	if r.code != 0 || !strings.Contains(r.stdout+r.stderr, forced) || strings.Contains(r.stdout+r.stderr, "dropping") {
		t.Fatalf("--force-drop: exit %d, want 0, %q and no drop:\n%s%s", r.code, forced, r.stdout, r.stderr)
	}
	if n := count(t, conn, "SELECT x FROM uv2"); n != 2 {
		t.Errorf("after --force-drop the user's view over uv reads %d, want the new view's 2", n)
	}
	if n := count(t, conn, "SELECT count(*) FROM pg_class WHERE relname = 'uv2' AND relkind = 'v'"); n != 1 {
		t.Error("--force-drop dropped the user's view over uv")
	}

	write(t, dir, "table.sql", "CREATE TABLE tt (id int, v text);\n")
	r = stampede(t, dir, "init", "sql", "--force-drop", "--init-file", "table.sql", u)
	const dropped = "--force-drop: dropping table tt, which stampede did not make, and with it view public.tv, which depends on it (CASCADE), and running table.sql again\n"
	if r.code != 0 || !strings.Contains(r.stdout+r.stderr, dropped) {
		t.Fatalf("--force-drop over the user's table: exit %d, want 0 and %q:\n%s%s", r.code, dropped, r.stdout, r.stderr)
	}
	if n := count(t, conn, "SELECT count(*) FROM pg_attribute WHERE attrelid = 'tt'::regclass AND attname = 'v'"); n != 1 {
		t.Error("--force-drop: the file's table tt was not made")
	}
}

// TestInitFileChangesOwnersAndNames: an init file's ALTER ... OWNER TO
// of a user's table, view, materialized view, sequence, function,
// aggregate, schema, type, domain, publication or of the database, its
// REASSIGN OWNED, and ALTER TABLE's (or VIEW's) RENAME COLUMN and RENAME
// CONSTRAINT of a user's relation ran, exit 0 (fix28u 2). Each is
// refused before any statement runs, in one line naming the file's
// line, the object, where it is and --force-drop; every owner and name
// stays; with --force-drop the file runs and init says first what it
// changes. The same statements on what the file made run.
func TestInitFileChangesOwnersAndNames(t *testing.T) {
	dir := t.TempDir()
	const user = `CREATE TABLE ut (id int, n int, CONSTRAINT c1 CHECK (n > 0)); INSERT INTO ut VALUES (1, 7);
CREATE VIEW uv AS SELECT 1 AS x; CREATE MATERIALIZED VIEW mv AS SELECT 1 AS x; CREATE SEQUENCE us;
CREATE FUNCTION uf() RETURNS int LANGUAGE sql AS 'SELECT 1'; CREATE AGGREGATE usum(int) (SFUNC = int4pl, STYPE = int);
CREATE SCHEMA app; CREATE TYPE ue AS ENUM ('a'); CREATE DOMAIN ud AS int; CREATE PUBLICATION pb`
	// kept counts the user's owners, names and rows as made: 15.
	const kept = `WITH me AS (SELECT oid FROM pg_roles WHERE rolname = current_user)
	SELECT (SELECT count(*) FROM pg_class WHERE relname IN ('ut', 'uv', 'mv', 'us') AND relowner = (SELECT oid FROM me))
		+ (SELECT count(*) FROM pg_attribute WHERE attrelid = 'ut'::regclass AND attname = 'n')
		+ (SELECT count(*) FROM pg_attribute WHERE attrelid = 'uv'::regclass AND attname = 'x')
		+ (SELECT count(*) FROM pg_constraint WHERE conname = 'c1')
		+ (SELECT count(*) FROM pg_proc WHERE proname IN ('uf', 'usum') AND proowner = (SELECT oid FROM me))
		+ (SELECT count(*) FROM pg_namespace WHERE nspname = 'app' AND nspowner = (SELECT oid FROM me))
		+ (SELECT count(*) FROM pg_type WHERE typname IN ('ue', 'ud') AND typowner = (SELECT oid FROM me))
		+ (SELECT count(*) FROM pg_database WHERE datname = current_database() AND datdba = (SELECT oid FROM me))
		+ (SELECT count(*) FROM pg_publication WHERE pubname = 'pb' AND pubowner = (SELECT oid FROM me))
		+ (SELECT count(*) FROM ut WHERE id = 1)`
	const (
		yours   = "not made by stampede: no mark of stampede's init on it, so it is yours"
		owner   = "gives it to another owner, who may then alter, drop and grant it"
		renames = "renames what your queries and code name"
		anyway  = "): no statement of the file ran; to run the file anyway, add --force-drop"
		inDB    = ` in database "%n" on %h`
		toOwner = " with OWNER TO pg_monitor, which " + owner + " ("
	)
	for _, c := range []struct{ name, stmt, refusal, forced string }{
		{"table owner", "ALTER TABLE ut OWNER TO pg_monitor", "init.sql:2 changes table ut" + inDB + toOwner + yours + anyway,
			"--force-drop: init.sql:2 changes table ut, which stampede did not make, with OWNER TO pg_monitor"},
		{"rename column", "ALTER TABLE ut RENAME COLUMN n TO m", "init.sql:2 changes table ut" + inDB + " with RENAME COLUMN n TO m, which " + renames + " (" + yours + anyway,
			"--force-drop: init.sql:2 changes table ut, which stampede did not make, with RENAME COLUMN n TO m"},
		{"rename without COLUMN", "ALTER TABLE IF EXISTS ut RENAME n TO m", "init.sql:2 changes table ut" + inDB + " with RENAME n TO m, which " + renames + " (" + yours + anyway,
			"--force-drop: init.sql:2 changes table ut, which stampede did not make, with RENAME n TO m"},
		{"rename constraint", "ALTER TABLE ut RENAME CONSTRAINT c1 TO c2", "init.sql:2 changes table ut" + inDB + " with RENAME CONSTRAINT c1 TO c2, which " + renames + " (" + yours + anyway,
			"--force-drop: init.sql:2 changes table ut, which stampede did not make, with RENAME CONSTRAINT c1 TO c2"},
		{"view's column", "ALTER VIEW uv RENAME COLUMN x TO y", "init.sql:2 changes view uv" + inDB + " with RENAME COLUMN x TO y, which " + renames + " (" + yours + anyway,
			"--force-drop: init.sql:2 changes view uv, which stampede did not make, with RENAME COLUMN x TO y"},
		{"view owner", "ALTER VIEW uv OWNER TO pg_monitor", "init.sql:2 changes view uv" + inDB + toOwner + yours + anyway,
			"--force-drop: init.sql:2 changes view uv, which stampede did not make, with OWNER TO pg_monitor"},
		{"materialized view owner", "ALTER MATERIALIZED VIEW mv OWNER TO pg_monitor", "init.sql:2 changes materialized view mv" + inDB + toOwner + yours + anyway,
			"--force-drop: init.sql:2 changes materialized view mv, which stampede did not make, with OWNER TO pg_monitor"},
		{"sequence owner", "ALTER SEQUENCE us OWNER TO pg_monitor", "init.sql:2 changes sequence us" + inDB + toOwner + yours + anyway,
			"--force-drop: init.sql:2 changes sequence us, which stampede did not make, with OWNER TO pg_monitor"},
		{"function owner", "ALTER FUNCTION uf() OWNER TO pg_monitor", "init.sql:2 changes function uf()" + inDB + toOwner + yours + anyway,
			"--force-drop: init.sql:2 gives function uf(), which stampede did not make, to pg_monitor"},
		{"aggregate owner", "ALTER AGGREGATE usum(int) OWNER TO pg_monitor", "init.sql:2 changes aggregate usum(int)" + inDB + toOwner + yours + anyway,
			"--force-drop: init.sql:2 gives aggregate usum(int), which stampede did not make, to pg_monitor"},
		{"schema owner", "ALTER SCHEMA app OWNER TO pg_monitor", "init.sql:2 changes schema app" + inDB + toOwner + yours + anyway,
			"--force-drop: init.sql:2 gives schema app, which stampede did not make, to pg_monitor"},
		{"type owner", "ALTER TYPE ue OWNER TO pg_monitor", "init.sql:2 changes type ue" + inDB + toOwner + yours + anyway,
			"--force-drop: init.sql:2 gives type ue, which stampede did not make, to pg_monitor"},
		{"domain owner", "ALTER DOMAIN ud OWNER TO pg_monitor", "init.sql:2 changes domain ud" + inDB + toOwner + yours + anyway,
			"--force-drop: init.sql:2 gives domain ud, which stampede did not make, to pg_monitor"},
		{"publication owner", "ALTER PUBLICATION pb OWNER TO pg_monitor", "init.sql:2 changes publication pb" + inDB + toOwner + "it carries no mark of stampede's init: it is yours" + anyway,
			"--force-drop: init.sql:2 gives publication pb, which stampede did not make, to pg_monitor"},
		{"database owner", "ALTER DATABASE %n OWNER TO pg_monitor", `init.sql:2 changes database "%n" on %h` + toOwner + "stampede did not create it: it is yours" + anyway,
			`--force-drop: init.sql:2 gives database "%n", which stampede did not make, to pg_monitor`},
		{"reassign owned", "REASSIGN OWNED BY %r TO current_user", `init.sql:2: REASSIGN OWNED in an init file gives away what is not the file's (every object of a role, in database "%n" on %h): no statement of the file ran; to run the file anyway, add --force-drop`,
			"--force-drop: init.sql:2 runs REASSIGN OWNED, which init sql cannot judge"},
	} {
		t.Run(c.name, func(t *testing.T) {
			name, u, conn := freshDB(t, "sql28u")
			p := testURL(t, u)
			exec1(t, conn, user)
			role := name + "_role" // owns nothing: REASSIGN OWNED BY it runs
			exec1(t, conn, "CREATE ROLE "+role)
			t.Cleanup(func() { _, _ = conn.Exec(context.Background(), "DROP ROLE IF EXISTS "+role) })
			fill := strings.NewReplacer("%n", name, "%h", p.host+":"+p.port, "%r", role)
			write(t, dir, "init.sql", "CREATE TABLE a (id int);\n"+fill.Replace(c.stmt)+";\n")
			refusedExactly(t, stampede(t, dir, "init", "sql", "--init-file", "init.sql", u), fill.Replace(c.refusal))
			if n := count(t, conn, kept); n != 15 {
				t.Fatalf("a refused init left %d of the user's 15 owners, names and rows as they were", n)
			}
			if n := count(t, conn, "SELECT count(*) FROM pg_class WHERE relname = 'a'"); n != 0 {
				t.Fatal("a refused init ran the file's first statement")
			}
			r := stampede(t, dir, "init", "sql", "--force-drop", "--init-file", "init.sql", u)
			forced := fill.Replace(c.forced) + "\n"
			if r.code != 0 || !strings.Contains(r.stdout+r.stderr, forced) {
				t.Fatalf("--force-drop: exit %d, want 0 and %q:\n%s%s", r.code, forced, r.stdout, r.stderr)
			}
			if n := count(t, conn, kept); n >= 15 && !strings.HasPrefix(c.stmt, "REASSIGN") {
				t.Errorf("--force-drop: the file's statement changed nothing (%d of 15 as they were)", n)
			}
		})
	}
	t.Run("init's own", func(t *testing.T) {
		_, u, conn := freshDB(t, "sql28u")
		exec1(t, conn, user)
		write(t, dir, "own.sql", `CREATE TABLE t (id int, n int, CONSTRAINT k CHECK (n > 0));
ALTER TABLE t OWNER TO pg_monitor;
ALTER TABLE t RENAME COLUMN n TO m;
ALTER TABLE t RENAME CONSTRAINT k TO k2;
CREATE SCHEMA s; ALTER SCHEMA s OWNER TO pg_monitor;
CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1'; ALTER FUNCTION f() OWNER TO pg_monitor;
`)
		for i := 1; i <= 2; i++ {
			args := []string{"init", "sql", "--init-file", "own.sql", u}
			if i == 2 {
				args = append(args[:2], append([]string{"--drop"}, args[2:]...)...)
			}
			if r := stampede(t, dir, args...); r.code != 0 {
				t.Fatalf("init %d: exit %d: %s", i, r.code, r.stderr)
			}
		}
		if n := count(t, conn, kept); n != 15 {
			t.Errorf("init of its own objects left %d of the user's 15 owners, names and rows", n)
		}
		if n := count(t, conn, "SELECT count(*) FROM pg_class WHERE relname = 't' AND relowner = 'pg_monitor'::regrole"); n != 1 {
			t.Error("the file's own table was not given to pg_monitor")
		}
	})
}
