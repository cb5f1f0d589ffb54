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
