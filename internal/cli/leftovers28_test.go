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

// TestInitOverOtherSysbenchLoad: init of bulk_insert over the tables of
// an oltp_* load, and init of oltp_read_write over bulk_insert's tables,
// refuse in one line that names the other load and its cleanup (init
// bulk_insert used to say "loaded 0 rows", exit 0; init oltp_read_write
// called bulk_insert's table one that stampede did not make); the rows
// stay, and the cleanup named makes room.
func TestInitOverOtherSysbenchLoad(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	oltp, bulk := freshDB(t, "fix28l_oltp"), freshDB(t, "fix28l_bulk")
	for _, args := range [][]string{
		{"init", "oltp_read_write", "--tables", "2", "--table-size", "100", dbURL(t, oltp)},
		{"init", "bulk_insert", dbURL(t, bulk)},
		{"run", "bulk_insert", "--threads", "1", "--time", "1", dbURL(t, bulk)},
	} {
		if r := stampede(t, args...); r.code != 0 {
			t.Fatalf("%s: exit %d\n%s", args, r.code, r.stderr)
		}
	}
	bulkRows := queryInt(t, bulk, "SELECT count(*) FROM sbtest1")
	for _, c := range []struct {
		db, init, other string
		want            string
		rows            map[string]int64
	}{
		{oltp, "bulk_insert", "oltp_read_write",
			"tables sbtest1 (oltp_read_write), sbtest2 (oltp_read_write) in database \"" + oltp + "\" on 127.0.0.1:",
			map[string]int64{"sbtest1": 100, "sbtest2": 100}},
		{bulk, "oltp_read_write", "bulk_insert",
			"table sbtest1 in database \"" + bulk + "\" is stampede's load of bulk_insert, not of oltp_read_write: `stampede cleanup bulk_insert ",
			map[string]int64{"sbtest1": bulkRows}},
	} {
		r := stampede(t, "init", c.init, dbURL(t, c.db))
		checkOneLineError(t, r, 2, c.want)
		if !strings.Contains(r.stderr, "`stampede cleanup "+c.other+" ") || strings.Contains(r.stderr, "did not make") {
			t.Errorf("init %s: the refusal names no cleanup of %s:\n%s", c.init, c.other, r.stderr)
		}
		for table, want := range c.rows {
			if n := queryInt(t, c.db, "SELECT count(*) FROM "+table); n != want {
				t.Errorf("init %s: %s holds %d rows, want %d", c.init, table, n, want)
			}
		}
		if r := stampede(t, "cleanup", c.other, dbURL(t, c.db)); r.code != 0 {
			t.Fatalf("cleanup %s, as the refusal says: exit %d\n%s", c.other, r.code, r.stderr)
		}
		if r := stampede(t, "init", c.init, dbURL(t, c.db)); r.code != 0 {
			t.Errorf("init %s after the cleanup: exit %d\n%s", c.init, r.code, r.stderr)
		}
	}
}
