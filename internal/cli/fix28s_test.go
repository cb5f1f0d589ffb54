package cli_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// withSearchPath returns u with options=-csearch_path=path.
func withSearchPath(u, path string) string {
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	return u + sep + "options=-csearch_path%3D" + path
}

// copyTables copies each of tables from public into schema (made
// first), rows and all.
func copyTables(t *testing.T, db, schema string, tables []string) {
	t.Helper()
	execIn(t, db, "CREATE SCHEMA IF NOT EXISTS "+schema)
	for _, tb := range tables {
		execIn(t, db, fmt.Sprintf(`CREATE TABLE %s."%s" (LIKE public."%s")`, schema, tb, tb),
			fmt.Sprintf(`INSERT INTO %s."%s" SELECT * FROM public."%s"`, schema, tb, tb))
	}
}

// pgbenchTables are the tables of pgbench's load.
var pgbenchTables = []string{"pgbench_branches", "pgbench_tellers", "pgbench_accounts", "pgbench_history"}

// TestPgbenchBuiltinsUseLoadedSchema: pgbench's built-in scripts (run
// sql -b tpcb-like, and the pgbench form's default script) looked for
// the load of the sql workload, found none, and wrote into the user's
// app.pgbench_* that a search path (app, public) finds before the
// tables stampede's pgbench load made in public (fix28s 1). They find
// the load of pgbench now, made by init pgbench (recorded) or by the
// pgbench form's -i (marked only), and run on its tables with the note:
// the user's rows are unchanged, the load's history grows.
func TestPgbenchBuiltinsUseLoadedSchema(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	for _, tc := range []struct {
		name      string
		init, run []string
		byRole    bool
		// note is how the run's note begins.
		note string
	}{
		{"init pgbench, run sql -b", []string{"init", "pgbench", "--scale", "1"}, []string{"run", "sql", "-b", "tpcb-like", "--duration", "2s"}, true, "note: "},
		{"pgbench -i, run sql -b", []string{"pgbench", "-i", "-s", "1"}, []string{"run", "sql", "-b", "simple-update", "--duration", "2s"}, false, "note: "},
		{"init pgbench, pgbench", []string{"init", "pgbench", "--scale", "1"}, []string{"pgbench", "-T", "2"}, false, "pgbench: note: "},
		{"pgbench -i, pgbench", []string{"pgbench", "-i", "-s", "1"}, []string{"pgbench", "-T", "2"}, true, "pgbench: note: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := freshDB(t, "fix28s_pgb")
			adminExec(t, "CREATE DATABASE "+db)
			u := dbURL(t, db)
			mustRun(t, append(tc.init, u)...)
			copyTables(t, db, "app", pgbenchTables)
			execIn(t, db, "INSERT INTO app.pgbench_history VALUES (1, 1, 1, 5, now(), 'mine')")
			path := "app,public"
			if tc.byRole {
				path = "app, public"
				execIn(t, db, "ALTER ROLE postgres IN DATABASE "+db+" SET search_path = app, public")
				t.Cleanup(func() { adminExec(t, "ALTER ROLE postgres IN DATABASE "+db+" RESET search_path") })
			} else {
				u = withSearchPath(u, "app,public")
			}
			mine := fingerprints(t, db, "app", pgbenchTables)
			r := stampede(t, append(tc.run, u)...)
			if r.code != 0 {
				t.Fatalf("run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			note := fmt.Sprintf("%ssearch_path %q finds app.pgbench_branches before public.pgbench_branches, ", tc.note, path)
			with := "which init loaded: using the load's tables, with search_path public, " + path + "\n"
			if !strings.Contains(r.stderr, note) || !strings.Contains(r.stderr, with) {
				t.Errorf("run: no note %q ... %q:\n%s", note, with, r.stderr)
			}
			if got := fingerprints(t, db, "app", pgbenchTables); got != mine {
				t.Errorf("the run changed the user's tables in app:\n%s\nwas\n%s", got, mine)
			}
			if n := queryInt(t, db, "SELECT count(*) FROM public.pgbench_history"); n == 0 {
				t.Errorf("the run wrote no history into the load's public.pgbench_history")
			}
		})
	}
}

// TestRunRefusesTableOutsideLoad: a table of init's load that the user
// moved to another schema (ALTER TABLE bank SET SCHEMA app), or one
// missing from the load while the user's table of its name lies in
// another schema, was run and checked when the search path found it
// there (fix28s 2). Run and check refuse it in one line, and the user's
// rows are unchanged.
func TestRunRefusesTableOutsideLoad(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	for _, tc := range []struct {
		name, init, table string
		// make puts the table in app: moved, or copied with the
		// load's dropped.
		make []string
		// want is what both refusals say.
		want string
	}{
		{"bank moved", "bank", "bank", []string{"CREATE SCHEMA app", "ALTER TABLE bank SET SCHEMA app"},
			"the load's table bank was moved to schema app since init of bank made it in schema public: %s leaves it alone (it is yours now); move it back (ALTER TABLE app.bank SET SCHEMA public), or re-run init (or cleanup) of bank with a search_path that does not find schema app (?options=-csearch_path%%3Dpublic)"},
		{"ycsb moved", "ycsb", "usertable", []string{"CREATE SCHEMA app", "ALTER TABLE usertable SET SCHEMA app"},
			"the load's table usertable was moved to schema app since init of ycsb made it in schema public: %s leaves it alone"},
		{"bank missing", "bank", "bank", []string{"CREATE SCHEMA app", "CREATE TABLE app.bank (LIKE public.bank)", "INSERT INTO app.bank SELECT * FROM public.bank", "DROP TABLE public.bank"},
			"the load's table bank is missing from schema public, where init of bank loaded, and search_path \"app,public\" finds app.bank, which stampede did not load: %s leaves it alone; re-run init (or cleanup) of bank"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := freshDB(t, "fix28s_moved")
			adminExec(t, "CREATE DATABASE "+db)
			init := []string{"init", tc.init, "--rows", "10"}
			run := []string{"run", "bank", "--duration", "2s"}
			if tc.init == "ycsb" {
				init = []string{"init", "ycsb", "-p", "recordcount=10"}
				run = []string{"run", "ycsb", "--workload", "a", "--duration", "2s"}
			}
			mustRun(t, append(init, dbURL(t, db))...)
			execIn(t, db, tc.make...)
			u := withSearchPath(dbURL(t, db), "app,public")
			mine := fingerprints(t, db, "app", []string{tc.table})
			for _, verb := range []string{"run", "check"} {
				args := append(run, u)
				if verb == "check" {
					args = []string{"check", tc.init, u}
				}
				r := stampede(t, args...)
				checkFinalError(t, r, 2, fmt.Sprintf(tc.want, verb))
			}
			if got := fingerprints(t, db, "app", []string{tc.table}); got != mine {
				t.Errorf("the user's table changed:\n%s\nwas\n%s", got, mine)
			}
		})
	}
}

