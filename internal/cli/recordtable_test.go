package cli_test

import (
	"net/url"
	"testing"
)

// TestRecordTableNeverAWorkloadsTable: a table flag naming stampede's
// record of its loads (ycsb's -p table=stampede_load) is refused in one
// line that says what the table is, by init and by cleanup, with or
// without --force-drop, and the record of the other loads stays
// (cleanup said the record "was not made by stampede", and --force-drop
// dropped it).
func TestRecordTableNeverAWorkloadsTable(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "recordtable")
	mustRun(t, "init", "bank", "--rows", "10", dbURL(t, db))
	records := queryInt(t, db, "SELECT count(*) FROM stampede_load")
	for _, tc := range []struct {
		name string
		args []string
		verb string
	}{
		{"cleanup", []string{"cleanup", "ycsb", "-p", "table=stampede_load"}, "cleanup"},
		{"cleanup --force-drop", []string{"cleanup", "ycsb", "-p", "table=stampede_load", "--force-drop"}, "cleanup"},
		{"init --drop --force-drop", []string{"init", "ycsb", "--drop", "--force-drop", "-p", "table=stampede_load", "-p", "recordcount=10"}, "init"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := stampede(t, append(tc.args, dbURL(t, db))...)
			checkOneLineError(t, r, 2, "table stampede_load is stampede's record of the loads in the database, not a table of ycsb: "+tc.verb+" never takes it for one (--force-drop neither); give ycsb's table another name")
			if n := queryInt(t, db, "SELECT count(*) FROM stampede_load"); n != records || records == 0 {
				t.Errorf("stampede_load holds %d records, want the %d it held", n, records)
			}
		})
	}
}

// TestSysbenchPrepareNamesUsersTable: sysbench's prepare over sbtest1 of
// stampede's load and sbtest2 of the user's names sbtest2 as the table
// stampede did not make, in sysbench's form; it suggested --drop (no
// sysbench option) and a cleanup that was then refused. The user's row
// stays.
func TestSysbenchPrepareNamesUsersTable(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "sbusers")
	mustRun(t, "oltp_read_write", "--tables=1", "--table-size=10", "prepare", dbURL(t, db))
	execIn(t, db, "CREATE TABLE sbtest2 (id int PRIMARY KEY, k int, c text, pad text)", "INSERT INTO sbtest2 VALUES (1, 1, 'mine', 'x')")
	r := stampede(t, "oltp_read_write", "--tables=2", "--table-size=10", "prepare", dbURL(t, db))
	checkFinalError(t, r, 2, `table sbtest2 already exists in database "`+db+`" and stampede did not make it: load into another database (--pgsql-db=NAME), or to drop it anyway, add --force-drop`)
	if n := queryInt(t, db, "SELECT count(*) FROM sbtest2 WHERE c = 'mine'"); n != 1 {
		t.Errorf("the user's row: %d left", n)
	}
}

// TestPgbenchInitNamesAddedColumn: pgbench -i over stampede's own
// pgbench load with a column the user added and filled refuses naming
// the column as cleanup pgbench does (it said the table was one
// "which stampede did not make"); the user's value stays.
func TestPgbenchInitNamesAddedColumn(t *testing.T) {
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	u, _ := url.Parse(testServer(t))
	db := freshDB(t, "pgbadded")
	adminExec(t, "CREATE DATABASE "+db)
	form := []string{"pgbench", "-i", "-s", "1", "-h", u.Hostname(), "-p", u.Port(), "-U", u.User.Username(), db}
	mustRun(t, form...)
	execIn(t, db, "ALTER TABLE pgbench_accounts ADD COLUMN note text", "UPDATE pgbench_accounts SET note = 'mine' WHERE aid = 1")
	r := stampede(t, form...)
	checkFinalError(t, r, 2, `-i would drop pgbench_accounts in database "`+db+`" on `+u.Host+`: column pgbench_accounts.note of stampede's table is not stampede's (added since init): nothing was dropped; to drop it anyway, add --force-drop`)
	if n := queryInt(t, db, "SELECT count(*) FROM pgbench_accounts WHERE note = 'mine'"); n != 1 {
		t.Errorf("the user's value: %d left", n)
	}
}
