package pgbench_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputStreamsAsPgbench: what pgbench prints instead of running
// (-b list, --show-script, --help, --version) goes to the same stream,
// stdout or stderr, as the real pgbench's, with the same text (the
// version's and help's own words apart), and exit 0.
func TestOutputStreamsAsPgbench(t *testing.T) {
	server(t)
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		same bool // the same text
	}{
		{[]string{"-b", "list"}, true},
		{[]string{"--show-script=select-only"}, true},
		{[]string{"--show-script", "tpcb"}, true},
		{[]string{"--help"}, false},
		{[]string{"--version"}, false},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			pgOut, pgErr, pgCode := run(t, true, dir, c.args...)
			stOut, stErr, stCode := run(t, false, dir, c.args...)
			if pgCode != 0 || stCode != 0 {
				t.Fatalf("exit %d (pgbench), %d (stampede)", pgCode, stCode)
			}
			if (pgOut == "") != (stOut == "") || (pgErr == "") != (stErr == "") {
				t.Errorf("pgbench printed %d bytes on stdout and %d on stderr, stampede %d and %d", len(pgOut), len(pgErr), len(stOut), len(stErr))
			}
			if c.same && (pgOut != stOut || pgErr != stErr) {
				t.Errorf("pgbench printed\n%q %q\nstampede printed\n%q %q", pgOut, pgErr, stOut, stErr)
			}
		})
	}
}

// TestInstalledAsPgbench: the binary installed under the name pgbench (a
// link to stampede, as README's install says) takes pgbench's command
// line, with no "pgbench" word before it: the report is pgbench's, line
// for line beside the real pgbench's, and a refusal is pgbench's.
func TestInstalledAsPgbench(t *testing.T) {
	srv := server(t)
	db := freshDB(t)
	dir := t.TempDir()
	link := filepath.Join(dir, "pgbench")
	if err := os.Symlink(bin, link); err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{}, srv...), "-n", "-t", "5", "-S", db)
	cmd := exec.Command(link, args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "HOME="+dir)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v", link, strings.Join(args, " "), err)
	}
	pgOut, _ := tool(t, true, dir, args...)
	if want, got := strings.Join(blank(pgOut), "\n"), strings.Join(blank(string(out)), "\n"); want != got {
		t.Errorf("pgbench printed\n%s\nthe link printed\n%s", want, got)
	}
	cmd = exec.Command(link, "--debug", db)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "HOME="+dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.HasPrefix(stderr.String(), "pgbench: error: ") || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("the link with --debug: %v, %q: want exit 2 and one line of pgbench's", err, stderr.String())
	}
}
