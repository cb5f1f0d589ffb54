package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommentedTableStaysStampedes: stampede's mark lived only in the
// table's comment, so a user's `COMMENT ON TABLE t IS 'my notes'` on a
// table stampede made replaced it, and cleanup then refused stampede's own
// table as the user's (chk28b F2). The mark is kept on the table's row
// type too now, where a comment on the table leaves it: in every form
// that creates marked tables, init (or a run), COMMENT ON TABLE, cleanup
// drops the table at exit 0, and the user's comment is never overwritten
// meanwhile; the user's own tables of the same names (commented too) in
// another database are refused and keep every row, as before; and a copy
// (TEMPLATE) of the commented load is refused.
func TestCommentedTableStaysStampedes(t *testing.T) {
	testServer(t)
	res := t.TempDir()
	t.Setenv("STAMPEDE_RESULTS_DIR", res)
	dir := t.TempDir()
	initFile := filepath.Join(dir, "init.sql")
	if err := os.WriteFile(initFile, []byte(`CREATE TABLE a (id int PRIMARY KEY, n int);
CREATE INDEX a_idx ON a (n);
CREATE FUNCTION af() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NEW; END';
CREATE TRIGGER a_trg BEFORE INSERT ON a FOR EACH ROW EXECUTE FUNCTION af();
INSERT INTO a SELECT g, g FROM generate_series(1, 10) g;
`), 0o600); err != nil {
		t.Fatal(err)
	}
	sysbench := func(db, verb string) []string {
		return append(append([]string{"oltp_read_write"}, sysbenchConn(t, db)...), "--table-size=100", verb)
	}
	for _, c := range []struct {
		name string
		// load loads db; table is the table commented; cleanup the
		// command that drops the load; again, when set, a command that
		// must run over the commented load before cleanup.
		load, cleanup, again func(db string) []string
		table                string
		// user makes the user's table of the same name in a database.
		user string
		// copy: a copy of the commented load is refused.
		copy bool
	}{
		{name: "bank", table: "bank", copy: true,
			load: func(db string) []string { return []string{"init", "bank", "--rows", "50", dbURL(t, db)} },
			again: func(db string) []string {
				return []string{"run", "bank", "--duration", "1s", "--concurrency", "1", dbURL(t, db)}
			},
			cleanup: func(db string) []string { return []string{"cleanup", "bank", dbURL(t, db)} },
			user:    "CREATE TABLE bank (id bigint PRIMARY KEY, balance bigint, payload text)"},
		{name: "ycsb", table: "usertable",
			load:    func(db string) []string { return []string{"init", "ycsb", "-p", "recordcount=50", dbURL(t, db)} },
			cleanup: func(db string) []string { return []string{"cleanup", "ycsb", dbURL(t, db)} },
			user:    "CREATE TABLE usertable (ycsb_key text PRIMARY KEY, field0 text)"},
		{name: "tpcc hammerdb", table: "warehouse",
			load: func(db string) []string {
				return []string{"init", "tpcc", "--warehouses", "1", "--profile", "hammerdb", dbURL(t, db)}
			},
			cleanup: func(db string) []string { return []string{"cleanup", "tpcc", dbURL(t, db)} },
			user:    "CREATE TABLE warehouse (w_id int PRIMARY KEY, w_name text)"},
		{name: "sysbench form", table: "sbtest1",
			load:    func(db string) []string { return sysbench(db, "prepare") },
			cleanup: func(db string) []string { return sysbench(db, "cleanup") },
			user:    "CREATE TABLE sbtest1 (id int PRIMARY KEY, k int)"},
		{name: "pgbench form", table: "pgbench_branches", copy: true,
			load:    func(db string) []string { return []string{"pgbench", "-i", "-s", "1", dbURL(t, db)} },
			again:   func(db string) []string { return []string{"pgbench", "-i", "-s", "1", dbURL(t, db)} },
			cleanup: func(db string) []string { return []string{"cleanup", "pgbench", dbURL(t, db)} },
			user:    "CREATE TABLE pgbench_branches (bid int PRIMARY KEY, bbalance int, filler char(88), note text)"},
		{name: "init sql", table: "a",
			load:    func(db string) []string { return []string{"init", "sql", "--init-file", initFile, dbURL(t, db)} },
			cleanup: func(db string) []string { return []string{"cleanup", "sql", "--init-file", initFile, dbURL(t, db)} },
			user:    "CREATE TABLE a (id int PRIMARY KEY, n int)"},
		{name: "bulk_insert run", table: "sbtest1",
			load: func(db string) []string {
				return []string{"run", "bulk_insert", "--concurrency", "1", "--duration", "1s", "--results-dir", res, dbURL(t, db)}
			},
			cleanup: func(db string) []string { return []string{"cleanup", "bulk_insert", dbURL(t, db)} },
			user:    "CREATE TABLE sbtest1 (id int PRIMARY KEY, k int)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			db, users := freshDB(t, "fix28ae"), freshDB(t, "fix28ae_u")
			adminExec(t, "CREATE DATABASE "+db, "CREATE DATABASE "+users)
			mustRun(t, c.load(db)...)
			execIn(t, db, "COMMENT ON TABLE "+c.table+" IS 'my notes'",
				"DO $$ BEGIN IF to_regclass('stampede_load') IS NOT NULL THEN COMMENT ON TABLE stampede_load IS 'my notes'; END IF; END $$")
			execIn(t, users, c.user, "INSERT INTO "+c.table+" (SELECT * FROM (VALUES (1)) v) ON CONFLICT DO NOTHING", "COMMENT ON TABLE "+c.table+" IS 'my notes'")
			if c.copy {
				cp := freshDB(t, "fix28ae_c")
				adminExec(t, "CREATE DATABASE "+cp+" TEMPLATE "+db)
				rows := queryInt(t, cp, "SELECT count(*) FROM "+c.table)
				r := stampede(t, c.cleanup(cp)...)
				checkFinalError(t, r, 2, fmt.Sprintf("database %q looks like a copy of database %q", cp, db))
				if n := queryInt(t, cp, "SELECT count(*) FROM "+c.table); n != rows {
					t.Errorf("cleanup of the copy left %d rows of %s, want %d", n, c.table, rows)
				}
			}
			if c.again != nil {
				mustRun(t, c.again(db)...)
				if n := queryInt(t, db, "SELECT count(*) FROM pg_description WHERE description = 'my notes' AND objoid = '"+c.table+"'::regclass"); n != 1 && c.name != "pgbench form" {
					t.Errorf("%s overwrote the user's comment on %s", c.again(db)[0], c.table)
				}
				execIn(t, db, "COMMENT ON TABLE "+c.table+" IS 'my notes'") // pgbench -i made it anew
			}
			r := mustRun(t, c.cleanup(db)...)
			if strings.Contains(r.stdout+r.stderr, "--force-drop") {
				t.Errorf("cleanup took a table of stampede's for the user's:\n%s%s", r.stdout, r.stderr)
			}
			if n := queryInt(t, db, "SELECT count(*) FROM pg_class WHERE relname = '"+c.table+"'"); n != 0 {
				t.Errorf("cleanup left the commented %s", c.table)
			}
			r = stampede(t, c.cleanup(users)...)
			if r.code == 0 && !strings.Contains(r.stdout+r.stderr, "nothing") {
				t.Errorf("cleanup of the user's database: exit 0:\n%s%s", r.stdout, r.stderr)
			}
			if n := queryInt(t, users, "SELECT count(*) FROM "+c.table); n != 1 {
				t.Errorf("the user's %s holds %d rows after cleanup, want 1", c.table, n)
			}
		})
	}
}