// TestInitNamesMovedTable: init over a table of stampede's load that
// the user moved to a schema the search path finds first said that
// stampede did not make it (fix28s 3). It says it is stampede's, moved
// by someone else, as cleanup's refusal does, and how to load all the
// same; the table keeps its rows.
func TestInitNamesMovedTable(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "fix28s_init")
	adminExec(t, "CREATE DATABASE "+db)
	mustRun(t, "init", "bank", "--rows", "10", dbURL(t, db))
	execIn(t, db, "CREATE SCHEMA app", "ALTER TABLE bank SET SCHEMA app")
	mine := fingerprints(t, db, "app", []string{"bank"})
	r := stampede(t, "init", "bank", "--rows", "10", withSearchPath(dbURL(t, db), "app,public"))
	lines := checkFinalError(t, r, 2, "table app.bank in database \""+db+"\" on ")
	want := "was moved out of stampede's load (stampede's init of bank made it in schema public, where stampede_load records the load, and it was moved to schema app since: it is yours now): " +
		"init leaves it alone; load with a search_path that does not find schema app (?options=-csearch_path%3Dpublic), or into another database (--db NAME), or to drop it anyway, add --force-drop"
	if len(lines) == 0 || !strings.HasSuffix(lines[len(lines)-1], want) || strings.Contains(r.stderr, "did not make") {
		t.Errorf("init's refusal does not end %q:\n%s", want, r.stderr)
	}
	if got := fingerprints(t, db, "app", []string{"bank"}); got != mine {
		t.Errorf("the moved table changed:\n%s\nwas\n%s", got, mine)
	}
}

