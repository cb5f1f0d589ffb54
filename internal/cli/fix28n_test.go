package cli_test

import (
	"fmt"
	"strings"
	"testing"
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
