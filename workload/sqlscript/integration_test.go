package sqlscript_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// The tests below run stampede's binary, built once by TestMain, and
// Debian's real pgbench against the test server that scripts/test starts,
// as a user runs them.

var bin string

func TestMain(m *testing.M) {
	code := func() int {
		if os.Getenv("STAMPEDE_TEST_DATABASE") == "" {
			return m.Run()
		}
		dir, err := os.MkdirTemp("", "stampede-sql-test")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		bin = filepath.Join(dir, "stampede")
		if out, err := exec.Command("go", "build", "-o", bin, "github.com/stampede-bench/stampede/cmd/stampede").CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "building stampede: %v\n%s", err, out)
			return 1
		}
		return m.Run()
	}()
	os.Exit(code)
}

type result struct {
	code           int
	stdout, stderr string
}

func stampede(t *testing.T, dir string, args ...string) result {
	t.Helper()
	if bin == "" {
		t.Skip("STAMPEDE_TEST_DATABASE not set: scripts/test starts a server and sets it")
	}
	var out, errb bytes.Buffer
	// A run that hangs fails the test rather than the whole package.
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir) // the run directories go to the test's own ~/.stampede
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	code := 0
	switch {
	case ctx.Err() != nil:
		t.Fatalf("stampede %s: did not end in %v\n%s%s", strings.Join(args, " "), 4*time.Minute, out.String(), errb.String())
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		t.Fatalf("stampede %s: %v", strings.Join(args, " "), err)
	}
	return result{code, out.String(), errb.String()}
}

