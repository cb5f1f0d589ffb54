package sqlx

import (
	"strings"
	"testing"
)

// TestStatementPrefix: an error names a long statement by its first 60
// bytes (whole characters), a short one whole.
func TestStatementPrefix(t *testing.T) {
	long := "insert into pgbench_tellers(tid,bid,tbalance) values " + strings.Repeat("(1,1,0),", 10000)
	for _, c := range []struct{ q, want string }{
		{"truncate table pgbench_accounts", "truncate table pgbench_accounts"},
		{long, long[:60] + "..."},
		{strings.Repeat("é", 40), strings.Repeat("é", 30) + "..."},
		{strings.Repeat("a", 59) + "é", strings.Repeat("a", 59) + "..."},
	} {
		if got := statementPrefix(c.q); got != c.want {
			t.Errorf("statementPrefix(%.20q...) = %q, want %q", c.q, got, c.want)
		}
	}
}
