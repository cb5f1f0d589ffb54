package sqlscript_test

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// oneLine checks a refusal: exit 2 and one line holding want on stderr,
// and no run.
func oneLine(t *testing.T, r result, want string) {
	t.Helper()
	msg := strings.TrimSpace(r.stderr)
	// init says what it loads before it runs the file: that line is
	// progress, the error is the last line.
	if l := strings.Split(msg, "\n"); len(l) == 2 && strings.HasPrefix(l[0], "loading sql into database") {
		msg = l[1]
	}
	// stampede pgbench says its errors as pgbench does.
	prefixed := strings.HasPrefix(msg, "stampede: error: ") || strings.HasPrefix(msg, "pgbench: error: ")
	if r.code != 2 || !strings.Contains(msg, want) || strings.Contains(msg, "\n") || !prefixed {
		t.Errorf("exit %d, stderr %q; want exit 2 and one line with %q", r.code, r.stderr, want)
	}
	if strings.Contains(r.stdout, "results saved") {
		t.Errorf("a run started: %s", r.stdout)
	}
}

// binaryBytes is the start of a gzip file: not text.
var binaryBytes = "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\\set x 1\n\xcb\x48\xcd"

// TestBadScriptFiles: run scripts, init files and check files that are
// not pgbench scripts are refused in one line, exit 2, nothing run.
func TestBadScriptFiles(t *testing.T) {
	dir := t.TempDir()
	_, u, conn := freshDB(t, "sqlbf")
	exec1(t, conn, "CREATE TABLE t (id int PRIMARY KEY, v int)")
	exec1(t, conn, "INSERT INTO t VALUES (1, 1)")
	cases := []struct {
		name, file, text string
		verb             []string // before the file's flag
		flag             string
		want             string
	}{
		{"copy to stdout", "bad.sql", "SELECT 1;\nCOPY t TO STDOUT;\n", []string{"run", "sql", "--duration", "2s"}, "-f",
			"bad.sql:2: COPY is not supported in a script (pgbench refuses it too): load rows with an init file (stampede init sql --init-file FILE takes COPY ... FROM stdin and its rows)"},
		{"copy from stdin", "bad.sql", "COPY t FROM STDIN;\n9\t9\n\\.\n", []string{"run", "sql", "--duration", "2s"}, "-f",
			"bad.sql:1: COPY is not supported in a script"},
		{"psql copy in a script", "bad.sql", "\\copy t from stdin\n", []string{"run", "sql", "--duration", "2s"}, "-f",
			`bad.sql:1: \copy is a psql command, not pgbench's: to load rows, put COPY TABLE FROM stdin;`},
		{"psql copy in an init file", "bad.sql", "CREATE TABLE u (a int);\n\\copy u from stdin\n1\n\\.\n", []string{"init", "sql"}, "--init-file",
			`bad.sql:2: \copy is a psql command, not pgbench's: to load rows, put COPY TABLE FROM stdin; with the rows after it and a line \. in an --init-file`},
		{"binary script", "bin.sql", binaryBytes, []string{"run", "sql", "--duration", "2s"}, "-f",
			"-f bin.sql is not a text SQL script (NUL byte at offset 3)"},
		{"binary init file", "bin.sql", binaryBytes, []string{"init", "sql"}, "--init-file",
			"--init-file bin.sql is not a text SQL script (NUL byte at offset 3)"},
		{"binary check file", "bin.sql", binaryBytes, []string{"check", "sql"}, "--check-file",
			"--check-file bin.sql is not a text SQL script (NUL byte at offset 3)"},
		{"latin-1 script", "bad.sql", "SELECT 'caf\xe9';\n", []string{"run", "sql", "--duration", "2s"}, "-f",
			"-f bad.sql is not a text SQL script (byte 0xe9 at offset 11 is not UTF-8)"},
		{"name with a space", "bad.sql", "SELECT 1;\n-- name: has space\nSELECT 2;\n", []string{"run", "sql", "--duration", "2s"}, "-f",
			`bad.sql:2: the statement name "has space" holds white space, a comma, = or a control character, which the run log cannot keep: a name holds none of them, nor a /`},
		{"name with a comma", "bad.sql", "-- name: a,b\nSELECT 2;\n", []string{"run", "sql", "--duration", "2s"}, "-f",
			`bad.sql:1: the statement name "a,b" holds white space, a comma, = or a control character`},
		{"name with =", "bad.sql", "-- name: a=b\nSELECT 2;\n", []string{"run", "sql", "--duration", "2s"}, "-f",
			`bad.sql:1: the statement name "a=b" holds`},
		{"file name with a space", "my script.sql", "SELECT 1;\n", []string{"run", "sql", "--duration", "2s"}, "-f",
			`-f my script.sql: a script is named by its file's name, and "my script.sql" holds white space`},
		{"init file ends inside BEGIN", "bad.sql", "CREATE TABLE u (a int);\nBEGIN;\nCREATE TABLE w (a int);\n", []string{"init", "sql"}, "--init-file",
			"bad.sql:2: the file ends inside the transaction this BEGIN opens, which would be rolled back: add COMMIT; at its end"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			write(t, dir, c.file, c.text)
			args := append(append(append([]string{}, c.verb...), c.flag, c.file), u)
			oneLine(t, stampede(t, dir, args...), c.want)
			// Nothing ran: no table made, t unchanged.
			if n := count(t, conn, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename <> 't'"); n != 0 {
				t.Errorf("%d tables made", n)
			}
		})
	}
	// The pgbench form takes the same files, and refuses them the same way.
	write(t, dir, "copy.sql", "COPY t TO STDOUT;\n")
	uu := testURL(t, u)
	r := stampede(t, dir, "pgbench", "-h", uu.host, "-p", uu.port, "-U", uu.user, "-n", "-t", "2", "-f", "copy.sql", uu.db)
	oneLine(t, r, "copy.sql:1: COPY is not supported in a script")
	if !strings.HasPrefix(r.stderr, "pgbench: error: ") {
		t.Errorf("the pgbench form's error is not pgbench's: %q", r.stderr)
	}
}

