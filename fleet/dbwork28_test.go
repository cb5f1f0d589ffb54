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

// TestDatabaseWorkKept: a user's work on a tenant database as a whole (a
// setting, a role's setting in it, a grant, a revoke, a connection
// limit, another owner, default privileges made inside it) went
// without a word when cleanup dropped the database (exit 0; fails
// on the old code, which refused none). Cleanup now refuses in one line
// naming the database and what was found, and --force-drop; every
// tenant stays (all or nothing) with the work still there; with
// --force-drop all go, and the line says what went with them. (A
// comment replaces the tenant's mark, so such a tenant was refused as
// not stampede's before; the refusal now names the comment too.)
// (SECURITY LABEL needs a label provider, which this server has not: the
// census reads pg_shseclabel, untested here.)
func TestDatabaseWorkKept(t *testing.T) {
	url := testdb.URL(t)
	ctx := context.Background()
	admin := testdb.Fresh(t, "fix28ah_dbw", sqlx.Options{MaxConns: 2})
	tag := rand.Uint32() % 1e6
	alice := fmt.Sprintf("fix28ah_alice%d", tag)
	if _, err := admin.Exec(ctx, "CREATE ROLE "+alice); err != nil {
		t.Fatal(err)
	}
	var me string
	if err := admin.QueryRow(ctx, "SELECT current_user::text").Scan(&me); err != nil {
		t.Fatal(err)
	}
	pattern := fmt.Sprintf("fix28ah_w%d_%%d", tag)
	t.Cleanup(func() {
		for i := 1; i <= 3; i++ {
			_, _ = admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+fmt.Sprintf(pattern, i)+" WITH (FORCE)")
		}
		_, _ = admin.Exec(context.Background(), "DROP ROLE IF EXISTS "+alice)
	})
	t2 := fmt.Sprintf(pattern, 2)
	for _, c := range []struct {
		name string
		// on runs in the cluster (admin), inside in tenant 2.
		on, inside []string
		want       string
		// gone checks that the work is still there (count 1).
		still string
	}{
		{"setting", []string{"ALTER DATABASE " + t2 + " SET work_mem = '64MB'"}, nil, "setting work_mem=64MB",
			"SELECT count(*) FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase WHERE d.datname = '" + t2 + "' AND s.setrole = 0"},
		{"role setting", []string{"ALTER ROLE " + alice + " IN DATABASE " + t2 + " SET work_mem = '8MB'"}, nil, "setting work_mem=8MB for role " + alice,
			"SELECT count(*) FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase WHERE d.datname = '" + t2 + "' AND s.setrole <> 0"},
		{"grant", []string{"GRANT CREATE ON DATABASE " + t2 + " TO " + alice}, nil, "grant of CREATE to " + alice,
			"SELECT count(*) FROM pg_database WHERE datname = '" + t2 + "' AND has_database_privilege('" + alice + "', oid, 'CREATE')"},
		{"revoke", []string{"REVOKE TEMPORARY ON DATABASE " + t2 + " FROM PUBLIC"}, nil, "revoke of TEMPORARY from PUBLIC",
			"SELECT count(*) FROM pg_database WHERE datname = '" + t2 + "' AND datacl IS NOT NULL"},
		{"connection limit", []string{"ALTER DATABASE " + t2 + " CONNECTION LIMIT 5"}, nil, "connection limit 5",
			"SELECT count(*) FROM pg_database WHERE datname = '" + t2 + "' AND datconnlimit = 5"},
		{"owner", []string{"ALTER DATABASE " + t2 + " OWNER TO " + alice}, nil, "owner " + alice + " (stampede made it as " + me + ")",
			"SELECT count(*) FROM pg_database WHERE datname = '" + t2 + "' AND pg_get_userbyid(datdba) = '" + alice + "'"},
		{"default privileges", nil, []string{"ALTER DEFAULT PRIVILEGES GRANT SELECT ON TABLES TO " + alice}, "default privileges of role " + me + " on tables",
			""},
		{"comment", []string{"COMMENT ON DATABASE " + t2 + " IS 'ours, keep'"}, nil, "comment 'ours, keep'",
			"SELECT count(*) FROM pg_database WHERE datname = '" + t2 + "' AND shobj_description(oid, 'pg_database') = 'ours, keep'"},
	} {
		t.Run(c.name, func(t *testing.T) {
			target := fleet.Target{
				Spec:        fleet.Spec{Tenants: 3, Mode: fleet.ModeDatabase, Pattern: pattern},
				Base:        sqlx.Options{URLs: []string{url}, Database: admin.Database(), MaxConns: 2},
				Concurrency: 2,
				Workload:    "bank",
			}
			gen := bankGen(t, "--rows=10")
			if _, err := fleet.Create(ctx, fleet.CreateOptions{Target: target, NewGenerator: func() (workload.Generator, error) { return gen(1) },
				Flags: "--rows=10", Seed: 1, LoadConcurrency: 1}); err != nil {
				t.Fatal(err)
			}
			for _, s := range c.on {
				if _, err := admin.Exec(ctx, s); err != nil {
					t.Fatalf("%s: %v", s, err)
				}
			}
			in, err := sqlx.Open(ctx, sqlx.Options{URLs: []string{url}, Database: t2, MaxConns: 1})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range c.inside {
				if _, err := in.Exec(ctx, s); err != nil {
					t.Fatalf("%s: %v", s, err)
				}
			}
			in.Close()
			_, _, err = fleet.Drop(ctx, fleet.DropOptions{Target: target, Tables: []string{"bank"}, Gen: mustGen(t, gen)})
			want := fmt.Sprintf("database %q on ", t2)
			if err == nil || !errors.Is(err, workload.ErrForeign) || strings.Contains(err.Error(), "\n") ||
				!strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), " has a user's "+c.want+", which dropping it would lose: cleanup drops nothing") ||
				!strings.HasSuffix(err.Error(), "add --force-drop") {
				t.Fatalf("Drop: %v\nwant one line: %s... has a user's %s, ... --force-drop", err, want, c.want)
			}
			var n int
			if err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname LIKE $1", fmt.Sprintf(pattern, 0)[:len(pattern)-2]+"_%").Scan(&n); err != nil || n != 3 {
				t.Fatalf("%d tenants after the refusal (%v), want all 3", n, err)
			}
			if c.still != "" {
				if err := admin.QueryRow(ctx, c.still).Scan(&n); err != nil || n != 1 {
					t.Errorf("the user's %s is gone after the refusal (%d, %v)", c.name, n, err)
				}
			}
			var log strings.Builder
			target.ForceDrop = true
			target.Logf = func(format string, args ...any) { fmt.Fprintf(&log, format+"\n", args...) }
			dropped, _, err := fleet.Drop(ctx, fleet.DropOptions{Target: target, Tables: []string{"bank"}, Gen: mustGen(t, gen)})
			if err != nil || dropped != 3 {
				t.Fatalf("Drop --force-drop: %d dropped, %v", dropped, err)
			}
			if note := fmt.Sprintf("--force-drop: dropping database %q and with it a user's %s", t2, c.want); !strings.Contains(log.String(), note) {
				t.Errorf("--force-drop said:\n%s\nwant %q", log.String(), note)
			}
		})
	}
}

// mustGen is the generator gen makes.
func mustGen(t *testing.T, gen func(int) (workload.Generator, error)) workload.Generator {
	t.Helper()
	g, err := gen(1)
	if err != nil {
		t.Fatal(err)
	}
	return g
}
