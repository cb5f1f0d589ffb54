package cli_test

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
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

// TestPgbenchInitNamesDependents: the pgbench form's -i over a user's
// pgbench_history with a user's view on it names the view in its
// refusal, and --force-drop then drops what it named (it ended in
// pgbench's raw "cannot drop table ... because other objects depend on
// it", exit 1); over stampede's own pgbench tables with a user's view,
// -i refuses in one line as cleanup pgbench does.
func TestPgbenchInitNamesDependents(t *testing.T) {
	u, err := url.Parse(testServer(t))
	if err != nil {
		t.Fatal(err)
	}
	on := " on " + u.Host // every refusal names the server (fix28u 4)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	users, ours := freshDB(t, "fix28l_pgbuser"), freshDB(t, "fix28l_pgbours")
	adminExec(t, "CREATE DATABASE "+users)
	adminExec(t, "CREATE DATABASE "+ours)
	execIn(t, users, "CREATE TABLE pgbench_history (tid int, note text)", "INSERT INTO pgbench_history VALUES (1, 'MINE')",
		"CREATE VIEW my_hist AS SELECT * FROM pgbench_history")
	if r := stampede(t, pgbenchInit(t, ours, "-s", "1")...); r.code != 0 {
		t.Fatalf("pgbench -i: exit %d\n%s", r.code, r.stderr)
	}
	execIn(t, ours, "CREATE VIEW my_hist AS SELECT * FROM pgbench_history")
	for _, c := range []struct {
		db, want string
		rows     string
	}{
		{users, "pgbench: error: -i would drop pgbench_history in database \"" + users + "\"" + on + ", which stampede did not make (pgbench_history (tid,note): columns that are not pgbench's): nothing was dropped; unlike pgbench, stampede's -i drops only the tables it made; and 1 object that stampede did not make depends on table pgbench_history in database \"" + users + "\"" + on + " (view public.my_hist): -i drops nothing; to drop them anyway, add --force-drop",
			"SELECT count(*) FROM pgbench_history WHERE note = 'MINE'"},
		{ours, "pgbench: error: 1 object that stampede did not make depends on table pgbench_history in database \"" + ours + "\"" + on + " (view public.my_hist): -i drops nothing; to drop it too, add --force-drop",
			"SELECT count(*) FROM pgbench_branches"},
	} {
		r := stampede(t, pgbenchInit(t, c.db, "-s", "1")...)
		checkOneLineError(t, r, 2, "")
		if got := strings.TrimSpace(r.stderr); got != c.want {
			t.Errorf("%s: got\n%s\nwant\n%s", c.db, got, c.want)
		}
		if n := queryInt(t, c.db, "SELECT count(*) FROM pg_views WHERE viewname = 'my_hist'"); n != 1 {
			t.Errorf("%s: the refused -i dropped the user's view", c.db)
		}
		if n := queryInt(t, c.db, c.rows); n != 1 {
			t.Errorf("%s: %s = %d after the refused -i, want 1", c.db, c.rows, n)
		}
		r = stampede(t, pgbenchInit(t, c.db, "-s", "1", "--force-drop")...)
		if r.code != 0 || !strings.Contains(r.stderr, "--force-drop: dropping the objects that stampede did not make and that depend on ") {
			t.Errorf("%s: -i --force-drop: exit %d\n%s", c.db, r.code, r.stderr)
		}
		if n := queryInt(t, c.db, "SELECT count(*) FROM pg_views WHERE viewname = 'my_hist'") + queryInt(t, c.db, "SELECT count(*) FROM pgbench_history"); n != 0 {
			t.Errorf("%s: after -i --force-drop, the view or the old history is still there", c.db)
		}
		if n := queryInt(t, c.db, "SELECT count(*) FROM pgbench_accounts"); n != 100000 {
			t.Errorf("%s: after -i --force-drop, pgbench_accounts holds %d rows, not 100000", c.db, n)
		}
	}
}

