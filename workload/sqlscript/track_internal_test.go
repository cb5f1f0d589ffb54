package sqlscript

import (
	"slices"
	"testing"
)

// TestSplitStatements: splitStatements splits at the semicolons outside
// quotes, dollar quotes and comments; txKind reads each part's kind.
func TestSplitStatements(t *testing.T) {
	cases := []struct {
		sql   string
		parts []string
		kinds []int
	}{
		{"BEGIN ; CREATE TABLE t (x int) ; COMMIT", []string{"BEGIN ", " CREATE TABLE t (x int) ", " COMMIT"}, []int{txBegin, txPlain, txCommit}},
		{"SELECT 'a;b' ; END", []string{"SELECT 'a;b' ", " END"}, []int{txPlain, txCommit}},
		{"DO $f$ BEGIN NULL; END $f$", []string{"DO $f$ BEGIN NULL; END $f$"}, []int{txPlain}},
		{"SELECT $1; ROLLBACK TO s", []string{"SELECT $1", " ROLLBACK TO s"}, []int{txPlain, txInBlock}},
		{"SELECT E'\\';' -- ; x\n; /* ; /* ; */ */ ABORT", []string{"SELECT E'\\';' -- ; x\n", " /* ; /* ; */ */ ABORT"}, []int{txPlain, txRollback}},
		{`SELECT "a;b"; START TRANSACTION`, []string{`SELECT "a;b"`, " START TRANSACTION"}, []int{txPlain, txBegin}},
		{"COMMIT PREPARED 'x'; PREPARE TRANSACTION 'y'", []string{"COMMIT PREPARED 'x'", " PREPARE TRANSACTION 'y'"}, []int{txPlain, txCommit}},
	}
	for _, c := range cases {
		got := splitStatements(c.sql)
		if !slices.Equal(got, c.parts) {
			t.Errorf("splitStatements(%q) = %q, want %q", c.sql, got, c.parts)
			continue
		}
		for i, p := range got {
			if k := txKind(p); k != c.kinds[i] {
				t.Errorf("txKind(%q) = %d, want %d", p, k, c.kinds[i])
			}
		}
	}
}

func TestStripComments(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"DROP /* c */ TABLE t", "DROP   TABLE t"},
		{"DROP /* a /* nested */ b */ TABLE t", "DROP   TABLE t"},
		{"DROP TABLE t -- why\n", "DROP TABLE t  \n"},
		{"SELECT '/* not */', \"--x\" FROM t", "SELECT '/* not */', \"--x\" FROM t"},
		{"/* unterminated", " "},
	} {
		if got := stripComments(tc.in); got != tc.want {
			t.Errorf("stripComments(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSearchPathSet(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		ok   bool
	}{
		{"SET search_path = app, public;", []string{"app", "public"}, true},
		{"set search_path to \"App\", \"$user\"", []string{"App"}, true},
		{"SELECT pg_catalog.set_config('search_path', '', false);", nil, true},
		{"SELECT pg_catalog.set_config('search_path', 'app', false);", []string{"app"}, true},
		{"SET statement_timeout = 0;", nil, false},
	} {
		got, ok := searchPathSet(tc.in)
		if ok != tc.ok || !slices.Equal(got, tc.want) {
			t.Errorf("searchPathSet(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
