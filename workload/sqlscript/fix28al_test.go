package sqlscript_test

import (
	"strings"
	"testing"
)

// TestCleanupNamesEveryProblem (issue 28 item 1, checker's F3-F5 on
// fix28al's base): cleanup sql and init sql --drop name every problem of
// the drop in one refusal, and --force-drop names everything that goes.
//   - F3: a user's view on stampede_load hid every other problem (the
//     user's index on init's table, a view and a materialized view on
//     it), and a FOR ALL TABLES publication hid a policy and statistics
//     object on init's table: the refusal named only the first.
//   - F4: the file's own FOR ALL TABLES publication (stampede's) was
//     refused forever as a user's object depending on stampede_load, and
//     --force-drop said it kept it, then dropped it.
//   - F5a: a user's publication FOR TABLES IN SCHEMA of init's schema
//     lost it without a word (exit 0).
//   - F5b: a user's table added to init's publication lost its
//     membership without a word (exit 0).
//   - A renamed publication of init's was named twice, once as a part
//     that would go with its table.
//
// Each case counts the user's rows and objects before and after: a
// refusal keeps all of them and everything init made; --force-drop keeps
// the user's rows. On the old code each case fails.
func TestCleanupNamesEveryProblem(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.sql", "CREATE TABLE a (id int PRIMARY KEY, v text);\nINSERT INTO a VALUES (1, 'x');\n")
	write(t, dir, "pall.sql", "CREATE TABLE a (id int PRIMARY KEY);\nCREATE PUBLICATION pall FOR ALL TABLES;\n")
	write(t, dir, "s2.sql", "CREATE SCHEMA s2;\nCREATE TABLE s2.t (id int);\nINSERT INTO s2.t VALUES (1);\n")
	write(t, dir, "p.sql", "CREATE TABLE a (id int PRIMARY KEY);\nCREATE PUBLICATION p FOR TABLE a;\n")
	const initMade = `SELECT (SELECT count(*) FROM pg_class WHERE obj_description(oid, 'pg_class') LIKE 'made by stampede init of sql%')
		+ (SELECT count(*) FROM pg_namespace WHERE obj_description(oid, 'pg_namespace') LIKE 'made by stampede init of sql%')
		+ (SELECT count(*) FROM pg_publication WHERE obj_description(oid, 'pg_publication') LIKE 'made by stampede init of sql%')`
	for _, c := range []struct {
		name, file, user string
		// users counts the user's rows and objects; kept is its value
		// after --force-drop (before, and after a refusal, it is the
		// count right after user ran).
		users string
		kept  int64
		// named are in the one refusal line (none: no refusal), and in
		// the lines of --force-drop; once are named once in the refusal.
		named, forced, once []string
	}{
		{name: "F3 views", file: "a.sql",
			user: `CREATE TABLE mine (id int); INSERT INTO mine VALUES (1), (2);
				CREATE INDEX uidx ON a (v); CREATE VIEW uview AS SELECT * FROM a;
				CREATE MATERIALIZED VIEW umv AS SELECT * FROM uview; CREATE VIEW lview AS SELECT * FROM stampede_load`,
			users: `SELECT (SELECT count(*) FROM mine) + (SELECT count(*) FROM pg_class WHERE relname IN ('uidx', 'uview', 'umv', 'lview'))`, kept: 2,
			named:  []string{"view public.lview", "index uidx on table a", "view uview depends on table a", "materialized view umv depends on view uview"},
			forced: []string{"view public.lview", "index uidx on table a", "view public.uview", "materialized view public.umv"}},
		{name: "F3 publication", file: "a.sql",
			user: `CREATE TABLE mine (id int); INSERT INTO mine VALUES (1), (2);
				CREATE POLICY upol ON a USING (true); CREATE STATISTICS ustat ON id, v FROM a; CREATE PUBLICATION allpub FOR ALL TABLES`,
			users: `SELECT (SELECT count(*) FROM mine) + (SELECT count(*) FROM pg_policy WHERE polname = 'upol')
				+ (SELECT count(*) FROM pg_statistic_ext WHERE stxname = 'ustat') + (SELECT count(*) FROM pg_publication WHERE pubname = 'allpub')`, kept: 3,
			named:  []string{"publication allpub (FOR ALL TABLES)", "policy upol on table a", "statistics object public.ustat on table a"},
			forced: []string{"publication allpub (FOR ALL TABLES)", "policy upol on table a", "statistics object public.ustat on table a"},
			once:   []string{"allpub"}},
		{name: "F4 the file's own publication", file: "pall.sql",
			user:  `CREATE TABLE mine (id int); INSERT INTO mine VALUES (1), (2)`,
			users: `SELECT count(*) FROM mine`, kept: 2},
		{name: "F5a publication of init's schema", file: "s2.sql",
			user: `CREATE TABLE mine (id int); INSERT INTO mine VALUES (1), (2); CREATE PUBLICATION sp FOR TABLES IN SCHEMA s2`,
			users: `SELECT (SELECT count(*) FROM mine) + (SELECT count(*) FROM pg_publication WHERE pubname = 'sp')
				+ (SELECT count(*) FROM pg_publication_namespace pn JOIN pg_publication p ON p.oid = pn.pnpubid WHERE p.pubname = 'sp')`, kept: 3,
			named:  []string{"publication sp (FOR TABLES IN SCHEMA s2)"},
			forced: []string{"kept, not dropped: publication sp (FOR TABLES IN SCHEMA s2)"}},
		{name: "F5b a user's table in init's publication", file: "p.sql",
			user: `CREATE TABLE users_t (id int PRIMARY KEY); INSERT INTO users_t VALUES (1), (2); ALTER PUBLICATION p ADD TABLE users_t`,
			users: `SELECT (SELECT count(*) FROM users_t)
				+ (SELECT count(*) FROM pg_publication_tables WHERE pubname = 'p' AND tablename = 'users_t')`, kept: 2,
			named:  []string{"publication p's membership of table users_t"},
			forced: []string{"publication p's membership of table users_t"}},
		{name: "renamed publication", file: "p.sql",
			user:  `CREATE TABLE mine (id int); INSERT INTO mine VALUES (1), (2); ALTER PUBLICATION p RENAME TO keep_p`,
			users: `SELECT (SELECT count(*) FROM mine) + (SELECT count(*) FROM pg_publication WHERE pubname = 'keep_p')`, kept: 2,
			named:  []string{"publication keep_p (made as p)"},
			forced: []string{"publication keep_p (made as p)"},
			once:   []string{"keep_p"}},
	} {
		for _, form := range [][]string{{"cleanup", "sql"}, {"init", "sql", "--drop", "--init-file", c.file}} {
			t.Run(c.name+"/"+form[0], func(t *testing.T) {
				_, u, conn := freshDB(t, "sql28al")
				if r := stampede(t, dir, "init", "sql", "--init-file", c.file, u); r.code != 0 {
					t.Fatalf("init: exit %d: %s", r.code, r.stderr)
				}
				exec1(t, conn, c.user)
				users, made := count(t, conn, c.users), count(t, conn, initMade)
				r := stampede(t, dir, append(form, u)...)
				if len(c.named) == 0 {
					out := r.stdout + r.stderr
					if r.code != 0 || strings.Contains(out, "kept, not dropped") || !strings.Contains(out, "dropped publication pall") {
						t.Fatalf("exit %d, want 0, the file's publication dropped and not said kept:\n%s", r.code, out)
					}
					if n := count(t, conn, c.users); n != users {
						t.Errorf("the user's count went from %d to %d", users, n)
					}
					return
				}
				for _, want := range c.named {
					oneLine(t, r, want)
				}
				for _, name := range c.once {
					if n := strings.Count(r.stderr, name); n != 1 {
						t.Errorf("the refusal names %s %d times, want once: %s", name, n, r.stderr)
					}
				}
				if n := count(t, conn, c.users); n != users {
					t.Errorf("a refusal: the user's count went from %d to %d", users, n)
				}
				if n := count(t, conn, initMade); n != made {
					t.Errorf("a refusal dropped %d of init's %d objects", made-n, made)
				}
				r = stampede(t, dir, append(form, "--force-drop", u)...)
				if r.code != 0 {
					t.Fatalf("--force-drop: exit %d\n%s%s", r.code, r.stdout, r.stderr)
				}
				var said string
				for _, l := range strings.Split(r.stdout+r.stderr, "\n") {
					if strings.Contains(l, "--force-drop: ") {
						said += l + "\n"
					}
				}
				for _, want := range c.forced {
					if !strings.Contains(said, want) {
						t.Errorf("--force-drop's lines do not name %q:\n%s", want, said)
					}
				}
				if n := count(t, conn, c.users); n != c.kept {
					t.Errorf("after --force-drop the user's count is %d, want %d", n, c.kept)
				}
			})
		}
	}
}