// TestCommentedInitSQLPartsStayTheFiles: once the user commented a table
// of init sql's, --force-drop called the file's own trigger and index the
// user's (the mark that records them was gone with the comment); the row
// type's mark records them still: cleanup sql names none of them, and a
// user's index made since is still refused, by name.
func TestCommentedInitSQLPartsStayTheFiles(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	dir := t.TempDir()
	initFile := filepath.Join(dir, "init.sql")
	if err := os.WriteFile(initFile, []byte(`CREATE TABLE a (id int PRIMARY KEY, n int);
CREATE INDEX a_idx ON a (n);
CREATE FUNCTION af() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NEW; END';
CREATE TRIGGER a_trg BEFORE INSERT ON a FOR EACH ROW EXECUTE FUNCTION af();
`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, user, refused string
	}{
		{"the file's own parts", "", ""},
		{"a user's index", "CREATE INDEX u_idx ON a (n, id)", "index u_idx on table a"},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := freshDB(t, "fix28ae_s")
			adminExec(t, "CREATE DATABASE "+db)
			mustRun(t, "init", "sql", "--init-file", initFile, dbURL(t, db))
			execIn(t, db, "COMMENT ON TABLE a IS 'my notes'")
			if c.user != "" {
				execIn(t, db, c.user)
				r := stampede(t, "cleanup", "sql", "--init-file", initFile, dbURL(t, db))
				checkFinalError(t, r, 2, c.refused)
			}
			r := mustRun(t, "cleanup", "sql", "--force-drop", "--init-file", initFile, dbURL(t, db))
			for _, own := range []string{"a_trg", "a_idx"} {
				if strings.Contains(r.stdout+r.stderr, own) && strings.Contains(r.stdout+r.stderr, "not make") {
					t.Errorf("--force-drop calls the file's own %s the user's:\n%s%s", own, r.stdout, r.stderr)
				}
			}
			if n := queryInt(t, db, "SELECT count(*) FROM pg_class WHERE relname IN ('a', 'a_idx', 'u_idx')"); n != 0 {
				t.Errorf("cleanup sql --force-drop left %d of a, a_idx, u_idx", n)
			}
		})
	}
}

