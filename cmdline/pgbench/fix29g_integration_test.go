package pgbench_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// deadlockScript updates two tellers in either order: four clients
// deadlock often, each deadlock found after the server's deadlock_timeout
// (1 s), so that a run of -T 3 ends in the middle of some transactions'
// tries.
const deadlockScript = `\set a random(1, 2)
\set b 3 - :a
BEGIN;
UPDATE pgbench_tellers SET tbalance = tbalance + 1 WHERE tid = :a;
SELECT pg_sleep(0.002);
UPDATE pgbench_tellers SET tbalance = tbalance + 1 WHERE tid = :b;
END;
`

// txCounts are a run's transactions as pgbench counts them: processed,
// failed, retried (tried more than once) and the retries.
type txCounts struct{ processed, failed, retried, retries int64 }

// reportCounts reads the counts of a pgbench report, and the sum of -r's
// retries column (the retries as they happened, on their commands).
func reportCounts(t *testing.T, report string) (c txCounts, tableRetries int64) {
	t.Helper()
	c.processed = processed(t, report)
	for _, l := range strings.Split(report, "\n") {
		for prefix, to := range map[string]*int64{
			"number of failed transactions: ":  &c.failed,
			"number of transactions retried: ": &c.retried,
			"total number of retries: ":        &c.retries,
		} {
			if v, ok := strings.CutPrefix(l, prefix); ok {
				fmt.Sscan(v, to)
			}
		}
		if fs := strings.Fields(l); len(fs) > 4 && strings.HasPrefix(l, "   ") {
			r, _ := strconv.ParseInt(fs[2], 10, 64)
			tableRetries += r
		}
	}
	return c, tableRetries
}

// logCounts reads the counts of the per-transaction logs (-l, under
// --max-tries: the retries are each line's last field) in dir.
func logCounts(t *testing.T, dir string) (c txCounts) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "pgbench_log.*"))
	if len(files) == 0 {
		t.Fatalf("no pgbench_log.* in %s", dir)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			fs := strings.Fields(l)
			if len(fs) < 7 {
				continue
			}
			if _, err := strconv.ParseFloat(fs[2], 64); err == nil {
				c.processed++
			} else {
				c.failed++ // serialization or deadlock
			}
			r, err := strconv.ParseInt(fs[len(fs)-1], 10, 64)
			if err != nil {
				t.Fatalf("%s: line %q has no retries", f, l)
			}
			if r > 0 {
				c.retried++
				c.retries += r
			}
		}
	}
	return c
}

// TestRetriesCutByDurationAsPgbench: under -T, a transaction that the
// run's end cuts between its tries is not counted processed, failed or
// retried, and its retries are not in the report's total, as pgbench's
// (accumStats counts a transaction's tries when it ends; only -r's table
// counts each retry on its command as it happens). In every run of a
// deadlocking script, for both tools, the report's counts are those of
// its own -l log and retried is at most processed + failed; and the case
// arises: in some run -r's table holds more retries than the report.
func TestRetriesCutByDurationAsPgbench(t *testing.T) {
	srv := server(t)
	db := freshDB(t)
	for _, real := range []bool{true, false} {
		t.Run(fmt.Sprintf("real=%v", real), func(t *testing.T) {
			cut := 0
			for range 5 {
				dir := t.TempDir()
				writeFiles(t, dir, map[string]string{"dl.sql": deadlockScript})
				out, _ := tool(t, real, dir, append(append([]string{}, srv...), "-n", "-c", "4", "-T", "3", "-f", "dl.sql", "--max-tries", "2", "--failures-detailed", "-r", "-l", db)...)
				rep, tableRetries := reportCounts(t, out)
				logged := logCounts(t, dir)
				if rep != logged || rep.retried > rep.processed+rep.failed {
					t.Errorf("report %+v, its log %+v\n%s", rep, logged, out)
				}
				if tableRetries > rep.retries {
					cut++
				}
			}
			if cut == 0 {
				t.Errorf("no run of 5 ended in the middle of a transaction's tries: the test no longer tests that case")
			}
		})
	}
}

// scriptTransactions is the report's " - N transactions" count of every
// script, in order.
func scriptTransactions(report string) []int64 {
	var out []int64
	for _, l := range strings.Split(report, "\n") {
		if v, ok := strings.CutPrefix(l, " - "); ok && strings.Contains(v, " transactions (") {
			var n int64
			fmt.Sscan(v, &n)
			out = append(out, n)
		}
	}
	return out
}

