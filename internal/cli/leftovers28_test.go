package cli_test

import (
	"strings"
	"testing"
)

// TestRunTPCCMissingTable: every form of a TPC-C run over a load that
// lacks a table the user dropped refuses before starting, in one line
// that names the table and the reload (exit 2), as check does; it used to
// run into the server's raw 42P01.
func TestRunTPCCMissingTable(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	plain, hammer := freshDB(t, "fix28l_tpcc"), freshDB(t, "fix28l_hdb")
	for _, l := range []struct {
		db   string
		args []string
	}{
		{plain, []string{"init", "tpcc", "--warehouses", "1"}},
		{hammer, []string{"init", "tpcc", "--profile", "hammerdb", "--warehouses", "1"}},
	} {
		if r := stampede(t, append(l.args, dbURL(t, l.db))...); r.code != 0 {
			t.Fatalf("%s: exit %d\n%s", l.args, r.code, r.stderr)
		}
		execIn(t, l.db, "DROP TABLE customer CASCADE")
	}
	for _, c := range []struct {
		args   []string
		reload string
	}{
		{[]string{"run", "tpcc", "--duration", "2s", dbURL(t, plain)}, "`stampede init tpcc --drop --warehouses 1 "},
		{[]string{"workload", "run", "tpcc", "--duration", "2s", "--db", plain, dbURL(t, plain)}, "`stampede workload init tpcc --drop --warehouses 1 "},
		{[]string{"run", "tpcc", "--profile", "hammerdb", "--duration", "2s", dbURL(t, hammer)}, "`stampede init tpcc --profile hammerdb --drop --warehouses 1 "},
	} {
		r := stampede(t, c.args...)
		checkFinalError(t, r, 2, "lacks table customer of the TPC-C load that tpcc_meta records (dropped since init loaded it): nothing to run; reload with "+c.reload)
		if strings.Contains(r.stderr, "42P01") || strings.Contains(r.stderr, "results saved") {
			t.Errorf("%s: the run started before refusing:\n%s", c.args, r.stderr)
		}
	}
}
