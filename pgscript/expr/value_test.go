package expr_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/stampede-bench/stampede/pgscript/expr"
)

// TestParseValueMatchesPgbench sets each text with -D in pgbench 15 and
// reads it back with debug(:v): the value, or pgbench's error, must be
// ParseVariable's.
func TestParseValueMatchesPgbench(t *testing.T) {
	url := dbURL(t, "")
	texts := []string{
		"null", "NuLL", "t", "TR", "true", "truex", "y", "YES", "on", "ON", "o", "of", "off", "f", "fa", "false",
		"n", "no", "nope", "0", "1", "-1", "+7", "  12", "12 ", "+", "-", " ", "9223372036854775807",
		"-9223372036854775808", "9223372036854775808", "1.5", "-.5", "1e3", "1e400", "1e-400", "4e-320",
		"0x1A", "0x1p4", "inf", "-Infinity", "nan", "NaN", "1,5", "abc", "1_000", " 1.5", "1.5e", "0.0",
	}
	type result struct {
		stderr string
		ok     bool
		err    error
	}
	bin := pgbench(t)
	results := make([]result, len(texts))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4) // pgbench's runs mostly wait: four at a time
	for i, s := range texts {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			stderr, ok, err := execPgbench(bin, t.TempDir(), []string{"\\set x debug(:v)\n"}, "-t", "1", "-D", "v="+s, url)
			results[i] = result{stderr, ok, err}
		}()
	}
	wg.Wait()
	for i, s := range texts {
		stderr, ok := results[i].stderr, results[i].ok
		if results[i].err != nil {
			t.Fatal(results[i].err)
		}
		v, err := expr.ParseVariable("v", s)
		if !ok {
			var want string
			for _, line := range strings.Split(stderr, "\n") {
				if strings.HasPrefix(line, "pgbench: error: ") && !strings.Contains(line, "aborted") {
					want = strings.TrimPrefix(line, "pgbench: error: ")
					break
				}
			}
			if err == nil || err.Error() != want {
				t.Errorf("-D v=%q: ParseVariable = %v, %v; pgbench: %q", s, v.DebugString(), err, want)
			}
			continue
		}
		if err != nil {
			t.Errorf("-D v=%q: %v; pgbench accepts it:\n%s", s, err, stderr)
			continue
		}
		if want := "debug(script=0,command=1): " + v.DebugString(); !strings.Contains(stderr, want+"\n") {
			t.Errorf("-D v=%q: ParseVariable gives %s; pgbench:\n%s", s, v.DebugString(), stderr)
		}
		if _, err := expr.ParseValue(s); err != nil {
			t.Errorf("ParseValue(%q): %v", s, err)
		}
	}
}

// TestTruthMatchesPgbenchIf runs pgbench's \if on values of every kind:
// the branch it takes must be the one Truth chooses.
func TestTruthMatchesPgbenchIf(t *testing.T) {
	url := dbURL(t, "")
	cases := []string{"0", "1", "-1", "0.0", "-0.0 * 1", "0.5", "0.0/0", "null", "true", "false", "1 = 1", "1 IS NULL"}
	var script strings.Builder
	for _, c := range cases {
		script.WriteString("\\if " + c + "\n\\set r debug(1)\n\\else\n\\set r debug(0)\n\\endif\n")
	}
	stderr, ok := runPgbench(t, []string{script.String()}, "-t", "1", url)
	if !ok {
		t.Fatalf("pgbench failed:\n%s", stderr)
	}
	var taken []string
	for _, line := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(line, "debug(") {
			taken = append(taken, line[strings.Index(line, "int ")+4:])
		}
	}
	if len(taken) != len(cases) {
		t.Fatalf("pgbench took %d branches, want %d:\n%s", len(taken), len(cases), stderr)
	}
	for i, c := range cases {
		x, err := expr.Parse(c)
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		v, err := x.Eval(&env{})
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		if got := map[bool]string{true: "1", false: "0"}[v.Truth()]; got != taken[i] {
			t.Errorf("\\if %s: Truth() = %v, pgbench took the branch %s", c, v.Truth(), taken[i])
		}
	}
}
