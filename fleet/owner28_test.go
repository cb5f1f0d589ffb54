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

// TestHandMadeMarkers: a database or schema that --tenant-pattern
// matches, holding a table of the marker's name and shape whose row
// names the fleet's workload, was taken for a tenant when the table had
// no comment, and so was one whose comment (and the database's or
// schema's) was copied from a real tenant's. Both are now the user's:
// cleanup refuses them in one line that says what it found and names
// --force-drop, drops nothing, and the user's rows survive.
func TestHandMadeMarkers(t *testing.T) {
	url := testdb.URL(t)
	ctx := context.Background()
	for _, mode := range []fleet.Mode{fleet.ModeDatabase, fleet.ModeSchema} {
		t.Run(string(mode), func(t *testing.T) {
			db := testdb.Fresh(t, "fix28t_marker", sqlx.Options{MaxConns: 4})
			pattern := "bank_%d"
			if mode == fleet.ModeDatabase {
				pattern = fmt.Sprintf("fix28t_hm%d_%%d", rand.Uint32()%1e6)
				t.Cleanup(func() {
					for i := 1; i <= 4; i++ {
						if _, err := db.Exec(context.Background(), "DROP DATABASE IF EXISTS "+fmt.Sprintf(pattern, i)+" WITH (FORCE)"); err != nil {
							t.Error(err)
						}
					}
				})
			}
			target := fleet.Target{
				Spec:        fleet.Spec{Tenants: 2, Mode: mode, Pattern: pattern},
				Base:        sqlx.Options{URLs: []string{url}, Database: db.Database(), MaxConns: 4},
				Concurrency: 2,
				Workload:    "bank",
			}
			gen := bankGen(t, "--rows=10")
			if _, err := fleet.Create(ctx, fleet.CreateOptions{Target: target, NewGenerator: func() (workload.Generator, error) { return gen(1) },
				Flags: "--rows=10", Seed: 1, LoadConcurrency: 1}); err != nil {
				t.Fatal(err)
			}
			// In (a connection to) tenant id's database, and the name of
			// its marker table there.
			in := func(id int) (*sqlx.DB, string) {
				if mode == fleet.ModeSchema {
					return db, fmt.Sprintf(pattern, id) + "." + fleet.MarkerTable
				}
				tdb, err := sqlx.Open(ctx, sqlx.Options{URLs: []string{url}, Database: fmt.Sprintf(pattern, id), MaxConns: 1})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { tdb.Close() })
				return tdb, fleet.MarkerTable
			}
			exec := func(on *sqlx.DB, stmts ...string) {
				t.Helper()
				for _, s := range stmts {
					if _, err := on.Exec(ctx, s); err != nil {
						t.Fatalf("%s: %v", s, err)
					}
				}
			}
			// Tenant 1's marker and tenant comments, as a user copies them.
			t1, m1 := in(1)
			var markerMark, tenantMark string
			if err := t1.QueryRow(ctx, "SELECT obj_description(to_regclass($1), 'pg_class')", m1).Scan(&markerMark); err != nil {
				t.Fatal(err)
			}
			q := "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = $1"
			if mode == fleet.ModeSchema {
				q = "SELECT obj_description(oid, 'pg_namespace') FROM pg_namespace WHERE nspname = $1"
			}
			if err := db.QueryRow(ctx, q, fmt.Sprintf(pattern, 1)).Scan(&tenantMark); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(markerMark, "; oid ") || !strings.Contains(tenantMark, "; oid ") {
				t.Fatalf("tenant 1's marks are not bound to their OIDs: %q, %q", markerMark, tenantMark)
			}
			// The user's: 3 with a marker of the right shape and no
			// comment, 4 with a marker whose mark, and its own tenant
			// comment, are copies of tenant 1's. Each holds the user's rows.
			lit := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
			for _, id := range []int{3, 4} {
				name := fmt.Sprintf(pattern, id)
				if mode == fleet.ModeSchema {
					exec(db, "CREATE SCHEMA "+name)
				} else {
					exec(db, "CREATE DATABASE "+name)
				}
				on, marker := in(id)
				mine := strings.TrimSuffix(marker, fleet.MarkerTable) + "mine"
				exec(on, "CREATE TABLE "+marker+" (workload TEXT NOT NULL, version TEXT NOT NULL, flags TEXT NOT NULL, loaded_at TIMESTAMPTZ NOT NULL DEFAULT now())",
					"INSERT INTO "+marker+" (workload, version, flags) VALUES ('bank', '1.0.0', '--rows=10')",
					"CREATE TABLE "+mine+" (a INT)", "INSERT INTO "+mine+" VALUES (42)")
				if id == 4 {
					exec(on, "COMMENT ON TABLE "+marker+" IS "+lit(markerMark))
					if mode == fleet.ModeSchema {
						exec(db, "COMMENT ON SCHEMA "+name+" IS "+lit(tenantMark))
					} else {
						exec(db, "COMMENT ON DATABASE "+name+" IS "+lit(tenantMark))
					}
				}
			}
			target.Spec.Tenants = 4
			_, _, err := fleet.Drop(ctx, fleet.DropOptions{Target: target, Tables: []string{"bank"}})
			want := fmt.Sprintf("%ss %s, %s", mode, fmt.Sprintf(pattern, 3), fmt.Sprintf(pattern, 4))
			if err == nil || !errors.Is(err, workload.ErrForeign) || strings.Contains(err.Error(), "\n") ||
				!strings.Contains(err.Error(), want) ||
				!strings.Contains(err.Error(), "a stampede_tenant table that carries no mark of stampede's bound to it") ||
				!strings.HasSuffix(err.Error(), "add --force-drop") {
				t.Fatalf("Drop: %v, want one line refusing %s over their stampede_tenant tables, naming --force-drop", err, want)
			}
			for _, id := range []int{3, 4} {
				on, marker := in(id)
				var n int64
				if err := on.QueryRow(ctx, "SELECT count(*) FROM "+strings.TrimSuffix(marker, fleet.MarkerTable)+"mine WHERE a = 42").Scan(&n); err != nil || n != 1 {
					t.Errorf("the user's row in tenant-named %d: %d (%v), want 1", id, n, err)
				}
			}
			// Nothing of the fleet went either: the refusal came first.
			t2, m2 := in(2)
			var exists bool
			if err := t2.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", m2).Scan(&exists); err != nil || !exists {
				t.Errorf("tenant 2's marker is gone (%v) after a refused cleanup", err)
			}
			// The fleet's own tenants alone go, and the user's stay.
			target.Spec.Tenants = 2
			if _, _, err := fleet.Drop(ctx, fleet.DropOptions{Target: target, Tables: []string{"bank"}}); err != nil {
				t.Fatalf("Drop of the fleet's 2 tenants: %v", err)
			}
		})
	}
}

