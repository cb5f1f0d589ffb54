package cli_test

import (
	"fmt"
	"net/url"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestFleetRunRefusesUsersTenants runs and checks a fleet whose
// --tenant-pattern matches a user's own databases (or schemas, or in
// column mode a user's table of the workload's name) holding a bank table
// of 10 rows, with no tenant marker of stampede's: run and check are
// refused in one line naming them (exit 2), as fleet exec refuses them,
// and every row is unchanged (before, a run rewrote them at exit 0).
func TestFleetRunRefusesUsersTenants(t *testing.T) {
	testServer(t)
	res := t.TempDir()
	users := "CREATE TABLE %s (id BIGINT PRIMARY KEY, balance BIGINT, payload TEXT)"
	rows := "INSERT INTO %s SELECT g, 1000, 'MINE' FROM generate_series(1, 10) g"
	for _, mode := range []string{"database", "schema", "column"} {
		t.Run(mode, func(t *testing.T) {
			var where []string
			var want string
			var tables [][2]string // database, table
			switch mode {
			case "database":
				prefix := freshDB(t, "fix28n_fe")
				pattern := prefix + "_%d"
				for i := 1; i <= 2; i++ {
					db := fmt.Sprintf(pattern, i)
					t.Cleanup(func() { adminExec(t, "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)") })
					adminExec(t, "CREATE DATABASE "+db)
					tables = append(tables, [2]string{db, "bank"})
				}
				where = []string{"--tenants", "2", "--tenant-pattern", pattern, dbURL(t, "postgres")}
				want = fmt.Sprintf("databases %s, %s are not tenants stampede made", tables[0][0], tables[1][0])
			case "schema":
				db := freshDB(t, "fix28n_fs")
				adminExec(t, "CREATE DATABASE "+db)
				execIn(t, db, "CREATE SCHEMA bank_1", "CREATE SCHEMA bank_2")
				tables = [][2]string{{db, "bank_1.bank"}, {db, "bank_2.bank"}}
				where = []string{"--tenants", "2", "--tenant-mode", "schema", dbURL(t, db)}
				want = "schemas bank_1, bank_2 are not tenants stampede made"
			case "column":
				db := freshDB(t, "fix28n_fc")
				adminExec(t, "CREATE DATABASE "+db)
				tables = [][2]string{{db, "bank"}}
				where = []string{"--tenants", "2", "--tenant-mode", "column", dbURL(t, db)}
				want = fmt.Sprintf("table bank in database %q is not a column-mode fleet's table stampede made", db)
			}
			for _, tb := range tables {
				execIn(t, tb[0], fmt.Sprintf(users, tb[1]), fmt.Sprintf(rows, tb[1]))
			}
			for _, verb := range [][]string{
				{"run", "bank", "--rows", "10", "--duration", "1s", "--results-dir", res},
				{"check", "bank", "--rows", "10"},
			} {
				r := stampede(t, append(append([]string(nil), verb...), where...)...)
				checkOneLineError(t, r, 2, want)
				if !strings.Contains(r.stderr, verb[0]+" ") || !strings.Contains(r.stderr, "left them alone") && !strings.Contains(r.stderr, "left it alone") {
					t.Errorf("%s: the refusal does not name the command and say it left them alone:\n%s", verb[0], r.stderr)
				}
			}
			for _, tb := range tables {
				q := fmt.Sprintf("SELECT count(*) FROM %s WHERE balance = 1000 AND payload = 'MINE'", tb[1])
				if n := queryInt(t, tb[0], q); n != 10 {
					t.Errorf("%s.%s: %d of the user's 10 rows unchanged, want 10", tb[0], tb[1], n)
				}
			}
		})
	}
}

// TestCheckBulkInsertAndRunPgbench checks two answers of normal use:
// `check bulk_insert` after its init says in one line that bulk_insert
// has no consistency checks and exits 0 (in stampede's form and
// sysbench's), where it exited 2; `run pgbench` names the two commands
// that run pgbench's transactions.
func TestCheckBulkInsertAndRunPgbench(t *testing.T) {
	testServer(t)
	db := freshDB(t, "fix28n_bi")
	adminExec(t, "CREATE DATABASE "+db)
	if r := stampede(t, "init", "bulk_insert", dbURL(t, db)); r.code != 0 {
		t.Fatalf("init bulk_insert: exit %d\n%s", r.code, r.stderr)
	}
	line := "bulk_insert has no consistency checks (sysbench's bulk_insert has none either): nothing to check\n"
	for _, args := range [][]string{
		{"check", "bulk_insert", dbURL(t, db)},
		append(append([]string{"bulk_insert"}, sysbenchConn(t, db)...), "check"),
	} {
		r := stampede(t, args...)
		if r.code != 0 || r.stdout != line {
			t.Errorf("%s: exit %d, stdout %q, want 0 and %q\n%s", args, r.code, r.stdout, line, r.stderr)
		}
	}
	r := stampede(t, "run", "pgbench", "--duration", "1s", dbURL(t, db))
	checkOneLineError(t, r, 2, "workload pgbench cannot be run itself: run pgbench's transactions on its tables with `stampede run sql -b tpcb-like --duration 1s ")
	if !strings.Contains(r.stderr, "`stampede pgbench`") {
		t.Errorf("run pgbench does not name `stampede pgbench`:\n%s", r.stderr)
	}
}

// roleURL is database db's URL as role.
func roleURL(t *testing.T, db, role string) string {
	t.Helper()
	u, err := url.Parse(dbURL(t, db))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(role)
	return u.String()
}

// TestLimitedRoleAnswers runs cleanup, fleet check and fleet run as roles
// without the privileges they need: each answers in one line that names
// the privilege and who has it (not a raw "permission denied ... (SQLSTATE
// 42501)"), and nothing is dropped; a fleet check given init's --rows
// passes though the role may not read the tenants' marker, and a run
// without it says that the marker could not be read and to give init's
// flags instead of advising a reload at the default size; a fleet's
// cleanup by a role that does not own its schemas or databases drops
// nothing and says who owns them.
func TestLimitedRoleAnswers(t *testing.T) {
	testServer(t)
	res := t.TempDir()
	role := fmt.Sprintf("fix28n_lim_%d", time.Now().UnixNano()%1e9)
	adminExec(t, "CREATE ROLE "+role+" LOGIN")
	own := freshDB(t, "fix28n_own")
	own2 := freshDB(t, "fix28n_own2")
	fl := freshDB(t, "fix28n_fl")
	t.Cleanup(func() {
		adminExec(t, "DROP DATABASE IF EXISTS "+own+" WITH (FORCE)", "DROP DATABASE IF EXISTS "+own2+" WITH (FORCE)",
			"DROP DATABASE IF EXISTS "+fl+" WITH (FORCE)", "DROP ROLE IF EXISTS "+role)
	})
	adminExec(t, "CREATE DATABASE "+own, "CREATE DATABASE "+own2, "CREATE DATABASE "+fl)
	for _, a := range [][]string{
		{"init", "bank", "--rows", "10", dbURL(t, own)},
		{"init", "tpcc", "--warehouses", "1", dbURL(t, own2)},
		{"init", "bank", "--rows", "10", "--tenants", "2", "--tenant-mode", "schema", dbURL(t, fl)},
	} {
		if r := stampede(t, a...); r.code != 0 {
			t.Fatalf("%s: exit %d\n%s", a, r.code, r.stderr)
		}
	}
	execIn(t, own, "ALTER TABLE bank OWNER TO "+role)
	execIn(t, own2, "ALTER TABLE customer OWNER TO "+role, "ALTER TABLE item OWNER TO "+role, "GRANT SELECT, DELETE ON stampede_load TO "+role)
	execIn(t, fl, "GRANT USAGE ON SCHEMA bank_1, bank_2 TO "+role, "GRANT SELECT, UPDATE ON bank_1.bank, bank_2.bank TO "+role)
	for _, tc := range []struct {
		name  string
		args  []string
		code  int
		want  string
		db    string
		count string
		keep  int64
	}{
		{"cleanup bank without SELECT on stampede_load", []string{"cleanup", "bank", roleURL(t, own, role)}, 1,
			"role " + role + " may not read table stampede_load (stampede's record of what init loaded), which belongs to role postgres: connect as postgres or a superuser, or have postgres `GRANT SELECT, DELETE ON stampede_load TO " + role + "`; cleanup removes the load's record there, so it drops nothing",
			own, "SELECT count(*) FROM bank", 10},
		{"cleanup tpcc owning some tables", []string{"cleanup", "tpcc", roleURL(t, own2, role)}, 2,
			"belongs to role postgres, and role " + role + " may not drop it (only its owner may): connect as its owner postgres or a superuser; nothing was dropped",
			own2, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'stampede_load'", 10},
		{"fleet run without --rows, marker unreadable", []string{"run", "bank", "--tenants", "2", "--tenant-mode", "schema", "--duration", "1s", "--results-dir", res, roleURL(t, fl, role)}, 1,
			"does not hold what the run needs: table bank in database " + fl + " has no account 999: it holds 10 accounts, fewer than --rows 1000; this role may not read table stampede_tenant in schema \"bank_1\" of database \"" + fl + "\", where init recorded the fleet's data flags, so the defaults --initial-balance 1000, --rows 1000 stand: give init's data flags on the command line",
			fl, "SELECT count(*) FROM bank_1.bank", 10},
		{"fleet cleanup, schemas not owned", []string{"cleanup", "bank", "--tenants", "2", "--tenant-mode", "schema", roleURL(t, fl, role)}, 2,
			"schema bank_1 belongs to role postgres, and role " + role + " may not drop it (only its owner may): connect as its owner postgres or a superuser; nothing was dropped",
			fl, "SELECT count(*) FROM bank_2.bank", 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := stampede(t, tc.args...)
			checkFinalError(t, r, tc.code, tc.want)
			if strings.Contains(r.stderr, "SQLSTATE") || strings.Contains(r.stderr, "reload") {
				t.Errorf("raw server error or reload advice:\n%s", r.stderr)
			}
			if n := queryInt(t, tc.db, tc.count); n != tc.keep {
				t.Errorf("%s = %d after the refusal, want %d", tc.count, n, tc.keep)
			}
		})
	}
	// A database-mode fleet: its databases belong to postgres.
	pattern := own + "_t%d"
	t.Cleanup(func() {
		adminExec(t, "DROP DATABASE IF EXISTS "+fmt.Sprintf(pattern, 1)+" WITH (FORCE)", "DROP DATABASE IF EXISTS "+fmt.Sprintf(pattern, 2)+" WITH (FORCE)")
	})
	if r := stampede(t, "init", "bank", "--rows", "10", "--tenants", "2", "--tenant-pattern", pattern, dbURL(t, own)); r.code != 0 {
		t.Fatalf("init of a database fleet: exit %d\n%s", r.code, r.stderr)
	}
	r := stampede(t, "run", "bank", "--rows", "10", "--tenants", "2", "--tenant-pattern", pattern, "--duration", "1s", "--results-dir", res, roleURL(t, own, role))
	// Refused in one line saying what the role may not read: the
	// tenant's table, or (when another test left a --tenant-roles
	// fleet's secret table in the admin database) that table.
	checkFinalError(t, r, 1, "permission denied")
	r = stampede(t, "cleanup", "bank", "--tenants", "2", "--tenant-pattern", pattern, roleURL(t, own, role))
	checkOneLineError(t, r, 2, "database "+fmt.Sprintf(pattern, 1)+" belongs to role postgres, and role "+role+" may not drop it (only its owner may): connect as its owner postgres or a superuser; nothing was dropped")
	if n := queryInt(t, fmt.Sprintf(pattern, 2), "SELECT count(*) FROM bank"); n != 10 {
		t.Errorf("tenant 2 holds %d rows after the refused cleanup, want 10", n)
	}
	r = stampede(t, "check", "bank", "--rows", "10", "--tenants", "2", "--tenant-mode", "schema", roleURL(t, fl, role))
	if r.code != 0 || !strings.Contains(r.stdout, "2 tenants checked, 0 failed") {
		t.Errorf("fleet check --rows 10 as a role that may not read the marker: exit %d, want 0\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestTenantRolesGiveBackPublicCreate checks that a schema-mode init
// --tenant-roles over a database whose owner granted CREATE on schema
// public to PUBLIC revokes it (as before) and that cleanup grants exactly
// that back, saying so in one line: the user's other roles may create
// tables there again (before, the grant was gone for good).
func TestTenantRolesGiveBackPublicCreate(t *testing.T) {
	testServer(t)
	db := freshDB(t, "fix28n_acl")
	adminExec(t, "CREATE DATABASE "+db)
	execIn(t, db, "GRANT CREATE ON SCHEMA public TO PUBLIC")
	acl := "SELECT count(*) FROM pg_namespace, aclexplode(nspacl) a WHERE nspname = 'public' AND a.grantee = 0 AND a.privilege_type = 'CREATE'"
	fleetArgs := []string{"--tenants", "2", "--tenant-mode", "schema", dbURL(t, db)}
	if r := stampede(t, append([]string{"init", "bank", "--rows", "10", "--tenant-roles"}, fleetArgs...)...); r.code != 0 {
		t.Fatalf("init: exit %d\n%s", r.code, r.stderr)
	}
	if n := queryInt(t, db, acl); n != 0 {
		t.Fatalf("after init --tenant-roles PUBLIC still has CREATE on schema public")
	}
	r := stampede(t, append([]string{"cleanup", "bank"}, fleetArgs...)...)
	want := fmt.Sprintf("gave back PUBLIC's CREATE on schema public of database %q, which init --tenant-roles revoked\n", db)
	if r.code != 0 || strings.Count(r.stdout+r.stderr, want) != 1 {
		t.Errorf("cleanup: exit %d, want 0 and the line %q\n%s%s", r.code, want, r.stdout, r.stderr)
	}
	if n := queryInt(t, db, acl); n != 1 {
		t.Errorf("after cleanup PUBLIC has %d CREATE grants on schema public, want the user's 1", n)
	}
	// A database where PUBLIC had no CREATE (PostgreSQL 15's default)
	// gets none: cleanup gives back only what init took.
	db2 := freshDB(t, "fix28n_acl2")
	adminExec(t, "CREATE DATABASE "+db2)
	fleetArgs[len(fleetArgs)-1] = dbURL(t, db2)
	if r := stampede(t, append([]string{"init", "bank", "--rows", "10", "--tenant-roles"}, fleetArgs...)...); r.code != 0 {
		t.Fatalf("init: exit %d\n%s", r.code, r.stderr)
	}
	r = stampede(t, append([]string{"cleanup", "bank"}, fleetArgs...)...)
	if r.code != 0 || strings.Contains(r.stdout+r.stderr, "gave back") || queryInt(t, db2, acl) != 0 {
		t.Errorf("cleanup over a database where PUBLIC had no CREATE: exit %d, want 0, no grant\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestFleetCleanupSaysHowFarItGot makes a database-mode fleet cleanup
// fail part-way (tenant 2 is made a template database, which DROP
// DATABASE refuses): the error says how many tenants it dropped, of how
// many, and names exactly those that remain (checked against
// pg_database), and the same cleanup drops them once the cause is gone.
func TestFleetCleanupSaysHowFarItGot(t *testing.T) {
	testServer(t)
	pattern := freshDB(t, "fix28n_pc") + "_%d"
	for i := 1; i <= 3; i++ {
		n := fmt.Sprintf(pattern, i)
		t.Cleanup(func() {
			adminExec(t, "UPDATE pg_database SET datistemplate = false WHERE datname = '"+n+"'", "DROP DATABASE IF EXISTS "+n+" WITH (FORCE)")
		})
	}
	fleetArgs := []string{"--tenants", "3", "--tenant-pattern", pattern, dbURL(t, "postgres")}
	if r := stampede(t, append([]string{"init", "bank", "--rows", "10"}, fleetArgs...)...); r.code != 0 {
		t.Fatalf("init: exit %d\n%s", r.code, r.stderr)
	}
	stuck := fmt.Sprintf(pattern, 2)
	adminExec(t, "ALTER DATABASE "+stuck+" IS_TEMPLATE true")
	r := stampede(t, append([]string{"cleanup", "bank"}, fleetArgs...)...)
	var left []string
	for i := 1; i <= 3; i++ {
		if n := fmt.Sprintf(pattern, i); queryInt(t, "postgres", "SELECT count(*) FROM pg_database WHERE datname = '"+n+"'") == 1 {
			left = append(left, n)
		}
	}
	want := fmt.Sprintf("dropped %d of 3 tenant databases, then stopped at dropping database %q: ", 3-len(left), stuck)
	lines := checkFinalError(t, r, 1, want)
	last := lines[len(lines)-1]
	tail := fmt.Sprintf("; %d not dropped (%s): run the same cleanup again to drop them", len(left), strings.Join(left, ", "))
	if !strings.HasSuffix(last, tail) {
		t.Errorf("the error does not end %q:\n%s", tail, last)
	}
	adminExec(t, "ALTER DATABASE "+stuck+" IS_TEMPLATE false")
	if r := stampede(t, append([]string{"cleanup", "bank"}, fleetArgs...)...); r.code != 0 || !strings.Contains(r.stdout+r.stderr, fmt.Sprintf("dropped %d tenant databases", len(left))) && len(left) > 1 {
		t.Errorf("the second cleanup: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestRunsOverRealPgbenchTablesWarn loads pgbench's tables with the real
// pgbench (pgbench -i: no record or mark of stampede's) and adds a row of
// the user's to pgbench_history: the pgbench form without -n still
// empties it, as pgbench does, but first warns naming the table and its
// row count; `run sql -b tpcb-like` warns that it writes into pgbench's
// tables stampede did not load, as every run does.
func TestRunsOverRealPgbenchTablesWarn(t *testing.T) {
	testServer(t)
	if _, err := exec.LookPath("pgbench"); err != nil {
		t.Skip("pgbench is not installed")
	}
	db := freshDB(t, "fix28n_pg")
	adminExec(t, "CREATE DATABASE "+db)
	if out, err := exec.Command("pgbench", "-i", "-s", "1", "-q", dbURL(t, db)).CombinedOutput(); err != nil {
		t.Fatalf("pgbench -i: %v\n%s", err, out)
	}
	mine := "INSERT INTO pgbench_history VALUES (1, 1, 1, 42, now(), 'MINE')"
	execIn(t, db, mine)
	u, err := url.Parse(dbURL(t, db))
	if err != nil {
		t.Fatal(err)
	}
	r := stampede(t, "pgbench", "-T", "1", "-h", u.Hostname(), "-p", u.Port(), "-U", u.User.Username(), db)
	want := fmt.Sprintf("pgbench: warning: pgbench_history in database %q was not made by stampede: emptying its 1 row before the run, as pgbench does without -n (give -n to keep it)\n", db)
	if r.code != 0 || strings.Count(r.stderr, want) != 1 {
		t.Errorf("pgbench -T 1: exit %d, want 0 and the line %q\n%s", r.code, want, r.stderr)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM pgbench_history WHERE filler = 'MINE'"); n != 0 {
		t.Errorf("the pgbench form kept pgbench_history (pgbench empties it)")
	}
	execIn(t, db, mine)
	r = stampede(t, "run", "sql", "-b", "tpcb-like", "--duration", "1s", "--results-dir", t.TempDir(), dbURL(t, db))
	want = fmt.Sprintf("warning: stampede did not load tables pgbench_branches, pgbench_accounts, pgbench_tellers, pgbench_history in database %q (no record of its init there, no mark on them)", db)
	if r.code != 0 || strings.Count(r.stderr, want) != 1 {
		t.Errorf("run sql -b tpcb-like: exit %d, want 0 and one line starting %q\n%s", r.code, want, r.stderr)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM pgbench_history WHERE filler = 'MINE'"); n != 1 {
		t.Errorf("run sql emptied the user's pgbench_history")
	}
}
