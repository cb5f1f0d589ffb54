package store_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/stampede-bench/stampede/results/store"
)

// TestStampedStoreReopens: a SQLite store Open made is stamped (its
// user_version set) and opens again without the full check; a stamped
// file that lost one of its tables, or whose stamp is another's, gets the
// full check again: the table is made again, and a user's own table of a
// store's name is still refused.
func TestStampedStoreReopens(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		tamper string // run on the stamped file before the second Open
		refuse bool
	}{
		{"untouched", "", false},
		{"table dropped", "DROP TABLE stampede_run_tags", false},
		{"foreign table, stamp cleared", "DROP TABLE stampede_run_ops; CREATE TABLE stampede_run_ops (x TEXT); PRAGMA user_version = 7", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "index.sqlite")
			s, err := store.Open(ctx, "sqlite:"+path)
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var stamp int64
			if err := db.QueryRow("PRAGMA user_version").Scan(&stamp); err != nil || stamp == 0 {
				t.Fatalf("the store was not stamped: user_version %d, %v", stamp, err)
			}
			if tc.tamper != "" {
				if _, err := db.Exec(tc.tamper); err != nil {
					t.Fatal(err)
				}
			}
			s, err = store.Open(ctx, "sqlite:"+path)
			if tc.refuse {
				if err == nil {
					s.Close()
					t.Fatal("a user's table of a store's name was taken for the store")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var tables int
			if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name LIKE 'stampede_%'`).Scan(&tables); err != nil {
				t.Fatal(err)
			}
			if tables != 5 {
				t.Errorf("%d of the store's 5 tables after the second Open", tables)
			}
			if err := db.QueryRow("PRAGMA user_version").Scan(&stamp); err != nil || stamp == 0 {
				t.Errorf("the store lost its stamp: user_version %d, %v", stamp, err)
			}
		})
	}
}
