package pgbench_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// TestNameCommentsAsPgbench: two files that share a `-- name: read`, and
// one file that gives it to two statements, run as pgbench runs them (a
// `--` line is a comment to it), where stampede refused them: the same
// report line for line (numbers blanked; -r names statements by their
// text), the same stderr (no word of the names), and with one client
// and one --random-seed the same transactions by script, which are the
// rows each statement wrote on the server. The run log names the statements read
// and read#2, each counting its rows; a `-- name:` that is the FILE:LINE
// of a meta-command -r measures is FILE:LINE#2.
func TestNameCommentsAsPgbench(t *testing.T) {
	srv := server(t)
	db := freshDB(t)
	c := connect(t, db)
	defer c.Close(context.Background())
	if _, err := c.Exec(context.Background(), "CREATE TABLE nc (tool int, src text)"); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"a.sql":    "-- name: read\nINSERT INTO nc VALUES (:tool, 'a');\n",
		"b.sql":    "-- name: read\nINSERT INTO nc VALUES (:tool, 'b');\n",
		"same.sql": "-- name: read\nINSERT INTO nc VALUES (:tool, 's1');\n-- name: read\nINSERT INTO nc VALUES (:tool, 's2');\n",
		// -r measures \set too, as meta.sql:1: the statement's name is
		// taken.
		"meta.sql": "\\set x 1\n-- name: meta.sql:1\nINSERT INTO nc VALUES (:tool, 'm');\n",
	}
	for _, tc := range []struct {
		scripts []string
		stmts   []string // the statements' names in the run log
		srcs    []string // the src of the rows each wrote
		ops     []string // their scripts' names in the run log
	}{
		{[]string{"-f", "a.sql@3", "-f", "b.sql"}, []string{"read", "read#2"}, []string{"a", "b"}, []string{"a.sql", "b.sql"}},
		{[]string{"-f", "same.sql"}, []string{"read", "read#2"}, []string{"s1", "s2"}, []string{"same.sql", "same.sql"}},
		{[]string{"-f", "meta.sql"}, []string{"meta.sql:1", "meta.sql:1#2"}, []string{"m", "m"}, []string{"meta.sql", "meta.sql"}},
	} {
		t.Run(strings.Join(tc.scripts, " "), func(t *testing.T) {
			if _, err := c.Exec(context.Background(), "TRUNCATE nc"); err != nil {
				t.Fatal(err)
			}
			var outs, errs, dirs [2]string
			for k, real := range []bool{true, false} {
				dirs[k] = t.TempDir()
				writeFiles(t, dirs[k], files)
				args := append(append([]string{}, srv...), "-n", "-t", "60", "--random-seed", "7", "-r", "-D", fmt.Sprint("tool=", k))
				outs[k], errs[k] = tool(t, real, dirs[k], append(append(args, tc.scripts...), db)...)
			}
			if want, got := strings.Join(blank(outs[0]), "\n"), strings.Join(blank(outs[1]), "\n"); want != got {
				t.Errorf("reports differ\npgbench:\n%s\nstampede:\n%s", want, got)
			}
			// stampede's stderr ends with where it saved the run.
			saved := regexp.MustCompile(`(?m)^results saved in .*\n`)
			if errs[0] != saved.ReplaceAllString(errs[1], "") {
				t.Errorf("stderr differs (stampede's run directory aside)\npgbench:\n%s\nstampede:\n%s", errs[0], errs[1])
			}
			rows := func(tool int, src string) int64 {
				var n int64
				if err := c.QueryRow(context.Background(), "SELECT count(*) FROM nc WHERE tool = $1 AND src = $2", tool, src).Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}
			byScript := scriptTransactions(outs[1])
			if len(byScript) == 0 { // one script: no block of its own
				byScript = []int64{processed(t, outs[1]), processed(t, outs[1])}
			}
			for i, src := range tc.srcs {
				if real, ours := rows(0, src), rows(1, src); real != ours || ours != byScript[i] || ours == 0 {
					t.Errorf("rows %q: pgbench wrote %d, stampede %d; stampede's report says %d transactions of its script", src, real, ours, byScript[i])
				}
			}
			total, ops := savedRun(t, dirs[1])
			for i, name := range tc.stmts {
				want := rows(1, tc.srcs[i])
				if ops[name][0] != want || ops[tc.ops[i]][0] != want {
					t.Errorf("the run log counts %s %d and its script %s %d, want the %d rows it wrote (ops %v)", name, ops[name][0], tc.ops[i], ops[tc.ops[i]][0], want, ops)
				}
			}
			if total != 60 {
				t.Errorf("the run log counts %d transactions, want -t's 60", total)
			}
		})
	}
}
