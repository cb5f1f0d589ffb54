package pgbench_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// stderrLines are a run's standard error without the report's own lines
// (which TestReportAsPgbench compares) and stampede's "results saved in":
// what pgbench says of errors, debug() and the server.
func stderrLines(stderr string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimRight(stderr, "\n"), "\n") {
		if l != "" && !strings.HasPrefix(l, "results saved in ") {
			out = append(out, l)
		}
	}
	return out
}

// compareRuns runs args (after the server's options, before db) with the
// real pgbench and with stampede, each in a directory holding files, and
// reports where their standard errors or exit statuses differ; it
// returns stampede's standard error.
func compareRuns(t *testing.T, db string, files map[string]string, args ...string) string {
	t.Helper()
	var said [2][]string
	var code [2]int
	var stampede string
	for k, real := range []bool{true, false} {
		dir := t.TempDir()
		writeFiles(t, dir, files)
		_, stderr, c := run(t, real, dir, append(append(append([]string{}, server(t)...), args...), db)...)
		said[k], code[k] = stderrLines(stderr), c
		if !real {
			stampede = stderr
		}
	}
	if code[0] != code[1] || strings.Join(said[0], "\n") != strings.Join(said[1], "\n") {
		t.Errorf("%v\npgbench: exit %d\n%s\nstampede: exit %d\n%s", args, code[0], strings.Join(said[0], "\n"), code[1], strings.Join(said[1], "\n"))
	}
	return stampede
}

// TestServerErrorAsPgbench: a statement the server fails during the run
// is said as pgbench says it, libpq's whole message: the ERROR line, the
// statement's line with a caret under the error's position (a long line
// cut to 60 columns around it, tabs as blanks, wide characters two
// columns wide), and the DETAIL and HINT lines; under -M prepared, a
// statement that fails to prepare is said as pgbench says it: the
// PREPARE's error apart, then the abort on its prepared statement (P_N),
// which does not exist.
func TestServerErrorAsPgbench(t *testing.T) {
	db := freshDB(t)
	files := map[string]string{
		"cast.sql":     "SELECT 1;\nSELECT 'a'\n  + 1;\n",
		"semi.sql":     "SELECT 'a'::int;\n",
		"dup.sql":      "INSERT INTO pgbench_branches VALUES (1, 0);\n",
		"longend.sql":  "SELECT 'x' AS aaaaaaaaaaaaaaaaaaaaaa, 'y' AS bbbbbbbbbbbbbbbbbbbbbbbbbb, 'z' AS cccccccccccccccccccc, 'q'::int AS d;\n",
		"longmid.sql":  "SELECT 'x' AS aaaaaaaaaaaaaaaaaaaaaa, 'q'::int AS bbbbbbbbbbbbbbbbbbbbbbbbbb, 'z' AS cccccccccccccccccccc, 'y' AS ddddddddddddddddddddd, 1 AS e;\n",
		"wide.sql":     "SELECT\t'漢字漢字' AS k,\t'a'::int;\n",
		"lines.sql":    "SELECT 1,\n  2,\n  'b'::int\n;\n",
		"aset.sql":     "SELECT 1 AS a WHERE false \\aset\nSELECT 'x'::int, :a;\n",
		"variable.sql": "\\set v 7\nSELECT :v, 'v'::int;\n",
	}
	for name := range files {
		for _, mode := range []string{"simple", "extended", "prepared"} {
			t.Run(name+"/"+mode, func(t *testing.T) {
				stderr := compareRuns(t, db, files, "-n", "-t", "1", "-M", mode, "-f", name)
				if !strings.Contains(stderr, "aborted in command") {
					t.Errorf("stampede's run did not abort: %s", stderr)
				}
			})
		}
	}
}

// TestDebugAsPgbench: debug() prints "debug(script=S,command=C): " and
// the value's type and value on stderr, as pgbench does: int, double,
// boolean and null, in \set, \if and \elif, in two scripts drawn as
// pgbench draws them (--random-seed).
func TestDebugAsPgbench(t *testing.T) {
	db := freshDB(t)
	files := map[string]string{
		"a.sql": "\\set i debug(5)\n\\set d debug(1.5 * 3)\n\\set b debug(1 = 1)\n\\set n debug(NULL)\nSELECT 1;\n",
		"b.sql": "\\set x 2\n\\if debug(:x = 1)\n\\elif debug(:x * 2) = 4\n\\set y debug(-:x)\n\\endif\n",
	}
	stderr := compareRuns(t, db, files, "-n", "-t", "6", "--random-seed", "7", "-f", "a.sql", "-f", "b.sql")
	for _, want := range []string{"debug(script=0,command=4): null\n", "debug(script=1,command=3): int 4\n"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stampede printed no %q:\n%s", want, stderr)
		}
	}
}

