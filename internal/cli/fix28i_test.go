package cli_test

import (
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestInitSQLOverAnotherLoad: an init file that creates a table of
// another workload's stampede load (bank's) is refused before any
// statement runs, in one line naming the load and `stampede cleanup
// bank`, with or without --drop (which used to fail on the raw 42P07 and
// suggest `init sql --drop`, the very command that had just failed);
// the command it names then works. A user's own type in the way after
// --drop is said without suggesting --drop again (rechk28b F-H).
func TestInitSQLOverAnotherLoad(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "fix28i_sqlbank")
	adminExec(t, "CREATE DATABASE "+db)
	u := dbURL(t, db)
	if r := stampede(t, "init", "bank", "--rows", "10", u); r.code != 0 {
		t.Fatalf("init bank: exit %d\n%s", r.code, r.stderr)
	}
	file := filepath.Join(t.TempDir(), "b.sql")
	if err := os.WriteFile(file, []byte("CREATE TABLE bank (id bigint PRIMARY KEY, balance bigint);\nINSERT INTO bank VALUES (1, 2);\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"init", "sql", "--init-file", file, u},
		{"init", "sql", "--drop", "--init-file", file, u},
	} {
		r := stampede(t, args...)
		checkFinalError(t, r, 2, "table bank, which "+file+":1 creates, is stampede's load of bank, not of init sql")
		if !strings.Contains(r.stderr, "`stampede cleanup bank ") || strings.Contains(r.stderr, "init sql --drop --init-file") || strings.Contains(r.stderr, "SQLSTATE") {
			t.Errorf("%v: the refusal names no command that works:\n%s", args, r.stderr)
		}
		if n := queryInt(t, db, "SELECT count(*) FROM bank"); n != 10 {
			t.Fatalf("%v: bank holds %d rows, not init's 10", args, n)
		}
	}
	if r := stampede(t, "cleanup", "bank", u); r.code != 0 {
		t.Fatalf("cleanup bank, as the refusal says: exit %d\n%s", r.code, r.stderr)
	}
	if r := stampede(t, "init", "sql", "--drop", "--init-file", file, u); r.code != 0 {
		t.Fatalf("init sql --drop after cleanup bank: exit %d\n%s", r.code, r.stderr)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM bank WHERE balance = 2"); n != 1 {
		t.Fatalf("init sql's bank holds %d of its row", n)
	}

	// A user's type in the way: --drop (which drops only what init sql
	// made) is not suggested again after it ran.
	execIn(t, db, "CREATE TYPE fix28i_mood AS ENUM ('mine')")
	tfile := filepath.Join(t.TempDir(), "t.sql")
	if err := os.WriteFile(tfile, []byte("CREATE TYPE fix28i_mood AS ENUM ('x');\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := stampede(t, "init", "sql", "--drop", "--init-file", tfile, u)
	checkFinalError(t, r, 2, tfile+`:1: type "fix28i_mood" already exists, and --drop dropped only what an earlier init sql made`)
	if strings.Contains(r.stderr, "`stampede init sql --drop") {
		t.Errorf("init sql --drop suggests itself:\n%s", r.stderr)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM pg_enum WHERE enumlabel = 'mine'"); n != 1 {
		t.Errorf("the user's type lost its label")
	}
}

// TestSweepTakesInitsLoad: a sweep's steps take the settings init
// loaded, as run does: over bank loaded with --rows 100, `sweep bank`
// without --rows runs every step on 100 accounts and says so once (it
// used --rows 1000 and failed at step 1, exit 1: the sweep's flag
// wrappers swallowed the value run adopts); --rows given otherwise is
// refused as run refuses it, exit 2 (rechk28b F-J).
func TestSweepTakesInitsLoad(t *testing.T) {
	testServer(t)
	res := t.TempDir()
	t.Setenv("STAMPEDE_RESULTS_DIR", res)
	db := freshDB(t, "fix28i_sweepbank")
	adminExec(t, "CREATE DATABASE "+db)
	u := dbURL(t, db)
	if r := stampede(t, "init", "bank", "--rows", "100", u); r.code != 0 {
		t.Fatalf("init bank: exit %d\n%s", r.code, r.stderr)
	}
	r := stampede(t, "sweep", "bank", "--max-rate", "50,100", "--duration", "1s", "--telemetry=false", "--results-dir", res, u)
	if r.code != 0 {
		t.Fatalf("sweep bank: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	note := `note: using --rows 100, as init (of bank) loaded database "` + db + `"`
	if n := strings.Count(r.stderr, note); n != 1 {
		t.Errorf("the sweep says %d times that it uses init's --rows 100:\n%s", n, r.stderr)
	}
	var steps int
	for _, l := range strings.Split(r.stdout, "\n") {
		if f := strings.Fields(l); len(f) > 2 && (f[0] == "1" || f[0] == "2") && (f[1] == "50" || f[1] == "100") {
			steps++
		}
	}
	if steps != 2 {
		t.Errorf("%d of 2 steps ran:\n%s", steps, r.stdout)
	}
	// The server's truth: the transfers kept to the 100 accounts init
	// loaded, and their sum.
	if c := stampede(t, "check", "bank", u); c.code != 0 {
		t.Errorf("check bank after the sweep: exit %d\n%s%s", c.code, c.stdout, c.stderr)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM bank"); n != 100 {
		t.Errorf("bank holds %d accounts after the sweep, not init's 100", n)
	}
	r = stampede(t, "sweep", "bank", "--rows", "1000", "--max-rate", "50,100", "--duration", "1s", "--telemetry=false", "--results-dir", res, u)
	checkFinalError(t, r, 2, `--rows 1000 differs from what init (of bank) loaded into database "`+db+`", --rows 100: give --rows 100`)
}

// TestHammerDBRefusalNamesForceDrop: buildschema over stampede's own
// TPC-C load is refused naming the hammerdbcli form's option,
// --force-drop after the script's name, not stampede's --drop, which
// hammerdbcli does not take (rechk28b F-J); nothing is dropped.
func TestHammerDBRefusalNamesForceDrop(t *testing.T) {
	srv := testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "fix28i_hdb")
	if r := stampede(t, "init", "tpcc", "--warehouses", "1", "--db", db, srv); r.code != 0 {
		t.Fatalf("init tpcc: exit %d\n%s", r.code, r.stderr)
	}
	stock := queryInt(t, db, "SELECT count(*) FROM stock")
	u, err := url.Parse(srv)
	if err != nil {
		t.Fatal(err)
	}
	script := writeFile(t, "dbset db pg\ndiset connection pg_host "+u.Hostname()+"\ndiset connection pg_port "+u.Port()+
		"\ndiset connection pg_sslmode disable\ndiset tpcc pg_count_ware 1\ndiset tpcc pg_num_vu 1\ndiset tpcc pg_superuser "+u.User.Username()+
		"\ndiset tpcc pg_user "+u.User.Username()+"\ndiset tpcc pg_dbase "+db+"\nbuildschema\n")
	r := stampede(t, "hammerdbcli", "auto", script)
	checkFinalError(t, r, 2, `buildschema: table tpcc_meta already exists in database "`+db+`": to drop it and build the schema again, add --force-drop after the script's name`)
	if strings.Contains(r.stderr, "use --drop") {
		t.Errorf("hammerdbcli's refusal names --drop, which it does not take:\n%s", r.stderr)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM stock"); n != stock || n == 0 {
		t.Errorf("stock holds %d rows after the refusal, %d before", n, stock)
	}
}

// TestRunWarnsOverTablesNotLoaded: a run that writes over the workload's
// tables where stampede never loaded them (no init record, no mark: a
// user's bank, the real sysbench's prepare) still runs, as sysbench
// would, but first warns in one line naming them (rechk28b F-G: it wrote
// into them without a word); a read-only script, and a run over
// stampede's own load, say nothing.
func TestRunWarnsOverTablesNotLoaded(t *testing.T) {
	testServer(t)
	res := t.TempDir()
	t.Setenv("STAMPEDE_RESULTS_DIR", res)
	sysbench, err := exec.LookPath("sysbench")
	if err != nil {
		t.Skip("the real sysbench is not installed")
	}
	users := freshDB(t, "fix28i_users")
	ours := freshDB(t, "fix28i_ours")
	adminExec(t, "CREATE DATABASE "+users, "CREATE DATABASE "+ours)
	execIn(t, users, "CREATE TABLE bank (id bigint PRIMARY KEY, balance bigint, payload bytea)",
		"INSERT INTO bank SELECT g, 1000, '' FROM generate_series(0, 999) g")
	conn := sysbenchConn(t, users)
	prep := exec.Command(sysbench, append(append([]string{"oltp_write_only"}, conn...), "--table-size=1000", "prepare")...)
	if out, err := prep.CombinedOutput(); err != nil {
		t.Fatalf("sysbench prepare: %v\n%s", err, out)
	}
	if r := stampede(t, "init", "bank", "--rows", "100", dbURL(t, ours)); r.code != 0 {
		t.Fatalf("init bank: exit %d\n%s", r.code, r.stderr)
	}
	warning := "warning: stampede did not load table "
	for _, tc := range []struct {
		name  string
		args  []string
		table string // "" for no warning
	}{
		{"run bank over a user's bank", []string{"run", "bank", "--duration", "1s", "--rows", "1000", "--results-dir", res, dbURL(t, users)}, "bank"},
		{"run oltp_write_only over sysbench's prepare", []string{"run", "oltp_write_only", "--table_size", "1000", "--duration", "1s", "--results-dir", res, dbURL(t, users)}, "sbtest1"},
		{"sysbench form over sysbench's prepare", append(append([]string{"oltp_write_only"}, conn...), "--table-size=1000", "--time=1", "run"), "sbtest1"},
		{"read-only script", append(append([]string{"oltp_read_only"}, conn...), "--table-size=1000", "--time=1", "run"), ""},
		{"run bank over stampede's load", []string{"run", "bank", "--duration", "1s", "--results-dir", res, dbURL(t, ours)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := stampede(t, tc.args...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			n := strings.Count(r.stderr, warning)
			switch {
			case tc.table == "" && n != 0:
				t.Errorf("warned over tables it loaded, or for a run that does not write:\n%s", r.stderr)
			case tc.table != "" && n != 1:
				t.Errorf("%d warnings, want 1:\n%s", n, r.stderr)
			case tc.table != "":
				line := r.stderr[strings.Index(r.stderr, warning):]
				line = line[:strings.Index(line, "\n")]
				want := warning + tc.table + ` in database "` + users + `" (no record of its init there, no mark on it): the run writes into its rows as they are`
				if !strings.HasPrefix(line, want) {
					t.Errorf("warning %q, want it to begin %q", line, want)
				}
			}
		})
	}
	if n := queryInt(t, users, "SELECT count(*) FROM bank"); n != 1000 {
		t.Errorf("the user's bank holds %d accounts, not 1000", n)
	}
}