// TestBOMSkipped: a UTF-8 byte order mark before the first statement is
// skipped in scripts, init files and check files, as psql skips it.
// pgbench sends it to the server, which fails on it: stampede does not
// follow pgbench there (the test shows both).
func TestBOMSkipped(t *testing.T) {
	dir := t.TempDir()
	name, u, conn := freshDB(t, "sqlbom")
	const bom = "\xef\xbb\xbf"
	write(t, dir, "init.sql", bom+"CREATE TABLE kv (k int);\nINSERT INTO kv VALUES (1);\n")
	write(t, dir, "run.sql", bom+"INSERT INTO kv VALUES (2);\n")
	write(t, dir, "check.sql", bom+"SELECT count(*) >= 2 FROM kv;\n")
	if r := stampede(t, dir, "init", "sql", "--init-file", "init.sql", u); r.code != 0 {
		t.Fatalf("init: exit %d: %s", r.code, r.stderr)
	}
	if r := stampede(t, dir, "run", "sql", "-f", "run.sql", "--max-ops", "10", "--concurrency", "1", u); r.code != 0 {
		t.Fatalf("run: exit %d: %s", r.code, r.stderr)
	}
	if n := count(t, conn, "SELECT count(*) FROM kv WHERE k = 2"); n != 10 {
		t.Errorf("the run inserted %d rows, want 10", n)
	}
	if r := stampede(t, dir, "check", "sql", "--check-file", "check.sql", u); r.code != 0 || !strings.Contains(r.stdout, "PASS check.sql:1 SELECT count(*) >= 2 FROM kv") {
		t.Errorf("check: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	// Real pgbench on the same script: the server sees the BOM.
	path, err := exec.LookPath("pgbench")
	if err != nil {
		t.Fatal("pgbench is not installed")
	}
	uu := testURL(t, u)
	out, err := exec.Command(path, "-h", uu.host, "-p", uu.port, "-U", uu.user, "-n", "-t", "1", "-f", filepath.Join(dir, "run.sql"), name).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "syntax error at or near") {
		t.Errorf("pgbench took the BOM (%v): %s", err, out)
	}
}

// TestScriptFromStdin: -f - reads the script from the standard input, as
// pgbench does, once, and names it "-" as pgbench's report does.
func TestScriptFromStdin(t *testing.T) {
	dir := t.TempDir()
	name, u, conn := freshDB(t, "sqlin")
	exec1(t, conn, "CREATE TABLE hits (s text)")
	script := "-- name: put\nINSERT INTO hits VALUES ('x');\n"
	r := stampedeIn(t, dir, script, "run", "sql", "-f", "-", "--max-ops", "20", "--concurrency", "2", u)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if n := count(t, conn, "SELECT count(*) FROM hits"); n != 20 {
		t.Errorf("the server holds %d rows, want 20", n)
	}
	if !strings.Contains(r.stdout+r.stderr, "scripts: - (weight 1)") || !strings.Contains(r.stdout, " put\n") {
		t.Errorf("the script is not named - or its statement put:\n%s", r.stdout)
	}
	// The pgbench form, and pgbench itself, on the same pipe.
	uu := testURL(t, u)
	args := []string{"-h", uu.host, "-p", uu.port, "-U", uu.user, "-n", "-t", "3", "-f", "-", name}
	r = stampedeIn(t, dir, script, append([]string{"pgbench"}, args...)...)
	if r.code != 0 {
		t.Fatalf("pgbench form: exit %d: %s", r.code, r.stderr)
	}
	cmd := exec.Command("pgbench", args...)
	cmd.Stdin = strings.NewReader(script)
	real, err := cmd.Output()
	if err != nil {
		t.Fatalf("pgbench: %v", err)
	}
	line := func(out string) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "transaction type:") {
				return l
			}
		}
		return ""
	}
	if got, want := line(r.stdout), line(string(real)); got != want || want != "transaction type: -" {
		t.Errorf("stampede says %q, pgbench %q", got, want)
	}
	if n := count(t, conn, "SELECT count(*) FROM hits"); n != 26 {
		t.Errorf("the server holds %d rows, want 26", n)
	}
	// An empty standard input holds no script.
	r = stampedeIn(t, dir, "", "run", "sql", "-f", "-", "--duration", "2s", u)
	oneLine(t, r, "holds no command")
}

