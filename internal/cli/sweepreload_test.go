package cli_test

import (
	"fmt"
	"os"
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
	loaded := fmt.Sprintf("and init (of ycsb) loaded database %q with -p fieldlength=100: give --reload", db)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"property without --reload", []string{"-p", "fieldlength=50,200"}, "-p fieldlength=50,200 changes what init loads, " + loaded},
		{"flag without --reload", []string{"--field-length", "100,200"}, "--field-length 100,200 changes what init loads, " + loaded},
		{"--reload over no data", []string{"--max-ops", "10,20", "--reload"}, "--max-ops 10,20 changes no data there: drop --reload"},
		{"--reload of one value", []string{"--max-rate", "100", "--reload"}, "--reload loads the data again before each step of a sweep over a flag that changes it"},
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
	// The last step's load: its field length, init's record count.
	if n := queryInt(t, db, "SELECT count(*) FROM usertable"); n != 500 {
		t.Errorf("%d rows after the reloads, want init's 500", n)
	}
	if n := queryInt(t, db, "SELECT max(length(field0)) FROM usertable"); n != 200 {
		t.Errorf("fields of %d characters after the last step's reload, want 200", n)
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
}