// TestCleanupFileRunsBeforeTheSurvey: cleanup sql --cleanup-file runs the
// user's own file first, and only then judges what it drops, so that a
// view of the user's on init's table and one on stampede_load that the
// file drops are not refused (before, the record's census refused the
// view on stampede_load before the file ran). The user's rows stay.
func TestCleanupFileRunsBeforeTheSurvey(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.sql", "CREATE TABLE a (id int PRIMARY KEY, v text);\nINSERT INTO a VALUES (1, 'x');\n")
	write(t, dir, "drop.sql", "DROP VIEW uview;\nDROP VIEW lview;\n")
	_, u, conn := freshDB(t, "sql28alf")
	if r := stampede(t, dir, "init", "sql", "--init-file", "a.sql", u); r.code != 0 {
		t.Fatalf("init: exit %d: %s", r.code, r.stderr)
	}
	exec1(t, conn, `CREATE TABLE mine (id int); INSERT INTO mine VALUES (1), (2);
		CREATE VIEW uview AS SELECT * FROM a; CREATE VIEW lview AS SELECT * FROM stampede_load`)
	r := stampede(t, dir, "cleanup", "sql", "--cleanup-file", "drop.sql", u)
	if out := r.stdout + r.stderr; r.code != 0 || !strings.Contains(out, "ran drop.sql (2 statements)") || !strings.Contains(out, "dropped table a") {
		t.Fatalf("exit %d, want 0, the file run and table a dropped:\n%s", r.code, out)
	}
	if n := count(t, conn, "SELECT count(*) FROM mine"); n != 2 {
		t.Errorf("the user's table holds %d rows, want its 2", n)
	}
}

