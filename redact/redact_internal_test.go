package redact

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
