package cli_test

import (
	"fmt"
	"github.com/stampede-bench/stampede/dialect"
	"strings"
	"testing"
	"time"
)

// TestOtherLoadsStayTheirs runs one workload's cleanup or --drop where
// stampede loaded ANOTHER workload (or a user replaced the workload's
// table, or the database is the user's): each is refused in one line
// naming what was found and --force-drop, or (a user's database under the
// cockroach form's --drop) keeps the database and drops only the
// workload's tables; the rows are counted before and after.
func TestOtherLoadsStayTheirs(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	for _, tc := range []struct {
		name string
		// userDB creates the database as the user would (with a comment),
		// else stampede's init creates it.
		userDB bool
		load   [][]string
		sql    []string // the user's changes after the load
		args   []string // the command under test (URL and --db appended when db)
		db     bool     // args take --db DB (the cockroach form)
		code   int
		want   []string
		// count is a query that must return keep before and after.
		count string
		keep  int64
	}{
		{name: "ycsb-table-bank", load: [][]string{{"init", "bank", "--rows", "10"}},
			args: []string{"cleanup", "ycsb", "-p", "table=bank"}, code: 2,
			want:  []string{"table bank (bank)", "another workload than ycsb", "`stampede cleanup bank ", "--force-drop"},
			count: "SELECT count(*) FROM bank", keep: 10},
		{name: "bulk-over-oltp", load: [][]string{{"init", "oltp_read_write", "--tables", "2", "--table-size", "100"}},
			args: []string{"init", "bulk_insert", "--drop", "--threads", "2"}, code: 2,
			want:  []string{"sbtest1 (oltp_read_write)", "another workload than bulk_insert", "--force-drop"},
			count: "SELECT (SELECT count(*) FROM sbtest1) + (SELECT count(*) FROM sbtest2)", keep: 200},
		{name: "oltp-over-bulk", sql: []string{"CREATE TABLE sbtest1 (id INT PRIMARY KEY, k INT, c TEXT, pad TEXT)", "INSERT INTO sbtest1 VALUES (1, 1, 'x', 'y')",
			dialect.CommentOnTable(dialect.Postgres{}, "sbtest1", "made by stampede run of bulk_insert")}, userDB: true,
			args: []string{"cleanup", "oltp_read_only"}, code: 2,
			want:  []string{"sbtest1 (bulk_insert)", "another workload than oltp_read_only", "--force-drop"},
			count: "SELECT count(*) FROM sbtest1", keep: 1},
		{name: "cockroach-form-over-ycsb", load: [][]string{{"init", "ycsb", "--record-count", "10"}},
			args: []string{"workload", "init", "bank", "--rows", "10", "--drop"}, db: true, code: 2,
			want:  []string{"holds stampede's load of ycsb (table public.usertable), not of bank", "--force-drop"},
			count: "SELECT count(*) FROM usertable", keep: 10},
		{name: "cockroach-form-swapped-table", load: [][]string{{"workload", "init", "bank", "--rows", "10", "--db", "DB"}},
			sql:  []string{"DROP TABLE bank", "CREATE TABLE bank (id BIGINT PRIMARY KEY, balance BIGINT, mine TEXT)", "INSERT INTO bank VALUES (1, 42, 'MY ROW')"},
			args: []string{"workload", "init", "bank", "--rows", "10", "--drop"}, db: true, code: 2,
			want:  []string{"table public.bank", "--force-drop"},
			count: "SELECT count(*) FROM bank WHERE mine = 'MY ROW'", keep: 1},
		{name: "cockroach-form-users-database", userDB: true, load: [][]string{{"workload", "init", "bank", "--rows", "10", "--db", "DB"}},
			sql:  []string{"INSERT INTO bank VALUES (-1, 0, 'x')"},
			args: []string{"workload", "init", "bank", "--rows", "10", "--drop"}, db: true, code: 0,
			want: []string{"was not created by stampede: it stays, and --drop drops only the tables of bank in it"},
			// The database keeps its comment; bank is reloaded (10 rows,
			// the user's row -1 went with stampede's table).
			count: "SELECT count(*) FROM bank WHERE id >= 0 AND shobj_description((SELECT oid FROM pg_database WHERE datname = current_database()), 'pg_database') = 'MY DB'", keep: 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := freshDB(t, "fix28h_other")
			if tc.userDB {
				adminExec(t, "CREATE DATABASE "+db, "COMMENT ON DATABASE "+db+" IS 'MY DB'")
			}
			for _, l := range tc.load {
				l = append([]string(nil), l...)
				for i := range l {
					if l[i] == "DB" {
						l[i] = db
					}
				}
				if r := stampede(t, append(l, dbURL(t, db))...); r.code != 0 {
					t.Fatalf("%s: exit %d\n%s", l, r.code, r.stderr)
				}
			}
			execIn(t, db, tc.sql...)
			if n := queryInt(t, db, tc.count); n != tc.keep {
				t.Fatalf("before: %s = %d, want %d", tc.count, n, tc.keep)
			}
			args := tc.args
			if tc.db {
				args = append(append([]string(nil), args...), "--db", db)
			}
			r := stampede(t, append(args, dbURL(t, db))...)
			if r.code != tc.code {
				t.Errorf("%s: exit %d, want %d\n%s", args, r.code, tc.code, r.stderr)
			}
			if tc.code == 2 {
				checkFinalError(t, r, 2, tc.want[0])
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("%s: stderr lacks %q:\n%s", args, w, r.stderr)
				}
			}
			if n := queryInt(t, db, tc.count); n != tc.keep {
				t.Errorf("after %s: %s = %d, want %d", args, tc.count, n, tc.keep)
			}
		})
	}
}