// TestInitFileServerErrors: an init file a statement of which fails on
// the server is refused in one line naming the file and the line (from
// the error's position; for COPY, the row's line), exit 2; the tables
// it created before stay, marked as stampede's, and `cleanup sql` drops
// them (a failure inside the file's own BEGIN rolls its tables back).
func TestInitFileServerErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, text, want string
		left             []string // the tables left, marked
	}{
		{"syntax", "CREATE TABLE a (x int);\nCREATE TABLE b (\n  x int,\n  y intt\n);\n",
			`init.sql:4: type "intt" does not exist (SQLSTATE 42704): fix the file, then run ` + "`stampede init sql --drop --init-file init.sql", []string{"a"}},
		{"syntax at once", "CREATE TABLE a (x int;\n",
			`init.sql:1: syntax error at or near ";" (SQLSTATE 42601): fix the file and run init again (nothing it created is left)`, nil},
		{"copy row", "CREATE TABLE a (x int);\nCREATE TABLE b (x int);\nCOPY a FROM stdin;\n1\n2\nthree\n\\.\n",
			`init.sql:6: invalid input syntax for type integer: "three" (SQLSTATE 22P02): fix the file, then run `, []string{"a", "b"}},
		{"inside BEGIN", "CREATE TABLE a (x int);\nBEGIN;\nCREATE TABLE b (x int);\nINSERT INTO b VALUES (1/0);\nCOMMIT;\n",
			`init.sql:4: division by zero (SQLSTATE 22012): fix the file, then run `, []string{"a"}},
		// A BEGIN joined by \; to the statement before it: seen by the
		// parser too, refused before anything runs.
		{"compound BEGIN left open", "CREATE TABLE a (x int);\nCREATE TABLE b (x int)\\; BEGIN;\nCREATE TABLE c (x int);\n",
			`init.sql:2: the file ends inside the transaction this BEGIN opens, which would be rolled back: add COMMIT; at its end`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, u, conn := freshDB(t, "sqlie")
			exec1(t, conn, "CREATE TABLE mine (x int)")
			write(t, dir, "init.sql", c.text)
			r := stampede(t, dir, "init", "sql", "--init-file", "init.sql", u)
			oneLine(t, r, c.want)
			rows, err := conn.Query(context.Background(), "SELECT tablename, coalesce(obj_description(('public.'||tablename)::regclass, 'pg_class'), '') FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'mine' ORDER BY 1")
			if err != nil {
				t.Fatal(err)
			}
			var left []string
			for rows.Next() {
				var name, comment string
				if err := rows.Scan(&name, &comment); err != nil {
					t.Fatal(err)
				}
				if !strings.HasPrefix(comment, "made by stampede init of sql") {
					t.Errorf("table %s left without stampede's mark (comment %q)", name, comment)
				}
				left = append(left, name)
			}
			if strings.Join(left, ",") != strings.Join(c.left, ",") {
				t.Errorf("tables left %v, want %v", left, c.left)
			}
			if len(c.left) > 0 {
				// As the error says: the tables left are dropped by
				// --drop, or by cleanup; and named in the message.
				named := make([]string, len(c.left))
				for i, n := range c.left {
					named[i] = "table " + n
				}
				if !strings.Contains(r.stderr, "(what it created before, "+strings.Join(named, ", ")+", is marked as stampede's; `stampede cleanup sql") {
					t.Errorf("the message does not name the tables left, %v: %s", c.left, r.stderr)
				}
				write(t, dir, "fixed.sql", "CREATE TABLE a (x int);\n")
				if r := stampede(t, dir, "init", "sql", "--drop", "--init-file", "fixed.sql", u); r.code != 0 {
					t.Errorf("init --drop after the failure: exit %d: %s", r.code, r.stderr)
				}
			}
			r = stampede(t, dir, "cleanup", "sql", u)
			if r.code != 0 {
				t.Errorf("cleanup: exit %d: %s", r.code, r.stderr)
			}
			if n := count(t, conn, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"); n != 1 {
				t.Errorf("%d tables after cleanup, want only the user's", n)
			}
		})
	}
}