// TestCommentedUnfinishedLoadNamesItsFlags: the message about a load init
// began and never recorded names the interrupted init's data flags, read
// from the table's mark; with the comment replaced by the user's it
// named none ("reload with the interrupted init's data flags"), or took
// the table for the user's. The row type's mark names them still.
func TestCommentedUnfinishedLoadNamesItsFlags(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "fix28ae_unf")
	adminExec(t, "CREATE DATABASE "+db)
	mustRun(t, "init", "bank", "--rows", "77", dbURL(t, db))
	execIn(t, db, "DELETE FROM stampede_load", "COMMENT ON TABLE bank IS 'my notes'") // as a kill before the record leaves it
	r := stampede(t, "run", "bank", "--duration", "1s", dbURL(t, db))
	checkFinalError(t, r, 2, "reload it as the interrupted init had it, `stampede init bank --drop --rows 77 ")
}

// TestCommentedFleetTablesStayStampedes: a fleet's tenants' tables, and
// what fleet exec made in them, carry stampede's mark in their comment; a
// user's COMMENT ON TABLE on one made cleanup refuse the whole tenant as
// holding the user's table. The row type's mark keeps them stampede's: in
// database, schema and column modes, cleanup drops the commented fleet at
// exit 0.
func TestCommentedFleetTablesStayStampedes(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	for _, mode := range []string{"database", "schema", "column"} {
		t.Run(mode, func(t *testing.T) {
			db := freshDB(t, "fix28ae_fl")
			fleet := []string{"--tenants", "2", "--tenant-mode", mode, "--tenant-pattern", db + "_%d"}
			base, in, prefix := dbURL(t, db), db, db+"_1."
			switch mode {
			case "database":
				base, in, prefix = dbURL(t, ""), db+"_1", ""
				t.Cleanup(func() {
					adminExec(t, "DROP DATABASE IF EXISTS "+db+"_1 WITH (FORCE)", "DROP DATABASE IF EXISTS "+db+"_2 WITH (FORCE)")
				})
			case "column":
				prefix = ""
				adminExec(t, "CREATE DATABASE "+db)
			default:
				adminExec(t, "CREATE DATABASE "+db)
			}
			mustRun(t, append(append([]string{"init", "bank", "--rows", "20"}, fleet...), base)...)
			commented := []string{prefix + "bank"}
			if mode != "column" {
				mustRun(t, append(append([]string{"fleet", "exec", "--workload", "bank", "CREATE TABLE audit (x int)"}, fleet...), base)...)
				commented = append(commented, prefix+"audit")
			}
			for _, tb := range commented {
				execIn(t, in, "COMMENT ON TABLE "+tb+" IS 'my notes'")
			}
			r := mustRun(t, append(append([]string{"cleanup", "bank"}, fleet...), base)...)
			if strings.Contains(r.stdout+r.stderr, "--force-drop") {
				t.Errorf("cleanup took a commented table of the fleet's for the user's:\n%s%s", r.stdout, r.stderr)
			}
			switch mode {
			case "database":
				if n := queryInt(t, "postgres", "SELECT count(*) FROM pg_database WHERE datname LIKE '"+db+"\\_%'"); n != 0 {
					t.Errorf("cleanup left %d tenant databases", n)
				}
			case "schema":
				if n := queryInt(t, db, "SELECT count(*) FROM pg_namespace WHERE nspname LIKE '"+db+"\\_%'"); n != 0 {
					t.Errorf("cleanup left %d tenant schemas", n)
				}
			default:
				if n := queryInt(t, db, "SELECT count(*) FROM pg_class WHERE relname = 'bank'"); n != 0 {
					t.Errorf("cleanup left the commented shared table")
				}
			}
		})
	}
}

// TestCleanupOfNoDatabase: cleanup of a database that does not exist
// printed the server's raw error, SQLSTATE 3D000 and all (chk28b NIT).
// It says in one line that the database does not exist and nothing was
// dropped, and exits non-zero (the name may be a typo for the load's),
// in every cleanup form.
func TestCleanupOfNoDatabase(t *testing.T) {
	srv := testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	const db = "fix28ae_nosuch"
	host := strings.Split(strings.Split(srv, "@")[1], "/")[0]
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"cleanup", "bank", dbURL(t, db)}, "--db"},
		{[]string{"cleanup", "ycsb", dbURL(t, db)}, "--db"},
		{[]string{"cleanup", "sql", dbURL(t, db)}, "--db"},
		{[]string{"cleanup", "pgbench", dbURL(t, db)}, "--db"},
		{append(append([]string{"oltp_read_write"}, sysbenchConn(t, db)...), "cleanup"), "--pgsql-db"},
	} {
		t.Run(strings.Join(c.args[:2], " "), func(t *testing.T) {
			r := stampede(t, c.args...)
			want := fmt.Sprintf("database %q does not exist on %s, nothing was dropped: check the database's name, or name another database with %s", db, host, c.flag)
			checkFinalError(t, r, 1, want)
			if strings.Contains(r.stderr, "SQLSTATE") {
				t.Errorf("the server's raw error is printed: %s", r.stderr)
			}
		})
	}
}