// TestFleetTenantsStayTheirs runs a fleet's cleanup and init --drop over
// tenants that are not this fleet's to drop: a tenant whose workload
// table a user replaced (database and schema modes, the first tenant and
// a clone), the tenants of another workload's fleet, and a user's
// databases holding a table named stampede_tenant. Each is refused in one
// line naming the tenant and what was found and --force-drop; every row
// survives.
func TestFleetTenantsStayTheirs(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	base := u0(t)
	stamp := time.Now().UnixNano() % 1e6
	for _, tc := range []struct {
		name   string
		schema bool // schema mode, in a fresh database
		load   []string
		sql    func(p string) []string // statements in database (db mode: tenant 1's; schema: the holding one)
		userDB bool                    // the tenants are the user's databases, made by sql
		drops  [][]string
		want   []string
		count  func(p string) string
		keep   int64
	}{
		{name: "db-swapped-first", load: []string{"init", "bank", "--rows", "10"},
			sql: func(string) []string {
				return []string{"DROP TABLE bank", "CREATE TABLE bank (id BIGINT PRIMARY KEY, balance BIGINT, mine TEXT)", "INSERT INTO bank VALUES (1, 42, 'MY ROW')"}
			},
			drops: [][]string{{"cleanup", "bank"}, {"init", "bank", "--rows", "10", "--drop"}},
			want:  []string{"_1\"", "table public.bank", "--force-drop"},
			count: func(string) string { return "SELECT count(*) FROM bank WHERE mine = 'MY ROW'" }, keep: 1},
		{name: "schema-swapped-clone", schema: true, load: []string{"init", "bank", "--rows", "10"},
			sql: func(p string) []string {
				t := fmt.Sprintf(p, 2) + ".bank"
				return []string{"DROP TABLE " + t, "CREATE TABLE " + t + " (id BIGINT PRIMARY KEY, balance BIGINT, mine TEXT)", "INSERT INTO " + t + " VALUES (1, 42, 'MY ROW')"}
			},
			drops: [][]string{{"cleanup", "bank"}, {"init", "bank", "--rows", "10", "--drop"}},
			want:  []string{"_2\"", ".bank", "--force-drop"},
			count: func(p string) string {
				return "SELECT count(*) FROM " + fmt.Sprintf(p, 2) + ".bank WHERE mine = 'MY ROW'"
			}, keep: 1},
		{name: "db-other-fleet", load: []string{"init", "ycsb", "--record-count", "10"},
			drops: [][]string{{"cleanup", "bank"}, {"init", "bank", "--rows", "10", "--drop"}},
			want:  []string{"tenants of stampede's fleet of ycsb, not of bank", "`stampede cleanup ycsb --tenants 2", "--force-drop"},
			count: func(string) string { return "SELECT count(*) FROM usertable" }, keep: 10},
		{name: "schema-other-fleet", schema: true, load: []string{"init", "ycsb", "--record-count", "10"},
			drops: [][]string{{"cleanup", "bank"}, {"init", "bank", "--rows", "10", "--drop"}},
			want:  []string{"tenants of stampede's fleet of ycsb, not of bank", "--force-drop"},
			count: func(p string) string { return "SELECT count(*) FROM " + fmt.Sprintf(p, 1) + ".usertable" }, keep: 10},
		{name: "db-users-marker", userDB: true,
			sql: func(string) []string {
				return []string{"CREATE TABLE stampede_tenant (x text)", "INSERT INTO stampede_tenant VALUES ('MY ROW')",
					"CREATE TABLE bank (id BIGINT PRIMARY KEY, balance BIGINT)", "INSERT INTO bank VALUES (1, 42)"}
			},
			drops: [][]string{{"cleanup", "bank"}, {"init", "bank", "--rows", "10", "--drop"}},
			want:  []string{"were not made by stampede", "--force-drop"},
			count: func(string) string {
				return "SELECT (SELECT count(*) FROM bank) + (SELECT count(*) FROM stampede_tenant)"
			}, keep: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pattern := fmt.Sprintf("fix28h_%s_%d_%%d", strings.ReplaceAll(tc.name, "-", ""), stamp)
			url, mode := base, []string{"--tenants", "2", "--tenant-pattern", pattern}
			holder := fmt.Sprintf(pattern, 1)
			if tc.schema {
				holder = freshDB(t, "fix28h_fleet")
				adminExec(t, "CREATE DATABASE "+holder)
				url, mode = dbURL(t, holder), append(mode, "--tenant-mode", "schema")
			} else {
				for i := 1; i <= 2; i++ {
					n := fmt.Sprintf(pattern, i)
					t.Cleanup(func() { adminExec(t, "DROP DATABASE IF EXISTS "+n+" WITH (FORCE)") })
				}
			}
			if tc.userDB {
				adminExec(t, "CREATE DATABASE "+fmt.Sprintf(pattern, 1), "CREATE DATABASE "+fmt.Sprintf(pattern, 2))
				execIn(t, fmt.Sprintf(pattern, 2), tc.sql(pattern)[:2]...)
			}
			if tc.load != nil {
				if r := stampede(t, append(append(append([]string(nil), tc.load...), mode...), url)...); r.code != 0 {
					t.Fatalf("%s: exit %d\n%s", tc.load, r.code, r.stderr)
				}
			}
			if tc.sql != nil {
				execIn(t, holder, tc.sql(pattern)...)
			}
			if n := queryInt(t, holder, tc.count(pattern)); n != tc.keep {
				t.Fatalf("before: %s = %d, want %d", tc.count(pattern), n, tc.keep)
			}
			for _, d := range tc.drops {
				args := append(append(append([]string(nil), d...), mode...), url)
				r := stampede(t, args...)
				checkFinalError(t, r, 2, tc.want[0])
				for _, w := range tc.want {
					if !strings.Contains(r.stderr, w) {
						t.Errorf("%s: stderr lacks %q:\n%s", d, w, r.stderr)
					}
				}
				if n := queryInt(t, holder, tc.count(pattern)); n != tc.keep {
					t.Fatalf("after %s: %s = %d, want %d", d, tc.count(pattern), n, tc.keep)
				}
			}
		})
	}
}

