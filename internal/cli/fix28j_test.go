package cli_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestCleanupTakesInitsTables checks that cleanup of a sysbench OLTP load
// made with --tables 2 drops both tables, in stampede's form and in
// sysbench's, without --tables: it takes init's recorded data flags as
// run and check do, so that no table of the load is left behind (and
// init works again); a --tables that differs from the load's is refused
// before anything is dropped.
func TestCleanupTakesInitsTables(t *testing.T) {
	testServer(t)
	for _, tc := range []struct {
		name    string
		cleanup func(db string) []string
	}{
		{"stampede form", func(db string) []string { return []string{"cleanup", "oltp_read_write", dbURL(t, db)} }},
		{"sysbench form", func(db string) []string {
			return append(append([]string{"oltp_read_write"}, sysbenchConn(t, db)...), "cleanup")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := freshDB(t, "fix28j_ct")
			adminExec(t, "CREATE DATABASE "+db)
			initArgs := []string{"init", "oltp_read_write", "--tables", "2", "--table-size", "100", dbURL(t, db)}
			if r := stampede(t, initArgs...); r.code != 0 {
				t.Fatalf("init: exit %d\n%s", r.code, r.stderr)
			}
			r := stampede(t, "cleanup", "oltp_read_write", "--tables", "1", dbURL(t, db))
			if r.code != 2 || !strings.Contains(r.stderr, "--tables 1 differs from what init (of oltp_read_write) loaded") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
				t.Errorf("cleanup --tables 1 of a 2-table load: exit %d, want 2 and one line naming --tables:\n%s", r.code, r.stderr)
			}
			if n := queryInt(t, db, "SELECT count(*) FROM pg_tables WHERE tablename LIKE 'sbtest%'"); n != 2 {
				t.Fatalf("the refused cleanup left %d sbtest tables, want 2", n)
			}
			r = stampede(t, tc.cleanup(db)...)
			if r.code != 0 {
				t.Fatalf("cleanup: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			if n := queryInt(t, db, "SELECT count(*) FROM pg_tables WHERE tablename LIKE 'sbtest%'"); n != 0 {
				t.Errorf("cleanup left %d sbtest tables\n%s%s", n, r.stdout, r.stderr)
			}
			if tc.name == "sysbench form" {
				for _, tb := range []string{"sbtest1", "sbtest2"} {
					if !strings.Contains(r.stdout, "Dropping table '"+tb+"'...") {
						t.Errorf("sysbench form does not say it drops %s:\n%s", tb, r.stdout)
					}
				}
			}
			if r := stampede(t, initArgs...); r.code != 0 {
				t.Errorf("init after cleanup: exit %d\n%s", r.code, r.stderr)
			}
		})
	}
}

// TestRunBulkInsertWarnsOverTablesNotLoaded checks that a bulk_insert run
// that appends to a user's sbtest1 (no record, no mark) warns first, in
// one line naming it, in stampede's form and in sysbench's, as the other
// workloads' runs do (TestRunWarnsOverTablesNotLoaded); and that a run
// over the tables stampede made does not.
func TestRunBulkInsertWarnsOverTablesNotLoaded(t *testing.T) {
	testServer(t)
	res := t.TempDir()
	t.Setenv("STAMPEDE_RESULTS_DIR", res)
	users := freshDB(t, "fix28j_bu")
	ours := freshDB(t, "fix28j_bo")
	adminExec(t, "CREATE DATABASE "+users, "CREATE DATABASE "+ours)
	execIn(t, users, "CREATE TABLE sbtest1 (id int PRIMARY KEY, k int)", "INSERT INTO sbtest1 VALUES (1, 42)")
	if r := stampede(t, "init", "bulk_insert", "--threads", "1", dbURL(t, ours)); r.code != 0 {
		t.Fatalf("init bulk_insert: exit %d\n%s", r.code, r.stderr)
	}
	warning := "warning: stampede did not load table "
	for _, tc := range []struct {
		name string
		args []string
		db   string
		warn bool
	}{
		{"stampede form over a user's sbtest1", []string{"run", "bulk_insert", "--concurrency", "1", "--duration", "1s", "--results-dir", res, dbURL(t, users)}, users, true},
		{"sysbench form over a user's sbtest1", append(append([]string{"bulk_insert"}, sysbenchConn(t, users)...), "--threads=1", "--time=1", "run"), users, true},
		{"stampede form over stampede's sbtest1", []string{"run", "bulk_insert", "--concurrency", "1", "--duration", "1s", "--results-dir", res, dbURL(t, ours)}, ours, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := stampede(t, tc.args...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			n := strings.Count(r.stderr, warning)
			switch {
			case !tc.warn && n != 0:
				t.Errorf("warned over the table stampede made:\n%s", r.stderr)
			case tc.warn && n != 1:
				t.Errorf("%d warnings, want 1:\n%s", n, r.stderr)
			case tc.warn:
				line := r.stderr[strings.Index(r.stderr, warning):]
				line = line[:strings.Index(line, "\n")]
				want := warning + `sbtest1 in database "` + tc.db + `" (no record of its init there, no mark on it): the run writes into its rows as they are; if they matter, run on a copy (` + "`stampede init bulk_insert` loads one)"
				if line != want {
					t.Errorf("warning %q, want %q", line, want)
				}
			}
		})
	}
	if n := queryInt(t, users, "SELECT count(*) FROM sbtest1 WHERE id = 1 AND k = 42"); n != 1 {
		t.Errorf("the user's row (1, 42) is gone")
	}
}