// TestScriptsOfOneNameAsPgbench: two scripts of one file name in two
// directories, one file given twice, and one built-in script given
// twice run as pgbench runs them, each a script of its own named by its
// path as given: the same report line for line (numbers blanked), and
// with one client and one --random-seed the same transactions by script.
func TestScriptsOfOneNameAsPgbench(t *testing.T) {
	srv := server(t)
	db := freshDB(t)
	files := map[string]string{
		"r/q.sql": "SELECT abalance FROM pgbench_accounts WHERE aid = 1;\n",
		"w/q.sql": "UPDATE pgbench_accounts SET abalance = abalance WHERE aid = 1;\n",
		"one.sql": "SELECT 1;\n",
	}
	for _, scripts := range [][]string{
		{"-f", "r/q.sql@10", "-f", "w/q.sql@1"},
		{"-f", "one.sql", "-f", "one.sql"},
		{"-b", "select-only", "-b", "select-only@2"},
	} {
		args := append(append(append([]string{}, srv...), "-n", "-t", "60", "--random-seed", "7", "-r"), append(scripts, db)...)
		t.Run(strings.Join(scripts, " "), func(t *testing.T) {
			var outs [2]string
			for k, real := range []bool{true, false} {
				dir := t.TempDir()
				for _, d := range []string{"r", "w"} {
					if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
						t.Fatal(err)
					}
				}
				writeFiles(t, dir, files)
				outs[k], _ = tool(t, real, dir, args...)
			}
			if want, got := strings.Join(blank(outs[0]), "\n"), strings.Join(blank(outs[1]), "\n"); want != got {
				t.Errorf("reports differ\npgbench:\n%s\nstampede:\n%s", want, got)
			}
			want, got := scriptTransactions(outs[0]), scriptTransactions(outs[1])
			if len(want) != 2 || fmt.Sprint(want) != fmt.Sprint(got) {
				t.Errorf("transactions by script: pgbench %v, stampede %v\n%s", want, got, outs[1])
			}
		})
	}
}

// TestUnsetOnABranchAsPgbench: a variable that an \if branch leaves unset
// is sent as NULL under -M extended and prepared, as pgbench sends it
// (the run goes on, exit 0), and under -M simple stays as written, a
// syntax error that aborts the client (exit 2), as pgbench's: with one
// --random-seed both tools write the same rows, NULLs among them, and
// print the same report.
func TestUnsetOnABranchAsPgbench(t *testing.T) {
	srv := server(t)
	db := freshDB(t)
	c := connect(t, db)
	defer c.Close(context.Background())
	if _, err := c.Exec(context.Background(), "CREATE TABLE uv (tool int, mode int, x int, v int)"); err != nil {
		t.Fatal(err)
	}
	script := "\\set x random(1, 2)\n\\if :x = 1\n\\set y 5\n\\endif\nINSERT INTO uv VALUES (:tool, :mode, :x, :y);\n"
	for m, mode := range []string{"simple", "extended", "prepared"} {
		t.Run(mode, func(t *testing.T) {
			var outs [2]string
			var codes [2]int
			for k, real := range []bool{true, false} {
				dir := t.TempDir()
				writeFiles(t, dir, map[string]string{"unset.sql": script})
				outs[k], _, codes[k] = run(t, real, dir, append(append([]string{}, srv...), "-n", "-t", "20", "-M", mode, "--random-seed", "3",
					"-D", fmt.Sprint("tool=", k), "-D", fmt.Sprint("mode=", m), "-f", "unset.sql", db)...)
			}
			want := 0
			if mode == "simple" {
				want = 2
			}
			if codes[0] != want || codes[1] != want {
				t.Errorf("exit: pgbench %d, stampede %d, want %d", codes[0], codes[1], want)
			}
			if w, g := strings.Join(blank(outs[0]), "\n"), strings.Join(blank(outs[1]), "\n"); w != g {
				t.Errorf("reports differ\npgbench:\n%s\nstampede:\n%s", w, g)
			}
			var rows [2][]string
			for k := range rows {
				r, err := c.Query(context.Background(), "SELECT x, v FROM uv WHERE tool = $1 AND mode = $2 ORDER BY x, v NULLS FIRST", k, m)
				if err != nil {
					t.Fatal(err)
				}
				for r.Next() {
					var x int
					var v *int
					if err := r.Scan(&x, &v); err != nil {
						t.Fatal(err)
					}
					rows[k] = append(rows[k], fmt.Sprint(x, " ", v != nil))
				}
				if r.Err() != nil {
					t.Fatal(r.Err())
				}
			}
			nulls := strings.Count(strings.Join(rows[0], ","), "false")
			if fmt.Sprint(rows[0]) != fmt.Sprint(rows[1]) || mode != "simple" && (len(rows[0]) != 20 || nulls == 0) {
				t.Errorf("rows (x, v set): pgbench %v, stampede %v", rows[0], rows[1])
			}
		})
	}
}

// commandLine is the text of a line of -r's table after its numbers.
var commandLine = regexp.MustCompile(`^ +-?[0-9.]+ +[0-9]+ +(?:[0-9]+ +)?`)

