package sqlx

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestRawStmtsDesc: the statement looked up last, found by the string's
// identity, is the one descs holds for that text; another text, the same
// text in another string, and a text never prepared are looked up in
// descs; reset forgets the last one with the others.
func TestRawStmtsDesc(t *testing.T) {
	a, b := "SELECT abalance FROM pgbench_accounts WHERE aid = $1", "SELECT 1"
	aCopy := strings.Clone(a)
	sdA, sdB := &pgconn.StatementDescription{Name: "a"}, &pgconn.StatementDescription{Name: "b"}
	s := &rawStmts{descs: map[string]*pgconn.StatementDescription{a: sdA, b: sdB}}
	steps := []struct {
		sql  string
		want *pgconn.StatementDescription
	}{
		{a, sdA},
		{a, sdA}, // the last one
		{aCopy, sdA},
		{b, sdB},
		{a, sdA},
		{"SELECT 2", nil},
		{a, sdA},
	}
	for i, st := range steps {
		if got := s.desc(st.sql); got != st.want {
			t.Fatalf("step %d: desc(%q) = %v, want %v", i, st.sql, got, st.want)
		}
	}
	s.reset()
	if got := s.desc(a); got != nil {
		t.Fatalf("after reset: desc(%q) = %v, want nil (a new connection has prepared nothing)", a, got)
	}
	s.descs[a] = sdB // prepared again on the new connection
	if got := s.desc(a); got != sdB {
		t.Fatalf("after reset: desc(%q) = %v, want the new connection's %v", a, got, sdB)
	}
}
