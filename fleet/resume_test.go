package fleet_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// TestResumeForceDrop: the init that resumes a fleet (no Drop) with
// ForceDrop over a tenant holding a table of the user's (the load's bank
// renamed to keep it) said "--force-drop: dropping database ... with
// objects stampede did not make" and dropped nothing, counting the
// tenant as loaded. It now drops that tenant, as it says, and loads it
// again with the missing ones.
func TestResumeForceDrop(t *testing.T) {
	url := testdb.URL(t)
	ctx := context.Background()
	for _, mode := range []fleet.Mode{fleet.ModeDatabase, fleet.ModeSchema} {
		t.Run(string(mode), func(t *testing.T) {
			db := testdb.Fresh(t, "fix28c_resume", sqlx.Options{MaxConns: 4})
			pattern := "bank_%d"
			if mode == fleet.ModeDatabase {
				pattern = fmt.Sprintf("fix28c_rs%d_%%d", rand.Uint32()%1e6)
				t.Cleanup(func() {
					for i := 1; i <= 2; i++ {
						if _, err := db.Exec(context.Background(), "DROP DATABASE IF EXISTS "+fmt.Sprintf(pattern, i)+" WITH (FORCE)"); err != nil {
							t.Error(err)
						}
					}
				})
			}
			var log strings.Builder
			target := fleet.Target{
				Spec:        fleet.Spec{Tenants: 2, Mode: mode, Pattern: pattern},
				Base:        sqlx.Options{URLs: []string{url}, Database: db.Database(), MaxConns: 4},
				Concurrency: 2,
				Workload:    "bank",
				Logf:        func(format string, args ...any) { fmt.Fprintf(&log, format+"\n", args...) },
			}
			gen := bankGen(t, "--rows=10")
			create := func() error {
				_, err := fleet.Create(ctx, fleet.CreateOptions{Target: target, NewGenerator: func() (workload.Generator, error) { return gen(1) },
					Flags: "--rows=10", Seed: 1, LoadConcurrency: 1})
				return err
			}
			if err := create(); err != nil {
				t.Fatal(err)
			}
			// The user keeps tenant 2's table under another name.
			tenant, table := db, "bank_2.bank"
			if mode == fleet.ModeDatabase {
				tdb, err := sqlx.Open(ctx, sqlx.Options{URLs: []string{url}, Database: fmt.Sprintf(pattern, 2), MaxConns: 1})
				if err != nil {
					t.Fatal(err)
				}
				defer tdb.Close()
				tenant, table = tdb, "bank"
			}
			if _, err := tenant.Exec(ctx, "ALTER TABLE "+table+" RENAME TO bank_keep"); err != nil {
				t.Fatal(err)
			}
			if err := create(); err == nil || !strings.Contains(err.Error(), "to drop it anyway, add --force-drop") {
				t.Fatalf("resume over the renamed table: %v, want the refusal", err)
			}
			target.ForceDrop = true
			log.Reset()
			if err := create(); err != nil {
				t.Fatalf("resume with ForceDrop: %v\n%s", err, log.String())
			}
			if !strings.Contains(log.String(), "--force-drop: dropping "+string(mode)) {
				t.Errorf("the log does not say what it drops:\n%s", log.String())
			}
			kept, bank := "bank_2.bank_keep", "bank_2.bank"
			if mode == fleet.ModeDatabase {
				kept, bank = "bank_keep", "bank"
			}
			if mode == fleet.ModeDatabase {
				// The tenant's database was dropped under the pool (its
				// connection terminated): a new connection sees the new one.
				tdb, err := sqlx.Open(ctx, sqlx.Options{URLs: []string{url}, Database: fmt.Sprintf(pattern, 2), MaxConns: 1})
				if err != nil {
					t.Fatal(err)
				}
				defer tdb.Close()
				tenant = tdb
			}
			var gone bool
			var rows int64
			if err := tenant.QueryRow(ctx, "SELECT to_regclass('"+kept+"') IS NULL").Scan(&gone); err != nil || !gone {
				t.Errorf("tenant 2 still holds %s (%v): the drop it said did not happen\n%s", kept, err, log.String())
			}
			if err := tenant.QueryRow(ctx, "SELECT count(*) FROM "+bank).Scan(&rows); err != nil || rows != 10 {
				t.Errorf("tenant 2's %s holds %d rows (%v), want 10 loaded again", bank, rows, err)
			}
		})
	}
}
