package cli_test

import (
	"net/url"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// pgTool returns the path of PostgreSQL's client tool name (pg_dump,
// psql), skipping the test without it.
func pgTool(t *testing.T, name string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if ps, _ := filepath.Glob("/usr/lib/postgresql/*/bin/" + name); len(ps) > 0 {
		return ps[len(ps)-1]
	}
	t.Skipf("no %s on this machine", name)
	return ""
}

// restoreTables copies tables of database src into database dst as a user
// does, `pg_dump -t T src | psql dst`: the restore copies each table's
// comment, stampede's mark with it, onto a table of a new OID.
func restoreTables(t *testing.T, src, dst string, tables []string) {
	t.Helper()
	u, err := url.Parse(testServer(t))
	if err != nil {
		t.Fatal(err)
	}
	conn := []string{"-h", u.Hostname(), "-p", u.Port(), "-U", u.User.Username()}
	args := append([]string{}, conn...)
	for _, tb := range tables {
		args = append(args, "-t", tb)
	}
	dump := exec.Command(pgTool(t, "pg_dump"), append(args, src)...)
	psql := exec.Command(pgTool(t, "psql"), append(conn, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", dst)...)
	if pw, ok := u.User.Password(); ok {
		dump.Env = append(dump.Environ(), "PGPASSWORD="+pw)
		psql.Env = append(psql.Environ(), "PGPASSWORD="+pw)
	}
	out, err := dump.Output()
	if err != nil {
		t.Fatalf("pg_dump %s: %v", src, err)
	}
	psql.Stdin = strings.NewReader(string(out))
	if msg, err := psql.CombinedOutput(); err != nil {
		t.Fatalf("psql %s: %v: %s", dst, err, msg)
	}
}

// markedTables returns the tables of db whose comment begins with
// stampede's mark, as the server holds them.
func markedTables(t *testing.T, db string) []string {
	t.Helper()
	list := queryString(t, db, `SELECT coalesce(string_agg(relname, ',' ORDER BY relname), '') FROM pg_class
		WHERE relkind IN ('r', 'p') AND relname <> 'stampede_load' AND obj_description(oid, 'pg_class') LIKE 'made by stampede %'`)
	if list == "" {
		return nil
	}
	return strings.Split(list, ",")
}

// rowCounts returns "table:rows" of each of tables in db.
func rowCounts(t *testing.T, db string, tables []string) string {
	t.Helper()
	var out []string
	for _, tb := range tables {
		out = append(out, tb+":"+itoa(int(queryInt(t, db, "SELECT count(*) FROM "+strconv.Quote(tb)))))
	}
	return strings.Join(out, " ")
}

// TestCopiedMarkNeverDrops: a user's copy of stampede's tables, restored
// with `pg_dump -t | psql` into a database where stampede never ran (the
// restore copies the comment, stampede's mark), is refused by cleanup in
// one line naming the tables and --force-drop, and every row survives;
// with --force-drop exactly those tables are dropped. Cleanup dropped them
// with exit 0, as the comment was the only proof. Stampede's own load
// (its marks bound to the tables' OIDs) still cleans up.
func TestCopiedMarkNeverDrops(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	for _, c := range []struct {
		name string
		init []string
	}{
		{"bank", []string{"bank", "--rows", "40"}},
		{"ycsb", []string{"ycsb", "-p", "recordcount=40"}},
		{"sysbench", []string{"oltp_read_write", "--tables", "1", "--table-size", "40"}},
		{"tpcc", []string{"tpcc", "--warehouses", "1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			src, dst := freshDB(t, "cpsrc"), freshDB(t, "cpdst")
			mustRun(t, append([]string{"init"}, append(c.init, dbURL(t, src))...)...)
			tables := markedTables(t, src)
			if len(tables) == 0 {
				t.Fatalf("init %s marked no table", c.name)
			}
			adminExec(t, "CREATE DATABASE "+dst)
			restoreTables(t, src, dst, tables)
			if got := markedTables(t, dst); strings.Join(got, ",") != strings.Join(tables, ",") {
				t.Fatalf("the restore copied the marks of %v, want %v", got, tables)
			}
			before := rowCounts(t, dst, tables)
			r := stampede(t, "cleanup", c.init[0], dbURL(t, dst))
			checkOneLineError(t, r, 2, "not made by stampede")
			for _, want := range append([]string{"--force-drop"}, tables...) {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("the refusal does not name %s: %s", want, r.stderr)
				}
			}
			if after := rowCounts(t, dst, tables); after != before {
				t.Errorf("rows after the refused cleanup: %s, want %s", after, before)
			}
			mustRun(t, "cleanup", c.init[0], "--force-drop", dbURL(t, dst))
			if left := markedTables(t, dst); len(left) > 0 {
				t.Errorf("--force-drop left %v", left)
			}
			mustRun(t, "cleanup", c.init[0], dbURL(t, src))
			if left := markedTables(t, src); len(left) > 0 {
				t.Errorf("cleanup of stampede's own load left %v", left)
			}
		})
	}
}

// TestMarkOfOlderForm: a mark without an OID (an older stampede's) stands
// only where init's record of its data vouches for it: a user's bank
// carrying it by hand in a database without the record is refused, and
// every row survives; an older load (its marks without OIDs, its record
// there) cleans up, and so does a load killed before init recorded it
// (marks bound to the OIDs, no record).
func TestMarkOfOlderForm(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	legacy := "'made by stampede init of bank (data bank); its data flags: --rows 40'"
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, db string)
		code  int
		left  int64 // bank's rows after cleanup; -1: no table
	}{
		{"hand-made mark, no record", func(t *testing.T, db string) {
			adminExec(t, "CREATE DATABASE "+db)
			execIn(t, db, "CREATE TABLE bank (id bigint PRIMARY KEY, balance bigint, payload text)",
				"INSERT INTO bank SELECT g, g, 'mine' FROM generate_series(1, 40) g", "COMMENT ON TABLE bank IS "+legacy)
		}, 2, 40},
		{"older load with its record", func(t *testing.T, db string) {
			mustRun(t, "init", "bank", "--rows", "40", dbURL(t, db))
			execIn(t, db, "COMMENT ON TABLE bank IS "+legacy, "COMMENT ON TYPE bank IS NULL")
		}, 0, -1},
		{"load killed before its record", func(t *testing.T, db string) {
			mustRun(t, "init", "bank", "--rows", "40", dbURL(t, db))
			execIn(t, db, "DELETE FROM stampede_load")
		}, 0, -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := freshDB(t, "oldmark")
			c.setup(t, db)
			r := stampede(t, "cleanup", "bank", dbURL(t, db))
			if c.code != 0 {
				checkOneLineError(t, r, c.code, "table bank in database \""+db+"\"")
				if !strings.Contains(r.stderr, "--force-drop") {
					t.Errorf("the refusal names no --force-drop: %s", r.stderr)
				}
			} else if r.code != 0 {
				t.Fatalf("cleanup: exit %d: %s", r.code, r.stderr)
			}
			left := int64(-1)
			if queryInt(t, db, "SELECT count(*) FROM pg_class WHERE relname = 'bank'") > 0 {
				left = queryInt(t, db, "SELECT count(*) FROM bank")
			}
			if left != c.left {
				t.Errorf("bank's rows after cleanup: %d, want %d (-1: dropped)", left, c.left)
			}
		})
	}
}