// TestRoleMemberships: a tenant role granted to a user's role (GRANT
// tenant TO user), or made a member of one, lost that membership without
// a word when cleanup dropped the role. Cleanup now refuses in one line
// naming each membership and its REVOKE and --force-drop, and drops
// nothing; with --force-drop it drops the tenants and keeps the roles,
// memberships and all.
func TestRoleMemberships(t *testing.T) {
	url := testdb.URL(t)
	ctx := context.Background()
	db := testdb.Fresh(t, "fix28t_members", sqlx.Options{MaxConns: 4})
	tag := rand.Uint32() % 1e6
	pattern := fmt.Sprintf("fix28t_rm%d_%%d", tag)
	user, group := fmt.Sprintf("fix28t_user%d", tag), fmt.Sprintf("fix28t_group%d", tag)
	r1, r2 := fmt.Sprintf(pattern, 1), fmt.Sprintf(pattern, 2)
	t.Cleanup(func() {
		for _, s := range []string{"DROP OWNED BY " + r1 + ", " + r2, "DROP ROLE IF EXISTS " + r1 + ", " + r2 + ", " + user + ", " + group} {
			if _, err := db.Exec(context.Background(), s); err != nil && !strings.Contains(err.Error(), "does not exist") {
				t.Error(err)
			}
		}
	})
	target := fleet.Target{
		Spec:        fleet.Spec{Tenants: 2, Mode: fleet.ModeSchema, Pattern: pattern},
		Base:        sqlx.Options{URLs: []string{url}, Database: db.Database(), MaxConns: 4},
		Concurrency: 2,
		Workload:    "bank",
	}
	gen := bankGen(t, "--rows=10")
	if _, err := fleet.Create(ctx, fleet.CreateOptions{Target: target, NewGenerator: func() (workload.Generator, error) { return gen(1) },
		Flags: "--rows=10", Seed: 1, LoadConcurrency: 1, Roles: true}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"CREATE ROLE " + user, "CREATE ROLE " + group, "GRANT " + r1 + " TO " + user, "GRANT " + group + " TO " + r2} {
		if _, err := db.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	members := func() int64 {
		var n int64
		if err := db.QueryRow(ctx, `SELECT count(*) FROM pg_auth_members am JOIN pg_roles r ON r.oid = am.roleid JOIN pg_roles m ON m.oid = am.member
			WHERE (r.rolname, m.rolname) IN (($1, $2), ($3, $4))`, r1, user, group, r2).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	_, _, err := fleet.Drop(ctx, fleet.DropOptions{Target: target, Tables: []string{"bank"}})
	msg := fmt.Sprint(err)
	for _, want := range []string{
		"role " + r1 + " is granted to role " + user, "role " + r2 + " is a member of role " + group, "(memberships stampede did not grant)",
		"`REVOKE " + r1 + " FROM " + user + "`", "`REVOKE " + group + " FROM " + r2 + "`", "dropping the tenants' roles would revoke them",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("Drop: %s\nwant it to say %q", msg, want)
		}
	}
	if !errors.Is(err, workload.ErrForeign) || strings.Contains(msg, "\n") || !strings.HasSuffix(msg, "add --force-drop") {
		t.Errorf("Drop: %s (ErrForeign %v), want one line ending in --force-drop", msg, errors.Is(err, workload.ErrForeign))
	}
	var schemas int64
	if err := db.QueryRow(ctx, "SELECT count(*) FROM pg_namespace WHERE nspname IN ($1, $2)", r1, r2).Scan(&schemas); err != nil || schemas != 2 || members() != 2 {
		t.Fatalf("after the refusal: %d tenant schemas (%v), %d memberships; want 2 and 2", schemas, err, members())
	}
	target.ForceDrop = true
	_, left, err := fleet.Drop(ctx, fleet.DropOptions{Target: target, Tables: []string{"bank"}})
	if err != nil {
		t.Fatal(err)
	}
	var roles int64
	if err := db.QueryRow(ctx, "SELECT count(*) FROM pg_roles WHERE rolname IN ($1, $2)", r1, r2).Scan(&roles); err != nil {
		t.Fatal(err)
	}
	if left.Roles.Dropped != 0 || roles != 2 || members() != 2 {
		t.Errorf("--force-drop dropped %d roles, %d left, %d memberships left; want 0, 2 and 2", left.Roles.Dropped, roles, members())
	}
	if err := db.QueryRow(ctx, "SELECT count(*) FROM pg_namespace WHERE nspname IN ($1, $2)", r1, r2).Scan(&schemas); err != nil || schemas != 0 {
		t.Errorf("--force-drop left %d tenant schemas (%v), want 0", schemas, err)
	}
}

// TestLegacyMarkInTenant: in a database holding init's record (an init
// of bank in schema public) and a schema fleet, a user's table in a
// tenant schema carrying a copy of an older stampede's mark (no "; oid
// N") was taken for stampede's, so cleanup dropped it with the tenant.
// The mark counts only beside a record in its own schema: cleanup now
// refuses in one line naming the table and --force-drop, and its row
// survives.
func TestLegacyMarkInTenant(t *testing.T) {
	url := testdb.URL(t)
	ctx := context.Background()
	db := testdb.Fresh(t, "fix28t_legacy", sqlx.Options{MaxConns: 4})
	target := fleet.Target{
		Spec:        fleet.Spec{Tenants: 2, Mode: fleet.ModeSchema, Pattern: "bank_%d"},
		Base:        sqlx.Options{URLs: []string{url}, Database: db.Database(), MaxConns: 4},
		Concurrency: 2,
		Workload:    "bank",
	}
	gen := bankGen(t, "--rows=10")
	if _, err := fleet.Create(ctx, fleet.CreateOptions{Target: target, NewGenerator: func() (workload.Generator, error) { return gen(1) },
		Flags: "--rows=10", Seed: 1, LoadConcurrency: 1}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"CREATE TABLE public.stampede_load (data TEXT PRIMARY KEY, workload TEXT NOT NULL, version TEXT NOT NULL, settings TEXT NOT NULL)",
		"INSERT INTO public.stampede_load VALUES ('bank', 'bank', '1.0.0', '{}')",
		"CREATE TABLE bank_2.mine (a INT)", "INSERT INTO bank_2.mine VALUES (42)",
		"COMMENT ON TABLE bank_2.mine IS 'made by stampede init of bank (data bank)'",
	} {
		if _, err := db.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	_, _, err := fleet.Drop(ctx, fleet.DropOptions{Target: target, Tables: []string{"bank"}})
	msg := fmt.Sprint(err)
	if !errors.Is(err, workload.ErrForeign) || strings.Contains(msg, "\n") || !strings.Contains(msg, `schema "bank_2"`) ||
		!strings.Contains(msg, "holds 1 object that stampede did not make (table bank_2.mine)") || !strings.HasSuffix(msg, "add --force-drop") {
		t.Errorf("Drop: %s, want one line refusing schema bank_2 over table bank_2.mine, naming --force-drop", msg)
	}
	var n int64
	if err := db.QueryRow(ctx, "SELECT count(*) FROM bank_2.mine WHERE a = 42").Scan(&n); err != nil || n != 1 {
		t.Errorf("the user's row: %d (%v), want 1", n, err)
	}
}