// TestAsetNoRowAsPgbench: an \aset query that returns no row sets no
// variable, in every -M mode, and the run goes on as pgbench's does: a
// statement that uses the variable sends NULL for it under -M extended
// and prepared, and the text :a under -M simple (a syntax error); \set,
// \if, \elif and \sleep fail on it with pgbench's two lines.
func TestAsetNoRowAsPgbench(t *testing.T) {
	db := freshDB(t)
	files := map[string]string{
		"sql.sql":   "SELECT 1 AS a WHERE false \\aset\nSELECT :a::int IS NULL;\n",
		"set.sql":   "SELECT 1 AS a WHERE false \\aset\n\\set b :a + 1\n",
		"if.sql":    "SELECT 1 AS a WHERE false \\aset\n\\if :a > 1\n\\endif\n",
		"elif.sql":  "SELECT 1 AS a WHERE false \\aset\n\\if 0\n\\elif :a > 1\n\\endif\n",
		"sleep.sql": "SELECT 1 AS a WHERE false \\aset\n\\sleep :a ms\n",
		"none.sql":  "SELECT 1 AS a WHERE false \\aset\nSELECT 2;\n",
	}
	for name := range files {
		for _, mode := range []string{"simple", "extended", "prepared"} {
			t.Run(name+"/"+mode, func(t *testing.T) {
				var reports [2]string
				for k, real := range []bool{true, false} {
					dir := t.TempDir()
					writeFiles(t, dir, files)
					reports[k], _, _ = run(t, real, dir, append(append([]string{}, server(t)...), "-n", "-t", "2", "-M", mode, "-f", name, db)...)
				}
				if want, got := strings.Join(blank(reports[0]), "\n"), strings.Join(blank(reports[1]), "\n"); want != got {
					t.Errorf("reports differ\npgbench:\n%s\nstampede:\n%s", want, got)
				}
				compareRuns(t, db, files, "-n", "-t", "2", "-M", mode, "-f", name)
			})
		}
	}
}

// TestRunSessionsHoldOwnStatements: the statements stampede runs before
// a run (its checks, the script's check on the server) leave nothing
// prepared on the run's connections: each client's session holds what
// pgbench's does, no statement under -M simple and extended, and its
// script's statement alone under -M prepared.
func TestRunSessionsHoldOwnStatements(t *testing.T) {
	db := freshDB(t)
	c := connect(t, db)
	defer c.Close(context.Background())
	if _, err := c.Exec(context.Background(), "CREATE TABLE seen (pid int, name text, statement text)"); err != nil {
		t.Fatal(err)
	}
	const script = "INSERT INTO seen SELECT pg_backend_pid(), name, statement FROM pg_prepared_statements;\n"
	files := map[string]string{"seen.sql": script}
	for _, mode := range []string{"simple", "extended", "prepared"} {
		var held [2][]string
		for k, real := range []bool{true, false} {
			if _, err := c.Exec(context.Background(), "TRUNCATE seen"); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			writeFiles(t, dir, files)
			tool(t, real, dir, append(append([]string{}, server(t)...), "-n", "-t", "1", "-c", "3", "-M", mode, "-f", "seen.sql", db)...)
			rows, err := c.Query(context.Background(), "SELECT pid, name, statement FROM seen ORDER BY 1, 2")
			if err != nil {
				t.Fatal(err)
			}
			clients := map[int32]int{}
			for rows.Next() {
				var pid int32
				var name, stmt string
				if err := rows.Scan(&pid, &name, &stmt); err != nil {
					t.Fatal(err)
				}
				clients[pid]++
				if !real && (!strings.HasPrefix(name, "stampede_raw_") || strings.TrimSuffix(stmt, ";") != strings.TrimSuffix(script, ";\n")) {
					t.Errorf("-M %s: a client's session holds %s: %q, not its script's statement", mode, name, stmt)
				}
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			for _, n := range clients {
				held[k] = append(held[k], strings.Repeat("statement ", n))
			}
			sort.Strings(held[k])
		}
		if strings.Join(held[0], "|") != strings.Join(held[1], "|") {
			t.Errorf("-M %s: the clients' sessions held statements as %q in pgbench, %q in stampede", mode, held[0], held[1])
		}
	}
}

// TestAsPgbenchFlagPrintsItsLines: `stampede init pgbench --as-pgbench`,
// pgbench -i's own init, prints what pgbench -i prints (the numbers
// blanked), the server's NOTICEs among them, and refuses, in one line,
// an output style that would print something else.
func TestAsPgbenchFlagPrintsItsLines(t *testing.T) {
	srv := server(t)
	dir := t.TempDir()
	dbs := [2]string{emptyDB(t, "pgbaspgbench"), emptyDB(t, "pgbaspgbench")}
	var said [2][]string
	real := exec.Command("pgbench", append(append(append([]string{}, srv...), "-i", "-s", "2", "-I", "dtgvp"), dbs[0])...)
	cmd := exec.Command(bin, "init", "pgbench", "--as-pgbench", "--scale", "2", "--init-steps", "dtgvp", dbURL(dbs[1]))
	for k, c := range []*exec.Cmd{real, cmd} {
		c.Dir, c.Env = dir, append(os.Environ(), "HOME="+dir)
		var stderr strings.Builder
		c.Stderr = &stderr
		if err := c.Run(); err != nil {
			t.Fatalf("%v: %v\n%s", c.Args, err, stderr.String())
		}
		for _, l := range strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n") {
			said[k] = append(said[k], numbers.ReplaceAllString(l, "N"))
		}
	}
	if strings.Join(said[0], "\n") != strings.Join(said[1], "\n") || !strings.Contains(strings.Join(said[1], "\n"), "NOTICE:  table \"pgbench_branches\" does not exist, skipping") {
		t.Errorf("pgbench -i printed\n%s\nstampede init pgbench --as-pgbench printed\n%s", strings.Join(said[0], "\n"), strings.Join(said[1], "\n"))
	}
	refused := exec.Command(bin, "init", "pgbench", "--as-pgbench", "--output-style", "stampede", dbURL(dbs[1]))
	refused.Dir, refused.Env = dir, append(os.Environ(), "HOME="+dir)
	out, err := refused.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || strings.Count(strings.TrimSpace(string(out)), "\n") != 0 || !strings.Contains(string(out), "--as-pgbench prints pgbench -i's lines") {
		t.Errorf("--as-pgbench --output-style stampede: %v\n%s(want exit 2 and one line)", err, out)
	}
}
