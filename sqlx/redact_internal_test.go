package sqlx

import "testing"

func TestReplaceStandalone(t *testing.T) {
	for _, tc := range []struct{ s, old, want string }{
		{"failed: a", "a", "failed: X"},
		{"a a", "a", "X X"},
		{"a", "a", "X"},
		{"ab a-b", "a", "ab X-b"},
		{"é1 é", "é", "é1 X"},
		{"\x99 x\x99", "\x99", "X x\x99"},
		{"", "a", ""},
	} {
		if got := replaceStandalone(tc.s, tc.old, "X"); got != tc.want {
			t.Errorf("replaceStandalone(%q, %q) = %q, want %q", tc.s, tc.old, got, tc.want)
		}
	}
}

func TestReplaceQuoted(t *testing.T) {
	mark := func(q string) string { return "<" + q + ">" }
	for _, tc := range []struct{ msg, want string }{
		{"no quotes", "no quotes"},
		{`a "b" c`, `a <"b"> c`},
		{`esc "a\"b" end`, `esc <"a\"b"> end`},
		{`as is ":x?\"`, `as is <":x?\">`},
		{"back `q` x", "back <`q`> x"},
		{`two "a" and "b"`, `two <"a"> and <"b">`},
		{`open "abc`, `open "…"`},
		{"open `abc", "open \"…\""},
	} {
		if got := replaceQuoted(tc.msg, mark); got != tc.want {
			t.Errorf("replaceQuoted(%q) = %q, want %q", tc.msg, got, tc.want)
		}
	}
}
