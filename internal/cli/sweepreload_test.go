package cli_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestSweepDataFlag sweeps a flag that changes what init loads (YCSB's
// -p fieldlength, --field-length) against PostgreSQL: without --reload
// the sweep is refused before any step, naming the flag, the value
// loaded and --reload; with it, each step loads its data again with its
// value (the rest as init loaded it) and runs on it; --reload over a
// flag that changes no data is refused; and a table of the user's own
// is never dropped by a reload.
func TestSweepDataFlag(t *testing.T) {
	t.Parallel()
	srv := testServer(t)
	db := freshDB(t, "stampede_sweep_data")
	if r := stampede(t, "init", "ycsb", "-p", "recordcount=500", "--db", db, srv); r.code != 0 {
		t.Fatalf("init: %s", r.stderr)
	}
	// NIT 2: the flag as typed, what the database holds (init's
	// record, spelled as the flag was typed: v34 NIT a) and both ways
	// out.
	loaded := func(held string) string {
		return fmt.Sprintf("changes the data init loads, and database %q holds %s (init's record, of ycsb): give --reload to reload the data at each step (dropping only stampede's tables), or sweep a flag that does not change the data (--concurrency, --max-rate, --conns)", db, held)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"property without --reload", []string{"-p", "fieldlength=50,200"}, "-p fieldlength=50,200 " + loaded("-p fieldlength=100")},
		{"flag without --reload", []string{"--field-length", "100,200"}, "--field-length 100,200 " + loaded("--field-length 100")},
		{"--reload over no data", []string{"--max-ops", "10,20", "--reload"}, "--max-ops 10,20 changes no data there: drop --reload"},
		{"--reload of one value", []string{"--max-rate", "100", "--reload"}, "--reload loads the data again before each step of a sweep over a flag that changes it"},
		{"--force-drop without --reload", []string{"--max-ops", "10,20", "--force-drop"}, "--force-drop applies to --reload's drops: give --reload"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			r := stampede(t, append(append([]string{"sweep", "ycsb", "--duration", "1s", "--db", db, "--results-dir", root}, tc.args...), srv)...)
			checkOneLineError(t, r, 2, tc.want)
			if entries, _ := os.ReadDir(root); len(entries) != 0 {
				t.Errorf("a step ran before the refusal: %v", entries)
			}
		})
	}

	r := stampede(t, "sweep", "ycsb", "--workload", "c", "--concurrency", "2", "-p", "fieldlength=50,200", "--reload", "--duration", "1s",
		"--db", db, "--results-dir", t.TempDir(), "--format", "json", srv)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	s := parseSweep(t, r.stdout)
	if len(s.Steps) != 2 || strings.Count(r.stdout, `"reloaded":true`) < 2 || strings.Count(r.stderr, "its data reloaded first (not measured)") != 2 {
		t.Errorf("steps %+v: want 2, each reloaded first:\n%s\n%s", s.Steps, r.stdout, r.stderr)
	}
	for i, st := range s.Steps {
		if st.Value != []float64{50, 200}[i] || st.Status != "completed" || st.Total.Count == 0 || st.Total.Errors != 0 {
			t.Errorf("step %d: %+v", i+1, st)
		}
	}
	// NIT 3: the end says what the database holds and the init that
	// loads init's data again (the record's data flags, --drop).
	if want := fmt.Sprintf("database %q now holds the sweep's last load (-p fieldlength=200), not what it held before the sweep (-p fieldlength=100)", db); !strings.HasPrefix(s.Result.Data, want) {
		t.Errorf("the sweep's data: %q, want %q", s.Result.Data, want)
	}
	restore := strings.Fields(s.Result.Restore)
	if !strings.HasPrefix(s.Result.Restore, "stampede init ycsb -p recordcount=500 ") || !slices.Contains(restore, "fieldlength=100") ||
		!slices.Contains(restore, "--drop") || !slices.Contains(restore, db) {
		t.Errorf("the restoring command: %q", s.Result.Restore)
	}
	// The last step's load: its field length, init's record count.
	if n := queryInt(t, db, "SELECT count(*) FROM usertable"); n != 500 {
		t.Errorf("%d rows after the reloads, want init's 500", n)
	}
	if n := queryInt(t, db, "SELECT max(length(field0)) FROM usertable"); n != 200 {
		t.Errorf("fields of %d characters after the last step's reload, want 200", n)
	}
	// The reload's mark names init's record count it adopted, so that
	// the init it suggests (after an interrupted reload) loads as many.
	if n := queryInt(t, db, "SELECT count(*) FROM pg_description WHERE objoid = 'usertable'::regclass AND objsubid = 0 AND description LIKE '%-p recordcount=500%-p fieldlength=200%'"); n != 1 {
		t.Errorf("usertable's mark does not name the adopted -p recordcount=500 beside -p fieldlength=200")
	}

	// Swept by its own flag, the held values are spelled as typed too,
	// and the restoring init (which the sweep's own --field-length list
	// must not follow) loads init's data back.
	r = stampede(t, "sweep", "ycsb", "--workload", "c", "--concurrency", "2", "--field-length", "200,150", "--reload", "--duration", "1s",
		"--db", db, "--results-dir", t.TempDir(), "--format", "json", srv)
	if r.code != 0 {
		t.Fatalf("--field-length sweep: exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "data already at --field-length=200, not reloaded") {
		t.Errorf("--field-length sweep's first step over data at 200: want it said as typed:\n%s", r.stderr)
	}
	s2 := parseSweep(t, r.stdout)
	if want := fmt.Sprintf("database %q now holds the sweep's last load (--field-length 150), not what it held before the sweep (--field-length 200)", db); !strings.HasPrefix(s2.Result.Data, want) {
		t.Errorf("the --field-length sweep's data: %q, want %q", s2.Result.Data, want)
	}
	restore2 := strings.Fields(s2.Result.Restore)
	if i := slices.Index(restore2, "--field-length"); i < 0 || i+1 >= len(restore2) || restore2[i+1] != "200" ||
		slices.Contains(restore2, "200,150") || slices.Contains(restore2, "fieldlength=200") {
		t.Errorf("the --field-length sweep's restoring command: %q, want --field-length 200 once", s2.Result.Restore)
	}
	args2 := restore2[1:]
	for i, a := range args2 {
		args2[i] = strings.Trim(a, "'")
	}
	if r := stampede(t, args2...); r.code != 0 {
		t.Fatalf("the restoring command %q: exit %d\n%s", s2.Result.Restore, r.code, r.stderr)
	}
	if n := queryInt(t, db, "SELECT max(length(field0)) FROM usertable"); n != 200 {
		t.Errorf("fields of %d characters after the restoring init, want 200", n)
	}

	// A database whose usertable is the user's own: the reload drops
	// nothing.
	own := freshDB(t, "stampede_sweep_data_own")
	adminExec(t, "CREATE DATABASE "+own)
	execIn(t, own, "CREATE TABLE usertable (ycsb_key text PRIMARY KEY, field0 text)", "INSERT INTO usertable VALUES ('mine', 'keep')")
	r = stampede(t, "sweep", "ycsb", "-p", "fieldlength=50,200", "--reload", "--duration", "1s", "--db", own, "--results-dir", t.TempDir(), srv)
	if r.code == 0 {
		t.Errorf("a reload over the user's own table succeeded:\n%s", r.stderr)
	}
	if n := queryInt(t, own, "SELECT count(*) FROM usertable WHERE field0 = 'keep'"); n != 1 {
		t.Errorf("the user's row is gone after the refused reload: %d rows", n)
	}

	// A user's view over stampede's table: the reload refuses, naming
	// --force-drop, which the sweep takes and which then drops it.
	execIn(t, db, "CREATE VIEW users_view AS SELECT ycsb_key FROM usertable")
	args := []string{"sweep", "ycsb", "--workload", "c", "-p", "fieldlength=60,70", "--reload", "--duration", "1s", "--db", db, "--results-dir", t.TempDir()}
	r = stampede(t, append(args, srv)...)
	if r.code == 0 || !strings.Contains(r.stderr, "depends on table usertable in database") || !strings.Contains(r.stderr, "(view public.users_view)") || !strings.Contains(r.stderr, "add --force-drop") {
		t.Errorf("a reload under a user's view: exit %d, want a refusal naming the view and --force-drop:\n%s", r.code, r.stderr)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM pg_views WHERE viewname = 'users_view'"); n != 1 {
		t.Errorf("the refused reload dropped the user's view")
	}
	r = stampede(t, append(args, "--force-drop", srv)...)
	if r.code != 0 || !strings.Contains(r.stderr, "--force-drop: dropping tables usertable, stampede_load") {
		t.Errorf("the reload with --force-drop: exit %d\n%s", r.code, r.stderr)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM pg_views WHERE viewname = 'users_view'"); n != 0 {
		t.Errorf("--force-drop kept the view it said it drops")
	}
}

