package expr_test

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/pgscript/expr"
	"github.com/stampede-bench/stampede/pgscript/prng"
)

// env is a client's variables and random state.
type env struct {
	vars  map[string]expr.Value
	text  map[string]string // read with ParseVariable, as pgbench's -D
	rs    *prng.State
	debug []expr.Value
}

func (e *env) Var(name string) (expr.Value, bool) {
	v, ok := e.vars[name]
	return v, ok
}

func (e *env) LookupVar(name string) (expr.Value, bool, error) {
	if v, ok := e.vars[name]; ok {
		return v, true, nil
	}
	if s, ok := e.text[name]; ok {
		v, err := expr.ParseVariable(name, s)
		return v, err == nil, err
	}
	return expr.Value{}, false, nil
}

func (e *env) Rand() *prng.State { return e.rs }

func (e *env) Debug(v expr.Value) { e.debug = append(e.debug, v) }

// pgbench returns the path of Debian's pgbench 15, or skips the test.
func pgbench(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("pgbench")
	if err != nil {
		t.Skip("no pgbench in PATH: these tests compare with PostgreSQL 15's pgbench")
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("pgbench --version: %v", err)
	}
	if !strings.Contains(string(out), "PostgreSQL) 15.") {
		t.Skipf("pgbench is %s: these tests compare with pgbench 15", strings.TrimSpace(string(out)))
	}
	return bin
}

// dbURL is the test server's URL with its database set to db (the
// server's own when db is "").
func dbURL(t testing.TB, db string) string {
	t.Helper()
	u, err := url.Parse(testdb.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	if db != "" {
		u.Path = "/" + db
	}
	return u.String()
}

// runPgbench writes the scripts to files and runs pgbench -n on them with
// args (the last argument being the database URL), returning its standard
// error and whether it exited 0.
func runPgbench(t testing.TB, scripts []string, args ...string) (stderr string, ok bool) {
	t.Helper()
	stderr, ok, err := execPgbench(pgbench(t), t.TempDir(), scripts, args...)
	if err != nil {
		t.Fatal(err)
	}
	return stderr, ok
}

// execPgbench is runPgbench for other goroutines than the test's: it
// returns its errors.
func execPgbench(bin, dir string, scripts []string, args ...string) (stderr string, ok bool, err error) {
	full := []string{"-n"}
	for i, s := range scripts {
		file := filepath.Join(dir, "s"+string(rune('a'+i))+".sql")
		if err := os.WriteFile(file, []byte(s), 0o644); err != nil {
			return "", false, err
		}
		w := ""
		if i := strings.Index(s, "-- weight "); i >= 0 {
			w = "@" + strings.Fields(s[i+len("-- weight "):])[0]
		}
		full = append(full, "-f", file+w)
	}
	full = append(full, args...)
	cmd := exec.Command(bin, full...)
	cmd.Dir = dir
	var errb bytes.Buffer
	cmd.Stderr = &errb
	cmd.Stdout = &bytes.Buffer{}
	err = cmd.Run()
	if _, isExit := err.(*exec.ExitError); err != nil && !isExit {
		return "", false, fmt.Errorf("running pgbench: %v", err)
	}
	return errb.String(), err == nil, nil
}
