package fleet_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/localpg"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// scramServer starts a server of its own where every role but postgres
// must log in with its password (scram-sha-256), as a server that is not
// set to trust its clients: a tenant role's password is checked by the
// server itself.
func scramServer(t *testing.T) *localpg.Server {
	t.Helper()
	if _, err := localpg.FindBinDir(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	parent, err := os.MkdirTemp("", "fleet-roles-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(parent) })
	if err := os.Chmod(parent, 0o755); err != nil { // the postgres OS user must traverse it
		t.Fatal(err)
	}
	srv, err := localpg.Start(ctx, localpg.Options{Dir: parent})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop() })
	if err := srv.PrependHBA("host all postgres 127.0.0.1/32 trust", "host all all 127.0.0.1/32 scram-sha-256"); err != nil {
		t.Fatal(err)
	}
	admin(t, srv, "postgres", "SELECT pg_reload_conf()")
	return srv
}

// admin runs statements as the superuser in database db.
func admin(t *testing.T, srv *localpg.Server, db string, stmts ...string) {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), srv.URL(db))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for _, s := range stmts {
		if _, err := conn.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// count returns the one integer query q returns in database db.
func count(t *testing.T, srv *localpg.Server, db, q string, args ...any) int {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), srv.URL(db))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(context.Background(), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// connectAs connects to database db as user with password.
func connectAs(srv *localpg.Server, db, user, password string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(srv.URL(db))
	if err != nil {
		return nil, err
	}
	cfg.User, cfg.Password = user, password
	return pgx.ConnectConfig(context.Background(), cfg)
}

// wantState checks that err is the server's error of SQLSTATE code.
func wantState(t *testing.T, what string, err error, code string) {
	t.Helper()
	if got := sqlx.SQLState(err); got != code {
		t.Errorf("%s: error %v (SQLSTATE %q), want SQLSTATE %s", what, err, got, code)
	}
}

// TestTenantRoles creates fleets with a login role per tenant on a server
// that checks passwords, and checks on the server what each role may do:
// its own tenant's tables, read and written; nothing of another tenant's
// (permission denied, 42501, the server's own code); not the marker's
// rows, nor objects in schema public; a wrong password refused (28P01).
// Drop removes the roles and the secret. A fleet run logs in as the
// roles: every tenant's backends, seen in pg_stat_activity while it runs,
// are its own role's.
func TestTenantRoles(t *testing.T) {
	srv := scramServer(t)
	ctx := context.Background()
	m, _ := workload.Get("bank")
	newGen := func() (workload.Generator, error) { return workload.FromFlags(m, "--rows=50") }
	for _, mode := range []fleet.Mode{fleet.ModeDatabase, fleet.ModeSchema} {
		t.Run(string(mode), func(t *testing.T) {
			spec := fleet.Spec{Tenants: 3, Mode: mode, Pattern: "rt" + string(mode[0]) + "_%d"}
			target := fleet.Target{Spec: spec, Base: sqlx.Options{URLs: []string{srv.URL("")}, Database: "rolesfleet"}, Concurrency: 2, Workload: "bank"}
			tot, err := fleet.Create(ctx, fleet.CreateOptions{Target: target, NewGenerator: newGen, Seed: 1, LoadConcurrency: 1, Roles: true})
			if err != nil {
				t.Fatal(err)
			}
			if tot.Roles.Created != 3 || tot.Roles.Existing != 0 {
				t.Errorf("roles created %d, existing %d; want 3 and 0", tot.Roles.Created, tot.Roles.Existing)
			}
			if n := count(t, srv, "postgres", "SELECT count(*) FROM pg_roles WHERE rolname = ANY($1) AND rolcanlogin AND NOT rolsuper AND NOT rolcreatedb AND NOT rolcreaterole",
				[]string{spec.Name(1), spec.Name(2), spec.Name(3)}); n != 3 {
				t.Errorf("%d login roles without privileges of their own on the server, want 3", n)
			}
			logins, err := fleet.Logins(ctx, target)
			if err != nil || logins == nil {
				t.Fatalf("Logins: %v, %v", logins == nil, err)
			}
			// Tenant 1 as itself.
			db1, own, other := spec.Name(1), "bank", spec.Name(2)+".bank"
			if mode == fleet.ModeSchema {
				db1, own = "rolesfleet", spec.Name(1)+".bank"
			}
			l1 := logins(1)
			c, err := connectAs(srv, db1, l1.User, l1.Password)
			if err != nil {
				t.Fatalf("tenant 1's role cannot log in with its password: %v", err)
			}
			defer c.Close(ctx)
			var rows int
			if err := c.QueryRow(ctx, "SELECT count(*) FROM "+own).Scan(&rows); err != nil || rows != 50 {
				t.Errorf("tenant 1's role reading its own table: %d rows, %v; want 50", rows, err)
			}
			if _, err := c.Exec(ctx, "UPDATE "+own+" SET balance = balance WHERE id = 1"); err != nil {
				t.Errorf("tenant 1's role writing its own table: %v", err)
			}
			marker := fleet.MarkerTable
			if mode == fleet.ModeSchema {
				marker = spec.Name(1) + "." + marker
			}
			_, err = c.Exec(ctx, "DELETE FROM "+marker)
			wantState(t, "tenant 1's role deleting its marker", err, "42501")
			_, err = c.Exec(ctx, "CREATE TABLE public.mine (a int)")
			wantState(t, "tenant 1's role creating a table in schema public", err, "42501")
			// Another tenant's table.
			if mode == fleet.ModeSchema {
				_, err = c.Exec(ctx, "SELECT count(*) FROM "+other)
				wantState(t, "tenant 1's role reading tenant 2's table", err, "42501")
			} else {
				_, err = connectAs(srv, spec.Name(2), l1.User, l1.Password)
				wantState(t, "tenant 1's role connecting to tenant 2's database", err, "42501")
			}
			_, err = connectAs(srv, db1, l1.User, logins(2).Password)
			wantState(t, "tenant 1's role with tenant 2's password", err, "28P01")
			// The secret is the admin's only.
			regDB := "postgres"
			if mode == fleet.ModeSchema {
				regDB = "rolesfleet"
			}
			if mode == fleet.ModeSchema {
				_, err = c.Exec(ctx, "SELECT * FROM public."+fleet.RoleTable)
				wantState(t, "tenant 1's role reading the secrets", err, "42501")
			}
			c.Close(ctx)

			// A run logs in as the roles.
			seen := watchSessions(t, srv, regDB)
			base := target.Base
			base.AppName = "stampede"
			cfg := fleet.RunConfig{Spec: spec, Base: base, Active: 3, ConnsPerTenant: 1, WorkersPerTenant: 1, Seed: 1,
				NewGen: bankGen(t, "--rows=50"), Login: logins}
			r, err := fleet.Open(ctx, cfg)
			if err != nil {
				t.Fatalf("opening the run as tenant roles: %v", err)
			}
			n, errs := run(t, r, time.Second, false)
			r.Close()
			sessions := seen()
			if n == 0 || errs != 0 {
				t.Errorf("run as tenant roles: %d operations, %d errors", n, errs)
			}
			for id := 1; id <= 3; id++ {
				where := spec.Name(id)
				if mode == fleet.ModeSchema {
					where = "rolesfleet"
				}
				if !sessions[[2]string{spec.Name(id), where}] {
					t.Errorf("no session of role %s in database %s during the run (seen %v)", spec.Name(id), where, sessions)
				}
			}
			for s := range sessions {
				if s[0] == "postgres" {
					t.Errorf("the run had a session as postgres in database %s", s[1])
				}
			}

			// Drop: the tenants, then the roles and the secret.
			_, left, err := fleet.Drop(ctx, fleet.DropOptions{Target: target})
			if err != nil {
				t.Fatal(err)
			}
			if left.Roles.Dropped != 3 || len(left.Roles.Kept) != 0 {
				t.Errorf("dropped %d roles, kept %v; want 3 and none", left.Roles.Dropped, left.Roles.Kept)
			}
			if n := count(t, srv, "postgres", "SELECT count(*) FROM pg_roles WHERE rolname LIKE 'rt%'"); n != 0 {
				t.Errorf("%d tenant roles left after Drop", n)
			}
			if n := count(t, srv, regDB, "SELECT count(*) FROM pg_class WHERE relname = $1", fleet.RoleTable); n != 0 {
				t.Errorf("%s left after Drop", fleet.RoleTable)
			}
		})
	}
}

// watchSessions records the (user, database) of stampede's sessions
// other than its own until the returned function is called.
func watchSessions(t *testing.T, srv *localpg.Server, db string) func() map[[2]string]bool {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), srv.URL(db))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[[2]string]bool{}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		defer conn.Close(context.Background())
		for {
			rows, err := conn.Query(context.Background(), "SELECT usename, datname FROM pg_stat_activity WHERE application_name = 'stampede' AND pid <> pg_backend_pid()")
			if err == nil {
				for rows.Next() {
					var u, d string
					if rows.Scan(&u, &d) == nil {
						seen[[2]string{u, d}] = true
					}
				}
				rows.Close()
			}
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	return func() map[[2]string]bool { close(stop); <-done; return seen }
}