// TestUnknownConninfoKey: a key of the connection string that is neither
// libpq's nor a server setting is bad input: one line naming the key,
// without the server's SQLSTATE, exit 2, for every verb that connects
// (it was exit 1 with "(SQLSTATE 42704)").
func TestUnknownConninfoKey(t *testing.T) {
	srv := testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	u, _ := url.Parse(srv)
	db := freshDB(t, "fix28l_key")
	mustRun(t, "init", "bank", "--rows", "10", dbURL(t, db))
	bad := dbURL(t, db) + "&colour=blue"
	dsn := fmt.Sprintf("host=%s port=%s user=%s dbname=%s colour=blue", u.Hostname(), u.Port(), u.User.Username(), db)
	for _, args := range [][]string{
		{"run", "bank", "--duration", "1s", bad},
		{"check", "bank", bad},
		{"cleanup", "bank", bad},
		{"init", "bank", "--drop", bad},
		{"init", "bank", "--drop", dsn},
		{"workload", "run", "bank", "--duration", "1s", "--db", db, bad},
	} {
		r := stampede(t, args...)
		checkOneLineError(t, r, 2, "")
		want := fmt.Sprintf(`stampede: error: cannot connect to %s (database %q, user %q): the connection string's key "colour" is neither a libpq connection parameter nor a setting the server knows (sent to it as a setting, it was refused): check the key's spelling, or drop it`,
			u.Host, db, u.User.Username())
		if got := strings.TrimSpace(r.stderr); got != want {
			t.Errorf("%s:\n got %s\nwant %s", args[:2], got, want)
		}
	}
	if n := queryInt(t, db, "SELECT count(*) FROM bank"); n != 10 {
		t.Errorf("bank holds %d rows after the refused commands, not 10", n)
	}
}