// TestFleetRunCheckTakeInitsFlags checks that run and check of a fleet
// loaded with --rows 10 take the data flags init recorded in its marker,
// in database, schema and column modes, as a single database's do: check
// passes (10 accounts of 1000 each) and run runs, saying which flags it
// took, where both assumed --rows 1000 before.
func TestFleetRunCheckTakeInitsFlags(t *testing.T) {
	testServer(t)
	res := t.TempDir()
	for _, mode := range []string{"database", "schema", "column"} {
		t.Run(mode, func(t *testing.T) {
			var where []string
			if mode == "database" {
				prefix := freshDB(t, "fix28j_ft")
				pattern := prefix + "_%d"
				t.Cleanup(func() {
					adminExec(t, fmt.Sprintf("DROP DATABASE IF EXISTS "+pattern+" WITH (FORCE)", 1), fmt.Sprintf("DROP DATABASE IF EXISTS "+pattern+" WITH (FORCE)", 2))
				})
				where = []string{"--tenants", "2", "--tenant-pattern", pattern, dbURL(t, "postgres")}
			} else {
				db := freshDB(t, "fix28j_fs")
				adminExec(t, "CREATE DATABASE "+db)
				where = []string{"--tenants", "2", "--tenant-mode", mode, dbURL(t, db)}
			}
			if r := stampede(t, append([]string{"init", "bank", "--rows", "10"}, where...)...); r.code != 0 {
				t.Fatalf("init: exit %d\n%s", r.code, r.stderr)
			}
			note := "note: using --rows=10, as init (of bank) loaded the fleet"
			r := stampede(t, append([]string{"check", "bank"}, where...)...)
			if r.code != 0 {
				t.Errorf("check: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stderr, note) {
				t.Errorf("check does not say it took --rows=10:\n%s", r.stderr)
			}
			r = stampede(t, append([]string{"run", "bank", "--duration", "1s", "--results-dir", res}, where...)...)
			if r.code != 0 {
				t.Errorf("run: exit %d\n%s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, note) {
				t.Errorf("run does not say it took --rows=10:\n%s", r.stderr)
			}
			// A scale other than init's is refused as a single
			// database refuses it (exit 2, one line), not reported
			// as failed checks or missing tenants.
			summary := "2 tenants (" + mode + " mode)"
			if mode == "database" {
				summary = "2 tenants (database mode, " + where[3] + ")"
			} else if mode == "schema" {
				summary = "2 tenants (schema mode, bank_%d)"
			}
			for _, verb := range [][]string{{"check", "bank"}, {"run", "bank", "--duration", "1s", "--results-dir", res}} {
				r := stampede(t, append(append(verb, "--rows", "1000"), where...)...)
				want := "stampede: error: --rows 1000 differs from what init (of bank) loaded into the fleet's " + summary +
					", --rows 10: give --rows 10, or reload the fleet with `stampede init bank --drop --rows 1000 --tenants 2"
				lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
				if r.code != 2 || !strings.HasPrefix(lines[len(lines)-1], want) || strings.Contains(r.stderr, "missing or incomplete") {
					t.Errorf("%s --rows 1000 of a fleet of 10 accounts each: exit %d, want 2 and a last line starting %q:\n%s%s", verb[0], r.code, want, r.stdout, r.stderr)
				}
			}
		})
	}
}
