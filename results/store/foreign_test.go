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

// TestReadEmptyStore: a reader (OpenReadOnly) of a database that holds no
// store's tables (a fresh database, a store emptied by dropping them) is
// refused in one line, ErrBadURL (exit 2), saying that it holds no
// stampede results and what to do, instead of PostgreSQL's "relation does
// not exist" at its first query; a PostgreSQL store missing one of the
// tables its readers read is refused naming it; and the reader creates
// no table (issue 31). A writer (Open) still makes the tables.
func TestReadEmptyStore(t *testing.T) {
	ctx := context.Background()
	_, u, _ := pgDatabase(t, "fix31_emptystore")
	db, err := sql.Open("pgx", u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tables := func() int {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM pg_tables WHERE schemaname = 'public'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	check := func(t *testing.T, want ...string) {
		t.Helper()
		before := tables()
		s, err := store.OpenReadOnly(ctx, u)
		if err == nil {
			s.Close()
			t.Fatal("a database without the store's tables was read as a store")
		}
		msg := err.Error()
		if !errors.Is(err, store.ErrBadURL) || strings.Contains(msg, "\n") || strings.Contains(msg, "SQLSTATE") {
			t.Errorf("not one line of ErrBadURL: %v", err)
		}
		for _, w := range want {
			if !strings.Contains(msg, w) {
				t.Errorf("%q lacks %q", msg, w)
			}
		}
		if n := tables(); n != before {
			t.Errorf("the reader made tables: %d, before %d", n, before)
		}
	}
	t.Run("fresh database", func(t *testing.T) {
		check(t, "holds no stampede results (no table stampede_runs: not a results store, or one emptied)",
			"point --results-url (or $STAMPEDE_RESULTS_URL) at the database your runs were written to", "`stampede runs upload DIR`")
	})
	s, err := store.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	all := tables()
	if s, err := store.OpenReadOnly(ctx, u); err != nil {
		t.Fatalf("a store made by Open, empty: %v", err)
	} else {
		rows, err := s.List(ctx, store.Filter{})
		s.Close()
		if err != nil || len(rows) != 0 {
			t.Errorf("an empty store lists %d runs, %v", len(rows), err)
		}
	}
	t.Run("one table dropped", func(t *testing.T) {
		if _, err := db.Exec(`DROP TABLE stampede_run_files`); err != nil {
			t.Fatal(err)
		}
		check(t, "lacks table stampede_run_files of a results store", "nothing was read", "`stampede runs upload DIR`")
	})
	t.Run("emptied", func(t *testing.T) {
		if _, err := db.Exec(`DROP TABLE stampede_runs, stampede_run_ops, stampede_run_tags, stampede_run_live`); err != nil {
			t.Fatal(err)
		}
		check(t, "holds no stampede results")
	})
	// A writer makes them again.
	if s, err := store.Open(ctx, u); err != nil {
		t.Fatal(err)
	} else {
		s.Close()
	}
	if n := tables(); n != all {
		t.Errorf("Open made %d tables, want %d", n, all)
	}
}
