package expr_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/pgscript/expr"
)

// TestVars checks the variables an expression reads, each once, in order,
// with the default_seed that hash() and permute() read without a seed.
func TestVars(t *testing.T) {
	for _, c := range []struct {
		src  string
		want []string
	}{
		{"1 + 2", nil},
		{":a + :b * :a", []string{"a", "b"}},
		{"hash(:a) + :b", []string{"a", "default_seed", "b"}},
		{"hash(:a, :s)", []string{"a", "s"}},
		{"permute(:x, 10) + permute(:x, 10, 3)", []string{"x", "default_seed"}},
		{"case when :c then :t else :e end", []string{"c", "t", "e"}},
		{":1a + :_b", []string{"1a", "_b"}},
	} {
		x, err := expr.Parse(c.src)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		if got := x.Vars(); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("Vars(%s) = %v, want %v", c.src, got, c.want)
		}
	}
}

// TestSyntaxErrorText checks the error's text: pgbench's message, its
// detail in parentheses, and the column (1-based) of pgbench's caret,
// which TestErrorsMatchPgbench compares with pgbench's.
func TestSyntaxErrorText(t *testing.T) {
	for _, c := range []struct{ src, msg, more string }{
		{"1 +", "syntax error", ""},
		{"foo(1)", "unexpected function name", "foo"},
		{"abs(1, 2)", "unexpected number of arguments", "abs"},
		{"1 $ 2", "unexpected character", "$"},
	} {
		_, err := expr.Parse(c.src)
		se, ok := err.(*expr.SyntaxError)
		if !ok {
			t.Fatalf("Parse(%q) = %v, want a *SyntaxError", c.src, err)
		}
		want := c.msg
		if c.more != "" {
			want += " (" + c.more + ")"
		}
		want += fmt.Sprintf(" at column %d", se.Offset+1)
		if err.Error() != want || se.Msg != c.msg || se.More != c.more {
			t.Errorf("Parse(%q): %q, want %q", c.src, err, want)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("Parse(%q): the error has more than one line", c.src)
		}
	}
}
