package cli_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestDiffBadInput: each mistake is one line and exit status 2.
func TestDiffBadInput(t *testing.T) {
	u := "postgresql://postgres@127.0.0.1:1/db?sslmode=disable"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"diff", u}, "accepts 2 arg(s)"},
		{[]string{"diff", "--tables", "t", u, u}, "the same URL is given twice"},
		{[]string{"diff", u, u + "x"}, "give --workload or --tables"},
		{[]string{"diff", "--workload", "nosuch", u, u + "x"}, `unknown --workload "nosuch"`},
		{[]string{"diff", "--tables", "t", "--format", "xml", u, u + "x"}, `unknown --format "xml"`},
		{[]string{"diff", "--tables", "t", "--results-dir", t.TempDir(), u, "postgresql://postgres@127.0.0.1:2/db?sslmode=disable"}, "server "},
	} {
		r := stampede(t, tc.args...)
		checkOneLineError(t, r, 2, tc.want)
	}
}

// TestDiffCommand compares two databases loaded with the same bank data:
// identical (0); one row changed on B: printed, 1; then the run is listed
// and reported; a table without primary key: 2, one line naming it.
func TestDiffCommand(t *testing.T) {
	dbA, dbB := freshDB(t, "stampede_diffa"), freshDB(t, "stampede_diffb")
	urlA, urlB := dbURL(t, dbA), dbURL(t, dbB)
	for _, u := range []string{urlA, urlB} {
		if r := stampede(t, "init", "bank", "--rows", "5000", "--seed", "7", u); r.code != 0 {
			t.Fatalf("init: %s", r.stderr)
		}
	}
	dir := t.TempDir()
	r := stampede(t, "diff", "--workload", "bank", "--results-dir", dir, urlA, urlB)
	if r.code != 0 || !strings.Contains(r.stdout, "identical: 1 table, 5,000 rows compared") {
		t.Fatalf("identical: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	conn := connectTo(t, context.Background(), dbB)
	if _, err := conn.Exec(context.Background(), "UPDATE bank SET balance = balance + 1 WHERE id = 4321"); err != nil {
		t.Fatal(err)
	}
	conn.Close(context.Background())
	r = stampede(t, "diff", "--workload", "bank", "--results-dir", dir, "--format", "json", urlA, urlB)
	if r.code != 1 {
		t.Fatalf("differ: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	var res struct {
		Identical bool `json:"identical"`
		Rows      []struct {
			Key     []struct{ Column, Value string }
			Kind    string
			Columns []struct{ Column string }
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	if res.Identical || len(res.Rows) != 1 || res.Rows[0].Key[0].Value != "4321" || res.Rows[0].Columns[0].Column != "balance" {
		t.Errorf("result %+v", res)
	}
	if !strings.Contains(r.stderr, "stampede: error: the nodes differ") {
		t.Errorf("stderr %q", r.stderr)
	}
	runs := stampede(t, "runs", "--results-dir", dir)
	if runs.code != 0 || strings.Count(runs.stdout, " diff ") != 2 {
		t.Errorf("runs: %s%s", runs.stdout, runs.stderr)
	}
	// Diff runs are recorded under the name diff: --workload diff lists
	// them without a warning.
	if r := stampede(t, "runs", "--results-dir", dir, "--workload", "diff"); r.code != 0 || strings.Count(r.stdout, " diff ") != 2 || r.stderr != "" {
		t.Errorf("runs --workload diff: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	id := runs.stdout[strings.LastIndex(runs.stdout, "\n20")+1:]
	id = id[:strings.IndexByte(id, ' ')]
	rep := stampede(t, "report", "--results-dir", dir, id)
	if rep.code != 0 || !strings.Contains(rep.stdout, "bank (id=4321): changed balance") {
		t.Errorf("report %s: %d\n%s\n%s", id, rep.code, rep.stdout, rep.stderr)
	}
	checkOneLineError(t, stampede(t, "report", "--results-dir", dir, "--chart", dir+"/c.svg", id), 2, "a diff run has no intervals")

	for _, db := range []string{dbA, dbB} {
		c := connectTo(t, context.Background(), db)
		if _, err := c.Exec(context.Background(), "CREATE TABLE nopk (a int, b text)"); err != nil {
			t.Fatal(err)
		}
		c.Close(context.Background())
	}
	r = stampede(t, "diff", "--tables", "bank,nopk", "--results-dir", dir, urlA, urlB)
	checkOneLineError(t, r, 2, "nopk has no primary key")
	r = stampede(t, "diff", "--tables", "nopk", "--no-pk", "--results-dir", dir, urlA, urlB)
	if r.code != 0 {
		t.Errorf("--no-pk: %d\n%s", r.code, r.stderr)
	}
}
