package fleet_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// TestTemplateCopyOfTenant: a database a user made with CREATE DATABASE
// ... TEMPLATE of a tenant keeps the tenant's marker, OID and mark
// unchanged, but not the database's comment; cleanup and init --drop
// took it for a tenant and dropped it with the user's rows. Now cleanup,
// init --drop and a resumed init refuse it in one line naming
// --force-drop, and the user's row survives; stampede's own fleet of 3
// clones (each marked bound to its own OID) resumes and cleans up
// completely. A clone left unmarked (init stopped between its CREATE
// DATABASE and its mark) is refused alike, and --force-drop reloads it.
func TestTemplateCopyOfTenant(t *testing.T) {
	url := testdb.URL(t)
	ctx := context.Background()
	db := testdb.Fresh(t, "fix28w_tmpl", sqlx.Options{MaxConns: 4})
	pattern := fmt.Sprintf("fix28w_tc%d_%%d", rand.Uint32()%1e6)
	name := func(id int) string { return fmt.Sprintf(pattern, id) }
	t.Cleanup(func() {
		for i := 1; i <= 4; i++ {
			if _, err := db.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name(i)+" WITH (FORCE)"); err != nil {
				t.Error(err)
			}
		}
	})
	target := fleet.Target{
		Spec:        fleet.Spec{Tenants: 3, Mode: fleet.ModeDatabase, Pattern: pattern},
		Base:        sqlx.Options{URLs: []string{url}, Database: db.Database(), MaxConns: 4},
		Concurrency: 2,
		Workload:    "bank",
	}
	gen := bankGen(t, "--rows=10")
	create := func(tenants int, drop, force bool) (fleet.Totals, error) {
		tg := target
		tg.Spec.Tenants, tg.ForceDrop = tenants, force
		return fleet.Create(ctx, fleet.CreateOptions{Target: tg, NewGenerator: func() (workload.Generator, error) { return gen(1) },
			Flags: "--rows=10", Seed: 1, LoadConcurrency: 1, Drop: drop})
	}
	exec := func(on *sqlx.DB, stmts ...string) {
		t.Helper()
		for _, s := range stmts {
			if _, err := on.Exec(ctx, s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
	}
	if _, err := create(3, false, false); err != nil {
		t.Fatal(err)
	}
	if tot, err := create(3, false, false); err != nil || tot.Existing != 3 || tot.Created != 0 {
		t.Fatalf("resumed init of the fleet's 3 clones: %+v, %v; want 3 existing", tot, err)
	}
	// The user's copy of tenant 1, with a row of the user's.
	exec(db, "CREATE DATABASE "+name(4)+" TEMPLATE "+name(1))
	u, err := sqlx.Open(ctx, sqlx.Options{URLs: []string{url}, Database: name(4), MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	exec(u, "UPDATE bank SET balance = balance + 7 WHERE id = 1")
	var want int64
	if err := u.QueryRow(ctx, "SELECT balance FROM bank WHERE id = 1").Scan(&want); err != nil {
		t.Fatal(err)
	}
	u.Close()
	survives := func(what string) {
		t.Helper()
		u, err := sqlx.Open(ctx, sqlx.Options{URLs: []string{url}, Database: name(4), MaxConns: 1})
		if err != nil {
			t.Fatalf("after %s, the user's copy: %v", what, err)
		}
		defer u.Close()
		var got int64
		if err := u.QueryRow(ctx, "SELECT balance FROM bank WHERE id = 1").Scan(&got); err != nil || got != want {
			t.Fatalf("after %s, the user's row: %d (%v), want %d", what, got, err, want)
		}
	}
	refused := func(what string, err error, names ...string) {
		t.Helper()
		if err == nil || !errors.Is(err, workload.ErrForeign) || strings.Contains(err.Error(), "\n") ||
			!strings.Contains(err.Error(), "CREATE DATABASE ... TEMPLATE") || !strings.Contains(err.Error(), "--force-drop") {
			t.Fatalf("%s: %v; want one line refusing the copy, naming --force-drop", what, err)
		}
		for _, n := range names {
			if !strings.Contains(err.Error(), n) {
				t.Fatalf("%s: %v; want it to name %s", what, err, n)
			}
		}
	}
	tg := target
	tg.Spec.Tenants = 4
	_, _, err = fleet.Drop(ctx, fleet.DropOptions{Target: tg, Tables: []string{"bank"}})
	refused("cleanup", err, name(4))
	survives("cleanup")
	_, err = create(4, true, false)
	refused("init --drop", err, name(4))
	survives("init --drop")
	_, err = create(4, false, false)
	refused("resumed init", err, name(4))
	survives("resumed init")

	// A clone init left unmarked is refused as the user's; --force-drop
	// reloads it, marked.
	exec(db, "COMMENT ON DATABASE "+name(3)+" IS NULL")
	_, err = create(3, false, false)
	refused("resumed init over an unmarked clone", err, name(3))
	if tot, err := create(3, false, true); err != nil || tot.Created != 1 || tot.Existing != 2 {
		t.Fatalf("init --force-drop over an unmarked clone: %+v, %v; want it reloaded", tot, err)
	}
	// The fleet's own 3 go, the user's copy stays.
	n, left, err := fleet.Drop(ctx, fleet.DropOptions{Target: target, Tables: []string{"bank"}})
	if err != nil || n != 3 || left.Databases != 0 {
		t.Fatalf("cleanup of the fleet's 3: dropped %d, left %+v, %v; want 3 and none left", n, left, err)
	}
	survives("the fleet's cleanup")
}
