package fleet_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// TestExecOutsideTenants (issue 28 F6): what fleet exec makes outside the
// tenants of a schema- or column-mode fleet (a schema, a table and a view
// in it, an extension) is stampede's: cleanup drops it after the tenants,
// while the user's own tables (in public and in a schema of the user's)
// keep every row. A user's table put in the exec-made schema, or a user's
// view over the exec-made table, is refused in one line, and nothing is
// dropped, until --force-drop.
func TestExecOutsideTenants(t *testing.T) {
	ctx := context.Background()
	stmts := []string{
		"CREATE SCHEMA IF NOT EXISTS audit",
		"CREATE TABLE IF NOT EXISTS audit.log (id int)",
		"CREATE EXTENSION IF NOT EXISTS pg_trgm",
		"CREATE OR REPLACE VIEW audit.v AS SELECT id FROM bank",
	}
	cases := []struct {
		name string
		// before and user are what the user makes before and after
		// fleet exec; refused names what the refusal must name ("" for
		// none); schemaOnly runs in schema mode alone.
		before, user, refused string
		schemaOnly            bool
	}{
		{"exec's alone", "", "", "", false},
		{"user's table in exec's schema", "", "CREATE TABLE audit.mine (x int); INSERT INTO audit.mine VALUES (5)", "table audit.mine", false},
		{"user's view on exec's table", "", "CREATE VIEW public.uv AS SELECT id FROM audit.log", "view public.uv", false},
		// An extension that existed before exec's CREATE EXTENSION IF
		// NOT EXISTS is the user's, refused as before.
		{"user's extension", "CREATE EXTENSION pg_trgm SCHEMA bank_1", "", "extension pg_trgm", true},
	}
	for _, mode := range []fleet.Mode{fleet.ModeSchema, fleet.ModeColumn} {
		for _, c := range cases {
			if c.schemaOnly && mode != fleet.ModeSchema {
				continue
			}
			t.Run(string(mode)+"/"+c.name, func(t *testing.T) {
				db := testdb.Fresh(t, "fix28ak_out", sqlx.Options{MaxConns: 2})
				mustExec(t, db, "CREATE TABLE public.mine (id int)", "INSERT INTO public.mine VALUES (1), (2)",
					"CREATE SCHEMA app", "CREATE TABLE app.t (x int)", "INSERT INTO app.t VALUES (7)")
				target := fleet.Target{
					Spec:        fleet.Spec{Tenants: 2, Mode: mode, Pattern: "bank_%d"},
					Base:        sqlx.Options{URLs: []string{testdb.URL(t)}, Database: db.Database(), MaxConns: 4},
					Concurrency: 1, // IF NOT EXISTS races between concurrent tenants
					Workload:    "bank",
				}
				gen := bankGen(t, "--rows=10")
				if _, err := fleet.Create(ctx, fleet.CreateOptions{Target: target, NewGenerator: func() (workload.Generator, error) { return gen(1) },
					Flags: "--rows=10", Seed: 1, LoadConcurrency: 1}); err != nil {
					t.Fatal(err)
				}
				if c.before != "" {
					mustExec(t, db, c.before)
				}
				for _, s := range stmts {
					res, err := fleet.Exec(ctx, fleet.ExecOptions{Target: target, Statement: s, Record: filepath.Join(t.TempDir(), "rec.ndjson"), Tables: []string{"bank"}})
					if err != nil || len(res.Failed) > 0 {
						t.Fatalf("fleet exec %s: %+v, %v", s, res.Failed, err)
					}
				}
				if c.user != "" {
					mustExec(t, db, c.user)
				}
				drop := func(force bool) (fleet.Totals, error) {
					tg := target
					tg.ForceDrop = force
					_, left, err := fleet.Drop(ctx, fleet.DropOptions{Target: tg, Tables: []string{"bank"}, Gen: tenantGen(t, mode)})
					return left, err
				}
				count := func(q string) int {
					t.Helper()
					var n int
					if err := db.QueryRow(ctx, q).Scan(&n); err != nil {
						t.Fatalf("%s: %v", q, err)
					}
					return n
				}
				const exists = `SELECT (SELECT count(*) FROM pg_namespace WHERE nspname IN ('audit', 'bank_1', 'bank_2'))
					+ (SELECT count(*) FROM pg_extension WHERE extname = 'pg_trgm') + (SELECT count(*) FROM pg_class WHERE relname IN ('log', 'v', 'bank'))`
				before := count(exists)
				if c.refused != "" {
					_, err := drop(false)
					if err == nil || !errors.Is(err, workload.ErrForeign) || !strings.Contains(err.Error(), c.refused) ||
						!strings.Contains(err.Error(), "--force-drop") || strings.Contains(err.Error(), "\n") {
						t.Fatalf("cleanup with the user's %s: %v; want one line refusing it, naming --force-drop", c.refused, err)
					}
					if !strings.Contains(err.Error(), "("+c.refused+")") {
						t.Errorf("cleanup refused more than the user's %s (what fleet exec made?): %v", c.refused, err)
					}
					if n := count(exists); n != before {
						t.Fatalf("the refused cleanup dropped something: %d of the fleet's and exec's objects left of %d", n, before)
					}
					if strings.HasPrefix(c.refused, "table ") && count("SELECT x FROM audit.mine") != 5 {
						t.Fatal("the user's row in audit.mine is gone")
					}
				}
				left, err := drop(c.refused != "")
				if err != nil {
					t.Fatalf("cleanup: %v", err)
				}
				if n := count(exists); n != 0 {
					t.Errorf("after cleanup %d of the tenants, the marker's tables and what exec made are left; want none", n)
				}
				if got := strings.Join(left.ExecOutside, ", "); !strings.Contains(got, "schema audit") || !strings.Contains(got, "table audit.log") {
					t.Errorf("cleanup says it dropped %q outside the tenants; want schema audit and table audit.log named", got)
				}
				if n := count("SELECT sum(id)::int FROM public.mine") + count("SELECT sum(x)::int FROM app.t"); n != 10 {
					t.Errorf("the user's own rows sum to %d after cleanup; want 10 (1+2+7)", n)
				}
			})
		}
	}
}