// TestCheckTPCCMissingTable: check of a TPC-C load that lost a table
// (dropped since init) fails in one line naming the table and the reload,
// in every form (PASS everywhere before, and a raw 42P01 with
// --expensive-checks).
func TestCheckTPCCMissingTable(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "fix28h_tpcc")
	if r := stampede(t, "init", "tpcc", "--warehouses", "1", dbURL(t, db)); r.code != 0 {
		t.Fatalf("init: exit %d\n%s", r.code, r.stderr)
	}
	if r := stampede(t, "check", "tpcc", dbURL(t, db)); r.code != 0 {
		t.Fatalf("check of the whole load: exit %d\n%s", r.code, r.stderr)
	}
	execIn(t, db, "DROP TABLE customer CASCADE")
	for _, args := range [][]string{
		{"check", "tpcc", dbURL(t, db)},
		{"check", "tpcc", "--expensive-checks", dbURL(t, db)},
		{"workload", "check", "tpcc", "--db", db, dbURL(t, db)},
	} {
		r := stampede(t, args...)
		checkFinalError(t, r, 2, "lacks table customer of the TPC-C load that tpcc_meta records")
		if !strings.Contains(r.stderr, "init tpcc --drop --warehouses 1") {
			t.Errorf("%s: the refusal names no reload:\n%s", args, r.stderr)
		}
	}
}