// TestInitForceDropNamesViewChain: init sql --force-drop over a user's
// table of a name the file creates named only the first view of a chain
// on it ("and with it view public.v1"), and CASCADE took the rest. The
// line names every view of the chain and the materialized view on it
// (the census follows view chains since b5f0818); the user's other rows
// stay.
func TestInitForceDropNamesViewChain(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.sql", "CREATE TABLE a (id int PRIMARY KEY, v text);\nINSERT INTO a VALUES (1, 'x');\n")
	_, u, conn := freshDB(t, "sql28alv")
	exec1(t, conn, `CREATE TABLE mine (id int); INSERT INTO mine VALUES (1), (2);
		CREATE TABLE a (id int PRIMARY KEY, v text); CREATE VIEW v1 AS SELECT * FROM a;
		CREATE VIEW v2 AS SELECT * FROM v1; CREATE MATERIALIZED VIEW m3 AS SELECT * FROM v2`)
	r := stampede(t, dir, "init", "sql", "--force-drop", "--init-file", "a.sql", u)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	const want = "--force-drop: dropping table a, which stampede did not make, and with it materialized view public.m3, view public.v1, view public.v2, which depend on it (CASCADE)"
	if !strings.Contains(r.stdout+r.stderr, want) {
		t.Errorf("no %q in:\n%s%s", want, r.stdout, r.stderr)
	}
	if n := count(t, conn, "SELECT count(*) FROM mine"); n != 2 {
		t.Errorf("the user's table holds %d rows, want its 2", n)
	}
}

// TestLaterInitFilesMembershipIsInits: a later init file's ALTER
// PUBLICATION p ADD TABLE of an earlier init's publication is init's, as
// its ALTER TABLE ... ADD COLUMN of an earlier init's table is: the mark
// on p records it, so cleanup drops p without refusing the membership as
// the user's, and the user's table keeps its rows.
func TestLaterInitFilesMembershipIsInits(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "p.sql", "CREATE TABLE a (id int PRIMARY KEY);\nCREATE PUBLICATION p FOR TABLE a;\n")
	write(t, dir, "q.sql", "CREATE TABLE b (id int);\nALTER PUBLICATION p ADD TABLE users_t;\n")
	_, u, conn := freshDB(t, "sql28all")
	exec1(t, conn, "CREATE TABLE users_t (id int PRIMARY KEY); INSERT INTO users_t VALUES (1), (2)")
	for _, f := range []string{"p.sql", "q.sql"} {
		if r := stampede(t, dir, "init", "sql", "--init-file", f, u); r.code != 0 {
			t.Fatalf("init %s: exit %d: %s", f, r.code, r.stderr)
		}
	}
	r := stampede(t, dir, "cleanup", "sql", u)
	if out := r.stdout + r.stderr; r.code != 0 || !strings.Contains(out, "dropped publication p") {
		t.Fatalf("exit %d, want 0 and p dropped:\n%s", r.code, out)
	}
	if n := count(t, conn, "SELECT count(*) FROM users_t"); n != 2 {
		t.Errorf("the user's table holds %d rows, want its 2", n)
	}
}
