package pgscript

import (
	"errors"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/sqlx"
)

// TestParseErrorsCensus29: the script errors census29b found accepted
// or answered vaguely, each refused at parse time in one line naming the
// file and line.
func TestParseErrorsCensus29(t *testing.T) {
	cases := []struct {
		name, src string
		line      int
		msg       string
	}{
		// #27: the next line's SQL was read as the meta-command.
		{"lone backslash", "\\\nSELECT 1;\n", 1, `a lone backslash on a line: remove it`},
		{"lone backslash spaces", "SELECT 1;\n  \\  \nSELECT 2;\n", 2, `a lone backslash on a line`},
		// #76: pgbench says "too many arguments in command "sleep"".
		{"sleep too many", "\\sleep 1 ms extra\n", 1, `\sleep: too many arguments (extra)`},
		// #72, #74, #201, #202: the sleep overflowed and was skipped.
		{"sleep int64 s", "\\sleep 9223372036854775807 s\n", 1, `\sleep: 9223372036854775807 s is too large: the longest sleep is 9223372036 s (about 292 years)`},
		{"sleep above int64", "\\sleep 99999999999999999999 us\n", 1, `\sleep: 99999999999999999999 us is too large: the longest sleep is 9223372036854775 us`},
		{"sleep s overflow", "\\sleep 9300000000 s\n", 1, `\sleep: 9300000000 s is too large`},
		{"sleep ms overflow", "\\sleep 9300000000000 ms\n", 1, `\sleep: 9300000000000 ms is too large: the longest sleep is 9223372036854 ms`},
		{"sleep default unit", "\\sleep 9300000000\n", 1, `\sleep: 9300000000 s is too large`},
		// #7, #611: a second \gset or \aset was taken as the prefix.
		{"gset gset", "SELECT 1 AS a \\gset \\gset\n", 1, `\gset \gset: one \gset or \aset ends a query`},
		{"gset aset", "SELECT 1 AS a \\gset \\aset\n", 1, `\gset \aset: one \gset or \aset ends a query`},
		// #8: pgbench: gset: invalid variable name: "1xa".
		{"prefix digit", "SELECT 1 AS a \\gset 1x\n", 1, `\gset: the prefix "1x" makes invalid variable names`},
		{"aset prefix", "SELECT 1 AS a \\aset x-\n", 1, `\aset: the prefix "x-" makes invalid variable names`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("f.sql", 1, c.src)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse = %v, want a SyntaxError", err)
			}
			if se.Line != c.line || !strings.Contains(err.Error(), c.msg) || !strings.HasPrefix(err.Error(), "f.sql:") || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q (line %d), want one line, line %d and %q", err, se.Line, c.line, c.msg)
			}
		})
	}
	// What pgbench takes stays taken: the longest sleep, a prefix.
	for _, src := range []string{"\\sleep 9223372036 s\n", "\\sleep 9223372036854775 us\n", "SELECT 1 AS a \\gset p_\n", "SELECT 1 AS a \\aset _1\n"} {
		if _, err := Parse("f.sql", 1, src); err != nil {
			t.Errorf("Parse(%q) = %v, want no error", src, err)
		}
	}
}

// TestCheckFileSaysCheckFile: a meta-command in a check file was refused
// as in "an init file" (census29b #430, #431).
func TestCheckFileSaysCheckFile(t *testing.T) {
	for _, c := range []struct {
		parse func(string, string) ([]InitStep, error)
		want  string
	}{
		{ParseCheck, `f.sql:2: \if: a check file holds queries that return booleans only (meta-commands go in the scripts given with -f)`},
		{ParseInit, `f.sql:2: \if: an init file holds SQL statements and COPY data only`},
	} {
		_, err := c.parse("f.sql", "SELECT true;\n\\if 1\nSELECT true;\n\\endif\n")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want %q", err, c.want)
		}
	}
}

