package cli_test

import (
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/internal/golden"
)

// numbers matches the figures of an output, which vary from run to run.
var numbers = regexp.MustCompile(`\d+(\.\d+)?`)

// blanks matches runs of spaces, whose width follows the figures'.
var blanks = regexp.MustCompile(` +`)

// shape masks every number of out with N and narrows runs of spaces to
// one, leaving the layout to compare.
func shape(out string) string {
	return blanks.ReplaceAllString(numbers.ReplaceAllString(out, "N"), " ")
}

// TestSysbenchCommandLine runs a sysbench command line unchanged (word
// order, option names, --pgsql-* connection) through prepare, run with
// sysbench's output style, and cleanup, and compares the output's layout
// with a golden transcript.
func TestSysbenchCommandLine(t *testing.T) {
	srv := testServer(t)
	db := freshDB(t, "stampede_sb")
	adminExec(t, "CREATE DATABASE "+db)
	u, err := url.Parse(srv)
	if err != nil {
		t.Fatal(err)
	}
	conn := []string{"--pgsql-host=" + u.Hostname(), "--pgsql-port=" + u.Port(), "--pgsql-user=" + u.User.Username(), "--pgsql-db=" + db}
	common := append([]string{"--tables=2", "--table_size=500"}, conn...)
	sb := func(args ...string) result {
		t.Helper()
		return stampede(t, append(append([]string{"oltp_read_write"}, common...), args...)...)
	}

	r := sb("--threads=2", "--time=2", "run")
	if r.code != 1 || !strings.Contains(r.stderr, "does not exist") || !strings.Contains(r.stderr, "prepare") {
		t.Errorf("run before prepare: %d %q", r.code, r.stderr)
	}
	if r := sb("--threads=2", "prepare"); r.code != 0 {
		t.Fatalf("prepare: %d %s", r.code, r.stderr)
	}
	r = sb("prepare")
	checkOneLineError(t, r, 2, "already exists")
	if !strings.Contains(r.stderr, "cleanup") {
		t.Errorf("prepare twice: %d %q", r.code, r.stderr)
	}
	r = sb("--threads=2", "--time=3", "--report-interval=1", "--output-style=sysbench", "--rand-seed=7",
		"--results-dir", t.TempDir(), "run")
	if r.code != 0 {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}
	// The last tick may or may not make a fourth interval line; keep three.
	var lines []string
	intervals := 0
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, "[ ") {
			if intervals++; intervals > 3 {
				continue
			}
		}
		lines = append(lines, l)
	}
	got := shape(strings.Join(lines, "\n"))
	golden.Check(t, filepath.Join("testdata", "sysbench_run.golden"), []byte(got))
	// Like sysbench's, prepare ran no ANALYZE (autovacuum's would count
	// in autoanalyze_count); seconds have passed for the counts to arrive.
	const analyzed = "SELECT coalesce(sum(analyze_count), 0) FROM pg_stat_user_tables WHERE relname LIKE 'sbtest%'"
	if n := queryInt(t, db, analyzed); n != 0 {
		t.Errorf("prepare analyzed the tables %d times; sysbench's does not", n)
	}
	if r := sb("cleanup"); r.code != 0 {
		t.Fatalf("cleanup: %d %s", r.code, r.stderr)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"); n != 0 {
		t.Errorf("%d tables left after cleanup", n)
	}
	// --analyze asks for it: each table once.
	if r := sb("--analyze", "prepare"); r.code != 0 {
		t.Fatalf("prepare --analyze: %d %s", r.code, r.stderr)
	}
	n := queryInt(t, db, analyzed)
	for deadline := time.Now().Add(5 * time.Second); n < 2 && time.Now().Before(deadline); n = queryInt(t, db, analyzed) {
		time.Sleep(100 * time.Millisecond) // a backend reports its counts as it exits
	}
	if n != 2 {
		t.Errorf("prepare --analyze analyzed 2 tables %d times, want 2", n)
	}
	if r := sb("cleanup"); r.code != 0 {
		t.Fatalf("cleanup: %d %s", r.code, r.stderr)
	}
}

// TestBulkInsertCleanup runs bulk_insert as sysbench users do (prepare,
// run, cleanup with --threads on every command) and finds no table left.
func TestBulkInsertCleanup(t *testing.T) {
	url := testServer(t)
	db := freshDB(t, "bulkclean")
	for _, args := range [][]string{
		{"bulk_insert", "--threads=3", "--db", db, "prepare", url},
		{"bulk_insert", "--threads=3", "--time=1", "--db", db, "--results-dir", t.TempDir(), "run", url},
	} {
		if r := stampede(t, args...); r.code != 0 {
			t.Fatalf("%v: %d %s", args, r.code, r.stderr)
		}
	}
	if n := queryInt(t, db, "SELECT count(*) FROM pg_tables WHERE tablename LIKE 'sbtest%'"); n != 3 {
		t.Fatalf("%d sbtest tables after the run, want 3 (one per thread)", n)
	}
	if r := stampede(t, "bulk_insert", "--threads=3", "--db", db, "cleanup", url); r.code != 0 {
		t.Fatalf("cleanup: %d %s", r.code, r.stderr)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM pg_tables WHERE tablename LIKE 'sbtest%'"); n != 0 {
		t.Errorf("%d sbtest tables left after cleanup", n)
	}
}
