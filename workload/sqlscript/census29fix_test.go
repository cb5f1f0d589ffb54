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
