package cli_test

import (
	"net/url"
	"strings"
	"testing"
)

// TestCopyWithoutRecordRefused: a TEMPLATE copy of a database stampede
// loaded was refused only while stampede's record (stampede_load) or a
// fleet's marker (stampede_tenant) was in it; with that table dropped in
// the copy, cleanup, --drop and every other form dropped the copy's rows,
// exit 0 (chk28d F1). The database OID in the marks (the tables' row
// types, a tenant schema's comment) tells the copy: each form is refused
// in one line, exit 2, naming --force-drop, and every row of the copy
// survives. It fails on the code before fix28ai.
func TestCopyWithoutRecordRefused(t *testing.T) {
	srv := testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	u, err := url.Parse(srv)
	if err != nil {
		t.Fatal(err)
	}
	sysbench := func(db string) []string {
		return []string{"oltp_read_write", "--db-driver=pgsql", "--pgsql-host=" + u.Hostname(), "--pgsql-port=" + u.Port(),
			"--pgsql-user=" + u.User.Username(), "--pgsql-db=" + db, "--threads=1", "cleanup"}
	}
	for _, tc := range []struct {
		name string
		init []string // the load, before the URL
		drop string   // what the copy's user drops
		rows string   // the copy's rows
		// forms are the dropping commands, each given the copy's name
		// and URL.
		forms func(db, u string) [][]string
		want  string
	}{
		{"bank", []string{"init", "bank", "--rows", "100"}, "DROP TABLE stampede_load", "SELECT count(*) FROM bank",
			func(db, u string) [][]string {
				return [][]string{{"cleanup", "bank", u}, {"init", "bank", "--drop", "--rows", "100", u},
					{"workload", "init", "bank", "--drop", "--rows", "100", "--db", db, strings.Replace(u, "/"+db+"?", "?", 1)}}
			}, "looks like a copy of database"},
		{"ycsb", []string{"init", "ycsb", "-p", "recordcount=100"}, "DROP TABLE stampede_load", "SELECT count(*) FROM usertable",
			func(db, u string) [][]string { return [][]string{{"cleanup", "ycsb", u}} }, "looks like a copy of database"},
		{"sysbench", []string{"init", "oltp_read_write", "--table-size", "100"}, "DROP TABLE stampede_load", "SELECT count(*) FROM sbtest1",
			func(db, u string) [][]string { return [][]string{sysbench(db), {"cleanup", "oltp_read_write", u}} }, "looks like a copy of database"},
		{"pgbench", []string{"pgbench", "-i", "-s", "1"}, "DROP TABLE stampede_load; INSERT INTO pgbench_history VALUES (1, 1, 1, 1, now(), 'mine')",
			"SELECT (SELECT count(*) FROM pgbench_accounts) + (SELECT count(*) FROM pgbench_history)",
			func(db, u string) [][]string {
				return [][]string{{"pgbench", "-i", "-s", "1", u}, {"run", "sql", "-b", "tpcb-like", "--vacuum-first", "--duration", "1s", u}}
			}, "looks like a copy of database"},
		// TPC-C's tpcc_meta spoke for the load: run and check went on
		// over the copy, or (tpcc_meta dropped too) advised an init
		// that refuses the copy's tables, exit 1 (chk28e F7).
		{"tpcc", []string{"init", "tpcc", "--warehouses", "1"}, "DROP TABLE stampede_load", "SELECT count(*) FROM customer",
			func(db, u string) [][]string {
				return [][]string{{"cleanup", "tpcc", u}, {"check", "tpcc", u}, {"run", "tpcc", "--duration", "1s", u}}
			}, "looks like a copy of database"},
		{"tpcc without tpcc_meta", []string{"init", "tpcc", "--warehouses", "1"}, "DROP TABLE stampede_load; DROP TABLE tpcc_meta", "SELECT count(*) FROM customer",
			func(db, u string) [][]string {
				return [][]string{{"check", "tpcc", u}, {"run", "tpcc", "--duration", "1s", u}}
			}, "looks like a copy of database"},
		{"schema fleet", []string{"init", "bank", "--rows", "100", "--tenants", "2", "--tenant-mode", "schema"},
			"DROP TABLE bank_1.stampede_tenant; DROP TABLE bank_2.stampede_tenant", "SELECT (SELECT count(*) FROM bank_1.bank) + (SELECT count(*) FROM bank_2.bank)",
			func(db, u string) [][]string {
				return [][]string{{"cleanup", "bank", "--tenants", "2", "--tenant-mode", "schema", u},
					{"init", "bank", "--drop", "--rows", "100", "--tenants", "2", "--tenant-mode", "schema", u}}
			}, "a copy of the fleet's database"},
		{"column fleet", []string{"init", "bank", "--rows", "100", "--tenants", "3", "--tenant-mode", "column"}, "DROP TABLE stampede_tenant", "SELECT count(*) FROM bank",
			func(db, u string) [][]string {
				return [][]string{{"cleanup", "bank", "--tenants", "3", "--tenant-mode", "column", u},
					{"init", "bank", "--drop", "--rows", "100", "--tenants", "3", "--tenant-mode", "column", u}}
			}, "a copy of the fleet's database"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, cp := freshDB(t, "norec_src"), freshDB(t, "norec_copy")
			adminExec(t, "CREATE DATABASE "+src)
			mustRun(t, append(tc.init, dbURL(t, src))...)
			adminExec(t, "CREATE DATABASE "+cp+" TEMPLATE "+src)
			execIn(t, cp, tc.drop)
			want := queryInt(t, cp, tc.rows)
			if want == 0 {
				t.Fatal("the load left no rows")
			}
			for _, args := range tc.forms(cp, dbURL(t, cp)) {
				r := stampede(t, args...)
				checkOneLineError(t, r, 2, tc.want)
				if !strings.Contains(r.stderr, "--force-drop") {
					t.Errorf("%v: the refusal does not name --force-drop: %s", args, r.stderr)
				}
				if got := queryInt(t, cp, tc.rows); got != want {
					t.Fatalf("%v: %d rows in the copy after the refusal, want %d", args, got, want)
				}
			}
		})
	}
}
