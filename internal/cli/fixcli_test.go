package cli_test

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/dashboard"
)

// TestReloadHintOfSplitRun: a split run (--clients N --client-index I)
// refused because its data settings differ from the load advises a
// reload that init accepts (before, it carried --clients and
// --client-index, which init refuses with --drop); after the advised
// reload, the split run runs.
func TestReloadHintOfSplitRun(t *testing.T) {
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "fixcli_hint")
	adminExec(t, "CREATE DATABASE "+db)
	u := dbURL(t, db)
	mustRun(t, "init", "ycsb", "-p", "recordcount=100", u)
	run := []string{"run", "ycsb", "-p", "recordcount=800", "--clients", "2", "--client-index", "1", "--max-ops", "50", u}
	r := stampede(t, run...)
	m := hintRE.FindStringSubmatch(r.stderr)
	if r.code != 2 || m == nil || !strings.HasPrefix(m[1], "stampede init ycsb --drop") {
		t.Fatalf("the split run: exit %d, no reload advised:\n%s", r.code, r.stderr)
	}
	words := shellWords(t, m[1])
	if r := stampede(t, words[1:]...); r.code != 0 || strings.Contains(r.stderr, "warning") {
		t.Fatalf("the advice %s: exit %d\n%s", m[1], r.code, r.stderr)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM usertable"); n != 800 {
		t.Errorf("the advised reload loaded %d rows, want 800", n)
	}
	if r := stampede(t, run...); r.code != 0 {
		t.Errorf("the split run after the reload: exit %d\n%s", r.code, r.stderr)
	}
}

// TestResultsDirNone: --results-dir none on report, compare, runs and
// serve reads the results store alone, as run writes into it (before, it
// read a directory named none: "no run under none"); without a
// PostgreSQL store it is refused in one line. A directory named none in
// the working directory, holding another run, is never read.
func TestResultsDirNone(t *testing.T) {
	db := freshDB(t, "fixcli_none")
	adminExec(t, "CREATE DATABASE "+db)
	st := dbURL(t, db)
	t.Chdir(t.TempDir())
	t.Setenv("STAMPEDE_RESULTS_URL", "")
	mustRun(t, "run", "ycsb", "--driver", "null", "--max-ops", "100", "--results-dir", "none", "--results-url", st, "--tag", "job=a")
	// A decoy: a run in ./none, tagged job=a too.
	mustRun(t, "run", "ycsb", "--driver", "null", "--max-ops", "50", "--results-dir", "none-dir", "--tag", "job=a")
	if err := os.Rename("none-dir", "none"); err != nil {
		t.Fatal(err)
	}
	rows := stampede(t, "runs", "--results-dir", "none", "--results-url", st, "--format", "json")
	var list []struct {
		ID string `json:"id"`
	}
	if rows.code != 0 || json.Unmarshal([]byte(rows.stdout), &list) != nil || len(list) != 1 {
		t.Fatalf("runs --results-dir none: exit %d, %d runs, want the store's one:\n%s%s", rows.code, len(list), rows.stdout, rows.stderr)
	}
	id := list[0].ID
	rep := stampede(t, "report", "--results-dir", "none", "--results-url", st, "--tag", "job=a", "--format", "json")
	decoys, err := os.ReadDir("none")
	if err != nil || len(decoys) == 0 {
		t.Fatalf("the decoy ./none: %v", err)
	}
	if rep.code != 0 || !strings.Contains(rep.stdout, id) || strings.Contains(rep.stdout, decoys[0].Name()) {
		t.Errorf("report --results-dir none --tag job=a: exit %d:\n%s%s", rep.code, rep.stdout, rep.stderr)
	}
	if rep := stampede(t, "report", "--results-dir", "none", "--results-url", st, id[:len(id)-2]); rep.code != 0 || !strings.Contains(rep.stdout, id) {
		t.Errorf("report --results-dir none PREFIX: exit %d:\n%s%s", rep.code, rep.stdout, rep.stderr)
	}
	if cmp := stampede(t, "compare", "--results-dir", "none", "--results-url", st, id, id); cmp.code != 0 || !strings.Contains(cmp.stdout, id) {
		t.Errorf("compare --results-dir none: exit %d:\n%s%s", cmp.code, cmp.stdout, cmp.stderr)
	}
	miss := stampede(t, "report", "--results-dir", "none", "--results-url", st, "--tag", "job=b")
	checkOneLineError(t, miss, 2, "no run of the results store")
	if strings.Contains(miss.stderr, "under none") {
		t.Errorf("report read ./none: %s", miss.stderr)
	}
	for _, verb := range [][]string{{"report", "--tag", "job=a"}, {"runs"}, {"compare", id, id}, {"serve", "--listen", "127.0.0.1:0"}} {
		r := stampede(t, append(verb, "--results-dir", "none")...)
		checkOneLineError(t, r, 2, "--results-dir none")
	}
	url, errb, stop := startServe(t, "--listen", "127.0.0.1:0", "--results-dir", "none", "--results-url", st)
	resp, err := http.Get(url + "api/runs")
	if err != nil {
		t.Fatal(err)
	}
	var page struct {
		Total int `json:"total"`
		Runs  []struct {
			ID string `json:"id"`
		} `json:"runs"`
	}
	err = json.NewDecoder(resp.Body).Decode(&page)
	resp.Body.Close()
	if err != nil || page.Total != 1 || page.Runs[0].ID != id {
		t.Errorf("serve --results-dir none: runs %+v %v, want the store's %s", page, err, id)
	}
	// Port 0 is accepted, and said to be a free port picked (N4).
	if code := stop(); code != 0 || !strings.Contains(errb.String(), "serving the runs of the results store") || !strings.Contains(errb.String(), "--listen 127.0.0.1:0: port 0 picked a free port, "+url[strings.LastIndex(url, ":")+1:len(url)-1]+"\n") {
		t.Errorf("serve: exit %d: %s", code, errb.String())
	}
}

