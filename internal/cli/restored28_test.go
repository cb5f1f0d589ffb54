package cli_test

import (
	"strings"
	"testing"
)

// TestRestoreFromAnotherServerRefused: a new cluster gives its first
// database and tables the same OIDs as every other new cluster's, so a
// pg_dump of a loaded database restored into a new server matched the
// record's database OID and every bound mark, and cleanup and --drop
// dropped the restore's rows, a user's row among them, exit 0 (chk28e
// F1). The record now holds the server's system identifier
// (pg_control_system()): init writes this server's, and a record written
// on another server (as a restore's is; the test writes another
// identifier into it, since two new clusters cannot be had in a test
// cheaply: the checker ran two) is refused in one line by every form,
// each row kept, and --force-drop drops it.
func TestRestoreFromAnotherServerRefused(t *testing.T) {
	srv := testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "restored")
	adminExec(t, "CREATE DATABASE "+db)
	u := dbURL(t, db)
	mustRun(t, "init", "bank", "--rows", "100", u)
	if got := queryInt(t, db, "SELECT count(*) FROM stampede_load WHERE cluster_id = (SELECT system_identifier::text FROM pg_control_system())"); got != 1 {
		t.Fatalf("%d records hold this server's system identifier, want 1", got)
	}
	execIn(t, db, "UPDATE stampede_load SET cluster_id = '7000000000000000001'", "INSERT INTO bank VALUES (5000, 42, 'mine')")
	for _, args := range [][]string{
		{"cleanup", "bank", u},
		{"init", "bank", "--drop", "--rows", "100", u},
		{"workload", "init", "bank", "--drop", "--rows", "100", "--db", db, strings.Replace(u, "/"+db+"?", "?", 1)},
		{"init", "bank", "--drop", "--rows", "100", "--db", db, srv},
	} {
		r := stampede(t, args...)
		checkOneLineError(t, r, 2, `database "`+db+`" looks like a restore of a pg_dump made on another server`)
		if !strings.Contains(r.stderr, "system identifier is 7000000000000000001") || !strings.Contains(r.stderr, "--force-drop") {
			t.Errorf("%v: %s", args, r.stderr)
		}
		if got := queryInt(t, db, "SELECT count(*) FROM bank"); got != 101 {
			t.Fatalf("%v: %d rows after the refusal, want 101", args, got)
		}
	}
	r := mustRun(t, "cleanup", "bank", "--force-drop", u)
	if !strings.Contains(r.stderr, "--force-drop: dropping the tables of database") || queryInt(t, db, "SELECT count(*) FROM pg_tables WHERE tablename = 'bank'") != 0 {
		t.Errorf("cleanup --force-drop: %q %q", r.stdout, r.stderr)
	}
}

// TestTableRestoredFromDumpRefused: `pg_dump -t bank | psql` into a new
// server restores the table with its comment, stampede's mark bound to
// its OID, which on a new server is the same OID; no record comes with
// it, and cleanup took the mark alone for its own and dropped the table,
// a user's row with it (the recheck of chk28e). A table stampede makes
// on PostgreSQL carries the mark on its row type too, which pg_dump does
// not dump: one without it is refused. The test makes that state in one
// database (the dump's restore needs two new clusters): init, then the
// record dropped and the row type's mark removed.
func TestTableRestoredFromDumpRefused(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "restored_t")
	adminExec(t, "CREATE DATABASE "+db)
	u := dbURL(t, db)
	mustRun(t, "init", "bank", "--rows", "100", u)
	execIn(t, db, "DROP TABLE stampede_load", "COMMENT ON TYPE bank IS NULL", "INSERT INTO bank VALUES (100000, 5, 'user data')")
	for _, args := range [][]string{{"cleanup", "bank", u}, {"init", "bank", "--drop", "--rows", "100", u}} {
		r := stampede(t, args...)
		checkOneLineError(t, r, 2, `table bank in database "`+db+`"`)
		if !strings.Contains(r.stderr, "--force-drop") {
			t.Errorf("%v: %s", args, r.stderr)
		}
		if got := queryInt(t, db, "SELECT count(*) FROM bank"); got != 101 {
			t.Fatalf("%v: %d rows after the refusal, want 101", args, got)
		}
	}
}
