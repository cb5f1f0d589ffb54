package sqlscript_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestInitMarksOnlyItsOwn: init sql marks what its file's statements
// made (at the top level, in a DO block's subtransaction, inside the
// file's own BEGIN ... COMMIT with a SAVEPOINT), never a table another
// session creates while the file runs: that table keeps its comment, is
// named in one warning line, and cleanup sql keeps it with its row.
// Statements that refuse a transaction block (VACUUM) still run.
func TestInitMarksOnlyItsOwn(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		file string
		made []string // the objects init marks (table or type names)
	}{
		{"top level", "CREATE TABLE mine_a (x int);\nINSERT INTO mine_a VALUES (1);\nSELECT pg_sleep(2);\n", []string{"mine_a"}},
		{"subtransaction and own block", "DO $$ BEGIN CREATE TYPE mood AS ENUM ('a'); EXCEPTION WHEN duplicate_object THEN NULL; END $$;\n" +
			"BEGIN;\nCREATE TABLE inblock (x int);\nSAVEPOINT s;\nCREATE VIEW vv AS SELECT 1 AS x;\nRELEASE s;\nSELECT pg_sleep(2);\nCOMMIT;\nVACUUM inblock;\n",
			[]string{"inblock", "mood", "vv"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db, u, conn := freshDB(t, "sqltrack")
			exec1(t, conn, "CREATE TABLE mine (x int)")
			write(t, dir, "init.sql", c.file)
			done := make(chan result, 1)
			go func() { done <- stampede(t, dir, "init", "sql", "--init-file", "init.sql", u) }()
			// While the file sleeps, another session makes its own table.
			ctx := context.Background()
			deadline := time.Now().Add(time.Minute)
			for count(t, conn, "SELECT count(*) FROM pg_stat_activity WHERE datname = '"+db+"' AND query LIKE 'SELECT pg_sleep(2)%'") == 0 {
				if time.Now().After(deadline) {
					t.Fatal("init never reached its pg_sleep")
				}
				time.Sleep(20 * time.Millisecond)
			}
			for _, q := range []string{"CREATE TABLE concurrent_user (a int)", "INSERT INTO concurrent_user VALUES (99)", "COMMENT ON TABLE concurrent_user IS 'the app''s'"} {
				if _, err := conn.Exec(ctx, q); err != nil {
					t.Fatal(err)
				}
			}
			r := <-done
			want := "warning: table concurrent_user appeared while init ran but another session made it: not marked as stampede's, so cleanup keeps it, and refuses to drop a table of init's it is on (drop it first, or add --force-drop)"
			if r.code != 0 || !slices.Contains(strings.Split(r.stderr, "\n"), want) {
				t.Fatalf("init: exit %d, stderr %q; want exit 0 and the line %q", r.code, r.stderr, want)
			}
			var marked []string
			rows, err := conn.Query(ctx, `SELECT relname FROM pg_class WHERE relnamespace = 'public'::regnamespace AND obj_description(oid, 'pg_class') LIKE 'made by stampede init of sql%'
				UNION ALL SELECT typname FROM pg_type WHERE typnamespace = 'public'::regnamespace AND obj_description(oid, 'pg_type') LIKE 'made by stampede init of sql%'
				AND (typrelid = 0 OR (SELECT relkind FROM pg_class WHERE oid = typrelid) = 'c') ORDER BY 1`)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var n string
				if err := rows.Scan(&n); err != nil {
					t.Fatal(err)
				}
				marked = append(marked, n)
			}
			if !slices.Equal(marked, c.made) {
				t.Errorf("marked %v, want %v", marked, c.made)
			}
			r = stampede(t, dir, "cleanup", "sql", u)
			if r.code != 0 {
				t.Fatalf("cleanup: exit %d: %s", r.code, r.stderr)
			}
			var comment string
			if err := conn.QueryRow(ctx, "SELECT obj_description('concurrent_user'::regclass, 'pg_class')").Scan(&comment); err != nil {
				t.Fatal(err)
			}
			if n := count(t, conn, "SELECT count(*) FROM concurrent_user WHERE a = 99"); n != 1 || comment != "the app's" {
				t.Errorf("after cleanup, concurrent_user holds %d of its row and comment %q; want 1 and %q", n, comment, "the app's")
			}
			if n := count(t, conn, "SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relname IN ('mine_a', 'inblock', 'vv')"); n != 0 {
				t.Errorf("cleanup left %d of init's objects", n)
			}
			if n := count(t, conn, "SELECT count(*) FROM pg_class WHERE relname = 'mine'"); n != 1 {
				t.Error("cleanup dropped the user's table mine")
			}
		})
	}
}

// TestCompoundTransactionRefused: a BEGIN, COMMIT or ROLLBACK joined to
// other statements by \; is refused before anything runs (init could not
// follow its transactions); a semicolon inside quotes, a dollar quote or
// a comment is not a join.
func TestCompoundTransactionRefused(t *testing.T) {
	dir := t.TempDir()
	_, u, conn := freshDB(t, "sqlcomp")
	cases := []struct {
		name, file, want string
	}{
		{"begin joined", "CREATE TABLE a (x int);\nBEGIN \\; CREATE TABLE b (x int) \\; COMMIT;\n",
			`init.sql:2: BEGIN joined to other statements by \; in one: init sql follows the transactions of the file's statements`},
		{"commit joined", "BEGIN;\nCREATE TABLE b (x int) \\; COMMIT;\n",
			`init.sql:2: COMMIT joined to other statements by \; in one`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			write(t, dir, "init.sql", c.file)
			oneLine(t, stampede(t, dir, "init", "sql", "--init-file", "init.sql", u), c.want)
			if n := count(t, conn, "SELECT count(*) FROM pg_class WHERE relname IN ('a', 'b')"); n != 0 {
				t.Errorf("%d tables created by a refused file", n)
			}
		})
	}
	// Not joins: semicolons and END inside a DO block's dollar quote, a
	// string and comments.
	write(t, dir, "init.sql", "DO $$ BEGIN CREATE TABLE d (x text); END $$;\nINSERT INTO d VALUES ('a; commit; begin') /* ; END */ \\; INSERT INTO d VALUES (E'\\'; end');\n")
	if r := stampede(t, dir, "init", "sql", "--init-file", "init.sql", u); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if n := count(t, conn, "SELECT count(*) FROM d"); n != 2 {
		t.Errorf("d holds %d rows, want 2", n)
	}
}