// TestExecExtensionDatabaseMode (issue 28 F6): in database mode, an
// extension fleet exec created in each tenant database is stampede's, and
// the tenants' drop takes it; one the user created in a tenant is
// refused as before.
func TestExecExtensionDatabaseMode(t *testing.T) {
	ctx := context.Background()
	for _, byUser := range []bool{false, true} {
		t.Run(fmt.Sprintf("user's=%v", byUser), func(t *testing.T) {
			admin := testdb.Fresh(t, "fix28ak_dbm", sqlx.Options{MaxConns: 2})
			pattern := fmt.Sprintf("fix28ak_d%d_%%d", rand.Uint32()%1e6)
			t.Cleanup(func() {
				for i := 1; i <= 2; i++ {
					if _, err := admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+fmt.Sprintf(pattern, i)+" WITH (FORCE)"); err != nil {
						t.Error(err)
					}
				}
			})
			target := fleet.Target{
				Spec:        fleet.Spec{Tenants: 2, Mode: fleet.ModeDatabase, Pattern: pattern},
				Base:        sqlx.Options{URLs: []string{testdb.URL(t)}, Database: admin.Database(), MaxConns: 4},
				Concurrency: 2,
				Workload:    "bank",
			}
			gen := bankGen(t, "--rows=10")
			if _, err := fleet.Create(ctx, fleet.CreateOptions{Target: target, NewGenerator: func() (workload.Generator, error) { return gen(1) },
				Flags: "--rows=10", Seed: 1, LoadConcurrency: 1}); err != nil {
				t.Fatal(err)
			}
			if byUser {
				mustExec(t, openDB(t, fmt.Sprintf(pattern, 1)), "CREATE EXTENSION pg_trgm")
			}
			res, err := fleet.Exec(ctx, fleet.ExecOptions{Target: target, Statement: "CREATE EXTENSION IF NOT EXISTS pg_trgm; CREATE SCHEMA audit; CREATE TABLE audit.log (id int)",
				Record: filepath.Join(t.TempDir(), "rec.ndjson"), Tables: []string{"bank"}})
			if err != nil || len(res.Failed) > 0 {
				t.Fatalf("fleet exec: %+v, %v", res.Failed, err)
			}
			_, _, err = fleet.Drop(ctx, fleet.DropOptions{Target: target, Tables: []string{"bank"}, Gen: tenantGen(t, fleet.ModeDatabase)})
			if byUser {
				if err == nil || !errors.Is(err, workload.ErrForeign) || !strings.Contains(err.Error(), "extension pg_trgm") || strings.Contains(err.Error(), "\"") && strings.Contains(err.Error(), "in \""+fmt.Sprintf(pattern, 2)) {
					t.Fatalf("cleanup with the user's extension in tenant 1: %v; want it refused, tenant 1's alone", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("cleanup of the extension fleet exec created: %v", err)
			}
			var n int
			if err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_database WHERE datname LIKE $1", strings.Replace(pattern, "%d", "%", 1)).Scan(&n); err != nil || n != 0 {
				t.Fatalf("%d tenant databases left, %v", n, err)
			}
		})
	}
}

