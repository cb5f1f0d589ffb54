package hammerdb_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/stampede-bench/stampede/internal/cli"
)

// testServer skips t when there is no test server (scripts/test starts
// one), and otherwise returns its URL and a connection to it as its
// superuser, closed when the test ends. The databases dbs, then the roles,
// are dropped if they exist, before the test and after it.
func testServer(t *testing.T, dbs []string, roles ...string) (*url.URL, *pgx.Conn) {
	t.Helper()
	dsn := os.Getenv("STAMPEDE_TEST_DATABASE")
	if dsn == "" {
		t.Skip("STAMPEDE_TEST_DATABASE not set: scripts/test starts a server and sets it")
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	admin, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close(context.Background()) })
	drops := func(force string) []string {
		var qs []string
		for _, db := range dbs {
			qs = append(qs, "DROP DATABASE IF EXISTS "+db+force)
		}
		for _, role := range roles {
			qs = append(qs, "DROP ROLE IF EXISTS "+role)
		}
		return qs
	}
	for _, q := range drops("") {
		if _, err := admin.Exec(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, q := range drops(" WITH (FORCE)") {
			admin.Exec(context.Background(), q) //nolint:errcheck // best effort
		}
	})
	return u, admin
}

// TestScriptEndToEnd runs HammerDB's own buildschema script
// (scripts/tcl/postgres/tprocc/pg_tprocc_buildschema.tcl) and then the
// run of its documentation's CLI example, with only the connection, the
// names, the scale and the times changed, against the test server: the
// user and database are created as HammerDB creates them, vurun prints
// HammerDB's result line, its NOPM is the growth of sum(d_next_o_id)
// that the test reads itself, and summary.json holds it.
func TestScriptEndToEnd(t *testing.T) {
	const db, user = "hammerdbcli_e2e", "hammerdbcli_e2e_user"
	u, admin := testServer(t, []string{db}, user)
	ctx := context.Background()
	conn := fmt.Sprintf("diset connection pg_host %s\ndiset connection pg_port %s\ndiset connection pg_sslmode disable\n"+
		"diset tpcc pg_superuser %s\ndiset tpcc pg_defaultdbase %s\ndiset tpcc pg_user %s\ndiset tpcc pg_pass tpcc\ndiset tpcc pg_dbase %s\n",
		u.Hostname(), u.Port(), u.User.Username(), strings.TrimPrefix(u.Path, "/"), user, db)
	build := "puts \"SETTING CONFIGURATION\"\ndbset db pg\ndbset bm TPC-C\n" + conn +
		"diset tpcc pg_count_ware 2\ndiset tpcc pg_num_vu 2\ndiset tpcc pg_storedprocs false\n" +
		"puts \"SCHEMA BUILD STARTED\"\nbuildschema\nputs \"SCHEMA BUILD COMPLETED\"\n"
	runScript := "puts \"SETTING CONFIGURATION\"\ndbset db pg\n" + conn +
		"diset tpcc pg_driver timed\ndiset tpcc pg_rampup 0\ndiset tpcc pg_duration 1\nvuset logtotemp 1\nloadscript\n" +
		"puts \"SEQUENCE STARTED\"\nforeach z { 2 } {\nputs \"$z VU TEST\"\nvuset vu $z\nvucreate\nvurun\nvudestroy\n}\nputs \"TEST SEQUENCE COMPLETE\"\n"
	dir := t.TempDir()
	results := filepath.Join(dir, "runs")
	hammer := func(name, src string) (string, string) {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		var out, errOut bytes.Buffer
		if code := cli.MainContext(ctx, []string{"hammerdbcli", "auto", path, "--results-dir", results}, &out, &errOut); code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", name, code, out.String(), errOut.String())
		}
		return out.String(), errOut.String()
	}
	out, _ := hammer("build.tcl", build)
	if !strings.Contains(out, "SCHEMA BUILD COMPLETED") {
		t.Fatalf("build:\n%s", out)
	}
	var owner string
	if err := admin.QueryRow(ctx, "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = $1", db).Scan(&owner); err != nil || owner != user {
		t.Fatalf("database %s's owner: %q %v, want %s (as HammerDB creates it)", db, owner, err, user)
	}
	sum := func() int64 {
		du := *u
		du.Path = "/" + db
		c, err := pgx.Connect(ctx, du.String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		var n int64
		if err := c.QueryRow(ctx, "SELECT sum(d_next_o_id) FROM district").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := sum()
	out, errOut := hammer("run.tcl", runScript)
	after := sum()
	m := regexp.MustCompile(`(?m)^Vuser 1:TEST RESULT : System achieved (\d+) NOPM from (\d+) PostgreSQL TPM$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no result line:\n%s", out)
	}
	nopm, _ := strconv.ParseInt(m[1], 10, 64)
	// One minute measured, no ramp: NOPM is at most the New-Orders the
	// whole run committed, and misses at most those in flight at its ends.
	if grown := after - before; nopm < 1 || nopm > grown || grown-nopm > 4 {
		t.Errorf("NOPM %d, sum(d_next_o_id) grew by %d over the run", nopm, grown)
	}
	saved := regexp.MustCompile(`(?m)^results saved in (.+)$`).FindStringSubmatch(errOut)
	if saved == nil {
		t.Fatalf("no run directory:\n%s", errOut)
	}
	b, err := os.ReadFile(filepath.Join(saved[1], "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The run's figures are summary.json's "figures".
	var s struct {
		Figures map[string]float64 `json:"figures"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if v, ok := s.Figures["hammerdb_nopm"]; !ok || math.Abs(v-float64(nopm)) >= 1 {
		t.Errorf("summary.json's figures: hammerdb_nopm %v (%v), want %d", v, ok, nopm)
	}
}

// TestCLI: stampede hammerdbcli through the command line: a script runs,
// and a bad one is refused in one line, exit 2.
func TestCLI(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		src, out, err string
		code          int
	}{
		{"puts \"SETTING CONFIGURATION\"\ndbset db pg\n", "SETTING CONFIGURATION\nDatabase set to PostgreSQL\n", "", 0},
		{"dbset db pg\ndiset tpcc mysql_count_ware 10\n", "Database set to PostgreSQL\n",
			"stampede: error: line 2: diset tpcc mysql_count_ware: mysql_count_ware is MySQL's key, not PostgreSQL's: for PostgreSQL use diset tpcc pg_count_ware (dbset db pg)\n", 2},
		{"dbset db pg\nvuset vu 2\nexit 1\n", "Database set to PostgreSQL\n", "stampede: error: the script ran exit 1\n", 1},
	} {
		path := filepath.Join(dir, "s.tcl")
		if err := os.WriteFile(path, []byte(tc.src), 0o600); err != nil {
			t.Fatal(err)
		}
		var out, errOut bytes.Buffer
		code := cli.MainContext(context.Background(), []string{"hammerdbcli", "auto", path}, &out, &errOut)
		if code != tc.code || out.String() != tc.out || errOut.String() != tc.err {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want %d, %q, %q", tc.src, code, out.String(), errOut.String(), tc.code, tc.out, tc.err)
		}
	}
}

// findKey returns every number at key name anywhere in a JSON value.
func findKey(v any, name string) []float64 {
	var out []float64
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if f, ok := x.(float64); ok && k == name {
				out = append(out, f)
			}
			out = append(out, findKey(x, name)...)
		}
	case []any:
		for _, x := range v {
			out = append(out, findKey(x, name)...)
		}
	}
	return out
}