// TestBuildschemaNamesDependents: hammerdbcli's buildschema over
// stampede's own earlier build, on whose tables the user made a view and
// a foreign key, refuses naming them (it said only "table tpcc_meta
// already exists", and --force-drop then dropped them without a word
// before), and both survive; with --force-drop they go, as named.
func TestBuildschemaNamesDependents(t *testing.T) {
	srv := testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "hbdeps")
	u, err := url.Parse(srv)
	if err != nil {
		t.Fatal(err)
	}
	script := writeFile(t, "dbset db pg\ndiset connection pg_host "+u.Hostname()+"\ndiset connection pg_port "+u.Port()+
		"\ndiset connection pg_sslmode disable\ndiset tpcc pg_count_ware 1\ndiset tpcc pg_num_vu 1\ndiset tpcc pg_superuser "+u.User.Username()+
		"\ndiset tpcc pg_user "+u.User.Username()+"\ndiset tpcc pg_dbase "+db+"\nbuildschema\n")
	mustRun(t, "hammerdbcli", "auto", script)
	execIn(t, db, "CREATE VIEW cv2 AS SELECT c_id FROM customer", "CREATE TABLE myref (w int REFERENCES warehouse (w_id))", "INSERT INTO myref VALUES (1)")
	deps := "2 objects that stampede did not make depend on its tables (table constraint myref_w_fkey on public.myref, view public.cv2)"
	r := stampede(t, "hammerdbcli", "auto", script)
	checkFinalError(t, r, 2, `buildschema: table tpcc_meta already exists in database "`+db+`", and `+deps+", which dropping them drops too: to drop it and build the schema again, add --force-drop after the script's name")
	r = stampede(t, "init", "tpcc", "--profile", "hammerdb", dbURL(t, db))
	checkOneLineError(t, r, 2, deps)
	if n, want := queryInt(t, db, "SELECT count(*) FROM cv2 JOIN myref ON true"), queryInt(t, db, "SELECT count(*) FROM customer"); n != want || n == 0 {
		t.Errorf("the view and the user's row join to %d rows after the refusals, want customer's %d", n, want)
	}
	r = mustRun(t, "hammerdbcli", "auto", script, "--force-drop")
	if !strings.Contains(r.stdout+r.stderr, "table constraint myref_w_fkey on public.myref, view public.cv2") {
		t.Errorf("--force-drop does not name what it drops:\n%s%s", r.stdout, r.stderr)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM pg_class WHERE relname = 'cv2'"); n != 0 {
		t.Errorf("--force-drop left the view cv2")
	}
	if n := queryInt(t, db, "SELECT count(*) FROM myref"); n != 1 {
		t.Errorf("myref holds %d rows after --force-drop, want its 1 (only its constraint goes)", n)
	}
}

