package hammerdb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/internal/golden"
	"github.com/stampede-bench/stampede/run"
)

// fakeServer is a server of 10 warehouses that records what it is asked.
type fakeServer struct{ calls []string }

func (f *fakeServer) Prepare(_ context.Context, c Conn) ([]string, error) {
	f.calls = append(f.calls, "prepare "+c.User+"@"+c.DB+" as "+c.Superuser+"@"+c.DefaultDB)
	return []string{"CREATING DATABASE " + c.DB + " under OWNER " + c.User}, nil
}

func (f *fakeServer) Warehouses(_ context.Context, c Conn) (int, error) {
	f.calls = append(f.calls, "warehouses of "+c.DB)
	return 10, nil
}

func (f *fakeServer) Vacuum(_ context.Context, c Conn) error {
	f.calls = append(f.calls, "checkpoint and vacuum of "+c.DB)
	return nil
}

// fakeRun is the test's stampede: it records each command line, prints
// HammerDB's result line for a run and where it saved it.
type fakeRun struct {
	lines [][]string
}

func (f *fakeRun) exec(_ context.Context, args []string, stdout, stderr io.Writer) error {
	f.lines = append(f.lines, args)
	if args[0] == "run" {
		fmt.Fprintf(stdout, "tpmC 123.4\nTEST RESULT : System achieved 1%d NOPM from 2%d PostgreSQL TPM\n", len(f.lines), len(f.lines))
		fmt.Fprintf(stderr, "results saved in /runs/2026-run-%d\n", len(f.lines))
	}
	return nil
}

// runScript runs a script with the fakes and returns its output,
// notes, command lines and error.
func runScript(t *testing.T, src string, opts Options, tmp string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	srv, fr := &fakeServer{}, &fakeRun{}
	env := Env{Stdout: &out, Stderr: &errOut, Exec: fr.exec, Server: srv, NumCPU: 4,
		LookupEnv: func(k string) (string, bool) {
			if k == "TMP" && tmp != "" {
				return tmp, true
			}
			return "", false
		}}
	err := Run(context.Background(), src, opts, env)
	var b strings.Builder
	b.WriteString(out.String())
	b.WriteString("--- stderr\n")
	b.WriteString(errOut.String())
	b.WriteString("--- server\n")
	for _, c := range srv.calls {
		b.WriteString(c + "\n")
	}
	b.WriteString("--- stampede command lines\n")
	for _, l := range fr.lines {
		b.WriteString("stampede " + strings.Join(l, " ") + "\n")
	}
	if err != nil {
		fmt.Fprintf(&b, "--- error (input: %v)\n%v\n", errors.Is(err, run.ErrInput), err)
	}
	return b.String(), err
}

// TestGolden runs HammerDB's scripts, unchanged, with a fake stampede
// and server: the stampede command lines they become and the lines they
// print.
func TestGolden(t *testing.T) {
	scripts, err := filepath.Glob("testdata/*.tcl")
	if err != nil || len(scripts) < 5 {
		t.Fatalf("scripts: %v %v", scripts, err)
	}
	for _, path := range scripts {
		name := strings.TrimSuffix(filepath.Base(path), ".tcl")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			tmp := t.TempDir()
			got, _ := runScript(t, string(src), Options{}, tmp)
			golden.Check(t, strings.TrimSuffix(path, ".tcl")+".golden", []byte(got))
			if name == "pg_tprocc_run" { // it writes vurun's jobid to $TMP/pg_tprocc
				b, err := os.ReadFile(filepath.Join(tmp, "pg_tprocc"))
				if err != nil || string(b) != "Benchmark Run jobid=2026-run-1\n" {
					t.Errorf("$TMP/pg_tprocc: %q %v, want vurun's jobid", b, err)
				}
			}
		})
	}
}
