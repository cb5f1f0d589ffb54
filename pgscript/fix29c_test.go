package pgscript

import (
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/sqlx"
)

// TestCompoundFirstLine: -r's table names a compound statement by its
// first line with ; for each \; as pgbench prints it (its lexer sends ;
// for \;), the \; inside a string literal kept as written.
func TestCompoundFirstLine(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"SELECT 1 AS one \\; SELECT 2 AS two;\n", "SELECT 1 AS one ; SELECT 2 AS two;"},
		{"SELECT 1 AS one \\;\n  SELECT 2 AS two;\n", "SELECT 1 AS one ;"},
		{"SELECT 3 \\; SELECT 4 \\; SELECT 5\n", "SELECT 3 ; SELECT 4 ; SELECT 5"},
		{"SELECT 'a\\;b' \\; SELECT 2;\n", "SELECT 'a\\;b' ; SELECT 2;"},
	} {
		s, err := Parse("f.sql", 1, c.src)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Commands[0].FirstLine; got != c.want {
			t.Errorf("%q: first line %q, want %q", c.src, got, c.want)
		}
	}
}

// TestUnsetOnSomeBranchesWarning: the warning of a variable some branch
// leaves unset says what a transaction that meets it unset does: a
// statement sends NULL for it in the prepared and extended modes with
// NullUnset, as pgbench's do, and fails on it without; \set fails on it,
// as pgbench's does.
func TestUnsetOnSomeBranchesWarning(t *testing.T) {
	const stmt, set = "\\if random(0, 1) = 1\n\\set y 1\n\\endif\nSELECT :y;\n", "\\if random(0, 1) = 1\n\\set y 1\n\\endif\n\\set z :y + 1\nSELECT :z;\n"
	for _, c := range []struct {
		src       string
		nullUnset bool
		want      string
	}{
		{stmt, true, `f.sql:4: the statement uses :y, which the \if at line 1 leaves unset on some of its branches: a transaction that reaches it unset sends NULL for it, as pgbench -M prepared does`},
		{stmt, false, `f.sql:4: the statement uses :y, which the \if at line 1 leaves unset on some of its branches: a transaction that reaches it unset fails there (variable y is not set), sending nothing, where pgbench -M prepared (and stampede pgbench) sends NULL for it`},
		{set, true, `f.sql:4: \set uses :y, which the \if at line 1 leaves unset on some of its branches: a transaction that reaches it unset fails there (variable y is not set), as pgbench fails there`},
		{set, false, `f.sql:4: \set uses :y, which the \if at line 1 leaves unset on some of its branches: a transaction that reaches it unset fails there (variable y is not set), as pgbench fails there`},
	} {
		s, err := Parse("f.sql", 1, c.src)
		if err != nil {
			t.Fatal(err)
		}
		prog, err := Compile([]*Script{s}, Options{Protocol: sqlx.Prepared, NullUnset: c.nullUnset}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if w := prog.Warnings(); len(w) != 1 || !strings.HasPrefix(w[0], c.want) {
			t.Errorf("warnings %q, want one starting %q", w, c.want)
		}
	}
}