// pgbench runs Debian's pgbench against database db of the test server.
func pgbench(t testing.TB, dir, db string, args ...string) string {
	t.Helper()
	path, err := exec.LookPath("pgbench")
	if err != nil {
		t.Fatal("pgbench is not installed: scripts/test installs postgresql-client")
	}
	u, err := url.Parse(os.Getenv("STAMPEDE_TEST_DATABASE"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, append(append([]string{"-h", u.Hostname(), "-p", u.Port(), "-U", u.User.Username()}, args...), db)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("pgbench %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// freshDB creates a database for the test and returns its name and URL.
func freshDB(t testing.TB, prefix string) (string, string, *pgx.Conn) {
	t.Helper()
	base := os.Getenv("STAMPEDE_TEST_DATABASE")
	if base == "" || bin == "" {
		t.Skip("STAMPEDE_TEST_DATABASE not set: scripts/test starts a server and sets it")
	}
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("%s_%d", prefix, rand.Uint32())
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = admin.Exec(context.Background(), "DROP DATABASE "+name+" WITH (FORCE)")
		admin.Close(context.Background())
	})
	u, _ := url.Parse(base)
	u.Path = "/" + name
	conn, err := pgx.Connect(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return name, u.String(), conn
}

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func exec1(t *testing.T, c *pgx.Conn, sql string) {
	t.Helper()
	if _, err := c.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func count(t *testing.T, c *pgx.Conn, sql string) int64 {
	t.Helper()
	var n int64
	if err := c.QueryRow(context.Background(), sql).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// TestWeightsAsPgbench runs two scripts of weights 10 and 1 for 10,000
// transactions, in stampede and in pgbench: each script writes its name,
// and both tools' shares are within 2% of 10/11.
func TestWeightsAsPgbench(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.sql", "INSERT INTO hits VALUES ('a');\n")
	write(t, dir, "b.sql", "INSERT INTO hits VALUES ('b');\n")
	const want = 10.0 / 11
	for _, tool := range []string{"stampede", "pgbench"} {
		name, u, conn := freshDB(t, "sqlw")
		exec1(t, conn, "CREATE UNLOGGED TABLE hits (s text)")
		if tool == "stampede" {
			r := stampede(t, dir, "run", "sql", "-f", "a.sql@10", "-f", "b.sql@1", "--max-ops", "10000", "--concurrency", "4", u)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
		} else {
			pgbench(t, dir, name, "-n", "-c", "4", "-t", "2500", "-f", "a.sql@10", "-f", "b.sql@1")
		}
		total := count(t, conn, "SELECT count(*) FROM hits")
		a := count(t, conn, "SELECT count(*) FROM hits WHERE s = 'a'")
		if total != 10000 {
			t.Errorf("%s: %d transactions, want 10000", tool, total)
		}
		if share := float64(a) / float64(total); share < want-0.02 || share > want+0.02 {
			t.Errorf("%s: a.sql ran %.4f of the transactions, want %.4f within 0.02", tool, share, want)
		}
	}
}

// TestSetValuesAsPgbench runs one script that \sets a value with every
// random function and hash and permute of it, in pgbench with
// --random-seed and in stampede with the same --seed: every client draws
// the same values in the same order.
func TestSetValuesAsPgbench(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "draw.sql", `\set r random(1, 1000000)
\set e random_exponential(1, 1000, 2.5)
\set g random_gaussian(1, 1000, 3.0)
\set z random_zipfian(1, 1000, 1.07)
\set h hash(:r)
\set p permute(:r, 1000000)
\set d :r * 1.5 / 7
INSERT INTO draws (client, r, e, g, z, h, p, d, ds) VALUES (:client_id, :r, :e, :g, :z, :h, :p, :d, :default_seed);
`)
	const seed = "12345"
	tables := map[string][][]string{}
	for _, tool := range []string{"pgbench", "stampede"} {
		name, u, conn := freshDB(t, "sqlv")
		exec1(t, conn, "CREATE TABLE draws (id bigserial, client int, r bigint, e bigint, g bigint, z bigint, h bigint, p bigint, d text, ds bigint)")
		if tool == "stampede" {
			r := stampede(t, dir, "run", "sql", "-f", "draw.sql", "--seed", seed, "--max-ops", "600", "--concurrency", "3", u)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
		} else {
			pgbench(t, dir, name, "-n", "-c", "3", "-j", "3", "-t", "200", "--random-seed="+seed, "-f", "draw.sql")
		}
		rows, err := conn.Query(context.Background(), "SELECT client, r, e, g, z, h, p, d, ds FROM draws ORDER BY client, id")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var client int
			var r, e, g, z, h, p, ds int64
			var d string
			if err := rows.Scan(&client, &r, &e, &g, &z, &h, &p, &d, &ds); err != nil {
				t.Fatal(err)
			}
			key := fmt.Sprintf("%s/%d", tool, client)
			tables[key] = append(tables[key], []string{fmt.Sprint(r, " ", e, " ", g, " ", z, " ", h, " ", p, " ", ds), d})
		}
		if rows.Err() != nil {
			t.Fatal(rows.Err())
		}
	}
	for c := range 3 {
		pg, st := tables[fmt.Sprintf("pgbench/%d", c)], tables[fmt.Sprintf("stampede/%d", c)]
		n := min(len(pg), len(st))
		if n < 50 {
			t.Fatalf("client %d: pgbench drew %d rows, stampede %d: too few to compare", c, len(pg), len(st))
		}
		for i := range n {
			if pg[i][0] != st[i][0] || pg[i][1] != st[i][1] {
				t.Fatalf("client %d, transaction %d: pgbench drew %v, stampede %v", c, i, pg[i], st[i])
			}
		}
	}
}

// TestStatementsReported checks that every statement's latency is
// reported under its name, with as many operations as the server saw.
func TestStatementsReported(t *testing.T) {
	dir := t.TempDir()
	_, u, conn := freshDB(t, "sqls")
	exec1(t, conn, "CREATE TABLE t (id bigserial PRIMARY KEY, v int)")
	write(t, dir, "w.sql", `\set v random(1, 10)
BEGIN;
-- name: put
INSERT INTO t (v) VALUES (:v);
SELECT count(*) AS n FROM t \gset
END;
`)
	r := stampede(t, dir, "run", "sql", "-f", "w.sql", "--max-ops", "500", "--concurrency", "2", u)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	rows := count(t, conn, "SELECT count(*) FROM t")
	if rows != 500 {
		t.Errorf("the server holds %d rows, want 500", rows)
	}
	// The final block: the script, then each statement by name.
	for _, name := range []string{"w.sql", "w.sql:2", "put", "w.sql:5", "w.sql:6"} {
		found := false
		for _, l := range strings.Split(r.stdout, "\n") {
			f := strings.Fields(l)
			if len(f) >= 3 && f[len(f)-1] == name && f[2] == "500" {
				found = true
			}
		}
		if !found {
			t.Errorf("no final line for %s with 500 operations in:\n%s", name, r.stdout)
		}
	}
}

// TestBadScripts: each refused in one line naming the file and line,
// exit 2, before anything runs.
func TestBadScripts(t *testing.T) {
	dir := t.TempDir()
	_, u, conn := freshDB(t, "sqlb")
	exec1(t, conn, "CREATE TABLE t (id int PRIMARY KEY, v int)")
	cases := []struct {
		name, script string
		args         []string
		want         string
	}{
		{"syntax", "SELECT 1;\n\nSELEC v\n  FROM t;\n", nil, "bad.sql:3: syntax error at or near \"SELEC\""},
		{"syntax second line", "SELECT v\n  FROMM t WHERE id = 1;\n", nil, "bad.sql:2: syntax error at or near \"t\""},
		{"no such table", "SELECT v FROM nosuch;\n", nil, `bad.sql:1: relation "nosuch" does not exist`},
		{"unknown function", "\\set x nosuch(1)\nSELECT :x;\n", nil, "bad.sql:1: \\set x:"},
		{"argument count", "\\set x random(1)\nSELECT :x;\n", nil, "bad.sql:1: \\set x:"},
		{"used before set", "SELECT v FROM t WHERE id = :id;\n", nil, "bad.sql:1: the statement uses :id before anything sets it"},
		{"if without endif", "\\if 1\nSELECT 1;\n", nil, "bad.sql:1: \\if without a matching \\endif"},
		{"setshell", "\\setshell x echo 5\n", nil, "bad.sql:1: \\setshell runs a program"},
		{"weight 0", "SELECT 1;\n", []string{"-f", "bad.sql@0"}, "a weight of 0 never runs the script"},
		{"weight negative", "SELECT 1;\n", []string{"-f", "bad.sql@-2"}, "the weight after @ must be a whole number"},
		{"missing file", "SELECT 1;\n", []string{"-f", "nosuch.sql"}, "-f nosuch.sql: no such file or directory"},
		{"endless file", "SELECT 1;\n", []string{"-f", "/dev/zero"}, "-f /dev/zero is a character device, not a regular file"},
		{"no script", "SELECT 1;\n", []string{"--protocol", "prepared"}, "run sql needs a script: give -f FILE"},
		{"protocol", "SELECT 1;\n", []string{"-f", "bad.sql", "-M", "fast"}, `--protocol: unknown protocol "fast"`},
		// Checked before the run in every protocol, simple too.
		{"syntax simple", "SELECT 1;\n\nSELEC v\n  FROM t;\n", []string{"-f", "bad.sql", "-M", "simple"}, "bad.sql:3: syntax error at or near \"SELEC\""},
		{"no such table simple", "SELECT v FROM nosuch;\n", []string{"-f", "bad.sql", "--protocol", "simple"}, `bad.sql:1: relation "nosuch" does not exist`},
		// Names the run log keeps for its own series (F2).
		{"named pacer", "-- name: pacer\nSELECT 1;\n", []string{"-f", "bad.sql", "--max-rate", "100"}, `bad.sql:1: the statement name "pacer" is a name stampede keeps for its own series`},
		{"named as a service series", "-- name: bad.sql.service\nSELECT 1;\n", nil, `bad.sql:1: the statement name "bad.sql.service" is a name stampede keeps`},
		{"named as a lag series", "SELECT 1;\n-- name: x.lag\nSELECT 2;\n", nil, `bad.sql:2: the statement name "x.lag" is a name stampede keeps`},
		{"named __result", "-- name: __result\nSELECT 1;\n", nil, `bad.sql:1: the statement name "__result" is a name stampede keeps`},
		// Every path through \if (F6).
		{"unset under a constant false", "\\if 0\n\\set x 1\n\\endif\nSELECT :x;\n", nil, "bad.sql:4: the statement uses :x before anything sets it"},
		{"ends inside BEGIN", "BEGIN;\nUPDATE t SET v = v + 1;\n", nil, "bad.sql:1: the script can end inside the transaction this BEGIN opens"},
		{"ends inside BEGIN on a branch", "\\set r random(0, 1)\nBEGIN;\n\\if :r\nCOMMIT;\n\\endif\n", []string{"-f", "bad.sql", "-M", "simple"}, "bad.sql:2: the script can end inside the transaction"},
	}
	// Beside every bad script, a good one that would write a row at once
	// if anything ran: the server must see none, and no run directory
	// must be made.
	exec1(t, conn, "CREATE TABLE ran (n int)")
	write(t, dir, "writes.sql", "INSERT INTO ran VALUES (1);\n")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			write(t, dir, "bad.sql", c.script)
			args := c.args
			if args == nil {
				args = []string{"-f", "bad.sql"}
			}
			if c.name != "no script" {
				args = append(args, "-f", "writes.sql@1000")
			}
			r := stampede(t, dir, append(append([]string{"run", "sql", "--duration", "2s"}, args...), u)...)
			msg := strings.TrimSpace(r.stderr)
			if r.code != 2 || !strings.Contains(msg, c.want) || strings.Count(msg, "\n") > 0 {
				t.Errorf("exit %d, stderr %q; want exit 2 and one line with %q", r.code, msg, c.want)
			}
			if strings.Contains(r.stdout, "results saved") {
				t.Errorf("a run started: %s", r.stdout)
			}
			if n := count(t, conn, "SELECT count(*) FROM ran"); n != 0 {
				t.Errorf("the server ran %d scripts", n)
				exec1(t, conn, "TRUNCATE ran")
			}
			if runs, _ := filepath.Glob(filepath.Join(dir, ".stampede", "runs", "*-sql-*")); len(runs) != 0 {
				t.Errorf("a run directory was made: %v", runs)
				for _, d := range runs {
					_ = os.RemoveAll(d)
				}
			}
		})
	}
}

