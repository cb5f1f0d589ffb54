package sqlscript_test

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runBounded runs stampede with stdin, sending SIGINT after interrupt
// (when not 0) and killing it after 30 s: a hang fails the test.
func runBounded(t *testing.T, dir string, stdin func(*exec.Cmd), interrupt time.Duration, args ...string) (result, bool) {
	t.Helper()
	if bin == "" {
		t.Skip("STAMPEDE_TEST_DATABASE not set: scripts/test starts a server and sets it")
	}
	var out, errb bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = &out, &errb
	if stdin != nil {
		stdin(cmd)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	if interrupt > 0 {
		select {
		case err = <-done:
			goto ended
		case <-time.After(interrupt):
			_ = cmd.Process.Signal(syscall.SIGINT)
		}
	}
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		return result{-1, out.String(), errb.String()}, false
	}
ended:
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code, out.String(), errb.String()}, true
}

// TestScriptNotARegularFile: a FIFO (no writer) or a device given as a
// script, init file or check file is refused in one line before it is
// opened for reading, in run sql, init sql, check sql and the pgbench
// form; it used to hang, deaf to SIGINT and SIGTERM (census29b #123,
// #127, #128, #131).
func TestScriptNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	_, u, _ := freshDB(t, "sqlfifo")
	uu := testURL(t, u)
	fifo := filepath.Join(dir, "fifo.sql")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"run sql -f fifo", []string{"run", "sql", "--duration", "1s", "-f", "fifo.sql", u}, "-f fifo.sql is a named pipe (FIFO), not a regular file: give a script file (or - to read the standard input)"},
		{"init sql fifo", []string{"init", "sql", "--init-file", "fifo.sql", u}, "--init-file fifo.sql is a named pipe (FIFO), not a regular file"},
		{"check sql fifo", []string{"check", "sql", "--check-file", "fifo.sql", u}, "--check-file fifo.sql is a named pipe (FIFO), not a regular file"},
		{"pgbench -f fifo", []string{"pgbench", "-h", uu.host, "-p", uu.port, "-U", uu.user, "-n", "-t", "1", "-f", "fifo.sql", uu.db}, "-f fifo.sql is a named pipe (FIFO), not a regular file"},
		{"run sql -f device", []string{"run", "sql", "--duration", "1s", "-f", "/dev/null", u}, "-f /dev/null is a character device, not a regular file"},
		{"init sql device", []string{"init", "sql", "--init-file", "/dev/zero", u}, "--init-file /dev/zero is a character device, not a regular file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, ended := runBounded(t, dir, nil, 0, c.args...)
			if !ended {
				t.Fatalf("stampede %s did not end in 30 s", strings.Join(c.args, " "))
			}
			msg := strings.TrimSpace(r.stderr)
			if r.code != 2 || !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
				t.Errorf("exit %d, stderr %q; want exit 2 and one line with %q", r.code, r.stderr, c.want)
			}
			if strings.Contains(r.stdout, "results saved") {
				t.Errorf("a run started: %s", r.stdout)
			}
		})
	}
	// -f - waiting on a standard input nobody writes ends on Ctrl-C.
	t.Run("stdin interrupted", func(t *testing.T) {
		var pw interface{ Close() error }
		r, ended := runBounded(t, dir, func(cmd *exec.Cmd) {
			p, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			pw = p
		}, 2*time.Second, "run", "sql", "--duration", "1s", "-f", "-", u)
		_ = pw.Close()
		if !ended {
			t.Fatal("stampede run sql -f - did not end on SIGINT")
		}
		if want := "-f -: stopped by interrupt while reading the script from the standard input"; r.code != 2 || !strings.Contains(r.stderr, want) {
			t.Errorf("exit %d, stderr %q; want exit 2 and %q", r.code, r.stderr, want)
		}
	})
}