// TestColumnFleetCleanupCountsTenants: cleanup of a column-mode fleet
// with fewer --tenants than the fleet holds refuses in one line (the
// shared tables hold every tenant's rows: it dropped all 3 tenants' for
// --tenants 1), and every row stays; a database-mode cleanup of tenant 1
// of 3 says the 2 left (it said "0 left").
func TestColumnFleetCleanupCountsTenants(t *testing.T) {
	srv := testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "colcount")
	mustRun(t, "init", "bank", "--rows", "10", "--tenants", "3", "--tenant-mode", "column", "--db", db, srv)
	rows := queryInt(t, db, "SELECT count(*) FROM bank")
	r := stampede(t, "cleanup", "bank", "--tenants", "1", "--tenant-mode", "column", "--db", db, srv)
	checkOneLineError(t, r, 2, "hold the rows of all 3 tenants of the fleet, and cleanup drops whole tables (--tenants 1 would drop them all): nothing was dropped; to drop the fleet, give --tenants 3")
	if n := queryInt(t, db, "SELECT count(*) FROM bank"); n != rows || n == 0 {
		t.Errorf("bank holds %d rows after the refusal, %d before", n, rows)
	}
	r = mustRun(t, "cleanup", "bank", "--tenants", "3", "--tenant-mode", "column", "--db", db, srv)
	if !strings.Contains(r.stdout, "dropped the shared tables of 3 tenants") {
		t.Errorf("cleanup --tenants 3 says: %s", r.stdout)
	}

	pattern := freshDB(t, "dbcount") + "_%d"
	for i := 1; i <= 3; i++ {
		t.Cleanup(func() {
			adminExec(t, "DROP DATABASE IF EXISTS "+strings.Replace(pattern, "%d", itoa(i), 1)+" WITH (FORCE)")
		})
	}
	mustRun(t, "init", "bank", "--rows", "10", "--tenants", "3", "--tenant-pattern", pattern, srv)
	r = mustRun(t, "cleanup", "bank", "--tenants", "1", "--tenant-pattern", pattern, srv)
	if !strings.Contains(r.stdout, "dropped 1 tenant database; 2 left") {
		t.Errorf("cleanup --tenants 1 of 3 says: %s", r.stdout)
	}
	if n := queryInt(t, "postgres", "SELECT count(*) FROM pg_database WHERE datname LIKE '"+strings.Replace(pattern, "%d", "%", 1)+"'"); n != 2 {
		t.Errorf("%d tenant databases left, want 2", n)
	}
}

// TestBulkInsertOtherShapeOneLine: a run of bulk_insert over a user's
// sbtest1 of another shape prints the refusal alone (it warned first that
// the run writes into the table's rows, then refused to), and the user's
// row stays. The refusal names the server, and exits 2 as every refusal
// of a table stampede did not make does (it exited 1: fix28u 3).
func TestBulkInsertOtherShapeOneLine(t *testing.T) {
	u, err := url.Parse(testServer(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "bishape")
	adminExec(t, "CREATE DATABASE "+db)
	execIn(t, db, "CREATE TABLE sbtest1 (id int PRIMARY KEY, k int, c text, pad text)", "INSERT INTO sbtest1 VALUES (1, 1, 'mine', 'x')")
	r := stampede(t, "run", "bulk_insert", "--duration", "2s", dbURL(t, db))
	want := `table sbtest1 in database "` + db + `" on ` + u.Host + ` is not bulk_insert's (id, k) but has 4 columns, and stampede did not make it: load into another database (--db NAME)`
	if lines := strings.Split(strings.TrimSpace(r.stderr), "\n"); r.code != 2 || len(lines) != 1 || !strings.Contains(lines[0], want) {
		t.Errorf("exit %d, stderr:\n%s\nwant one line with: %s", r.code, r.stderr, want)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM sbtest1 WHERE c = 'mine'"); n != 1 {
		t.Errorf("the user's row: %d left", n)
	}
}
