package cli_test

import (
	"context"
	"encoding/json"
	"regexp"
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
		{[]string{"diff", u}, "`stampede diff` takes exactly 2 arguments, not 1: usage: stampede diff URL_A URL_B [flags]"},
		{[]string{"diff", "--tables", "t", u, u}, "the same URL is given twice"},
		{[]string{"diff", "--workload", "bank", "--tables", "bank", u, u + "x"}, "give --workload or --tables, not both"},
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

// TestDiffEveryTable compares two databases with neither --workload nor
// --tables: every table either side holds in every schema its user sees,
// schema-qualified (chk28b F4: app.orders was left out, "identical"), a
// table on one side only named as a difference, a table without a
// primary key named as not compared (exit 1: not proven identical), and
// with --no-pk compared too; stampede's own bookkeeping table is left out
// with a note that names it.
func TestDiffEveryTable(t *testing.T) {
	dbA, dbB := freshDB(t, "stampede_diffalla"), freshDB(t, "stampede_diffallb")
	urlA, urlB := dbURL(t, dbA), dbURL(t, dbB)
	adminExec(t, "CREATE DATABASE "+dbA, "CREATE DATABASE "+dbB)
	for _, db := range []string{dbA, dbB} {
		execIn(t, db,
			"CREATE TABLE same (id int PRIMARY KEY, v text)",
			"INSERT INTO same SELECT g, 'x' || g FROM generate_series(1, 100) g",
			"CREATE TABLE other (id int PRIMARY KEY, v int)",
			"INSERT INTO other SELECT g, g FROM generate_series(1, 50) g",
			"CREATE TABLE nokey (v int)",
			"INSERT INTO nokey VALUES (1), (2)",
			"CREATE SCHEMA app",
			"CREATE TABLE app.orders (id int PRIMARY KEY, v int)",
			"INSERT INTO app.orders VALUES (1, 100), (2, 200)",
			"CREATE TABLE stampede_load (x int)")
	}
	execIn(t, dbA, "CREATE TABLE only_a (id int PRIMARY KEY)", "UPDATE other SET v = 0 WHERE id = 7")
	execIn(t, dbB, "UPDATE app.orders SET v = 999 WHERE id = 1")
	dir := t.TempDir()
	status := regexp.MustCompile(`(?m)^  (\S+) .*  (identical|differs|missing on B|not compared: no primary key \(--no-pk compares it by one checksum of all its rows\))$`)
	statuses := func(out string) map[string]string {
		got := map[string]string{}
		for _, m := range status.FindAllStringSubmatch(out, -1) {
			got[m[1]] = m[2]
		}
		return got
	}
	for _, tc := range []struct {
		name    string
		setup   []string // on A, before the diff
		args    []string
		code    int
		want    map[string]string
		verdict string
	}{
		{"differences", nil, nil, 1,
			map[string]string{"public.same": "identical", "public.other": "differs", "public.only_a": "missing on B",
				"public.nokey": "not compared: no primary key (--no-pk compares it by one checksum of all its rows)", "app.orders": "differs"},
			"different: 3 of 5 tables differ: 2 by 2 rows, 1 missing on B; 152 rows compared"},
		{"keyless not compared", []string{"DROP TABLE only_a", "UPDATE other SET v = 7 WHERE id = 7", "UPDATE app.orders SET v = 999 WHERE id = 1"}, nil, 1,
			map[string]string{"public.same": "identical", "public.other": "identical", "app.orders": "identical",
				"public.nokey": "not compared: no primary key (--no-pk compares it by one checksum of all its rows)"},
			"not proven identical: the 3 tables compared are identical, 152 rows"},
		{"--no-pk", nil, []string{"--no-pk"}, 0,
			map[string]string{"public.same": "identical", "public.other": "identical", "public.nokey": "identical", "app.orders": "identical"},
			"identical: 4 tables, 154 rows compared"},
	} {
		execIn(t, dbA, tc.setup...)
		r := stampede(t, append(append([]string{"diff", "--results-dir", dir}, tc.args...), urlA, urlB)...)
		got := statuses(r.stdout)
		if !strings.Contains(r.stdout, "note: not compared: stampede's own bookkeeping public.stampede_load (name it with --tables to compare it)") {
			t.Errorf("%s: no note of the bookkeeping table left out:\n%s", tc.name, r.stdout)
		}
		if r.code != tc.code || !strings.Contains(r.stdout, tc.verdict) || len(got) != len(tc.want) {
			t.Errorf("%s: exit %d (want %d), tables %v\n%s%s", tc.name, r.code, tc.code, got, r.stdout, r.stderr)
			continue
		}
		for table, want := range tc.want {
			if got[table] != want {
				t.Errorf("%s: table %s %q, want %q", tc.name, table, got[table], want)
			}
		}
	}
}