// TestInitCheckCleanup runs an init file with COPY, a check file, and a
// cleanup that drops what init made and nothing else: the file makes
// tables, views, a materialized view, a sequence, an enum type, a domain,
// a function and a schema, beside a user's own objects of every kind
// (some in init's schema, some depending on init's objects), which all
// survive; init --drop and cleanup run as their messages say, and the
// file runs again after each.
// notRowType leaves out of a count of pg_description the marks on tables'
// row types, which repeat the tables' own (dialect.RowTypeMarkSep).
const notRowType = " AND NOT (classoid = 'pg_type'::regclass AND objoid IN (SELECT reltype FROM pg_class WHERE relkind <> 'c'))"

func TestInitCheckCleanup(t *testing.T) {
	dir := t.TempDir()
	_, u, conn := freshDB(t, "sqli")
	user := []string{
		"CREATE TABLE mine (a int)",
		"INSERT INTO mine VALUES (1), (2)",
		"CREATE SCHEMA mysch",
		"CREATE TABLE mysch.t (a int)",
		"CREATE VIEW myview AS SELECT a FROM mine",
		"CREATE SEQUENCE myseq",
		"CREATE TYPE mytype AS ENUM ('x')",
		"CREATE FUNCTION myf() RETURNS int LANGUAGE sql AS 'SELECT 1'",
	}
	for _, q := range user {
		exec1(t, conn, q)
	}
	userObjects := `SELECT count(*) FROM (
  SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE (n.nspname, c.relname) IN (('public', 'mine'), ('mysch', 't'), ('public', 'myview'), ('public', 'myseq'))
  UNION ALL SELECT 1 FROM pg_type WHERE typname = 'mytype'
  UNION ALL SELECT 1 FROM pg_proc WHERE proname = 'myf'
  UNION ALL SELECT 1 FROM pg_namespace WHERE nspname = 'mysch') x`
	write(t, dir, "init.sql", `CREATE TABLE kv (k int PRIMARY KEY, v int);
INSERT INTO kv SELECT g, 0 FROM generate_series(1, 100) g;
COPY kv (k, v) FROM stdin;
101	5
102	7
\.
CREATE SCHEMA app;
CREATE SEQUENCE app.ids;
CREATE TYPE mood AS ENUM ('happy', 'sad');
CREATE DOMAIN posint AS int CHECK (VALUE > 0);
CREATE TABLE app.orders (id int PRIMARY KEY DEFAULT nextval('app.ids'), m mood, n posint, k int REFERENCES kv);
CREATE VIEW big AS SELECT k FROM kv WHERE v > 0;
CREATE VIEW app.both AS SELECT b.k FROM big b JOIN app.orders o ON o.k = b.k;
CREATE MATERIALIZED VIEW sums AS SELECT sum(v) AS s FROM kv;
CREATE FUNCTION app.twice(x int) RETURNS int LANGUAGE sql AS 'SELECT 2 * x';
`)
	write(t, dir, "ok.sql", "-- name: rows\nSELECT count(*) = 102 FROM kv;\nSELECT sum(v) = 12 FROM kv;\nSELECT s = 12 FROM sums;\nSELECT app.twice(2) = 4;\n")
	write(t, dir, "fail.sql", "SELECT count(*) = 5 FROM kv;\n")
	// What init made, as the server lists it: none left after cleanup.
	initObjects := `SELECT count(*) FROM (
  SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE (n.nspname, c.relname) IN (('public', 'kv'), ('app', 'ids'), ('app', 'orders'), ('public', 'big'), ('app', 'both'), ('public', 'sums'))
  UNION ALL SELECT 1 FROM pg_type WHERE typname IN ('mood', 'posint')
  UNION ALL SELECT 1 FROM pg_proc WHERE proname = 'twice'
  UNION ALL SELECT 1 FROM pg_namespace WHERE nspname = 'app') x`
	const made = 10
	initOK := func(what string) {
		t.Helper()
		r := stampede(t, dir, "init", "sql", "--init-file", "init.sql", u)
		if r.code != 0 || !strings.Contains(r.stderr+r.stdout, "ran init.sql in") || !strings.Contains(r.stderr+r.stdout, "102 rows written by COPY and INSERT") {
			t.Fatalf("%s: exit %d\n%s%s", what, r.code, r.stdout, r.stderr)
		}
		if n := count(t, conn, initObjects); n != made {
			t.Fatalf("%s: the server lists %d of init's %d objects", what, n, made)
		}
		if n := count(t, conn, "SELECT count(*) FROM pg_description WHERE description LIKE 'made by stampede init of sql%'"+notRowType); n != made {
			t.Errorf("%s: %d objects carry init's mark, want %d", what, n, made)
		}
	}
	userKept := func(what string) {
		t.Helper()
		if n := count(t, conn, userObjects); n != 7 {
			t.Errorf("%s: %d of the user's 7 objects left", what, n)
		}
		if n := count(t, conn, "SELECT count(*) FROM mine"); n != 2 {
			t.Errorf("%s: the user's table holds %d rows, want 2", what, n)
		}
	}
	initOK("init")
	r := stampede(t, dir, "check", "sql", "--check-file", "ok.sql", u)
	if r.code != 0 || !strings.Contains(r.stdout, "PASS rows") || !strings.Contains(r.stdout, "PASS ok.sql:3 SELECT sum(v) = 12 FROM kv") || strings.Count(r.stdout, "PASS") != 4 {
		t.Errorf("check ok: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = stampede(t, dir, "check", "sql", "--check-file", "fail.sql", u)
	if r.code != 1 || !strings.Contains(r.stdout, "FAIL fail.sql:1 SELECT count(*) = 5 FROM kv: row 1, column 1 (?column?) is false") {
		t.Errorf("check fail: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = stampede(t, dir, "check", "sql", u)
	if r.code != 2 || !strings.Contains(r.stderr, "give --check-file FILE") {
		t.Errorf("check without --check-file: exit %d\n%s", r.code, r.stderr)
	}
	// Again: refused, with the command that works.
	r = stampede(t, dir, "init", "sql", "--init-file", "init.sql", u)
	if r.code != 2 || !strings.Contains(r.stderr, "`stampede init sql --drop --init-file init.sql ") || !strings.Contains(r.stderr, "` drops what an earlier init made") {
		t.Errorf("init again: exit %d\n%s", r.code, r.stderr)
	}
	r = stampede(t, dir, "init", "sql", "--drop", "--init-file", "init.sql", u)
	if r.code != 0 || !strings.Contains(r.stderr+r.stdout, "--drop: dropped schema app, which an earlier init of sql made") {
		t.Fatalf("init --drop: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	userKept("init --drop")
	if n := count(t, conn, initObjects); n != made {
		t.Fatalf("after init --drop the server lists %d of init's %d objects", n, made)
	}
	// A user's objects that depend on init's: cleanup refuses in one line
	// naming them, and drops nothing (it drops in one transaction).
	exec1(t, conn, "CREATE VIEW mysch.onkv AS SELECT k FROM kv")
	exec1(t, conn, "CREATE TABLE app.users_own (a int)")
	r = stampede(t, dir, "cleanup", "sql", u)
	errLine := r.stderr[strings.Index(r.stderr, "stampede: error:")+1:]
	if r.code != 2 || !strings.Contains(errLine, "table kv (view mysch.onkv depends on table kv)") || !strings.Contains(errLine, "schema app (table app.users_own depends on schema app)") || strings.Count(strings.TrimSpace(errLine), "\n") > 0 {
		t.Errorf("cleanup beside the user's dependents: exit %d\n%s", r.code, r.stderr)
	}
	if n := count(t, conn, "SELECT count(*) FROM pg_class WHERE relname IN ('onkv', 'users_own', 'kv')"); n != 3 {
		t.Errorf("cleanup dropped the user's objects or what they depend on (%d of 3 left)", n)
	}
	if n := count(t, conn, "SELECT count(*) FROM pg_class WHERE relname IN ('sums', 'big', 'both', 'orders')"); n != 4 {
		t.Errorf("a refused cleanup left %d of init's 4 objects nothing of the user's depends on, want all 4 (it drops nothing)", n)
	}
	exec1(t, conn, "DROP VIEW mysch.onkv")
	exec1(t, conn, "DROP TABLE app.users_own")
	r = stampede(t, dir, "cleanup", "sql", u)
	if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "dropped table kv") {
		t.Errorf("cleanup: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if n := count(t, conn, initObjects); n != 0 {
		t.Errorf("%d of init's objects survived cleanup", n)
	}
	userKept("cleanup")
	// The file runs again after cleanup (its schema, sequence and types
	// are gone with it).
	initOK("init after cleanup")
	// cleanup --cleanup-file: the user's own drop.sql first, then what
	// init made; a failing one stops before anything of init's.
	write(t, dir, "bad_drop.sql", "DROP TABLE nosuch;\n")
	r = stampede(t, dir, "cleanup", "sql", "--cleanup-file", "bad_drop.sql", u)
	if r.code != 2 || !strings.Contains(r.stderr, `bad_drop.sql:1: table "nosuch" does not exist (SQLSTATE 42P01)`) || count(t, conn, initObjects) != made {
		t.Errorf("cleanup with a failing --cleanup-file: exit %d\n%s", r.code, r.stderr)
	}
	write(t, dir, "drop.sql", "DROP VIEW app.both;\nDROP TABLE mysch.t;\n")
	r = stampede(t, dir, "cleanup", "sql", "--cleanup-file", "drop.sql", u)
	if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "ran drop.sql (2 statements)") || !strings.Contains(r.stdout+r.stderr, "dropped schema app") {
		t.Errorf("cleanup --cleanup-file: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if n := count(t, conn, initObjects); n != 0 {
		t.Errorf("%d of init's objects survived cleanup --cleanup-file", n)
	}
	if n := count(t, conn, "SELECT count(*) FROM pg_tables WHERE schemaname = 'mysch'"); n != 0 {
		t.Error("the cleanup file's DROP TABLE mysch.t did not run")
	}
	if n := count(t, conn, "SELECT count(*) FROM mine"); n != 2 {
		t.Errorf("the user's table holds %d rows after cleanup, want 2", n)
	}
}

// TestConnectionsOpenedAsServerCounts: the line "N connections opened
// before the clock started" says how many the workers hold, as the
// server counts them from inside the run (worker 0's connection, taken
// while the scripts were checked before the run, was left out: 3 for 4).
func TestConnectionsOpenedAsServerCounts(t *testing.T) {
	dir := t.TempDir()
	_, url, conn := freshDB(t, "sqlconns")
	exec1(t, conn, "CREATE TABLE seen (n int)")
	write(t, dir, "count.sql", `SELECT count(*) AS n FROM pg_stat_activity
  WHERE datname = current_database() AND application_name = current_setting('application_name') \gset
INSERT INTO seen VALUES (:n);
`)
	for _, workers := range []int{1, 4} {
		exec1(t, conn, "TRUNCATE seen")
		r := stampede(t, dir, "run", "sql", "-f", "count.sql", "--concurrency", fmt.Sprint(workers), "--max-ops", fmt.Sprint(10*workers), url)
		if r.code != 0 {
			t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		var said int
		for _, l := range strings.Split(r.stderr+r.stdout, "\n") {
			if _, err := fmt.Sscanf(l, "%d connection", &said); err == nil && strings.Contains(l, "opened") {
				break
			}
		}
		server := count(t, conn, "SELECT max(n) FROM seen")
		if int64(said) != server || said != workers {
			t.Errorf("%d workers: said %d connections opened, the server counted %d", workers, said, server)
		}
	}
}
