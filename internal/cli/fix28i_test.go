package cli_test

import (
	"os"
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
