package cli_test

import (
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
