package sqlx

import (
	"slices"
	"testing"
)

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

func TestSecretSpans(t *testing.T) {
	for _, tc := range []struct {
		conn string
		want []string // the spans' text
	}{
		{"postgresql://bob:pw@host/db", []string{"bob:pw"}},
		{"postgresql://bob:p@w/x@host/db", []string{"bob:p@w/x"}},
		{"postgresql://host/db?password=pw&sslmode=x", []string{"=pw"}},
		{"postgresql://host/db?sslpassword=a&password=b", []string{"=a", "=b"}},
		{"host=h password=pw port=1", []string{"=pw"}},
		{"host=h password = 'p w\\' x' port=1", []string{" = 'p w\\' x'"}},
		{"host=h password='unterminated port=1", []string{"='unterminated port=1"}},
		{"host=h password=last", []string{"=last"}},
		{"host=h port=1", nil},
	} {
		var got []string
		for _, s := range secretSpans(tc.conn) {
			got = append(got, tc.conn[s.lo:s.hi])
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("secretSpans(%q) = %q, want %q", tc.conn, got, tc.want)
		}
	}
}

func TestMaskSpans(t *testing.T) {
	conn := "postgresql://bob:s3cr3tpw@host/db"
	spans := secretSpans(conn)
	for _, tc := range []struct{ msg, want string }{
		{"no secret here", "no secret here"},
		{`piece ":s3cr3tpw@host"`, `piece "…@host"`},
		{"half s3cr and 3tpw", "half … and …"},
		{"three s3c only", "three s3c only"},
		{"bob is short", "bob is short"},
		{"bob: is four", "… is four"},
		{"é s3cr3t é", "é … é"},
	} {
		if got := maskSpans(tc.msg, conn, spans); got != tc.want {
			t.Errorf("maskSpans(%q) = %q, want %q", tc.msg, got, tc.want)
		}
	}
	if got := maskSpans("anything s3cr3t", "host=h", nil); got != "anything s3cr3t" {
		t.Errorf("no spans: %q", got)
	}
}