// TestForeignTenantRole checks that a role of a tenant's name that
// stampede did not make is refused before anything is created, and that
// Drop leaves it alone and names it.
func TestForeignTenantRole(t *testing.T) {
	srv := scramServer(t)
	ctx := context.Background()
	m, _ := workload.Get("bank")
	newGen := func() (workload.Generator, error) { return workload.FromFlags(m, "--rows=10") }
	admin(t, srv, "postgres", "CREATE ROLE fr_2 LOGIN", "COMMENT ON ROLE fr_2 IS 'my own'")
	spec := fleet.Spec{Tenants: 3, Mode: fleet.ModeDatabase, Pattern: "fr_%d"}
	target := fleet.Target{Spec: spec, Base: sqlx.Options{URLs: []string{srv.URL("")}}, Concurrency: 2, Workload: "bank"}
	_, err := fleet.Create(ctx, fleet.CreateOptions{Target: target, NewGenerator: newGen, Seed: 1, LoadConcurrency: 1, Roles: true})
	var fe *fleet.ForeignRoleError
	if !errors.As(err, &fe) || !errors.Is(err, workload.ErrForeign) || !strings.Contains(err.Error(), "role fr_2 on ") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("Create with a user's role of tenant 2's name: %v; want one line refusing role fr_2", err)
	}
	if n := count(t, srv, "postgres", "SELECT count(*) FROM pg_database WHERE datname LIKE 'fr_%'"); n != 0 {
		t.Errorf("%d tenant databases created before the refusal", n)
	}
	if n := count(t, srv, "postgres", "SELECT count(*) FROM pg_class WHERE relname = $1", fleet.RoleTable); n != 0 {
		t.Errorf("%s created before the refusal", fleet.RoleTable)
	}
	// A fleet without roles beside the user's role; Drop leaves it.
	if _, err := fleet.Create(ctx, fleet.CreateOptions{Target: target, NewGenerator: newGen, Seed: 1, LoadConcurrency: 1}); err != nil {
		t.Fatal(err)
	}
	dropped, left, err := fleet.Drop(ctx, fleet.DropOptions{Target: target})
	if err != nil || dropped != 3 {
		t.Fatalf("Drop: %d dropped, %v", dropped, err)
	}
	if left.Roles.Dropped != 0 || len(left.Roles.Kept) != 1 || left.Roles.Kept[0] != "fr_2" {
		t.Errorf("Drop's roles: dropped %d, kept %v; want 0 and [fr_2]", left.Roles.Dropped, left.Roles.Kept)
	}
	if n := count(t, srv, "postgres", "SELECT count(*) FROM pg_roles WHERE rolname = 'fr_2' AND shobj_description(oid, 'pg_authid') = 'my own'"); n != 1 {
		t.Error("the user's role fr_2 did not survive Drop")
	}
}

