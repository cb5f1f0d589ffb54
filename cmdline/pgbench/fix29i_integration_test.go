package pgbench_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestInitRefusesBenchmarkOptions: every option pgbench refuses with -i
// (its benchmarking options) both tools refuse, stampede in one line
// with pgbench's words before it connects, and neither touches the
// tables: their oids and a row of ours survive.
func TestInitRefusesBenchmarkOptions(t *testing.T) {
	db := freshDB(t)
	srv := server(t)
	c := connect(t, db)
	defer c.Close(context.Background())
	if _, err := c.Exec(context.Background(), "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (1, 1, 1, 42, now())"); err != nil {
		t.Fatal(err)
	}
	state := func() string {
		var s string
		if err := c.QueryRow(context.Background(), `SELECT string_agg(c.oid::text, ',' ORDER BY relname) || '/' || (SELECT count(*) FROM pgbench_history WHERE delta = 42)
			FROM pg_class c WHERE relname LIKE 'pgbench\_%' AND relkind IN ('r', 'p')`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := state()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"x.sql": "SELECT 1;\n"})
	for _, opt := range [][]string{
		{"-c", "2"}, {"-j", "2"}, {"-C"}, {"-r"}, {"-S"}, {"-N"}, {"-b", "tpcb-like"}, {"-f", "x.sql"},
		{"-D", "a=1"}, {"-M", "simple"}, {"-P", "1"}, {"-R", "10"}, {"-L", "5"}, {"-T", "1"}, {"-t", "1"},
		{"-v"}, {"-l"}, {"--sampling-rate", "0.5"}, {"--aggregate-interval", "1"}, {"--progress-timestamp"},
		{"--log-prefix", "x"}, {"--failures-detailed"}, {"--max-tries", "2"}, {"--verbose-errors"},
	} {
		t.Run(strings.Join(opt, " "), func(t *testing.T) {
			args := append(append(append(append([]string{}, srv...), "-i", "-s", "1", "-I", "dt"), opt...), db)
			_, pgErr, pgCode := run(t, true, dir, args...)
			stOut, stErr, stCode := run(t, false, dir, args...)
			const said = "some of the specified options cannot be used in initialization (-i) mode"
			if pgCode != 1 || !strings.Contains(pgErr, said) {
				t.Fatalf("pgbench: exit %d, %q: the case no longer holds", pgCode, pgErr)
			}
			if stCode != 2 || stOut != "" || strings.Count(stErr, "\n") != 1 || !strings.HasPrefix(stErr, "pgbench: error: "+said) {
				t.Errorf("stampede: exit %d, stdout %q, stderr %q: want exit 2 and one line with %q", stCode, stOut, stErr, said)
			}
			if after := state(); after != before {
				t.Errorf("the tables changed: %s, were %s", after, before)
			}
		})
	}
}

// serScript updates one of three rows under REPEATABLE READ: four
// clients fail to serialize often, and --max-tries retries them.
const serScript = `\set id random(1, 3)
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT v FROM hot WHERE id = :id;
UPDATE hot SET v = v + 1 WHERE id = :id;
END;
`

// savedCodes are the failures by code of the one run saved in dir, as
// stampede report --format json says them (errors_40001, retries_40001).
func savedCodes(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	runs, _ := filepath.Glob(filepath.Join(dir, ".stampede", "runs", "2*"))
	if len(runs) != 1 {
		t.Fatalf("%d saved runs in %s, want 1", len(runs), dir)
	}
	cmd := exec.Command(bin, "report", "--format", "json", runs[0])
	cmd.Env = append(os.Environ(), "HOME="+dir)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("report: %v", err)
	}
	var rep struct {
		Codes map[string]int64 `json:"error_codes"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, out)
	}
	return rep.Codes
}

// TestRetriesSavedAsPgbench: the retries of --max-tries are in the saved
// run, by SQLSTATE (retries_40001), equal to the report's "total number
// of retries" and to the retries column of its -l log, and the failed
// transactions (errors_40001) to "number of failed transactions".
func TestRetriesSavedAsPgbench(t *testing.T) {
	srv := server(t)
	db := emptyDB(t, "pgbretries")
	c := connect(t, db)
	defer c.Close(context.Background())
	if _, err := c.Exec(context.Background(), "CREATE TABLE hot (id int PRIMARY KEY, v int); INSERT INTO hot VALUES (1, 0), (2, 0), (3, 0)"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"ser.sql": serScript})
	out, _ := tool(t, false, dir, append(append([]string{}, srv...), "-n", "-c", "4", "-T", "3", "--max-tries", "3", "-l", "-f", "ser.sql", db)...)
	rep, _ := reportCounts(t, out)
	logged := logCounts(t, dir)
	codes := savedCodes(t, dir)
	if rep.retries == 0 || rep.failed == 0 {
		t.Fatalf("the run retried %d times and failed %d transactions: the test needs both\n%s", rep.retries, rep.failed, out)
	}
	if codes["retries_40001"] != rep.retries || logged.retries != rep.retries || codes["errors_40001"] != rep.failed {
		t.Errorf("saved run %v; report: %d retries, %d failed; -l log: %d retries", codes, rep.retries, rep.failed, logged.retries)
	}
}

// TestStdinScriptOnceAsPgbench: -f - twice reads the standard input once,
// as pgbench does, which then finds the second script empty: both
// refuse the line, stampede in one line with pgbench's words.
func TestStdinScriptOnceAsPgbench(t *testing.T) {
	db := freshDB(t)
	args := append(append([]string{}, server(t)...), "-n", "-t", "1", "-f", "-", "-f", "-", db)
	var said [2]string
	var code [2]int
	for k, real := range []bool{true, false} {
		cmd := exec.Command("pgbench", args...)
		if !real {
			cmd = exec.Command(bin, append([]string{"pgbench"}, args...)...)
			cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
		}
		cmd.Stdin = strings.NewReader("SELECT 1;\n")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		_ = cmd.Run()
		said[k], code[k] = stderr.String(), cmd.ProcessState.ExitCode()
	}
	const want = `empty command list for script "-"`
	if code[0] != 1 || !strings.Contains(said[0], want) {
		t.Fatalf("pgbench: exit %d, %q: the case no longer holds", code[0], said[0])
	}
	if code[1] != 2 || strings.Count(said[1], "\n") != 1 || !strings.HasPrefix(said[1], "pgbench: error: "+want) {
		t.Errorf("stampede: exit %d, stderr %q: want exit 2 and one line with %q", code[1], said[1], want)
	}
}
