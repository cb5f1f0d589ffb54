package pgbench_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// writeFiles writes name → text files into dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSimpleVariablesAsPgbench: under -M simple a variable's value is
// written into the statement's text, so that a script the server could
// not prepare with $N parameters (:a + :b, a table name made of a
// variable) runs in both tools with the same report; under -M prepared
// both fail on it, stampede before the run in one line naming the file
// and line and advising pgbench to see it fail the same way.
func TestSimpleVariablesAsPgbench(t *testing.T) {
	srv := server(t)
	db := emptyDB(t, "pgbsimple")
	if out, err := exec.Command("pgbench", append(append(append([]string{}, srv...), "-i", "-q", "-s", "1", "--partitions", "2"), db)...).CombinedOutput(); err != nil {
		t.Fatalf("pgbench -i: %v\n%s", err, out)
	}
	files := map[string]string{
		"add.sql":  "\\set a 1\n\\set b 2\nSELECT :a + :b;\n",
		"part.sql": "\\set p random(1, 2)\nSELECT count(*) FROM pgbench_accounts_:p;\n",
	}
	args := append(append([]string{}, srv...), "-n", "-t", "20", "-c", "2", "-f", "add.sql", "-f", "part.sql")
	var outs [2]string
	for k, real := range []bool{true, false} {
		dir := t.TempDir()
		writeFiles(t, dir, files)
		outs[k], _ = tool(t, real, dir, append(append(append([]string{}, args...), "-M", "simple"), db)...)
	}
	if want, got := strings.Join(blank(outs[0]), "\n"), strings.Join(blank(outs[1]), "\n"); want != got {
		t.Errorf("-M simple: reports differ\npgbench:\n%s\nstampede:\n%s", want, got)
	}
	// -M prepared cannot prepare them ($1 where a value or a name
	// goes): pgbench aborts the run with the server's error, and so does
	// its form (which runs such a statement as pgbench does, fix29f).
	for _, f := range []string{"add.sql", "part.sql"} {
		var serverError string
		for _, real := range []bool{true, false} {
			dir := t.TempDir()
			writeFiles(t, dir, files)
			_, stderr, code := run(t, real, dir, append(append([]string{}, srv...), "-n", "-t", "2", "-M", "prepared", "-f", f, db)...)
			if code != 2 {
				t.Errorf("real=%v -M prepared -f %s: exit %d, want 2 (the run aborted)\n%s", real, f, code, stderr)
			}
			for _, line := range strings.Split(stderr, "\n") {
				if _, e, ok := strings.Cut(line, "ERROR:"); ok && real && serverError == "" {
					serverError = "ERROR:" + e
				}
			}
			if !real && (serverError == "" || !strings.Contains(stderr, serverError)) {
				t.Errorf("-M prepared -f %s: stderr %q lacks pgbench's %q", f, stderr, serverError)
			}
		}
	}
}

// TestFailureTypesInLogAsPgbench: with --failures-detailed, -l's line of
// a failed transaction says its failure's type where the latency goes
// (serialization), as pgbench's; without it, failed.
func TestFailureTypesInLogAsPgbench(t *testing.T) {
	srv := server(t)
	db := freshDB(t)
	for _, detailed := range []bool{true, false} {
		args := append(append([]string{}, srv...), "-n", "-c", "4", "-T", "2", "--max-tries", "1", "-l", "-f", "conflict.sql")
		want := "failed"
		if detailed {
			args, want = append(args, "--failures-detailed"), "serialization"
		}
		for _, real := range []bool{true, false} {
			dir := t.TempDir()
			writeFiles(t, dir, map[string]string{"conflict.sql": conflictScript})
			tool(t, real, dir, append(args, db)...)
			logs, _ := filepath.Glob(filepath.Join(dir, "pgbench_log.*"))
			seen := map[string]int{}
			for _, f := range logs {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
					if fs := strings.Fields(l); len(fs) >= 6 && (fs[2][0] < '0' || fs[2][0] > '9') {
						seen[fs[2]]++
					}
				}
			}
			var kinds []string
			for k := range seen {
				kinds = append(kinds, k)
			}
			sort.Strings(kinds)
			if seen[want] == 0 || len(kinds) != 1 && !(detailed && len(kinds) == 2 && seen["deadlock"] > 0) {
				t.Errorf("real=%v detailed=%v: the log's failures say %v, want %s", real, detailed, seen, want)
			}
		}
	}
}

// TestCompoundStatementTableAsPgbench: -r's table prints a compound
// statement's first line with ; where the script has \;, as pgbench's.
func TestCompoundStatementTableAsPgbench(t *testing.T) {
	srv := server(t)
	db := freshDB(t)
	files := map[string]string{"comp.sql": "SELECT 1 AS one \\; SELECT 2 AS two;\nSELECT 3 \\;\n  SELECT 4;\n"}
	var outs [2]string
	for k, real := range []bool{true, false} {
		dir := t.TempDir()
		writeFiles(t, dir, files)
		outs[k], _ = tool(t, real, dir, append(append([]string{}, srv...), "-n", "-t", "5", "-r", "-f", "comp.sql", db)...)
	}
	table := func(out string) []string {
		_, tbl, _ := strings.Cut(out, "statement latencies")
		var lines []string
		for _, l := range strings.Split(tbl, "\n")[1:] {
			if f := strings.Fields(l); len(f) > 2 {
				lines = append(lines, strings.Join(f[2:], " "))
			}
		}
		return lines
	}
	want, got := table(outs[0]), table(outs[1])
	if strings.Join(want, "\n") != strings.Join(got, "\n") || len(want) != 2 || want[0] != "SELECT 1 AS one ; SELECT 2 AS two;" {
		t.Errorf("-r's statements: pgbench %q, stampede %q", want, got)
	}
}
