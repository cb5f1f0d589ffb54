package hammerdb

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/run"
)

// FuzzScript: any text is either run or refused as bad input, in one
// line; never a panic or a loop without end. Scripts that open files are
// left out (they would write them).
func FuzzScript(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*.tcl")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("puts a$\nset x {a\\\n b}; puts \"$x [numberOfCPUs]\"\nif {$x ne {}} {puts y} else {puts z}")
	f.Fuzz(func(t *testing.T, src string) {
		if strings.Contains(src, "open") {
			return
		}
		fr := &fakeRun{}
		env := Env{Stdout: io.Discard, Stderr: io.Discard, Exec: fr.exec, Server: &fakeServer{}, NumCPU: 2,
			LookupEnv: func(string) (string, bool) { return "/nonexistent", true }}
		err := Run(context.Background(), src, Options{}, env)
		var ec interface{ ExitCode() int }
		if err != nil && !errors.Is(err, run.ErrInput) && !errors.As(err, &ec) {
			t.Errorf("%q: %v is neither bad input nor an exit code", src, err)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: message of several lines: %q", src, err)
		}
	})
}