// TestCommandFirstLinesAsPgbench: -r names each command as pgbench does:
// a leading /* comment kept (-- comments and blanks skipped), the first
// line only, and at most 127 bytes of it (a character cut in two as
// pgbench cuts it), byte for byte; a meta-command's line as written, its
// trailing blanks too.
func TestCommandFirstLinesAsPgbench(t *testing.T) {
	srv := server(t)
	db := freshDB(t)
	long := "SELECT 'é' AS e, " + strings.Repeat("1 + ", 60) + "1 AS n;\n"
	script := "/* block */ SELECT 4;\n" + long + "-- line comment\n  SELECT 5;\n/* multi\nline */ SELECT 6;\nSELECT 7 \\; SELECT 8;\n" +
		"\\set a 1 + 2   \n\\sleep 0 ms \t\n" // meta-commands as written, trailing blanks too
	var tables [2][]string
	for k, real := range []bool{true, false} {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"first.sql": script})
		out, _ := tool(t, real, dir, append(append([]string{}, srv...), "-n", "-t", "2", "-r", "-f", "first.sql", db)...)
		_, table, ok := strings.Cut(out, "statement latencies in milliseconds and failures:\n")
		if !ok {
			t.Fatalf("real=%v: no -r table in\n%s", real, out)
		}
		for _, l := range strings.Split(strings.TrimRight(table, "\n"), "\n") {
			tables[k] = append(tables[k], commandLine.ReplaceAllString(l, ""))
		}
	}
	if want, got := strings.Join(tables[0], "\n"), strings.Join(tables[1], "\n"); want != got || len(tables[0]) != 7 {
		t.Errorf("-r's commands\npgbench:\n%s\nstampede:\n%s", want, got)
	}
	if l := tables[0][1]; len(l) != 127 {
		t.Errorf("pgbench's long line has %d bytes, want 127: the case no longer holds", len(l))
	}
}

// seedSaid is the seed of "pgbench: setting random seed to N" on stderr.
var seedSaid = regexp.MustCompile(`(?m)^pgbench: setting random seed to ([0-9]+)$`)

// TestRandomSeedSaidAsPgbench: --random-seed=time, rand or an integer
// makes both tools say "setting random seed to N" on stderr, N the
// integer as a number (7 for 007), and N is the seed the run used: a
// second run with --random-seed N draws the same values.
func TestRandomSeedSaidAsPgbench(t *testing.T) {
	srv := server(t)
	db := freshDB(t)
	c := connect(t, db)
	defer c.Close(context.Background())
	if _, err := c.Exec(context.Background(), "CREATE TABLE draws (run text, n int, r bigint)"); err != nil {
		t.Fatal(err)
	}
	script := "\\set r random(1, 1000000000)\nINSERT INTO draws VALUES (:run, :client_id, :r);\n"
	draws := func(real bool, run, seed string) (said string) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"draw.sql": script})
		_, stderr := tool(t, real, dir, append(append([]string{}, srv...), "-n", "-t", "5", "-c", "2", "-j", "2", "--random-seed="+seed,
			"-D", "run='"+run+"'", "-M", "simple", "-f", "draw.sql", db)...)
		m := seedSaid.FindAllStringSubmatch(stderr, -1)
		if len(m) != 1 {
			t.Fatalf("real=%v --random-seed=%s: %d seed lines on stderr, want 1\n%s", real, seed, len(m), stderr)
		}
		return m[0][1]
	}
	values := func(run string) string {
		var s string
		if err := c.QueryRow(context.Background(), "SELECT string_agg(n || ':' || r, ',' ORDER BY n, r) FROM draws WHERE run = $1", run).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, real := range []bool{true, false} {
		for _, seed := range []string{"time", "rand", "007"} {
			run := fmt.Sprintf("%v-%s", real, seed)
			n := draws(real, run, seed)
			if seed == "007" && n != "7" {
				t.Errorf("real=%v --random-seed=007: said %s, want 7", real, n)
			}
			if again := draws(real, run+"-again", n); again != n || values(run) != values(run+"-again") {
				t.Errorf("real=%v --random-seed=%s said %s; --random-seed=%s said %s and drew %s, not %s", real, seed, n, n, again, values(run+"-again"), values(run))
			}
		}
	}
}

// TestCompoundRefusalSaysMSimple: a \; command under -M prepared or
// extended is refused before the run in the pgbench form's words, -M
// simple (the form takes no --protocol); pgbench itself aborts the
// client when the server refuses it (exit 2, as stampede's refusal).
func TestCompoundRefusalSaysMSimple(t *testing.T) {
	srv := server(t)
	db := freshDB(t)
	for _, mode := range []string{"prepared", "extended"} {
		for _, real := range []bool{true, false} {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"comp.sql": "SELECT 1 \\; SELECT 2;\n"})
			_, stderr, code := run(t, real, dir, append(append([]string{}, srv...), "-n", "-t", "1", "-M", mode, "-f", "comp.sql", db)...)
			if code != 2 {
				t.Errorf("real=%v -M %s: exit %d, want 2\n%s", real, mode, code, stderr)
			}
			msg := strings.TrimSpace(stderr)
			if !real && (!strings.Contains(msg, "comp.sql:1: several statements in one command (\\;) need -M simple: the "+mode+" protocol") ||
				strings.Contains(msg, "--protocol") || strings.Contains(msg, "\n")) {
				t.Errorf("-M %s: %q, want one line saying -M simple", mode, msg)
			}
		}
	}
}