// TestSweepReloadTables sweeps sysbench's --tables 3,1 with --reload in a
// database where init loaded 2 tables beside a table of the user's own:
// each step's reload drops every table of the load before it (init's
// 2, then step 1's 3), stampede's own only, and loads exactly its own,
// so the database ends with the last step's sbtest1 and the user's
// table, its row there. A former table the user replaced with one of
// their own is refused, never dropped.
func TestSweepReloadTables(t *testing.T) {
	t.Parallel()
	srv := testServer(t)
	db := freshDB(t, "stampede_sweep_tables")
	if r := stampede(t, "init", "oltp_read_only", "--tables", "2", "--table_size", "500", "--db", db, srv); r.code != 0 {
		t.Fatalf("init: %s", r.stderr)
	}
	execIn(t, db, "CREATE TABLE mine (k int)", "INSERT INTO mine VALUES (7)")
	tables := "SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE schemaname = 'public'"
	r := stampede(t, "sweep", "oltp_read_only", "--tables", "3,1", "--table_size", "500", "--reload", "--concurrency", "2", "--duration", "1s",
		"--db", db, "--results-dir", t.TempDir(), srv)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"dropping 2 tables (sbtest1, sbtest2)", "dropping 3 tables (sbtest1, sbtest2, sbtest3)"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("the reloads do not say %q:\n%s", want, r.stderr)
		}
	}
	if got := queryString(t, db, tables); got != "mine,sbtest1,stampede_load" {
		t.Errorf("tables after the sweep: %s; want the last step's sbtest1, the user's mine and stampede's record", got)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM sbtest1"); n != 500 {
		t.Errorf("sbtest1 holds %d rows, want 500", n)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM mine WHERE k = 7"); n != 1 {
		t.Errorf("the user's row is gone: %d rows", n)
	}
	if got := queryString(t, db, "SELECT settings::jsonb->>'tables' FROM stampede_load"); got != "1" {
		t.Errorf("the load's record says --tables %s, want the last step's 1", got)
	}

	// init loaded 2 tables, then the user made sbtest2 their own: the
	// first step's reload (--tables 1) refuses it, naming it.
	own := freshDB(t, "stampede_sweep_tables_own")
	if r := stampede(t, "init", "oltp_read_only", "--tables", "2", "--table_size", "500", "--db", own, srv); r.code != 0 {
		t.Fatalf("init: %s", r.stderr)
	}
	execIn(t, own, "DROP TABLE sbtest2", "CREATE TABLE sbtest2 (id int)", "INSERT INTO sbtest2 VALUES (42)")
	r = stampede(t, "sweep", "oltp_read_only", "--tables", "1,3", "--table_size", "500", "--reload", "--duration", "1s",
		"--db", own, "--results-dir", t.TempDir(), srv)
	if r.code == 0 || !strings.Contains(r.stderr, "sbtest2") {
		t.Errorf("a reload over the user's sbtest2: exit %d:\n%s", r.code, r.stderr)
	}
	if n := queryInt(t, own, "SELECT count(*) FROM sbtest2 WHERE id = 42"); n != 1 {
		t.Errorf("the user's sbtest2 lost its row: %d rows", n)
	}
}

