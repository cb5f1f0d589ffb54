package cli_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// searchPathURL returns db's URL with search_path path.
func searchPathURL(t *testing.T, db, path string) string {
	t.Helper()
	u, err := url.Parse(dbURL(t, db))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("options", "-csearch_path="+path)
	u.RawQuery = q.Encode()
	return u.String()
}

// TestJDBCCurrentSchemaLoadsThere loads and runs YCSB's JDBC line with
// db.url's currentSchema=s: the rows go into s.usertable (none into
// public), and the run reads them there (the URL's options reached the
// server as "+search_path" and no connection was made; issue 28 NIT 1).
func TestJDBCCurrentSchemaLoadsThere(t *testing.T) {
	srv := testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	u, err := url.Parse(srv)
	if err != nil {
		t.Fatal(err)
	}
	db := freshDB(t, "fix28x_jdbc")
	adminExec(t, "CREATE DATABASE "+db)
	execIn(t, db, "CREATE SCHEMA s")
	jdbc := fmt.Sprintf("db.url=jdbc:postgresql://%s/%s?sslmode=disable&currentSchema=s", u.Host, db)
	user := "db.user=" + u.User.Username()
	mustRun(t, "load", "jdbc", "-p", jdbc, "-p", user, "-p", "recordcount=50")
	if n := queryInt(t, db, "SELECT count(*) FROM s.usertable"); n != 50 {
		t.Errorf("s.usertable holds %d rows, want recordcount 50", n)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM pg_class WHERE oid = to_regclass('public.usertable')"); n != 0 {
		t.Error("the load made public.usertable, not s.usertable")
	}
	r := mustRun(t, "run", "jdbc", "-p", jdbc, "-p", user, "-p", "recordcount=50", "-p", "operationcount=100",
		"-p", "readproportion=1", "-p", "updateproportion=0")
	rep := ycsbReport(t, r.stdout)
	if rep["[READ], Operations"] != 100 || rep["[READ], Return=OK"] != 100 {
		t.Errorf("want 100 reads of s.usertable, all OK:\n%s", r.stdout)
	}
}

// TestDropReloadsLoadSchema: stampede's load in public, a user's schema
// app first in the search path holding a table of the load's name with
// the user's rows. init --drop, init pgbench and pgbench -i refused it;
// they now drop and reload stampede's tables in public, say so in one
// note naming the schema, and leave every row of the user's (issue 28
// NIT 2).
func TestDropReloadsLoadSchema(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	for _, tc := range []struct {
		name  string
		init  []string // the first load, into public
		table string   // the load's table the user's app holds too
		again []string // the drop and reload, before the URL
		rows  int64    // the load's rows of table, reloaded
	}{
		{"init ycsb --drop", []string{"init", "ycsb", "-p", "recordcount=20"}, "usertable",
			[]string{"init", "ycsb", "--drop", "-p", "recordcount=30"}, 30},
		{"init pgbench", []string{"init", "pgbench"}, "pgbench_accounts", []string{"init", "pgbench"}, 100000},
		{"pgbench -i", []string{"pgbench", "-i"}, "pgbench_accounts", []string{"pgbench", "-i"}, 100000},
		{"pgbench -i after init pgbench", []string{"init", "pgbench"}, "pgbench_accounts", []string{"pgbench", "-i"}, 100000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := freshDB(t, "fix28x_drop")
			mustRun(t, append(tc.init, dbURL(t, db))...)
			execIn(t, db, "CREATE SCHEMA app", "CREATE TABLE app."+tc.table+" (id int, note text)",
				"INSERT INTO app."+tc.table+" SELECT i, 'MINE' FROM generate_series(1, 7) i")
			oid := "SELECT 'public." + tc.table + "'::regclass::oid::bigint"
			before := queryInt(t, db, oid)
			r := mustRun(t, append(tc.again, searchPathURL(t, db, "app,public"))...)
			note := fmt.Sprintf("note: search_path \"app,public\" finds app.%s before public.%s, which init loaded: using the load's tables, with search_path public, app,public", tc.table, tc.table)
			if strings.Count(r.stderr, note+"\n") != 1 {
				t.Errorf("want the one line %q:\n%s", note, r.stderr)
			}
			if n := queryInt(t, db, "SELECT count(*) FROM app."+tc.table+" WHERE note = 'MINE'"); n != 7 {
				t.Errorf("the user's app.%s holds %d of its 7 rows", tc.table, n)
			}
			if n := queryInt(t, db, "SELECT count(*) FROM public."+tc.table); n != tc.rows {
				t.Errorf("public.%s holds %d rows, want %d reloaded", tc.table, n, tc.rows)
			}
			if n := queryInt(t, db, "SELECT count(*) FROM pg_class WHERE relnamespace = 'app'::regnamespace"); n != 1 {
				t.Errorf("schema app holds %d relations, want the user's table alone", n)
			}
			if queryInt(t, db, oid) == before {
				t.Errorf("public.%s is the table loaded first, not dropped and made again", tc.table)
			}
		})
	}
}