// TestTenantRolesCreateAtRun runs churn and bulk_insert, whose runs create
// tables, as tenant roles in both modes: init once granted only USAGE on
// the tenant's schema, and the run failed at its first CREATE TABLE
// (permission denied for schema, 42501). Each role now creates in its own
// schema, and only there: not in another tenant's schema, nor (schema
// mode) in the fleet database's schema public.
func TestTenantRolesCreateAtRun(t *testing.T) {
	srv := scramServer(t)
	ctx := context.Background()
	for _, name := range []string{"churn", "bulk_insert"} {
		m, _ := workload.Get(name)
		var args []string
		if name == "churn" {
			args = []string{"--max-tables", "50", "--rows", "1-20"}
		}
		newGen := func() (workload.Generator, error) { return workload.FromFlags(m, args...) }
		for _, mode := range []fleet.Mode{fleet.ModeDatabase, fleet.ModeSchema} {
			t.Run(name+"/"+string(mode), func(t *testing.T) {
				pattern := strings.ReplaceAll(name, "_", "") + string(mode[0]) + "_%d"
				spec := fleet.Spec{Tenants: 2, Mode: mode, Pattern: pattern}
				target := fleet.Target{Spec: spec, Base: sqlx.Options{URLs: []string{srv.URL("")}, Database: "createfleet"}, Concurrency: 2, Workload: name}
				if _, err := fleet.Create(ctx, fleet.CreateOptions{Target: target, NewGenerator: newGen, Seed: 1, LoadConcurrency: 1, Roles: true}); err != nil {
					t.Fatal(err)
				}
				defer func() {
					if _, _, err := fleet.Drop(ctx, fleet.DropOptions{Target: target}); err != nil {
						t.Error(err)
					}
				}()
				logins, err := fleet.Logins(ctx, target)
				if err != nil || logins == nil {
					t.Fatalf("Logins: %v, %v", logins == nil, err)
				}
				cfg := fleet.RunConfig{Spec: spec, Base: target.Base, Active: 2, ConnsPerTenant: 1, WorkersPerTenant: 1, Seed: 1,
					NewGen: func(int) (workload.Generator, error) { return newGen() }, Login: logins}
				r, err := fleet.Open(ctx, cfg)
				if err != nil {
					t.Fatalf("opening the run as tenant roles: %v", err)
				}
				n, errs := run(t, r, time.Second, false)
				r.Close()
				if n == 0 || errs != 0 {
					t.Errorf("run as tenant roles: %d operations, %d errors", n, errs)
				}
				// Where tenant 1's role may create: its own schema only.
				db1, own, other := spec.Name(1), "public", ""
				if mode == fleet.ModeSchema {
					db1, own, other = "createfleet", spec.Name(1), spec.Name(2)
				}
				l1 := logins(1)
				c, err := connectAs(srv, db1, l1.User, l1.Password)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close(ctx)
				if _, err := c.Exec(ctx, "CREATE TABLE "+own+".mine (a int)"); err != nil {
					t.Errorf("tenant 1's role creating a table in its own schema %s: %v", own, err)
				} else {
					// The table is the test's, not stampede's: the
					// fleet's Drop would refuse the tenant for it.
					defer func() {
						if _, err := c.Exec(ctx, "DROP TABLE "+own+".mine"); err != nil {
							t.Error(err)
						}
					}()
				}
				if other != "" {
					_, err = c.Exec(ctx, "CREATE TABLE "+other+".mine (a int)")
					wantState(t, "tenant 1's role creating a table in tenant 2's schema", err, "42501")
					_, err = c.Exec(ctx, "CREATE TABLE public.mine (a int)")
					wantState(t, "tenant 1's role creating a table in the fleet database's schema public", err, "42501")
				}
			})
		}
	}
}