// TestCheckFileRules: a check passes when it returns at least one row
// and every column of every row is true; it runs read-only, and a check
// that writes, fails on the server or returns a column that is not
// boolean is refused in one line (exit 2).
func TestCheckFileRules(t *testing.T) {
	dir := t.TempDir()
	_, u, conn := freshDB(t, "sqlck")
	exec1(t, conn, "CREATE TABLE t (a int)")
	exec1(t, conn, "INSERT INTO t VALUES (1), (2), (3)")
	exec1(t, conn, "CREATE SEQUENCE s")
	cases := []struct {
		name, query string
		code        int
		want        string // on stdout for exit 0 and 1, on stderr for 2
	}{
		{"true", "SELECT true", 0, "PASS chk.sql:1 SELECT true"},
		{"two true columns", "SELECT true, 1 = 1", 0, "PASS chk.sql:1"},
		{"every row true", "SELECT a > 0 FROM t", 0, "PASS chk.sql:1"},
		{"false", "SELECT count(*) = 5 FROM t", 1, "FAIL chk.sql:1 SELECT count(*) = 5 FROM t: row 1, column 1 (?column?) is false"},
		{"second column false", "SELECT true AS one, false AS two", 1, "row 1, column 2 (two) is false"},
		{"one row false", "SELECT a < 3 AS small FROM t ORDER BY a", 1, "row 3, column 1 (small) is false"},
		{"NULL", "SELECT NULL::boolean AS x", 1, "row 1, column 1 (x) is NULL, not true"},
		{"no rows", "SELECT true FROM t WHERE a > 10", 1, "returned no row"},
		{"not boolean", "SELECT count(*) FROM t", 2, "chk.sql:1: column 1 (count) is not boolean: a check returns booleans"},
		{"text true", "SELECT 'true'", 2, "column 1 (?column?) is not boolean"},
		{"writes", "UPDATE t SET a = 0", 2, "chk.sql:1: the check writes (UPDATE: cannot execute UPDATE in a read-only transaction), and checks run in a read-only transaction"},
		{"writes in a CTE", "WITH d AS (DELETE FROM t RETURNING a) SELECT count(*) = 0 FROM d", 2, "the check writes (WITH: cannot execute SELECT in a read-only transaction)"},
		{"nextval", "SELECT nextval('s') > 0", 2, "the check writes (SELECT: cannot execute nextval() in a read-only transaction)"},
		{"server error", "SELECT a\n  FROM nosuch", 2, `chk.sql:2: relation "nosuch" does not exist (SQLSTATE 42P01): fix the query`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			write(t, dir, "chk.sql", c.query+";\n")
			r := stampede(t, dir, "check", "sql", "--check-file", "chk.sql", u)
			switch c.code {
			case 2:
				oneLine(t, r, c.want)
			default:
				if r.code != c.code || !strings.Contains(r.stdout, c.want) {
					t.Errorf("exit %d, stdout %q; want exit %d and %q", r.code, r.stdout, c.code, c.want)
				}
			}
			if n := count(t, conn, "SELECT sum(a) FROM t"); n != 6 {
				t.Errorf("the check changed t: sum %d, want 6", n)
			}
		})
	}
	if n := count(t, conn, "SELECT last_value FROM s"); n != 1 || count(t, conn, "SELECT count(*) FROM s WHERE is_called") != 0 {
		t.Errorf("the check drew from the sequence")
	}
}

