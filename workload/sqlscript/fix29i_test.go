package sqlscript_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestColonDigitNotAVariable: a colon before a digit ('10:30', a slice
// [1:2], a comment's 10:30) names no variable, as pgbench's variable
// names start with a letter, _ or a high-bit byte: each script runs in
// pgbench, stampede pgbench and run sql under every protocol, and the
// rows it wrote, the server's values of the statement as sent, are
// pgbench's.
func TestColonDigitNotAVariable(t *testing.T) {
	name, u, conn := freshDB(t, "sqlcolondigit")
	exec1(t, conn, "CREATE TABLE got (id serial, tool int, script text, mode text, v text)")
	uu := testURL(t, u)
	// Each script writes the value the server computed from its text,
	// with the tool (-D tool=N) and the protocol.
	const ins = "INSERT INTO got (tool, script, mode, v) SELECT :tool, '%s', '%s', "
	for _, tc := range []struct{ name, pre, value string }{
		{"time", "", "'10:30'::time::text;\n"},
		{"timestamp", "", "(now() > '2020-01-01 12:00:00')::text;\n"},
		{"jsonb", "", "'{\"a\":1}'::jsonb::text;\n"},
		{"comment", "", "1::text -- runs at 10:30\n;\n"},
		{"slice", "", "((ARRAY[1,2,3])[1:2])::text;\n"},
		// Names that start with _ or a high-bit byte are variables.
		{"names", "\\set _x 5\n\\set \xc3\xa9 6\n", "(:_x + :\xc3\xa9 * 10)::text || ' at 1:2';\n"},
	} {
		for _, mode := range []string{"simple", "extended", "prepared"} {
			t.Run(tc.name+"/"+mode, func(t *testing.T) {
				dir := t.TempDir()
				write(t, dir, "s.sql", tc.pre+fmt.Sprintf(ins, tc.name, mode)+tc.value)
				pgbench(t, dir, name, "-n", "-t", "3", "-M", mode, "-D", "tool=0", "-f", "s.sql")
				for _, args := range [][]string{
					{"pgbench", "-h", uu.host, "-p", uu.port, "-U", uu.user, "-n", "-t", "3", "-M", mode, "-D", "tool=1", "-f", "s.sql", name},
					{"run", "sql", "--protocol", mode, "--max-ops", "3", "--concurrency", "1", "-D", "tool=2", "-f", "s.sql", u},
				} {
					if r := stampede(t, dir, args...); r.code != 0 {
						t.Fatalf("stampede %s: exit %d\n%s", strings.Join(args, " "), r.code, r.stderr)
					}
				}
				var want []string
				for tool := range 3 {
					var got []string
					rows, err := conn.Query(context.Background(), "SELECT v FROM got WHERE tool = $1 AND script = $2 AND mode = $3 ORDER BY id", tool, tc.name, mode)
					if err != nil {
						t.Fatal(err)
					}
					for rows.Next() {
						var v string
						if err := rows.Scan(&v); err != nil {
							t.Fatal(err)
						}
						got = append(got, v)
					}
					if rows.Err() != nil {
						t.Fatal(rows.Err())
					}
					if tool == 0 {
						want = got
						if len(want) != 3 {
							t.Fatalf("pgbench wrote %d rows, want 3", len(want))
						}
					} else if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Errorf("tool %d (1 stampede pgbench, 2 run sql) wrote %q, pgbench %q", tool, got, want)
					}
				}
			})
		}
	}
}

// TestManyStatementsUnderMemoryLimit: a script of 30,000 statements, too
// many for the histograms under `ulimit -v 4000000`, is refused before
// the run in one line naming the series and the limit, never the Go
// runtime's "out of memory" and its goroutine dump; 300 and 5,000
// statements run (5,000 were refused while each series' histograms were
// dense: 155 kB each, four per series).
func TestManyStatementsUnderMemoryLimit(t *testing.T) {
	_, u, _ := freshDB(t, "sqlmanystmts")
	dir := t.TempDir()
	for _, n := range []int{300, 5000, 30000} {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "SELECT %d;\n", i)
		}
		write(t, dir, fmt.Sprint(n, ".sql"), b.String())
	}
	limited := func(file string) (int, string) {
		cmd := exec.Command("sh", "-c", `ulimit -v 4000000 && exec "$0" run sql -f "$1" --max-ops 16 --concurrency 8 "$2"`, bin, file, u)
		cmd.Dir, cmd.Env = dir, append(os.Environ(), "HOME="+dir)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), stderr.String()
	}
	code, stderr := limited("30000.sql")
	r := result{code: code, stderr: stderr}
	if r.code != 2 || strings.Count(r.stderr, "\n") != 1 || !strings.Contains(r.stderr, "latency series: 30001 would need") ||
		!strings.Contains(r.stderr, "ulimit -v") || strings.Contains(r.stderr, "goroutine") {
		t.Errorf("30,000 statements under ulimit -v: exit %d, stderr %q: want exit 2 and one line naming the series and the limit", r.code, r.stderr)
	}
	for _, file := range []string{"300.sql", "5000.sql"} {
		if code, stderr := limited(file); code != 0 {
			t.Errorf("%s under ulimit -v: exit %d\n%s", file, code, stderr)
		}
	}
}