// TestRunAsksEveryURL: with several URLs, only the first's search path
// was asked, so a second URL whose own (options=-csearch_path=app,public,
// or its role's, ALTER ROLE ... SET search_path) finds the user's
// app.bank first ran the transfers there (fix28s 4).
// Each URL's is asked now: that URL is reopened with the load's schema
// first (and says so), and URLs that find different loads, or no load
// where another finds one, are refused; the user's rows are unchanged.
func TestRunAsksEveryURL(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	for _, tc := range []struct {
		name, second string
		// setup runs after init; want is the refusal ("" for a run
		// that uses the load).
		setup []string
		want  string
	}{
		{"second finds the user's first", "app,public", nil, ""},
		{"second's role finds the user's first", "role", nil, ""},
		{"second finds another load", "s2,public",
			[]string{"CREATE SCHEMA s2", "CREATE TABLE s2.stampede_load (LIKE public.stampede_load)", "INSERT INTO s2.stampede_load SELECT * FROM public.stampede_load",
				"CREATE TABLE s2.bank (LIKE public.bank)", "INSERT INTO s2.bank SELECT * FROM public.bank"},
			"URL 1 (%[1]s) finds stampede's load of bank in schema public and URL 2 (%[1]s) in schema s2: their search paths"},
		{"second finds no load", "app", nil,
			"URL 2 (%[1]s) does not find stampede's load of bank with search_path \"app\", where URL 1 (%[1]s) finds it in schema public: run would reach other tables through it; give every URL a search_path that finds schema public"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := freshDB(t, "fix28s_urls")
			adminExec(t, "CREATE DATABASE "+db)
			u := dbURL(t, db)
			mustRun(t, "init", "bank", "--rows", "10", u)
			copyTables(t, db, "app", []string{"bank"})
			execIn(t, db, "UPDATE app.bank SET balance = balance + id")
			execIn(t, db, tc.setup...)
			second, path := withSearchPath(u, tc.second), tc.second
			if tc.second == "role" {
				// The second URL logs in as a role whose search path
				// in the database is app, public.
				role := db + "_app"
				t.Cleanup(func() { adminExec(t, "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)", "DROP ROLE IF EXISTS "+role) })
				execIn(t, db, "CREATE ROLE "+role+" LOGIN", "GRANT USAGE ON SCHEMA app TO "+role, "GRANT ALL ON ALL TABLES IN SCHEMA app, public TO "+role,
					"ALTER ROLE "+role+" IN DATABASE "+db+" SET search_path = app, public")
				pu, err := url.Parse(u)
				if err != nil {
					t.Fatal(err)
				}
				pu.User = url.User(role)
				second, path = pu.String(), "app, public"
			}
			mine, loaded := fingerprints(t, db, "app", []string{"bank"}), fingerprints(t, db, "public", []string{"bank"})
			r := stampede(t, "run", "bank", "--duration", "3s", u, second)
			host := strings.SplitN(strings.SplitN(u, "@", 2)[1], "/", 2)[0]
			if tc.want != "" {
				checkFinalError(t, r, 2, fmt.Sprintf(tc.want, host))
			} else {
				if r.code != 0 {
					t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
				}
				note := fmt.Sprintf("note: URL 2 (%s): search_path %q finds app.bank before public.bank, which init loaded: using the load's tables, with search_path public, %s\n", host, path, path)
				if !strings.Contains(r.stderr, note) {
					t.Errorf("run: no note %q:\n%s", note, r.stderr)
				}
				if got := fingerprints(t, db, "public", []string{"bank"}); got == loaded {
					t.Errorf("the run changed nothing of the load's public.bank")
				}
			}
			if got := fingerprints(t, db, "app", []string{"bank"}); got != mine {
				t.Errorf("the run changed the user's app.bank:\n%s\nwas\n%s", got, mine)
			}
		})
	}
}

