package hammerdb_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/stampede-bench/stampede/internal/cli"
	"github.com/stampede-bench/stampede/localpg"
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
// (scripts/tcl/postgres/tprocc/pg_tprocc_buildschema.tcl, which sets
// pg_storedprocs true) and then the run of its documentation's CLI
// example (which leaves it false), with only the connection, the names,
// the scale and the times changed, against the test server: the run
// finds the procedures and calls them, saying so; the
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
		"diset tpcc pg_count_ware 2\ndiset tpcc pg_num_vu 2\ndiset tpcc pg_storedprocs true\n" +
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
	// in runs f on a connection to the built database, as its owner.
	in := func(f func(c *pgx.Conn) error) {
		du := *u
		du.Path = "/" + db
		c, err := pgx.Connect(ctx, du.String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		if err := f(c); err != nil {
			t.Fatal(err)
		}
	}
	read := func(q string) (n int64) {
		in(func(c *pgx.Conn) error { return c.QueryRow(ctx, q).Scan(&n) })
		return n
	}
	sum := func() int64 { return read("SELECT sum(d_next_o_id) FROM district") }
	// The field report's step between the scripts: the user replaces a
	// routine with their own (`psql tpcc < slev.sql`); the run calls it, as
	// HammerDB calls whatever is installed, and its header says so.
	in(func(c *pgx.Conn) error {
		for _, q := range []string{"CREATE TABLE slev_audit (w_id integer)", "GRANT INSERT ON slev_audit TO " + user,
			`CREATE OR REPLACE PROCEDURE slev(st_w_id integer, st_d_id integer, threshold integer, INOUT stock_count integer)
LANGUAGE plpgsql AS $$ BEGIN INSERT INTO slev_audit VALUES (st_w_id); stock_count := 0; END $$`} {
			if _, err := c.Exec(ctx, q); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
		return nil
	})
	before := sum()
	out, errOut := hammer("run.tcl", runScript)
	after := sum()
	if !strings.Contains(out+errOut, "slev(integer,integer,integer,integer) in database "+db+" is not the one stampede's init made (yours, or replaced since): the run calls the routines installed, as HammerDB does") {
		t.Errorf("the run over the user's slev does not name it:\n%s%s", out, errOut)
	}
	if audited := read("SELECT count(*) FROM slev_audit"); audited == 0 {
		t.Errorf("slev_audit is empty: the run did not call the user's slev:\n%s%s", out, errOut)
	}
	m := regexp.MustCompile(`(?m)^Vuser 1:TEST RESULT : System achieved (\d+) NOPM from (\d+) PostgreSQL TPM$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no result line:\n%s", out)
	}
	// HammerDB's build script makes procedures (pg_storedprocs true) and
	// its run script leaves pg_storedprocs false: the run finds them and
	// calls them, saying so.
	if !strings.Contains(out+errOut, "procedures called with CALL, found installed as procedures, not functions: called with CALL without --stored-procs") {
		t.Errorf("the run over procedures without pg_storedprocs does not say it calls them:\n%s%s", out, errOut)
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
// each naming its own node (the test server and a second throwaway server
// the test starts), run at once with --clients 2 --client-index I, and
// report --tag adds their NOPM and TPM (each node's own pg_stat_database).
// The consistency checks are client 0's, on node 1: the report says that
// node 2's database was not checked, and client 1 says so too.
func TestTwoNodesAddNOPM(t *testing.T) {
	const db = "hammerdbcli_node"
	u1, _ := testServer(t, []string{db})
	if testing.Short() {
		t.Skip("starts a second PostgreSQL")
	}
	if _, err := localpg.FindBinDir(); err != nil {
		t.Skipf("no PostgreSQL server binaries: %v", err)
	}
	ctx := context.Background()
	second, err := localpg.Start(ctx, localpg.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = second.Stop() })
	u2, err := url.Parse(second.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	nodes := []*url.URL{u1, u2}
	dir := t.TempDir()
	results := filepath.Join(dir, "runs")
	script := func(i int, body string) string {
		path := filepath.Join(dir, fmt.Sprintf("node%d%s.tcl", i+1, body[:3]))
		u := nodes[i]
		src := fmt.Sprintf("dbset db pg\ndiset connection pg_host %s\ndiset connection pg_port %s\ndiset connection pg_sslmode disable\n"+
			"diset tpcc pg_superuser %s\ndiset tpcc pg_user %s\ndiset tpcc pg_dbase %s\n%s",
			u.Hostname(), u.Port(), u.User.Username(), u.User.Username(), db, body)
		if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for i := range nodes {
		var out bytes.Buffer
		// Node 2 has procedures, node 1 functions: the kind is not data,
		// and the clients' figures add up.
		procs := strconv.FormatBool(i == 1)
		if code := cli.MainContext(ctx, []string{"hammerdbcli", "auto", script(i, "diset tpcc pg_count_ware 2\ndiset tpcc pg_storedprocs "+procs+"\nbuildschema\n")}, &out, &out); code != 0 {
			t.Fatalf("build node %d: exit %d\n%s", i+1, code, out.String())
		}
	}
	type result struct {
		i    int
		out  string
		code int
	}
	done := make(chan result, len(nodes))
	for i := range nodes {
		// Node 2's script says pg_storedprocs true (--stored-procs), node
		// 1's leaves it false: a merge of runs whose --stored-procs differ.
		path := script(i, "diset tpcc pg_storedprocs "+strconv.FormatBool(i == 1)+"\ndiset tpcc pg_rampup 0\ndiset tpcc pg_duration 1\nvuset vu 2\nvurun\n")
		go func() {
			var out bytes.Buffer
			code := cli.MainContext(ctx, []string{"hammerdbcli", "auto", path, "--clients", "2", "--client-index", strconv.Itoa(i),
				"--tag", "job=two-nodes", "--results-dir", results}, &out, &out)
			done <- result{i, out.String(), code}
		}()
	}
	var nopm, tpm int64
	re := regexp.MustCompile(`(?m)^Vuser 1:TEST RESULT : System achieved (\d+) NOPM from (\d+) PostgreSQL TPM$`)
	for range nodes {
		r := <-done
		m := re.FindStringSubmatch(r.out)
		if r.code != 0 || m == nil {
			t.Fatalf("client %d: exit %d, no result line:\n%s", r.i, r.code, r.out)
		}
		n, _ := strconv.ParseInt(m[1], 10, 64)
		nopm += n
		n, _ = strconv.ParseInt(m[2], 10, 64)
		tpm += n
		checked := strings.Contains(r.out, "3.3.2.1 W_YTD = sum(D_YTD): PASS")
		said := strings.Contains(r.out, "consistency checks: client 0 runs them after its run, on its own database; this client's (database "+db+" on ")
		if checked != (r.i == 0) || said != (r.i == 1) {
			t.Errorf("client %d: checks run %v, said that client 0 runs them %v:\n%s", r.i, checked, said, r.out)
		}
	}
	var rep, repErr bytes.Buffer
	if code := cli.MainContext(ctx, []string{"report", "--tag", "job=two-nodes", "--results-dir", results, "--format", "json"}, &rep, &repErr); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, repErr.String())
	}
	var v any
	if err := json.Unmarshal(rep.Bytes(), &v); err != nil {
		t.Fatalf("report's JSON: %v\n%s", err, rep.String())
	}
	if got := findKey(v, "hammerdb_nopm"); len(got) == 0 || math.Abs(got[0]-float64(nopm)) >= 2 {
		t.Errorf("report --tag job=two-nodes: hammerdb_nopm %v, want the clients' NOPM added, %d", got, nopm)
	}
	if got := findKey(v, "hammerdb_tpm"); len(got) == 0 || math.Abs(got[0]-float64(tpm)) >= 2 {
		t.Errorf("report --tag job=two-nodes: hammerdb_tpm %v, want the nodes' TPM added, %d", got, tpm)
	}
	var doc struct {
		ChecksNotRunOn []string `json:"checks_not_run_on"`
	}
	if err := json.Unmarshal(rep.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	want := "database " + db + " on " + net.JoinHostPort(u2.Hostname(), u2.Port())
	if len(doc.ChecksNotRunOn) != 1 || doc.ChecksNotRunOn[0] != want {
		t.Errorf("report's checks_not_run_on %q, want [%q]: node 2's database was not checked", doc.ChecksNotRunOn, want)
	}
	var text, textErr bytes.Buffer
	if code := cli.MainContext(ctx, []string{"report", "--tag", "job=two-nodes", "--results-dir", results}, &text, &textErr); code != 0 ||
		!strings.Contains(text.String(), want+", where other clients ran, not checked; stampede check of its URL checks it)") ||
		strings.Contains(text.String(), "once for the benchmark") ||
		!strings.Contains(text.String(), "the sum of the 2 clients' HammerDB TPM, each read from its server; routines: procedures on 1 client, functions on 1)") {
		t.Errorf("report (exit %d) does not say node 2 was not checked, or the routines' kinds:\n%s%s", code, text.String(), textErr.String())
	}
}

// TestConnectErrorsOneLine: buildschema and vurun against nothing
// listening, as a user that does not exist, or on a database that does
// not exist, say so in one line, as stampede run does (before: pgx's text
// of every attempt, with literal \n, a spurious TLS error and each cause
// twice).
func TestConnectErrorsOneLine(t *testing.T) {
	u, _ := testServer(t, nil)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	dir := t.TempDir()
	for _, tc := range []struct {
		name, port, user, db, cmd, want string
	}{
		{"buildschema, nothing listening", closed, u.User.Username(), "hammerdbcli_conn", "buildschema",
			"line 9: buildschema: cannot connect to 127.0.0.1:" + closed + " (database \"postgres\", user \"" + u.User.Username() + "\"): "},
		{"vurun, nothing listening", closed, u.User.Username(), "hammerdbcli_conn", "vurun",
			"line 9: vurun: cannot connect to 127.0.0.1:" + closed + " (database \"hammerdbcli_conn\", user \"" + u.User.Username() + "\"): "},
		{"vurun, no such user", u.Port(), "hammerdbcli_nouser", "postgres", "vurun",
			"line 9: vurun: cannot connect to 127.0.0.1:" + u.Port() + " (database \"postgres\", user \"hammerdbcli_nouser\"): role \"hammerdbcli_nouser\" does not exist (SQLSTATE 28000); check the user name and password (the script's diset tpcc pg_superuser and pg_superuserpass, or pg_user and pg_pass)"},
		{"vurun, no such database", u.Port(), u.User.Username(), "hammerdbcli_nodb", "vurun",
			"line 9: vurun: cannot connect to 127.0.0.1:" + u.Port() + " (database \"hammerdbcli_nodb\", user \"" + u.User.Username() + "\"): database \"hammerdbcli_nodb\" does not exist: run buildschema first, or set pg_dbase (diset tpcc) to one that exists"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "s.tcl")
			src := fmt.Sprintf("dbset db pg\ndiset connection pg_host 127.0.0.1\ndiset connection pg_port %s\ndiset connection pg_sslmode prefer\n"+
				"diset tpcc pg_superuser %s\ndiset tpcc pg_defaultdbase postgres\ndiset tpcc pg_user %s\ndiset tpcc pg_dbase %s\n%s\n",
				tc.port, u.User.Username(), tc.user, tc.db, tc.cmd)
			if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
				t.Fatal(err)
			}
			var out, errOut bytes.Buffer
			code := cli.MainContext(context.Background(), []string{"hammerdbcli", "auto", path, "--results-dir", filepath.Join(dir, "runs")}, &out, &errOut)
			msg := errOut.String()
			if code != 1 && code != 2 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, tc.want) || strings.Contains(msg, `\n`) ||
				strings.Contains(msg, "failed to connect") || strings.Contains(msg, "tls error") {
				t.Errorf("exit %d, stderr:\n%s\nwant one line with %q", code, msg, tc.want)
			}
			if tc.port == closed && !strings.Contains(msg, "is the server running and listening there? check host and port") {
				t.Errorf("no advice to check the server:\n%s", msg)
			}
		})
	}
}