// TestRunSQLCensus29: run sql and check sql lines census29b found
// accepted or answered vaguely, each refused in one line, exit 2,
// nothing run.
func TestRunSQLCensus29(t *testing.T) {
	dir := t.TempDir()
	_, u, conn := freshDB(t, "sqlc29")
	exec1(t, conn, "CREATE TABLE t (a int)")
	write(t, dir, "good.sql", "SELECT 1;\n")
	write(t, dir, "colname.sql", "SELECT 1 AS \"a b\" \\gset\nSELECT 1;\n")
	write(t, dir, "prefix.sql", "SELECT 1 AS a \\gset 1x\nSELECT 1;\n")
	write(t, dir, "chk_if.sql", "SELECT true;\n\\if 1\nSELECT true;\n\\endif\n")
	write(t, dir, "chk_set.sql", "\\set x 1\nSELECT true;\n")
	run := []string{"run", "sql", "--duration", "2s"}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"scale above pgbench's", append(run, "-f", "good.sql", "--scale", "9223372036854775807"), "--scale 9223372036854775807: the scale is 1 to 2147483647 (pgbench's range)"},
		{"scale 2^31", append(run, "-f", "good.sql", "--scale", "2147483648"), "the scale is 1 to 2147483647"},
		{"vacuum-accounts alone", append(run, "-f", "good.sql", "--vacuum-accounts"), "--vacuum-accounts vacuums pgbench_accounts with the tables --vacuum-first vacuums: add --vacuum-first"},
		{"aggregate longer than the run", append(run, "-f", "good.sql", "--log-prefix", "agg", "--aggregate-interval", "5"), "--aggregate-interval 5 is longer than --duration 2s"},
		{"aggregate not dividing the run", []string{"run", "sql", "--duration", "3s", "-f", "good.sql", "--log-prefix", "agg", "--aggregate-interval", "2"}, "--duration 3s is not a multiple of --aggregate-interval 2"},
		{"gset column not a name", append(run, "-f", "colname.sql"), `colname.sql:1: \gset: column "a b" makes the variable name "a b", which is not a variable name`},
		{"gset prefix not a name", append(run, "-f", "prefix.sql"), `prefix.sql:1: \gset: the prefix "1x" makes invalid variable names`},
		{"check file with if", []string{"check", "sql", "--check-file", "chk_if.sql"}, `chk_if.sql:2: \if: a check file holds queries that return booleans only`},
		{"check file with set", []string{"check", "sql", "--check-file", "chk_set.sql"}, `chk_set.sql:1: \set: a check file holds`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			oneLine(t, stampede(t, dir, append(c.args, u)...), c.want)
		})
	}
	// A \sleep variable past the longest sleep stops the run, saying so
	// (it wrapped and slept no time).
	write(t, dir, "sleepvar.sql", "\\sleep :d s\nSELECT 1;\n")
	r := stampede(t, dir, "run", "sql", "--duration", "5s", "-f", "sleepvar.sql", "-D", "d=9300000000", u)
	if want := `\sleep: variable d holds 9300000000, too large: the longest sleep is 9223372036 s`; r.code == 0 || !strings.Contains(r.stderr, want) {
		t.Errorf("exit %d, stderr %q; want a failure with %q", r.code, r.stderr, want)
	}
	// Under the simple protocol the columns are known only at run time:
	// the bad name stops the run as pgbench's "invalid variable name"
	// does (it was stored under a name no command can use, silently).
	r = stampede(t, dir, "run", "sql", "--duration", "5s", "-M", "simple", "-f", "colname.sql", u)
	if want := `\gset: invalid variable name: "a b"`; r.code == 0 || !strings.Contains(r.stderr, want) {
		t.Errorf("exit %d, stderr %q; want a failure with %q", r.code, r.stderr, want)
	}
	// --vacuum-first without pgbench's tables: pgbench prints VACUUM's
	// errors and runs (exit 0); stampede said nothing.
	r = stampede(t, dir, "run", "sql", "--duration", "1s", "-f", "good.sql", "--vacuum-first", u)
	if want := `warning: VACUUM pgbench_branches before the run failed: ERROR: relation "pgbench_branches" does not exist`; r.code != 0 || !strings.Contains(r.stderr, want) {
		t.Errorf("exit %d, stderr %q; want exit 0 and %q", r.code, r.stderr, want)
	}
}