// TestConnsAboveWorkers: --conns above the workers cannot be honoured
// (a run opens one connection per worker): said in a warning, and the
// server never sees more of the run's sessions than the workers and the
// run's own connection.
func TestConnsAboveWorkers(t *testing.T) {
	dir := t.TempDir()
	_, u, conn := freshDB(t, "sqlcn")
	exec1(t, conn, "CREATE TABLE seen (n int)")
	write(t, dir, "s.sql", "INSERT INTO seen SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'stampede%';\n")
	r := stampede(t, dir, "run", "sql", "-f", "s.sql", "--concurrency", "2", "--conns", "10000000", "--duration", "2s", u)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "warning: --conns 10000000 is more than the 2 workers use: the run opens 2, one per worker") {
		t.Errorf("no warning on stderr:\n%s", r.stderr)
	}
	if n := count(t, conn, "SELECT max(n) FROM seen"); n < 2 || n > 3 {
		t.Errorf("the server saw up to %d of the run's sessions, want 2 workers (and the run's own)", n)
	}
	// At --conns equal to the workers, nothing is said.
	r = stampede(t, dir, "run", "sql", "-f", "s.sql", "--concurrency", "2", "--conns", "2", "--duration", "1s", u)
	if r.code != 0 || strings.Contains(r.stderr, "--conns") {
		t.Errorf("exit %d: %s", r.code, r.stderr)
	}
}

// stampedeIn runs stampede with stdin as its standard input.
func stampedeIn(t *testing.T, dir, stdin string, args ...string) result {
	t.Helper()
	if bin == "" {
		t.Skip("STAMPEDE_TEST_DATABASE not set: scripts/test starts a server and sets it")
	}
	var out, errb bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("stampede %s: %v", strings.Join(args, " "), err)
	}
	return result{code, out.String(), errb.String()}
}

// pgURL is a test database URL's parts, as pgbench's -h -p -U and
// database arguments.
type pgURL struct{ host, port, user, db string }

func testURL(t *testing.T, u string) pgURL {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	return pgURL{p.Hostname(), p.Port(), p.User.Username(), strings.TrimPrefix(p.Path, "/")}
}