// TestQuotedVariable: a :name inside quotes or a comment is sent as a $N
// parameter by the prepared and extended protocols, which the server
// then refuses at every bind ("connection lost 6 times": census29b
// #119); refused before the run naming the line. The simple protocol
// substitutes it in the text, as pgbench does, and is not refused.
func TestQuotedVariable(t *testing.T) {
	cases := []struct {
		name, src string
		want      string // "": compiles under every protocol
	}{
		{"literal", "SELECT ':x' AS probe;\n", `f.sql:1: :x is inside a string literal, where the prepared protocol does not substitute variables`},
		{"quoted name", "SELECT 1 AS \":x\";\n", `:x is inside a quoted name`},
		{"block comment", "SELECT /* :x */ 1;\n", `:x is inside a comment`},
		{"second line", "SELECT 1;\nSELECT 'a', 'b:y';\n", `f.sql:2: :y is inside a string literal`},
		{"outside quotes", "SELECT 'a' || :x, \":\"::text;\n", ""},
		{"cast in a literal", "SELECT '1::int', 'a: b';\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse("f.sql", 1, c.src)
			if err != nil {
				t.Fatal(err)
			}
			defs := map[string]string{"x": "5", "y": "6"}
			for _, proto := range []sqlx.Protocol{sqlx.Prepared, sqlx.Extended, sqlx.Simple} {
				_, err := Compile([]*Script{s}, Options{Protocol: proto, Defines: defs}, nil)
				want := c.want
				if proto != sqlx.Prepared {
					want = strings.Replace(want, "prepared", proto.String(), 1)
				}
				switch {
				case proto == sqlx.Simple || c.want == "":
					if err != nil {
						t.Errorf("%s: %v, want no error", proto, err)
					}
				case err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n"):
					t.Errorf("%s: %v, want one line with %q", proto, err, want)
				}
			}
		})
	}
}

// TestConstantErrorsBeforeTheRun: an expression error every evaluation
// meets was found by each client's first script, mid-run (census29b
// #105-#109, exit 1); now refused by Compile, naming the line. Errors
// that depend on a variable or a draw, or sit where they may never be
// evaluated, are left to the run, as pgbench leaves them.
func TestConstantErrorsBeforeTheRun(t *testing.T) {
	cases := []struct{ src, want string }{
		{"\\set x random_zipfian(1, 10, 1.0)\n", `f.sql:1: \set x: zipfian parameter must be in range [1.001, 1000] (not 1.000000), whatever the variables hold`},
		{"SELECT 1;\n\\set x random_exponential(1, 10, 0)\n", `f.sql:2: \set x: exponential parameter must be greater than zero`},
		{"\\set x random_gaussian(1, 10, 1.9)\n", `gaussian parameter must be at least 2.000000 (not 1.900000)`},
		{"\\set x random(10, 1)\n", `\set x: empty range given to random`},
		{"\\set x random(-9223372036854775808, 9223372036854775807)\n", `random range is too large`},
		{"\\set x 9223372036854775807 * 2\n", `bigint mul out of range`},
		{"\\set x :client_id + 1 / 0\n", `division by zero`},
		{"\\if 1 / 0\n\\endif\n", `f.sql:1: \if: division by zero`},
		{"\\set x random(1, :scale) + random_zipfian(1, 10, 1.0)\n", `zipfian parameter`},
		{"\\set x permute(1, 0)\n", `f.sql:1: \set x: permute size parameter must be greater than zero`},
		{"\\set x permute(1, -5, 7)\n", `permute size parameter must be greater than zero`},
	}
	for _, c := range cases {
		s, err := Parse("f.sql", 1, c.src)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Compile([]*Script{s}, Options{Protocol: sqlx.Prepared}, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want one line with %q", c.src, err, c.want)
		}
	}
	for _, src := range []string{
		"\\set x 1 / (:client_id - 1)\n",                               // depends on the client
		"\\set x random_zipfian(1, 10, :p)\n",                          // depends on a variable
		"\\set x CASE WHEN :client_id > 99 THEN 1 / 0 ELSE 1 END\n",    // may never run
		"\\set x :client_id > 99 AND random(10, 1) > 0\n",              // may never run
		"\\set x random_zipfian(1, 10, 1.5) + random(1, 100000) * 2\n", // fine
		"\\set x permute(1, :client_id)\n",                             // depends on the client
		"\\set x permute(3, 10)\n",                                     // fine
	} {
		s, err := Parse("f.sql", 1, src)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Compile([]*Script{s}, Options{Protocol: sqlx.Simple, Defines: map[string]string{"p": "1.5"}}, nil); err != nil {
			t.Errorf("%q: %v, want no error", src, err)
		}
	}
}