// TestEmptyValuesRefused: an empty value given explicitly is refused in
// one line, exit 2 (before, --chart ” drew nothing and said nothing,
// --start-at ” started at once, --warehouse-range ” ran every
// warehouse's terminals).
func TestEmptyValuesRefused(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, "run", "ycsb", "--driver", "null", "--max-ops", "20", "--results-dir", dir)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "--results-dir", dir, "--chart", "", "--tag", "workload=ycsb"}, "--chart '' names no file"},
		{[]string{"report", "--results-dir", dir, "--chart=", "--tag", "workload=ycsb"}, "--chart '' names no file"},
		{[]string{"run", "ycsb", "--driver", "null", "--max-ops", "20", "--results-dir", dir, "--start-at", ""}, "--start-at '' is empty"},
		{[]string{"run", "tpcc", "--warehouses", "4", "--warehouse-range", "", "--dry-run", "postgresql://bench@db/tpcc"}, "--warehouse-range '' is empty"},
	} {
		r := stampede(t, tc.args...)
		checkOneLineError(t, r, 2, tc.want)
	}
}

// TestLostStoreAdviceRuns: a run whose --results-url store cannot be
// reached advises an upload that names the store (before, `stampede runs
// upload DIR` alone, which fails without it); once the store is back, the
// advice pasted as it is sends the run.
func TestLostStoreAdviceRuns(t *testing.T) {
	t.Setenv("STAMPEDE_RESULTS_URL", "")
	db := freshDB(t, "fixcli_lost")
	st := dbURL(t, db) // no such database yet
	dir := t.TempDir()
	r := stampede(t, "run", "ycsb", "--driver", "null", "--max-ops", "50", "--results-dir", dir, "--results-url", st)
	if r.code != 0 {
		t.Fatalf("run: exit %d: %s", r.code, r.stderr)
	}
	m := hintRE.FindStringSubmatch(r.stderr)
	if m == nil || !strings.Contains(m[1], "runs upload") || !strings.Contains(m[1], "--results-url") {
		t.Fatalf("no upload advice naming the store:\n%s", r.stderr)
	}
	adminExec(t, "CREATE DATABASE "+db)
	words := shellWords(t, m[1])
	up := stampede(t, words[1:]...)
	if up.code != 0 || !strings.Contains(up.stdout, "sent to the results store") {
		t.Errorf("the advice %s: exit %d: %s%s", m[1], up.code, up.stdout, up.stderr)
	}
}

// TestServeHelpListsEndpoints: the API's answer to an unknown endpoint
// sends the user to `stampede serve --help`, which lists every endpoint.
func TestServeHelpListsEndpoints(t *testing.T) {
	r := stampede(t, "serve", "--help")
	if r.code != 0 {
		t.Fatalf("serve --help: exit %d: %s", r.code, r.stderr)
	}
	for _, e := range dashboard.Endpoints() {
		if !strings.Contains(r.stdout, e) {
			t.Errorf("serve --help lists no %s:\n%s", e, r.stdout)
		}
	}
}
