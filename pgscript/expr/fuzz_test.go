package expr_test

import (
	"errors"
	"testing"

	"github.com/stampede-bench/stampede/pgscript/expr"
	"github.com/stampede-bench/stampede/pgscript/prng"
)

// FuzzParse checks that Parse never panics, that its errors are
// SyntaxErrors within the expression (or at its end), and that what
// parses evaluates without panicking.
func FuzzParse(f *testing.F) {
	for _, c := range valueCases {
		f.Add(c)
	}
	for _, c := range errorCases {
		f.Add(c)
	}
	f.Add("permute(:x, 1 << 62, hash(:x)) + random_zipfian(1, 1 << 40, 1.5)")
	f.Add("1\n+ 2")
	f.Add("1 \\\n+ 2")
	f.Fuzz(func(t *testing.T, src string) {
		x, err := expr.Parse(src)
		if err != nil {
			var se *expr.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q): %v is not a *SyntaxError", src, err)
			}
			if se.Offset < 0 || se.Offset > len(src) {
				t.Fatalf("Parse(%q): offset %d outside the expression", src, se.Offset)
			}
			return
		}
		var rs prng.State
		rs.Seed(1)
		e := &env{vars: map[string]expr.Value{"x": expr.IntValue(12345), "default_seed": expr.IntValue(7)}, rs: &rs}
		_, _ = x.Eval(e)
		_ = x.Vars()
	})
}