// TestTwoNodesAddNOPM: two HammerDB instances against two nodes, as a
// field report ran them, are two clients of one benchmark: two scripts,
// each naming its own node (here two databases of the test server), run
// at once with --clients 2 --client-index I, and report --tag adds their
// NOPM.
func TestTwoNodesAddNOPM(t *testing.T) {
	nodes := []string{"hammerdbcli_node1", "hammerdbcli_node2"}
	u, _ := testServer(t, nodes)
	ctx := context.Background()
	dir := t.TempDir()
	results := filepath.Join(dir, "runs")
	script := func(db, body string) string {
		path := filepath.Join(dir, db+body[:3]+".tcl")
		src := fmt.Sprintf("dbset db pg\ndiset connection pg_host %s\ndiset connection pg_port %s\ndiset connection pg_sslmode disable\n"+
			"diset tpcc pg_superuser %s\ndiset tpcc pg_user %s\ndiset tpcc pg_dbase %s\n%s",
			u.Hostname(), u.Port(), u.User.Username(), u.User.Username(), db, body)
		if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, db := range nodes {
		var out bytes.Buffer
		if code := cli.MainContext(ctx, []string{"hammerdbcli", "auto", script(db, "diset tpcc pg_count_ware 2\nbuildschema\n")}, &out, &out); code != 0 {
			t.Fatalf("build %s: exit %d\n%s", db, code, out.String())
		}
	}
	type result struct {
		out  string
		code int
	}
	done := make(chan result, len(nodes))
	for i, db := range nodes {
		path := script(db, "diset tpcc pg_rampup 0\ndiset tpcc pg_duration 1\nvuset vu 2\nvurun\n")
		go func() {
			var out bytes.Buffer
			code := cli.MainContext(ctx, []string{"hammerdbcli", "auto", path, "--clients", "2", "--client-index", strconv.Itoa(i),
				"--tag", "job=two-nodes", "--results-dir", results}, &out, &out)
			done <- result{out.String(), code}
		}()
	}
	var sum int64
	re := regexp.MustCompile(`(?m)^Vuser 1:TEST RESULT : System achieved (\d+) NOPM from (\d+) PostgreSQL TPM$`)
	for range nodes {
		r := <-done
		m := re.FindStringSubmatch(r.out)
		if r.code != 0 || m == nil {
			t.Fatalf("exit %d, no result line:\n%s", r.code, r.out)
		}
		n, _ := strconv.ParseInt(m[1], 10, 64)
		sum += n
	}
	var rep, repErr bytes.Buffer
	if code := cli.MainContext(ctx, []string{"report", "--tag", "job=two-nodes", "--results-dir", results, "--format", "json"}, &rep, &repErr); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, repErr.String())
	}
	var v any
	if err := json.Unmarshal(rep.Bytes(), &v); err != nil {
		t.Fatalf("report's JSON: %v\n%s", err, rep.String())
	}
	got := findKey(v, "hammerdb_nopm")
	if len(got) == 0 || math.Abs(got[0]-float64(sum)) >= 2 {
		t.Errorf("report --tag job=two-nodes: hammerdb_nopm %v, want the clients' NOPM added, %d", got, sum)
	}
}
