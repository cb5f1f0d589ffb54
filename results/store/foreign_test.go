package store_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/results/store"
)

// TestForeignStoreTable: a database or SQLite file given as the results
// store that holds a user's own table of one of the store's names (other
// columns) is refused in one line, ErrBadURL (exit 2), naming the table
// and that it is not stampede's store; the table keeps its row, no index
// is added to it and no other table is created (rechk28b F-I: `runs
// --results-url` exited 1 with "no such column: start_ns").
func TestForeignStoreTable(t *testing.T) {
	ctx := context.Background()
	for _, backend := range []string{"sqlite", "postgres"} {
		for _, tc := range []struct{ table, ddl string }{
			{"stampede_runs", "CREATE TABLE stampede_runs (x TEXT)"},
			{"stampede_run_ops", "CREATE TABLE stampede_run_ops (run_id TEXT, op TEXT)"},
			{"stampede_run_live", "CREATE TABLE stampede_run_live (run_id TEXT, beat_ns BIGINT)"},
		} {
			t.Run(backend+"/"+tc.table, func(t *testing.T) {
				var url, driver, dsn, tablesQ, indexQ string
				if backend == "sqlite" {
					path := filepath.Join(t.TempDir(), "mine.sqlite")
					url, driver, dsn = "sqlite:"+path, "sqlite", path
					tablesQ = `SELECT count(*) FROM sqlite_master WHERE type = 'table'`
					indexQ = `SELECT count(*) FROM sqlite_master WHERE type = 'index'`
				} else {
					_, u, _ := pgDatabase(t, "fix28i_store")
					url, driver, dsn = u, "pgx", u
					tablesQ = `SELECT count(*) FROM pg_tables WHERE schemaname = 'public'`
					indexQ = `SELECT count(*) FROM pg_indexes WHERE schemaname = 'public'`
				}
				db, err := sql.Open(driver, dsn)
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close()
				if _, err := db.Exec(tc.ddl); err != nil {
					t.Fatal(err)
				}
				if _, err := db.Exec("INSERT INTO " + tc.table + " (" + map[bool]string{true: "x", false: "run_id"}[tc.table == "stampede_runs"] + ") VALUES ('MINE')"); err != nil {
					t.Fatal(err)
				}
				for _, open := range []func(context.Context, string) (*store.Store, error){store.Open, store.OpenReadOnly} {
					s, err := open(ctx, url)
					if err == nil {
						s.Close()
						t.Fatal("a user's table of the store's name was taken for the store")
					}
					msg := err.Error()
					if !errors.Is(err, store.ErrBadURL) || !strings.Contains(msg, "holds a table "+tc.table+" that is not stampede's store") ||
						!strings.Contains(msg, "stampede neither writes into it nor alters it") || strings.Contains(msg, "\n") || strings.Contains(msg, "SQLSTATE") || strings.Contains(msg, "no such column") {
						t.Errorf("refusal: %v (ErrBadURL %v)", err, errors.Is(err, store.ErrBadURL))
					}
				}
				var n int
				if err := db.QueryRow("SELECT count(*) FROM " + tc.table).Scan(&n); err != nil || n != 1 {
					t.Errorf("the user's table holds %d rows (%v), not its 1", n, err)
				}
				if err := db.QueryRow(tablesQ).Scan(&n); err != nil || n != 1 {
					t.Errorf("%d tables in the user's store (%v): the store created its own beside", n, err)
				}
				if err := db.QueryRow(indexQ).Scan(&n); err != nil || n != 0 {
					t.Errorf("%d indexes on the user's table (%v)", n, err)
				}
			})
		}
	}
}
