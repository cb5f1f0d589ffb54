package churn_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/sqlx"
)

// TestChurnUsersBookTable: run and check churn over a user's own table
// named churn_tables (other columns) refuse it in one line, exit 2,
// naming the table and what to do, before reading or writing it (run
// exited 1 with the raw 42703 "column dropped_at does not exist",
// rechk28b F-I); the user's row stays and no table is made.
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
	for _, args := range [][]string{
		{"run", "churn", "--duration", "2s", "--telemetry=false", "--results-dir", t.TempDir(), u.String()},
		{"check", "churn", u.String()},
	} {
		code, stderr := cliRun(t, args...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		want := `table churn_tables in database "` + db.Database() + `" is not churn's bookkeeping (it has no column worker, seq, first_shape, shape, created_at, dropped_at, rows, bytes): it is not stampede's`
		if code != 2 || len(lines) != 1 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "rename your table") || strings.Contains(stderr, "SQLSTATE") {
			t.Errorf("%s %s: exit %d, stderr %q: want exit 2 and one line with %q", args[0], args[1], code, stderr, want)
		}
	}
	if n := one(t, db, "SELECT count(*) FROM churn_tables WHERE mine = 'MINE'"); n != 1 {
		t.Errorf("the user's churn_tables holds %d of its row", n)
	}
	if n := markedTables(t, db); n != 0 {
		t.Errorf("%d tables made by the refused run", n)
	}
}