// TestCleanupDropsTheLoadNotTheUsers: with the load in schema s1 and a
// search path that finds a user's usertable first (app, s1; public,
// s1), cleanup refused the user's table, offering --force-drop, which
// would have dropped it (fix28s 5). Cleanup drops the load's s1.usertable
// now and says which; where the search path does not find the load at
// all (app, public), its refusal of the user's app.usertable says where
// the load is and how to reach it. The user's tables keep every row.
func TestCleanupDropsTheLoadNotTheUsers(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	for _, tc := range []struct {
		path string
		// want is what cleanup says; refused that it refuses.
		want    []string
		refused bool
	}{
		{"app,s1", []string{`note: search_path "app,s1" finds app.usertable before s1.usertable, which init loaded`, "dropped table s1.usertable\n"}, false},
		{"public,s1", []string{`note: search_path "public,s1" finds public.usertable before s1.usertable, which init loaded`, "dropped table s1.usertable\n"}, false},
		{"app,public", []string{"table app.usertable in database ", " was not made by stampede (", "cleanup leaves it alone; stampede's load of ycsb is in schema s1, which the search_path does not find (connect with ?options=-csearch_path%3Ds1 to reach it); to drop it anyway, add --force-drop"}, true},
	} {
		t.Run(tc.path, func(t *testing.T) {
			db := freshDB(t, "fix28s_cleanup")
			adminExec(t, "CREATE DATABASE "+db)
			execIn(t, db, "CREATE SCHEMA s1")
			mustRun(t, "init", "ycsb", "-p", "recordcount=20", withSearchPath(dbURL(t, db), "s1"))
			execIn(t, db, "CREATE SCHEMA app",
				"CREATE TABLE app.usertable (LIKE s1.usertable)", "INSERT INTO app.usertable SELECT * FROM s1.usertable",
				"CREATE TABLE public.usertable (LIKE s1.usertable)", "INSERT INTO public.usertable SELECT * FROM s1.usertable LIMIT 5")
			mine := fingerprints(t, db, "app", []string{"usertable"}) + fingerprints(t, db, "public", []string{"usertable"})
			r := stampede(t, "cleanup", "ycsb", withSearchPath(dbURL(t, db), tc.path))
			left := int64(0)
			if tc.refused {
				checkFinalError(t, r, 2, tc.want[len(tc.want)-1])
				left = 2
			} else if r.code != 0 {
				t.Fatalf("cleanup: exit %d\n%s", r.code, r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stdout+r.stderr, w) {
					t.Errorf("cleanup does not say %q:\n%s%s", w, r.stdout, r.stderr)
				}
			}
			if n := queryInt(t, db, "SELECT count(*) FROM pg_class WHERE relname IN ('usertable', 'stampede_load') AND relnamespace = 's1'::regnamespace"); n != left {
				t.Errorf("cleanup left %d of the load's 2 tables in s1, want %d", n, left)
			}
			if got := fingerprints(t, db, "app", []string{"usertable"}) + fingerprints(t, db, "public", []string{"usertable"}); got != mine {
				t.Errorf("cleanup changed the user's tables:\n%s\nwas\n%s", got, mine)
			}
		})
	}
}