// TestWording28: the lines issue 28's last checks found contradictory or
// ungrammatical, each as it reads now.
func TestWording28(t *testing.T) {
	srv := testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	u, _ := url.Parse(srv)
	host := u.Host
	ycsb, bank, sb := freshDB(t, "fix28l_wy"), freshDB(t, "fix28l_wb"), freshDB(t, "fix28l_wsb")
	mustRun(t, "init", "ycsb", "-p", "recordcount=10", dbURL(t, ycsb))
	mustRun(t, "init", "bank", "--rows", "10", dbURL(t, bank))
	adminExec(t, "CREATE DATABASE "+sb)
	execIn(t, sb, "CREATE TABLE sbtest1 (id int, k int)", "INSERT INTO sbtest1 VALUES (1, 42)")
	file := filepath.Join(t.TempDir(), "b.sql")
	if err := os.WriteFile(file, []byte("CREATE TABLE bank (id bigint PRIMARY KEY, balance bigint);\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name         string
		args         []string
		prefix, tail string
	}{
		{"workload init --drop over another workload's load", []string{"workload", "init", "bank", "--drop", "--db", ycsb, dbURL(t, ycsb)},
			`stampede: error: database "` + ycsb + `" on ` + host + " holds stampede's load of ycsb (table public.usertable), not of bank: --drop leaves the database alone; `stampede cleanup ycsb ",
			"` drops that load, or to drop it anyway, add --force-drop"},
		{"sysbench form's prepare says prepare", append(append([]string{"bulk_insert"}, sysbenchConn(t, sb)...), "prepare"),
			`stampede: error: table sbtest1 in database "` + sb + `" on ` + host + " was not made by stampede (no mark of stampede's on it, which every table stampede makes carries; bulk_insert's runs would write into it; nothing was created): prepare leaves it alone; to drop it anyway, add --force-drop",
			""},
		{"init sql --force-drop suggests bank's own cleanup", []string{"init", "sql", "--init-file", file, "--force-drop", dbURL(t, bank)},
			"stampede: error: table bank, which " + file + ":1 creates, is stampede's load of bank, not of init sql (its mark: \"made by stampede init of bank (data bank); its data flags: --rows 10\"): no statement of the file ran; `stampede cleanup bank " + shellQuoted(dbURL(t, bank)) + "` drops that load",
			" (init sql --drop drops only what init sql made), or rename bank in the file"},
	} {
		r := stampede(t, c.args...)
		lines := checkFinalError(t, r, 2, "")
		got := lines[len(lines)-1]
		if c.tail == "" && got != c.prefix || !strings.HasPrefix(got, c.prefix) || !strings.HasSuffix(got, c.tail) {
			t.Errorf("%s:\n got %s\nwant %s...%s", c.name, got, c.prefix, c.tail)
		}
	}
	// Singular and plural: one table and one object that depends on it;
	// one worker.
	execIn(t, bank, "CREATE VIEW my_bank AS SELECT * FROM bank")
	r := stampede(t, "cleanup", "bank", dbURL(t, bank))
	// (The record table goes with the load, and the census checks it
	// too; the view depends on bank alone, which is what it names.)
	checkOneLineError(t, r, 2, `1 object that stampede did not make depends on table bank in database "`+bank+`" on `+host+" (view public.my_bank): cleanup drops nothing; to drop it too, add --force-drop")
	r = stampede(t, "cleanup", "bank", "--force-drop", dbURL(t, bank))
	if want := `--force-drop: dropping tables bank, stampede_load in database "` + bank + `" on ` + host + " and the objects that depend on them (view public.my_bank)\n"; r.code != 0 || !strings.Contains(r.stderr, want) {
		t.Errorf("cleanup --force-drop: exit %d, want the line %q:\n%s", r.code, want, r.stderr)
	}
	mustRun(t, "init", "bank", "--rows", "10", dbURL(t, bank))
	r = stampede(t, "run", "bank", "--concurrency", "1", "--duration", "1s", dbURL(t, bank))
	if r.code != 0 || !strings.Contains(r.stderr, `(database "`+bank+`"), 1 worker, seed `) {
		t.Errorf("run with one worker: exit %d\n%s", r.code, r.stderr)
	}
}

// shellQuoted is s as a suggested command quotes it.
func shellQuoted(s string) string {
	if strings.ContainsAny(s, "?&") {
		return "'" + s + "'"
	}
	return s
}

// TestFleetResumeRefusesReplacedTenants: init of a fleet that exists
// (resuming) over tenants whose table the user replaced refuses them in
// one line, as cleanup does, where it counted them as "2 of 2 tenants
// exist already", exit 0; the user's rows stay, and a fleet of
// stampede's own still resumes.
func TestFleetResumeRefusesReplacedTenants(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	base := freshDB(t, "fix28l_fr")
	adminExec(t, "CREATE DATABASE "+base)
	pattern := base + "_t%d"
	t.Cleanup(func() {
		adminExec(t, "DROP DATABASE IF EXISTS "+base+"_t1 WITH (FORCE)", "DROP DATABASE IF EXISTS "+base+"_t2 WITH (FORCE)")
	})
	for _, c := range []struct {
		mode, where, in string
		want            string
	}{
		{"database", base + "_t2", "public", `stampede: error: database "` + base + `_t2" on `},
		{"schema", base, base + "_t2", `stampede: error: schema "` + base + `_t2" in database "` + base + `" on `},
	} {
		fleet := []string{"--rows", "10", "--tenants", "2", "--tenant-mode", c.mode, "--tenant-pattern", pattern, dbURL(t, base)}
		mustRun(t, append([]string{"init", "bank"}, fleet...)...)
		if r := stampede(t, append([]string{"init", "bank"}, fleet...)...); r.code != 0 || !strings.Contains(r.stderr, "2 of 2 tenants exist already") {
			t.Fatalf("%s: resuming a whole fleet: exit %d\n%s", c.mode, r.code, r.stderr)
		}
		execIn(t, c.where, "DROP TABLE "+c.in+".bank", "CREATE TABLE "+c.in+".bank (id int, note text)", "INSERT INTO "+c.in+".bank VALUES (1, 'MINE')")
		r := stampede(t, append([]string{"init", "bank"}, fleet...)...)
		checkOneLineError(t, r, 2, c.want)
		if !strings.HasSuffix(strings.TrimSpace(r.stderr), "holds 1 object that stampede did not make (table "+c.in+".bank): init (which counts it as no loaded tenant) leaves the "+c.mode+" alone; to drop it anyway, add --force-drop") {
			t.Errorf("%s: %s", c.mode, r.stderr)
		}
		if n := queryInt(t, c.where, "SELECT count(*) FROM "+c.in+".bank WHERE note = 'MINE'"); n != 1 {
			t.Errorf("%s: the user's row is gone", c.mode)
		}
		mustRun(t, append([]string{"cleanup", "bank", "--force-drop"}, fleet...)...)
	}
}

// TestDropKeepsRenamedTable: the cockroach form's --drop, which drops the
// whole database stampede created, refuses one that holds a table of the
// load that the user renamed to keep it (it dropped bank_keep, exit 0),
// naming it; under its own name again, the table is the load's and the
// database goes.
func TestDropKeepsRenamedTable(t *testing.T) {
	srv := testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	u, _ := url.Parse(srv)
	db := freshDB(t, "fix28l_ren")
	load := []string{"workload", "init", "bank", "--rows", "10", "--db", db, dbURL(t, db)}
	mustRun(t, load...)
	execIn(t, db, "ALTER TABLE bank RENAME TO bank_keep")
	drop := []string{"workload", "init", "bank", "--drop", "--rows", "10", "--db", db, dbURL(t, db)}
	r := stampede(t, drop...)
	checkOneLineError(t, r, 2, "")
	if want := `stampede: error: database "` + db + `" on ` + u.Host + " holds table public.bank_keep, stampede's table of bank under a name bank does not use (renamed, so kept): --drop leaves the database alone; to drop it anyway, add --force-drop"; strings.TrimSpace(r.stderr) != want {
		t.Errorf("got %s\nwant %s", r.stderr, want)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM bank_keep"); n != 10 {
		t.Errorf("bank_keep holds %d rows after the refused --drop, not 10", n)
	}
	execIn(t, db, "ALTER TABLE bank_keep RENAME TO bank")
	mustRun(t, drop...)
}