// TestSweepReloadKeeps (issue 34, NITs 3 and 4): a --reload sweep whose
// first step's value is the one init loaded runs that step on init's
// data, not loaded again (its line says so; the table, its rows, a row
// the test changed and the load's record time are as before), and at
// its end says what the database holds and gives the init that loads
// init's data again, which does.
func TestSweepReloadKeeps(t *testing.T) {
	t.Parallel()
	srv := testServer(t)
	db := freshDB(t, "stampede_sweep_keeps")
	if r := stampede(t, "init", "oltp_read_only", "--tables", "2", "--table_size", "500", "--db", db, srv); r.code != 0 {
		t.Fatalf("init: %s", r.stderr)
	}
	execIn(t, db, "UPDATE sbtest1 SET c = 'kept' WHERE id = 1")
	loadedAt := "SELECT loaded_at::text FROM stampede_load"
	before := queryString(t, db, loadedAt)
	oid := queryInt(t, db, "SELECT 'sbtest1'::regclass::oid::bigint")

	// Step 2 (--tables 3) is refused at its reload by a table of the
	// user's: the database is left as step 1 had it.
	execIn(t, db, "CREATE TABLE sbtest3 (id int)")
	r := stampede(t, "sweep", "oltp_read_only", "--tables", "2,3", "--reload", "--concurrency", "2", "--duration", "1s",
		"--db", db, "--results-dir", t.TempDir(), srv)
	if r.code == 0 || !strings.Contains(r.stderr, "step 1: --tables 2, closed loop, --concurrency 2, 1s each; data already at --tables=2, not reloaded\n") {
		t.Errorf("exit %d: want step 1 not reloaded, then step 2's refusal:\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "dropping") || strings.Contains(r.stderr, "loading oltp_read_only") {
		t.Errorf("a step loaded the data:\n%s", r.stderr)
	}
	if got := queryString(t, db, loadedAt); got != before {
		t.Errorf("the load's record time moved from %s to %s", before, got)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM sbtest1") + queryInt(t, db, "SELECT count(*) FROM sbtest2"); n != 1000 {
		t.Errorf("%d rows after step 1, want init's 1000", n)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM sbtest1 WHERE id = 1 AND c = 'kept'"); n != 1 || queryInt(t, db, "SELECT 'sbtest1'::regclass::oid::bigint") != oid {
		t.Errorf("sbtest1 was made again by step 1")
	}

	// --tables 2,1: step 1 kept, step 2 reloaded; the end names what the
	// database holds and the init that restores init's 2 tables.
	execIn(t, db, "DROP TABLE sbtest3")
	r = stampede(t, "sweep", "oltp_read_only", "--tables", "2,1", "--reload", "--concurrency", "2", "--duration", "1s",
		"--db", db, "--results-dir", t.TempDir(), srv)
	holds := fmt.Sprintf("database %q now holds the sweep's last load (--tables 1), not what it held before the sweep (--tables 2)", db)
	if r.code != 0 || !strings.Contains(r.stdout, "\n"+holds) || !strings.Contains(r.stderr, "data already at --tables=2, not reloaded") {
		t.Fatalf("exit %d, want %q in the footer:\n%s\n%s", r.code, holds, r.stdout, r.stderr)
	}
	_, restore, ok := strings.Cut(r.stdout, "to load what it held before the sweep again: ")
	restore, _, _ = strings.Cut(restore, "\n")
	words := strings.Fields(restore)
	if !ok || !strings.HasPrefix(restore, "stampede init oltp_read_only --table_size 500 --tables 2 --drop --db "+db+" ") {
		t.Fatalf("the restoring command: %q", restore)
	}
	for i := range words {
		words[i] = strings.Trim(words[i], "'")
	}
	if r := stampede(t, words[1:]...); r.code != 0 {
		t.Fatalf("%s: exit %d: %s", restore, r.code, r.stderr)
	}
	if got := queryString(t, db, "SELECT settings::jsonb->>'tables' FROM stampede_load"); got != "2" || queryInt(t, db, "SELECT count(*) FROM sbtest2") != 500 {
		t.Errorf("after the restoring init: --tables %s", got)
	}
}

// TestSweepTPCCWarehouses sweeps TPC-C's --warehouses: with --reload it
// is refused in one line pointing to --active-warehouses over one load of
// the most (run checks --warehouses against the load; --reload does not
// load TPC-C again per step), not as a flag that "changes no data"; and
// a sweep on a database that does not exist advises an init without the
// sweep's list of values, which init would refuse.
func TestSweepTPCCWarehouses(t *testing.T) {
	t.Parallel()
	srv := testServer(t)
	r := stampede(t, "sweep", "tpcc", "--warehouses", "1,2", "--reload", "--duration", "1s", "--db", "stampede_sweep_tpcc_none", "--results-dir", t.TempDir(), srv)
	checkOneLineError(t, r, 2, "--reload does not load tpcc's data again per step of --warehouses 1,2: sweep --active-warehouses 1,2 over one load of the most warehouses (`stampede init tpcc --drop --warehouses N")
	r = stampede(t, "sweep", "tpcc", "--warehouses", "1,2", "--duration", "1s", "--db", "stampede_sweep_tpcc_none", "--results-dir", t.TempDir(), srv)
	if r.code == 0 || !strings.Contains(r.stderr, "load it with `stampede init tpcc --db stampede_sweep_tpcc_none ") || strings.Contains(r.stderr, "--warehouses 1,2'") || strings.Contains(r.stderr, "init tpcc --db stampede_sweep_tpcc_none --warehouses") {
		t.Errorf("exit %d; want an init without the sweep's values:\n%s", r.code, r.stderr)
	}
}