// TestExecOutsideTemplateCopy (issue 28 F6): a copy of a schema fleet's
// database made with CREATE DATABASE ... TEMPLATE holds the schema fleet
// exec made with its mark, which names the source database: in the copy it
// is no mark, as the tenant schemas' are none, so --force-drop, which drops
// the copy's tenants as the refusal named them, leaves it; the source's
// cleanup drops its own.
func TestExecOutsideTemplateCopy(t *testing.T) {
	ctx := context.Background()
	db := testdb.Fresh(t, "fix28ak_src", sqlx.Options{MaxConns: 2})
	admin := openDB(t, "postgres")
	target := fleet.Target{
		Spec:        fleet.Spec{Tenants: 2, Mode: fleet.ModeSchema, Pattern: "bank_%d"},
		Base:        sqlx.Options{URLs: []string{testdb.URL(t)}, Database: db.Database(), MaxConns: 4},
		Concurrency: 1,
		Workload:    "bank",
	}
	gen := bankGen(t, "--rows=10")
	if _, err := fleet.Create(ctx, fleet.CreateOptions{Target: target, NewGenerator: func() (workload.Generator, error) { return gen(1) },
		Flags: "--rows=10", Seed: 1, LoadConcurrency: 1}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"CREATE SCHEMA IF NOT EXISTS audit", "CREATE TABLE IF NOT EXISTS audit.log (id int)"} {
		if res, err := fleet.Exec(ctx, fleet.ExecOptions{Target: target, Statement: s, Record: filepath.Join(t.TempDir(), "rec.ndjson")}); err != nil || len(res.Failed) > 0 {
			t.Fatalf("fleet exec %s: %+v, %v", s, res.Failed, err)
		}
	}
	copyName := db.Database() + "_copy"
	db.Close()
	mustExec(t, admin, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '"+db.Database()+"' AND pid <> pg_backend_pid()",
		"CREATE DATABASE "+copyName+" TEMPLATE "+db.Database())
	t.Cleanup(func() {
		if _, err := admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+copyName+" WITH (FORCE)"); err != nil {
			t.Error(err)
		}
	})
	ct := target
	ct.Base.Database = copyName
	drop := func(tg fleet.Target) (fleet.Totals, error) {
		_, left, err := fleet.Drop(ctx, fleet.DropOptions{Target: tg, Tables: []string{"bank"}, Gen: tenantGen(t, fleet.ModeSchema)})
		return left, err
	}
	if _, err := drop(ct); err == nil || !errors.Is(err, workload.ErrForeign) {
		t.Fatalf("cleanup of the copy: %v; want it refused", err)
	}
	ct.ForceDrop = true
	left, err := drop(ct)
	if err != nil {
		t.Fatalf("cleanup --force-drop of the copy: %v", err)
	}
	if len(left.ExecOutside) > 0 {
		t.Errorf("cleanup of the copy dropped %v, which the copy's marks do not make stampede's", left.ExecOutside)
	}
	var n int
	if err := openDB(t, copyName).QueryRow(ctx, "SELECT count(*) FROM pg_class WHERE relname = 'log' AND relnamespace = 'audit'::regnamespace").Scan(&n); err != nil || n != 1 {
		t.Fatalf("the copy's audit.log: %d, %v; want it kept", n, err)
	}
	left, err = drop(target)
	if err != nil || strings.Join(left.ExecOutside, ", ") != "schema audit, table audit.log" {
		t.Fatalf("cleanup of the source: %v, dropped %v outside the tenants; want schema audit, table audit.log", err, left.ExecOutside)
	}
}