// TestTenantRolesKeepTheLogClean creates fleets with tenant roles on a
// server that logs every statement with its parameters (log_statement =
// all, log_min_duration_statement = 0), as an admin that is no superuser
// (CREATEROLE, CREATEDB: it cannot turn the server's logging off), and
// scans the server's log: it holds the statements (the INSERT into
// RoleTable, the CREATE ROLEs) but neither the fleet's secret, from which
// every password is derived, nor any tenant's password.
func TestTenantRolesKeepTheLogClean(t *testing.T) {
	if _, err := localpg.FindBinDir(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	ctx := context.Background()
	parent, err := os.MkdirTemp("", "fleet-rolelog-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(parent) })
	if err := os.Chmod(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	srv, err := localpg.Start(ctx, localpg.Options{Dir: parent, Settings: map[string]string{
		"log_statement": "all", "log_min_duration_statement": "0", "log_parameter_max_length": "-1"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop() })
	// Database mode keeps the secrets in database postgres, whose schema
	// public PostgreSQL 15 lets only its owner create in.
	admin(t, srv, "postgres", "CREATE ROLE fleetadmin LOGIN CREATEROLE CREATEDB", "GRANT CREATE ON SCHEMA public TO fleetadmin")
	asAdmin := strings.Replace(srv.URL(""), "postgres@", "fleetadmin@", 1)
	m, _ := workload.Get("bank")
	newGen := func() (workload.Generator, error) { return workload.FromFlags(m, "--rows=10") }
	for _, mode := range []fleet.Mode{fleet.ModeDatabase, fleet.ModeSchema} {
		t.Run(string(mode), func(t *testing.T) {
			spec := fleet.Spec{Tenants: 3, Mode: mode, Pattern: "lg" + string(mode[0]) + "_%d"}
			target := fleet.Target{Spec: spec, Base: sqlx.Options{URLs: []string{asAdmin}, Database: "logfleet"}, Concurrency: 2, Workload: "bank"}
			if _, err := fleet.Create(ctx, fleet.CreateOptions{Target: target, NewGenerator: newGen, Seed: 1, LoadConcurrency: 1, Roles: true}); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				// As the superuser: PostgreSQL 15's DROP OWNED BY wants a
				// member of the roles, which CREATEROLE does not make.
				super := target
				super.Base.URLs = []string{srv.URL("")}
				if _, _, err := fleet.Drop(ctx, fleet.DropOptions{Target: super}); err != nil {
					t.Errorf("Drop: %v", err)
				}
			})
			logins, err := fleet.Logins(ctx, target)
			if err != nil || logins == nil {
				t.Fatalf("Logins: %v, %v", logins == nil, err)
			}
			regDB := "postgres"
			if mode == fleet.ModeSchema {
				regDB = "logfleet"
			}
			conn, err := pgx.Connect(ctx, srv.URL(regDB))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			var secret string
			if err := conn.QueryRow(ctx, "SELECT encode(secret, 'hex') FROM "+fleet.RoleTable+" WHERE secret <> ''::bytea").Scan(&secret); err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(srv.Dir() + "/postgres.log")
			if err != nil {
				t.Fatal(err)
			}
			log := strings.ToLower(string(raw))
			for _, want := range []string{"insert into \"" + fleet.RoleTable + "\"", "create role \"" + spec.Name(3) + "\""} {
				if !strings.Contains(log, want) {
					t.Fatalf("the server's log lacks %q: it does not log every statement, and the test proves nothing", want)
				}
			}
			if len(secret) != 64 || strings.Contains(log, secret) || strings.Contains(log, secret[:16]) {
				t.Errorf("the server's log holds the fleet's secret %s…, from which every tenant's password is derived (or the secret is not 32 bytes: %d hex digits)", secret[:8], len(secret))
			}
			for id := 1; id <= spec.Tenants; id++ {
				if p := logins(id).Password; p == "" || strings.Contains(log, strings.ToLower(p)) {
					t.Errorf("the server's log holds tenant %d's password (or it is empty)", id)
				}
			}
		})
	}
}
