package fleet_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/fleet"
	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// columnFleet creates a database of its own (dropped when t ends) and
// loads a column-mode fleet of bank (tenants of 10 rows) into it,
// returning its target; admin is a connection for CREATE and DROP
// DATABASE.
func columnFleet(t *testing.T, admin *sqlx.DB, name string, tenants int) fleet.Target {
	t.Helper()
	ctx := context.Background()
	mustExec(t, admin, "CREATE DATABASE "+name)
	t.Cleanup(func() {
		if _, err := admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Error(err)
		}
	})
	target := fleet.Target{
		Spec:        fleet.Spec{Tenants: tenants, Mode: fleet.ModeColumn, Pattern: "bank_%d"},
		Base:        sqlx.Options{URLs: []string{testdb.URL(t)}, Database: name, MaxConns: 4},
		Concurrency: 2,
		Workload:    "bank",
	}
	gen := bankGen(t, "--rows=10")
	if _, err := fleet.Create(ctx, fleet.CreateOptions{Target: target, NewGenerator: func() (workload.Generator, error) { return gen(1) },
		Flags: "--rows=10", Seed: 1, LoadConcurrency: 1}); err != nil {
		t.Fatal(err)
	}
	return target
}

// tenantGen is bank's generator of --rows=10 as cleanup of a fleet in
// mode gives it (in column mode, set to tenant 1).
func tenantGen(t *testing.T, mode fleet.Mode) workload.Generator {
	t.Helper()
	g, err := bankGen(t, "--rows=10")(1)
	if err != nil {
		t.Fatal(err)
	}
	if tc, ok := g.(workload.TenantColumner); ok && mode == fleet.ModeColumn {
		tc.SetTenant(1)
	}
	return g
}

