package churn_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/sqlx"
)

// TestChurnUsersBookTable: check churn over a user's own table named
// churn_tables (other columns) refuses it in one line, exit 2, naming
// the table, the columns it lacks and what to do, before reading it (it
// failed on the raw 42703 "column dropped_at does not exist", as run did
// in rechk28b F-I; run's own refusal is fix28g's, in churn's preRun);
// the user's row stays and no table is made.
func TestChurnUsersBookTable(t *testing.T) {
	db := testdb.Fresh(t, "churn28i_book", sqlx.Options{MaxConns: 2})
	ctx := context.Background()
	for _, q := range []string{"CREATE TABLE churn_tables (name text, mine text)", "INSERT INTO churn_tables VALUES ('x', 'MINE')"} {
		if _, err := db.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	u, err := url.Parse(testdb.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + db.Database()
	code, stderr := cliRun(t, "check", "churn", u.String())
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	want := `table churn_tables in database "` + db.Database() + `" is not churn's bookkeeping (it has no column worker, seq, first_shape, shape, created_at, dropped_at, rows, bytes): it is not stampede's`
	if code != 2 || len(lines) != 1 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "rename your table") || strings.Contains(stderr, "SQLSTATE") {
		t.Errorf("check churn: exit %d, stderr %q: want exit 2 and one line with %q", code, stderr, want)
	}
	if n := one(t, db, "SELECT count(*) FROM churn_tables WHERE mine = 'MINE'"); n != 1 {
		t.Errorf("the user's churn_tables holds %d of its row", n)
	}
	if n := markedTables(t, db); n != 0 {
		t.Errorf("%d tables made by the refused run", n)
	}
}

// TestChurnSchemaFleetRuns: a fleet of churn in tenant schemas runs, is
// checked and cleaned up. Its second tenant's bookkeeping is a clone of
// the first's and carries no comment (no mark): run's refusal of a
// user's churn_tables (which has not churn's columns) must not take it
// for one (it did: "tenant 2 ... was not made by stampede").
func TestChurnSchemaFleetRuns(t *testing.T) {
	db := testdb.Fresh(t, "churn_schemafleet", sqlx.Options{MaxConns: 2})
	u, err := url.Parse(testdb.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + db.Database()
	fleet := []string{"--tenants", "2", "--tenant-mode", "schema", "--tenant-pattern", "churnfleet_%d"}
	for _, args := range [][]string{
		{"init", "churn"},
		{"run", "churn", "--duration", "2s", "--telemetry=false", "--results-dir", t.TempDir()},
		{"check", "churn"},
		{"cleanup", "churn"},
	} {
		args = append(append(args, fleet...), u.String())
		if code, stderr := cliRun(t, args...); code != 0 {
			t.Fatalf("%s: exit %d, stderr %q", strings.Join(args[:2], " "), code, stderr)
		}
	}
	if n := one(t, db, "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'churnfleet_%'"); n != 0 {
		t.Errorf("%d tenant schemas left after cleanup", n)
	}
}