// TestCleanupSQLDropsAllOrNothing: cleanup sql over a load of which one
// object is kept (a user's table depends on it) drops nothing, not the
// part it could (the view), and says so.
func TestCleanupSQLDropsAllOrNothing(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "fix28h_sql")
	file := writeFile(t, "create schema app;\ncreate table app.t(id int primary key);\ncreate view app.v as select * from app.t;\n")
	if r := stampede(t, "init", "sql", "--init-file", file, dbURL(t, db)); r.code != 0 {
		t.Fatalf("init: exit %d\n%s", r.code, r.stderr)
	}
	execIn(t, db, "CREATE TABLE app.mine (x text)", "INSERT INTO app.mine VALUES ('MY ROW')", "CREATE TABLE public.dep (a int REFERENCES app.t(id))")
	r := stampede(t, "cleanup", "sql", dbURL(t, db))
	checkFinalError(t, r, 2, "nothing was dropped")
	if strings.Contains(r.stderr, "dropped view") {
		t.Errorf("cleanup printed a drop before refusing:\n%s", r.stderr)
	}
	for _, q := range []string{
		"SELECT count(*) FROM pg_views WHERE schemaname = 'app' AND viewname = 'v'",
		"SELECT count(*) FROM app.mine WHERE x = 'MY ROW'",
		"SELECT count(*) FROM pg_tables WHERE schemaname = 'app' AND tablename = 't'",
	} {
		if n := queryInt(t, db, q); n != 1 {
			t.Errorf("after the refused cleanup, %s = %d, want 1", q, n)
		}
	}
	// Once the user's objects are gone, cleanup drops what init made.
	execIn(t, db, "DROP TABLE public.dep", "DROP TABLE app.mine")
	r = stampede(t, "cleanup", "sql", dbURL(t, db))
	if n := queryInt(t, db, "SELECT count(*) FROM pg_views WHERE schemaname = 'app' AND viewname = 'v'"); n != 0 {
		t.Errorf("the second cleanup kept the view: exit %d\n%s", r.code, r.stderr)
	}
	if r.code != 0 || queryInt(t, db, "SELECT count(*) FROM pg_namespace WHERE nspname = 'app'") != 0 {
		t.Errorf("the second cleanup: exit %d, schema app kept\n%s", r.code, r.stderr)
	}
}