// mustExec runs each statement on db, failing t on an error.
func mustExec(t *testing.T, db *sqlx.DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// openDB opens database name on the test server, closed when t ends.
func openDB(t *testing.T, name string) *sqlx.DB {
	t.Helper()
	db, err := sqlx.Open(context.Background(), sqlx.Options{URLs: []string{testdb.URL(t)}, Database: name, MaxConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	return db
}

// TestColumnFleetCopies: a column-mode fleet's database restored from its
// pg_dump into another database keeps its comments, whose marks name the
// old OIDs; fleet exec applied UPDATE bank SET balance = 0 to the user's
// rows there and cleanup dropped them, and a user's own bank beside a
// pg_dump'd marker and copied comments went alike (chk28c F2). A copy
// made with CREATE DATABASE ... TEMPLATE was refused by cleanup and fleet
// exec but not by run or check (F3). Now every verb refuses both, in one
// line, and every row of the user's survives.
func TestColumnFleetCopies(t *testing.T) {
	ctx := context.Background()
	admin := testdb.Fresh(t, "fix28af_admin", sqlx.Options{MaxConns: 1})
	tag := rand.Uint32() % 1e6
	src := fmt.Sprintf("fix28af_col%d", tag)
	target := columnFleet(t, admin, src, 2)
	srcDB := openDB(t, src)
	comment := func(table string) string {
		var c string
		if err := srcDB.QueryRow(ctx, "SELECT obj_description(to_regclass($1), 'pg_class')", table).Scan(&c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	bankMark, markerMark := comment("bank"), comment(fleet.MarkerTable)
	var markerRows string
	if err := srcDB.QueryRow(ctx, "SELECT string_agg(format('(%s, %L, %L, %L, %s)', tenant_id, workload, version, flags, seed), ', ') FROM "+fleet.MarkerTable).Scan(&markerRows); err != nil {
		t.Fatal(err)
	}
	srcDB.Close()
	quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	for _, c := range []struct {
		name string
		make func(t *testing.T, name string)
	}{
		// What pg_dump src | psql -d name makes: the same tables, rows
		// and comments, under new OIDs; the user's rows, 30 of them.
		{"restored", func(t *testing.T, name string) {
			mustExec(t, admin, "CREATE DATABASE "+name)
			db := openDB(t, name)
			mustExec(t, db,
				"CREATE TABLE bank (tenant_id int NOT NULL, id bigint NOT NULL, balance bigint NOT NULL, payload text NOT NULL, PRIMARY KEY (tenant_id, id))",
				"INSERT INTO bank SELECT 1 + i % 2, i, 100 + i, 'mine' FROM generate_series(1, 30) i",
				"COMMENT ON TABLE bank IS "+quote(bankMark),
				"CREATE TABLE "+fleet.MarkerTable+" (tenant_id INT PRIMARY KEY, workload TEXT NOT NULL, version TEXT NOT NULL, flags TEXT NOT NULL, seed BIGINT NOT NULL, loaded_at TIMESTAMPTZ NOT NULL DEFAULT now())",
				"INSERT INTO "+fleet.MarkerTable+" (tenant_id, workload, version, flags, seed) VALUES "+markerRows,
				"COMMENT ON TABLE "+fleet.MarkerTable+" IS "+quote(markerMark))
		}},
		{"template", func(t *testing.T, name string) {
			var err error
			for i := 0; i < 50; i++ { // the fleet's sessions may take a moment to end
				if _, err = admin.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE "+src); err == nil {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			if err != nil {
				t.Fatal(err)
			}
			mustExec(t, openDB(t, name), "UPDATE bank SET balance = balance + 7 WHERE id = 1")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := fmt.Sprintf("fix28af_%s%d", c.name, tag)
			t.Cleanup(func() {
				if _, err := admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
					t.Error(err)
				}
			})
			c.make(t, name)
			db := openDB(t, name)
			sum := func() (n int64) {
				t.Helper()
				if err := db.QueryRow(ctx, "SELECT sum(abs(balance)) + count(*) FROM bank").Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}
			want := sum()
			tg := target
			tg.Base.Database = name
			gen := bankGen(t, "--rows=10")
			newGen := func() (workload.Generator, error) { return gen(1) }
			create := func(drop bool) error {
				_, err := fleet.Create(ctx, fleet.CreateOptions{Target: tg, NewGenerator: newGen, Flags: "--rows=10", Seed: 1, LoadConcurrency: 1, Drop: drop})
				return err
			}
			for _, v := range []struct {
				verb string
				do   func() error
			}{
				{"fleet exec UPDATE", func() error {
					_, err := fleet.Exec(ctx, fleet.ExecOptions{Target: tg, Statement: "UPDATE bank SET balance = 0",
						Record: filepath.Join(t.TempDir(), "rec.ndjson"), Tables: []string{"bank"}})
					return err
				}},
				{"fleet exec DELETE", func() error {
					_, err := fleet.Exec(ctx, fleet.ExecOptions{Target: tg, Statement: "DELETE FROM bank",
						Record: filepath.Join(t.TempDir(), "rec.ndjson"), Tables: []string{"bank"}})
					return err
				}},
				{"run", func() error { return fleet.RefuseForeignTenants(ctx, tg, "run runs on", []string{"bank"}) }},
				{"check", func() error { return fleet.RefuseForeignTenants(ctx, tg, "check reads", []string{"bank"}) }},
				{"cleanup", func() error {
					_, _, err := fleet.Drop(ctx, fleet.DropOptions{Target: tg, Tables: []string{"bank"}, Gen: tenantGen(t, fleet.ModeColumn)})
					return err
				}},
				{"init", func() error { return create(false) }},
				{"init --drop", func() error { return create(true) }},
			} {
				err := v.do()
				if err == nil || strings.Contains(err.Error(), "\n") ||
					!errors.Is(err, workload.ErrForeign) && !errors.Is(err, fleet.ErrNotTenants) && !errors.Is(err, workload.ErrTablesExist) {
					t.Errorf("%s on the %s copy: %v; want one line refusing it", v.verb, c.name, err)
				}
				if got := sum(); got != want {
					t.Fatalf("after %s on the %s copy, sum(abs(balance)) + count(*) is %d, want %d", v.verb, c.name, got, want)
				}
			}
		})
	}
	// The fleet itself still works and goes.
	if err := fleet.RefuseForeignTenants(ctx, target, "run runs on", []string{"bank"}); err != nil {
		t.Fatalf("run on the fleet itself: %v", err)
	}
	if n, _, err := fleet.Drop(ctx, fleet.DropOptions{Target: target, Tables: []string{"bank"}}); err != nil || n != 2 {
		t.Fatalf("cleanup of the fleet itself: %d, %v; want its 2 tenants dropped", n, err)
	}
}

// TestExecRecordGoesWithFleet: the record of what fleet exec applied
// outlived the fleet: after cleanup and a new init of the same names,
// the same statement was skipped on every new tenant as "done earlier"
// (exit 0), and the new tenants lacked the column (chk28c F10). The
// record is now bound to each tenant's identity (its database's or
// schema's OID, column mode's marker's): the new fleet's tenants get
// the statement, and a rerun on the same fleet still skips them.
func TestExecRecordGoesWithFleet(t *testing.T) {
	ctx := context.Background()
	url := testdb.URL(t)
	for _, mode := range []fleet.Mode{fleet.ModeDatabase, fleet.ModeSchema, fleet.ModeColumn} {
		t.Run(string(mode), func(t *testing.T) {
			db := testdb.Fresh(t, "fix28af_rec", sqlx.Options{MaxConns: 2})
			pattern := "bank_%d"
			if mode == fleet.ModeDatabase {
				pattern = fmt.Sprintf("fix28af_r%d_%%d", rand.Uint32()%1e6)
				t.Cleanup(func() {
					for i := 1; i <= 2; i++ {
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
			newGen := func() (workload.Generator, error) { return gen(1) }
			record := filepath.Join(t.TempDir(), "rec.ndjson")
			want := 2 // tenants the statement goes to
			if mode == fleet.ModeColumn {
				want = 1 // the shared tables, once
			}
			// The column in tenant 1's bank.
			hasColumn := func() bool {
				t.Helper()
				on, table := db, fmt.Sprintf(pattern, 1)
				switch mode {
				case fleet.ModeDatabase:
					on, table = openDB(t, fmt.Sprintf(pattern, 1)), "public"
				case fleet.ModeColumn:
					table = "public"
				}
				var n int
				if err := on.QueryRow(ctx, "SELECT count(*) FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'bank' AND column_name = 'note1'", table).Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n == 1
			}
			for round := 1; round <= 2; round++ {
				if _, err := fleet.Create(ctx, fleet.CreateOptions{Target: target, NewGenerator: newGen, Flags: "--rows=10", Seed: 1, LoadConcurrency: 1}); err != nil {
					t.Fatal(err)
				}
				exec := func() fleet.ExecResult {
					t.Helper()
					res, err := fleet.Exec(ctx, fleet.ExecOptions{Target: target, Statement: "ALTER TABLE bank ADD COLUMN note1 text", Record: record, Tables: []string{"bank"}})
					if err != nil || len(res.Failed) > 0 {
						t.Fatalf("fleet %d: fleet exec: %+v, %v", round, res.Failed, err)
					}
					return res
				}
				if res := exec(); res.Applied != want || res.Skipped != 0 || !hasColumn() {
					t.Fatalf("fleet %d: fleet exec applied %d, skipped %d, column there %v; want %d applied, none skipped, the column there",
						round, res.Applied, res.Skipped, hasColumn(), want)
				}
				if res := exec(); res.Applied != 0 || res.Skipped != want {
					t.Fatalf("fleet %d: the same fleet exec again applied %d, skipped %d; want %d skipped (done earlier)", round, res.Applied, res.Skipped, want)
				}
				if _, _, err := fleet.Drop(ctx, fleet.DropOptions{Target: target, Tables: []string{"bank"}, Gen: tenantGen(t, mode)}); err != nil {
					t.Fatalf("fleet %d: cleanup: %v", round, err)
				}
			}
		})
	}
}

// TestColumnExecObjectsGoWithFleet: in column mode, cleanup left behind
// what fleet exec made (a table with its serial's sequence, a view, each
// marked as fleet exec's), or refused the view as a user's dependent of
// the shared tables (chk28c F9); and fleet exec --tenants 5 on a fleet
// of 2 was accepted without a word (N4). Now cleanup drops what exec
// made with the fleet, a user's own table survives, and --tenants that
// is not the fleet's count is refused in one line naming it.
func TestColumnExecObjectsGoWithFleet(t *testing.T) {
	ctx := context.Background()
	admin := testdb.Fresh(t, "fix28af_admin", sqlx.Options{MaxConns: 1})
	name := fmt.Sprintf("fix28af_cx%d", rand.Uint32()%1e6)
	target := columnFleet(t, admin, name, 2)
	db := openDB(t, name)
	exec := func(tenants int, stmt string) error {
		tg := target
		tg.Spec.Tenants = tenants
		res, err := fleet.Exec(ctx, fleet.ExecOptions{Target: tg, Statement: stmt, Record: filepath.Join(t.TempDir(), "rec.ndjson"), Tables: []string{"bank"}})
		if err == nil && len(res.Failed) > 0 {
			err = res.Failed[0]
		}
		return err
	}
	for _, c := range []struct {
		tenants int
		stmt    string
		err     string
	}{
		{5, "UPDATE bank SET balance = 0", `the column-mode fleet in database "` + name + `" has 2 tenants, not 5 (--tenants)`},
		{1, "UPDATE bank SET balance = 0", "has 2 tenants, not 1 (--tenants)"},
		{2, "CREATE TABLE fxd (a serial PRIMARY KEY)", ""},
		{2, "CREATE VIEW fxv AS SELECT id FROM bank", ""},
		{2, "CREATE FUNCTION fxf() RETURNS int LANGUAGE sql AS 'SELECT 1'", ""},
	} {
		err := exec(c.tenants, c.stmt)
		switch {
		case c.err == "" && err != nil:
			t.Fatalf("--tenants %d %s: %v", c.tenants, c.stmt, err)
		case c.err != "" && (err == nil || !errors.Is(err, fleet.ErrNotTenants) || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "\n")):
			t.Fatalf("--tenants %d %s: %v; want one line saying %q", c.tenants, c.stmt, err, c.err)
		}
	}
	var sum int64
	if err := db.QueryRow(ctx, "SELECT sum(balance) FROM bank").Scan(&sum); err != nil || sum == 0 {
		t.Fatalf("the refused UPDATE changed the balances: sum %d, %v", sum, err)
	}
	mustExec(t, db, "CREATE TABLE mine (a int)", "INSERT INTO mine VALUES (42)")
	if n, left, err := fleet.Drop(ctx, fleet.DropOptions{Target: target, Tables: []string{"bank"}, Gen: tenantGen(t, fleet.ModeColumn)}); err != nil || n != 2 || left.Tables != 0 {
		t.Fatalf("cleanup: dropped %d, left %+v, %v; want 2 tenants and nothing left", n, left, err)
	}
	var left string
	if err := db.QueryRow(ctx, `SELECT coalesce(string_agg(relname, ', ' ORDER BY relname), '') FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'S', 'v')`).Scan(&left); err != nil {
		t.Fatal(err)
	}
	var funcs int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM pg_proc WHERE proname = 'fxf'`).Scan(&funcs); err != nil {
		t.Fatal(err)
	}
	if left != "mine" || funcs != 0 {
		t.Fatalf("after cleanup the database holds %q and %d fxf; want only the user's mine", left, funcs)
	}
	var a int
	if err := db.QueryRow(ctx, "SELECT a FROM mine").Scan(&a); err != nil || a != 42 {
		t.Fatalf("the user's row: %d, %v", a, err)
	}
}

// TestExecMadeGoesWithTenants: what fleet exec made beyond tables,
// sequences, views, functions and indexes was refused at cleanup as "not
// made by stampede": a column added with a default ("table column
// bank.note (holding data)"), a statistics object, type, domain, schema
// or trigger (chk28c F8), exit 2. exec now marks them, bound to their
// OIDs, and cleanup drops them with the tenants, while a type a user made
// by hand in a tenant is still refused, named alone.
func TestExecMadeGoesWithTenants(t *testing.T) {
	ctx := context.Background()
	url := testdb.URL(t)
	stmts := []string{
		"ALTER TABLE bank ADD COLUMN note text DEFAULT 'n'",
		"CREATE STATISTICS fxst ON id, balance FROM bank",
		"CREATE TYPE fxt AS (a int)",
		"CREATE DOMAIN fxd AS int",
		"CREATE FUNCTION fxtf() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RETURN NEW; END$$; CREATE TRIGGER fxtrg BEFORE UPDATE ON bank FOR EACH ROW EXECUTE FUNCTION fxtf()",
	}
	for _, mode := range []fleet.Mode{fleet.ModeDatabase, fleet.ModeSchema, fleet.ModeColumn} {
		t.Run(string(mode), func(t *testing.T) {
			db := testdb.Fresh(t, "fix28af_made", sqlx.Options{MaxConns: 2})
			pattern := "bank_%d"
			stmts := stmts
			if mode == fleet.ModeDatabase {
				pattern = fmt.Sprintf("fix28af_m%d_%%d", rand.Uint32()%1e6)
				t.Cleanup(func() {
					for i := 1; i <= 2; i++ {
						if _, err := db.Exec(context.Background(), "DROP DATABASE IF EXISTS "+fmt.Sprintf(pattern, i)+" WITH (FORCE)"); err != nil {
							t.Error(err)
						}
					}
				})
				stmts = append(stmts, "CREATE SCHEMA fxs")
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
			for _, s := range stmts {
				res, err := fleet.Exec(ctx, fleet.ExecOptions{Target: target, Statement: s, Record: filepath.Join(t.TempDir(), "rec.ndjson"), Tables: []string{"bank"}})
				if err != nil || len(res.Failed) > 0 {
					t.Fatalf("fleet exec %s: %+v, %v", s, res.Failed, err)
				}
			}
			// A type of the user's, made by hand in tenant 1.
			tenant, typ := db, fmt.Sprintf(pattern, 1)+".usert"
			switch mode {
			case fleet.ModeDatabase:
				tenant, typ = openDB(t, fmt.Sprintf(pattern, 1)), "usert"
			case fleet.ModeColumn:
				typ = "usert"
			}
			mustExec(t, tenant, "CREATE TYPE "+typ+" AS ENUM ('mine')")
			drop := func() error {
				_, _, err := fleet.Drop(ctx, fleet.DropOptions{Target: target, Tables: []string{"bank"}, Gen: tenantGen(t, mode)})
				return err
			}
			if mode != fleet.ModeColumn { // column mode's cleanup drops the shared tables only: a user's type beside them is no concern of it
				err := drop()
				if err == nil || !errors.Is(err, workload.ErrForeign) || !strings.Contains(err.Error(), "usert") || strings.Contains(err.Error(), "\n") {
					t.Fatalf("cleanup with a user's type in tenant 1: %v; want one line refusing it", err)
				}
				for _, made := range []string{"note", "fxst", "fxt", "fxd", "fxtrg", "fxs"} {
					if strings.Contains(err.Error(), made) {
						t.Errorf("cleanup refused %s, which fleet exec made: %v", made, err)
					}
				}
				mustExec(t, tenant, "DROP TYPE "+typ)
			}
			if err := drop(); err != nil {
				t.Fatalf("cleanup of what fleet exec made: %v", err)
			}
			if mode == fleet.ModeColumn {
				var left int
				if err := db.QueryRow(ctx, `SELECT (SELECT count(*) FROM pg_type WHERE typname IN ('fxt', 'fxd', 'usert')) + (SELECT count(*) FROM pg_proc WHERE proname = 'fxtf')`).Scan(&left); err != nil || left != 1 {
					t.Fatalf("after cleanup %d of fxt, fxd, fxtf and the user's usert are left, %v; want the user's alone", left, err)
				}
			}
		})
	}
}