// TestPgbenchRefusalNamesSchema: pgbench -i's refusal of a user's
// pgbench_accounts names it schema.table where the bare name would
// mislead (a user's app.pgbench_accounts first in the search path, and
// another in public), as cleanup's refusals name them (issue 28 NIT 3);
// both keep their rows.
func TestPgbenchRefusalNamesSchema(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "fix28x_pgref")
	adminExec(t, "CREATE DATABASE "+db)
	execIn(t, db, "CREATE SCHEMA app", "CREATE TABLE app.pgbench_accounts (aid int, note text)", "INSERT INTO app.pgbench_accounts VALUES (1, 'MINE')",
		"CREATE TABLE public.pgbench_accounts (aid int)", "INSERT INTO public.pgbench_accounts VALUES (2)")
	u, err := url.Parse(dbURL(t, db))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, table, cols string }{
		{"app,public", "app.pgbench_accounts", "aid,note"},
		{"public,app", "public.pgbench_accounts", "aid"},
	} {
		r := stampede(t, "pgbench", "-i", searchPathURL(t, db, tc.path))
		checkOneLineError(t, r, 2, fmt.Sprintf("-i would drop %s in database %q on %s, which stampede did not make (%s (%s): columns that are not pgbench's): nothing was dropped",
			tc.table, db, u.Host, tc.table, tc.cols))
	}
	if n := queryInt(t, db, "SELECT (SELECT count(*) FROM app.pgbench_accounts WHERE note = 'MINE') + (SELECT count(*) FROM public.pgbench_accounts WHERE aid = 2)"); n != 2 {
		t.Errorf("%d of the user's 2 rows left", n)
	}
}

// TestChurnFreshSaysKept: run churn --fresh keeps a churn table the user
// renamed and says so in cleanup's words, one line (issue 28 NIT 5).
func TestChurnFreshSaysKept(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "fix28x_churn")
	u := dbURL(t, db)
	mustRun(t, "init", "churn", u)
	mustRun(t, "run", "churn", "--duration", "2s", "--conns", "2", u)
	if n := queryInt(t, db, "SELECT count(*) FROM pg_class WHERE relname ~ '^churn_[0-9]+_[0-9]+$'"); n == 0 {
		t.Fatalf("the run left no churn table")
	}
	execIn(t, db, `DO $$ BEGIN EXECUTE format('ALTER TABLE %I RENAME TO my_archive',
		(SELECT relname FROM pg_class WHERE relname ~ '^churn_[0-9]+_[0-9]+$' ORDER BY relname LIMIT 1)); END $$`)
	rows := queryInt(t, db, "SELECT count(*) FROM my_archive")
	r := mustRun(t, "run", "churn", "--fresh", "--duration", "1s", "--conns", "2", u)
	const kept = "kept table my_archive (churn's table, renamed: it is yours now)\n"
	if strings.Count(r.stderr, kept) != 1 {
		t.Errorf("--fresh does not say, once, %q:\n%s", kept, r.stderr)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM my_archive"); n != rows {
		t.Errorf("my_archive holds %d rows, had %d", n, rows)
	}
	r = mustRun(t, "cleanup", "churn", u)
	if strings.Count(r.stderr+r.stdout, kept) != 1 {
		t.Errorf("cleanup does not say, once, %q:\n%s%s", kept, r.stdout, r.stderr)
	}
}
