package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestStoreEmptyRefused: runs, report --tag, compare and a chart read
// from a PostgreSQL store whose database holds none of the store's tables
// (a fresh database, a store emptied) say in one line, exit 2, that it
// holds no stampede results and what to do, not PostgreSQL's "relation
// does not exist"; and reading makes no table (issue 31).
func TestStoreEmptyRefused(t *testing.T) {
	name := freshDB(t, "store31_empty")
	adminExec(t, "CREATE DATABASE "+name)
	st := dbURL(t, name)
	const want = "holds no stampede results (no table stampede_runs: not a results store, or one emptied): point --results-url (or $STAMPEDE_RESULTS_URL) at the database your runs were written to, or fill this one: `stampede runs upload DIR`, or a run with --results-url"
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"runs", strs("runs")},
		{"runs --tag", strs("runs", "--tag", "job=x")},
		{"report --tag", strs("report", "--tag", "job=x")},
		{"compare", strs("compare", "20261130-000000-ycsb-aaaa", "20261130-000001-ycsb-bbbb")},
		{"report --chart", strs("report", "20261130-000000-ycsb-aaaa", "--chart", filepath.Join(t.TempDir(), "c.svg"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := stampede(t, append(tc.args, "--results-dir", "none", "--results-url", st)...)
			checkOneLineError(t, r, 2, want)
			if strings.Contains(r.stderr, "SQLSTATE") || strings.Contains(r.stderr, "does not exist") {
				t.Errorf("PostgreSQL's error shows through: %s", r.stderr)
			}
		})
	}
	if n := queryInt(t, name, `SELECT count(*) FROM pg_tables WHERE schemaname = 'public'`); n != 0 {
		t.Errorf("reading the store made %d tables", n)
	}
}
