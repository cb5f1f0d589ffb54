package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestHammerDBSchemaFleet: a schema-mode fleet of TPC-C's HammerDB
// profile gives every tenant the six routines init makes (a clone copies
// them, each marked bound to its own OID), so that every tenant runs;
// and cleanup drops every tenant, routines and all, where it refused
// tenant 1's routines as objects a user made.
func TestHammerDBSchemaFleet(t *testing.T) {
	base := testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "fix28ab_hfleet")
	fleet := []string{"--profile", "hammerdb", "--tenants", "2", "--tenant-mode", "schema", "--db", db}
	mustRun(t, append(append([]string{"init", "tpcc", "--warehouses", "1"}, fleet...), base)...)
	const marked = `SELECT count(*) FROM pg_proc p WHERE p.pronamespace = '%s'::regnamespace
		AND obj_description(p.oid, 'pg_proc') LIKE 'made by stampede init of tpcc %% routine md5 ' || md5(p.prosrc) || '; oid ' || p.oid`
	for _, schema := range []string{"tpcc_1", "tpcc_2"} {
		if n := queryInt(t, db, fmt.Sprintf(marked, schema)); n != 6 {
			t.Errorf("schema %s holds %d of the 6 routines marked as stampede's, want 6", schema, n)
		}
	}
	mustRun(t, append(append([]string{"run", "tpcc", "--duration", "2s"}, fleet...), base)...)
	if n := queryInt(t, db, "SELECT count(*) FROM tpcc_2.orders"); n <= 30000 {
		t.Errorf("tenant 2 holds %d orders after the run, want more than the 30000 loaded", n)
	}
	mustRun(t, append(append([]string{"cleanup", "tpcc"}, fleet...), base)...)
	if n := queryInt(t, db, "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'tpcc\\_%'"); n != 0 {
		t.Errorf("cleanup left %d tenant schemas", n)
	}
}

// TestUsersWorkNeverDrops: every drop that skipped the checks cleanup
// makes now refuses, exit 2, in one line naming what it found and
// --force-drop, and what the user made survives: an index a user made
// on a table of a run's (churn's, bulk_insert's), of pgbench -i's, of a
// fleet's in each mode, of a database init bank --drop recreates, of
// the demo's database; a view on
// churn's tables that run --fresh would drop; and a copy a user made
// with CREATE DATABASE ... TEMPLATE of a database loaded by init
// pgbench, init sql or init churn, which pgbench -i, cleanup sql, init
// sql --drop, run churn --fresh and run sql --vacuum-first left alone
// only by chance.
func TestUsersWorkNeverDrops(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	dir := t.TempDir()
	s1 := filepath.Join(dir, "s1.sql")
	if err := os.WriteFile(s1, []byte("CREATE TABLE t1(id int primary key, v text);\nINSERT INTO t1 SELECT g, md5(g::text) FROM generate_series(1, 100) g;\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const churnTable = `(SELECT min(relname) FROM pg_class WHERE relname ~ '^churn_[0-9]+_[0-9]+$')`
	const indexCount = "SELECT count(*) FROM pg_class WHERE relname = 'my_idx'"
	for _, c := range []struct {
		name string
		// setup runs in database db (args get its URL appended, or
		// base and --db DB with fleet set); sql then runs in on (db
		// when empty), copy makes db's copy the target.
		setup [][]string
		fleet bool
		sql   []string
		on    string
		copy  bool
		// refused run on the target, each followed by its URL; want is
		// in each refusal; survives counts what must stay.
		refused  [][]string
		want     string
		survives string
	}{
		{name: "churn index", setup: [][]string{{"init", "churn"}, {"run", "churn", "--duration", "2s", "--concurrency", "2"}},
			sql:     []string{"DO $$ BEGIN EXECUTE 'CREATE INDEX my_idx ON ' || " + churnTable + " || ' (c1)'; END $$"},
			refused: [][]string{{"cleanup", "churn"}, {"init", "churn", "--drop"}, {"run", "churn", "--fresh", "--duration", "1s"}},
			want:    "index public.my_idx on table churn_", survives: indexCount},
		{name: "churn view", setup: [][]string{{"init", "churn"}, {"run", "churn", "--duration", "2s", "--concurrency", "2"}},
			sql:     []string{"DO $$ BEGIN EXECUTE 'CREATE VIEW my_view AS SELECT * FROM ' || " + churnTable + "; END $$"},
			refused: [][]string{{"run", "churn", "--fresh", "--duration", "1s"}},
			want:    "view public.my_view", survives: "SELECT count(*) FROM pg_class WHERE relname = 'my_view'"},
		{name: "churn copy", setup: [][]string{{"init", "churn"}, {"run", "churn", "--duration", "2s", "--concurrency", "2"}}, copy: true,
			refused: [][]string{{"run", "churn", "--fresh", "--mix", "insert=99,create=1", "--duration", "1s"}},
			want:    "looks like a copy of database", survives: "SELECT count(*) FROM pg_class WHERE relname ~ '^churn_[0-9]+_[0-9]+$'"},
		{name: "bulk_insert index", setup: [][]string{{"init", "bulk_insert"}, {"run", "bulk_insert", "--concurrency", "2", "--duration", "1s"}},
			sql:     []string{"CREATE INDEX my_idx ON sbtest1 (k)"},
			refused: [][]string{{"cleanup", "bulk_insert"}, {"init", "bulk_insert", "--drop"}},
			want:    "index public.my_idx on table sbtest1", survives: indexCount},
		{name: "pgbench -i index", setup: [][]string{{"init", "pgbench"}},
			sql:     []string{"CREATE INDEX my_idx ON pgbench_accounts (bid)"},
			refused: [][]string{{"pgbench", "-i"}, {"pgbench", "-i", "-I", "dtg"}},
			want:    "index public.my_idx on table pgbench_accounts", survives: indexCount},
		{name: "pgbench copy", setup: [][]string{{"init", "pgbench"}}, copy: true,
			sql:     []string{"INSERT INTO pgbench_history VALUES (1, 1, 1, 1, now(), 'mine')"},
			refused: [][]string{{"pgbench", "-i"}, {"run", "sql", "-b", "tpcb-like", "--vacuum-first", "--duration", "1s"}},
			want:    "looks like a copy of database", survives: "SELECT count(*) FROM pgbench_history"},
		{name: "schema fleet index", fleet: true,
			setup:   [][]string{{"init", "ycsb", "--record-count", "50", "--tenants", "2", "--tenant-mode", "schema", "--tenant-pattern", "app_%d"}},
			sql:     []string{"CREATE INDEX my_idx ON app_1.usertable (field1)"},
			refused: [][]string{{"cleanup", "ycsb", "--tenants", "2", "--tenant-mode", "schema", "--tenant-pattern", "app_%d"}, {"init", "ycsb", "--drop", "--record-count", "50", "--tenants", "2", "--tenant-mode", "schema", "--tenant-pattern", "app_%d"}},
			want:    "index app_1.my_idx on table usertable", survives: indexCount},
		{name: "column fleet index", fleet: true,
			setup:   [][]string{{"init", "ycsb", "--record-count", "50", "--tenants", "2", "--tenant-mode", "column"}},
			sql:     []string{"CREATE INDEX my_idx ON usertable (field1)"},
			refused: [][]string{{"cleanup", "ycsb", "--tenants", "2", "--tenant-mode", "column"}, {"init", "ycsb", "--drop", "--record-count", "50", "--tenants", "2", "--tenant-mode", "column"}},
			want:    "index public.my_idx on table usertable", survives: indexCount},
		{name: "workload init bank --drop index", fleet: true, setup: [][]string{{"workload", "init", "bank", "--rows", "100"}},
			sql:     []string{"CREATE INDEX my_idx ON bank (balance)"},
			refused: [][]string{{"workload", "init", "bank", "--drop", "--rows", "100"}},
			want:    "index public.my_idx on table bank", survives: indexCount},
		{name: "sql copy", setup: [][]string{{"init", "sql", "--init-file", s1}}, copy: true,
			refused: [][]string{{"cleanup", "sql"}, {"init", "sql", "--drop", "--init-file", s1}},
			want:    "looks like a copy of database", survives: "SELECT count(*) FROM t1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := freshDB(t, "fix28ab_user")
			target := func(db string, args []string) []string {
				if c.fleet {
					return append(append(slices.Clone(args), "--db", db), dbURL(t, ""))
				}
				return append(slices.Clone(args), dbURL(t, db))
			}
			if !c.fleet {
				adminExec(t, "CREATE DATABASE "+db)
			}
			for _, args := range c.setup {
				mustRun(t, target(db, args)...)
			}
			on := db
			if c.copy {
				on = freshDB(t, "fix28ab_copy")
				adminExec(t, "CREATE DATABASE "+on+" TEMPLATE "+db)
			}
			execIn(t, on, c.sql...)
			want := queryInt(t, on, c.survives)
			if want == 0 {
				t.Fatalf("%s finds nothing before the refusals", c.survives)
			}
			for _, args := range c.refused {
				r := stampede(t, target(on, args)...)
				checkOneLineError(t, r, 2, c.want)
				if !strings.Contains(r.stderr, "--force-drop") {
					t.Errorf("%v: the refusal does not name --force-drop: %s", args, r.stderr)
				}
				if got := queryInt(t, on, c.survives); got != want {
					t.Fatalf("%v: %s is %d after the refusal, want %d", args, c.survives, got, want)
				}
			}
		})
	}
}

// TestDemoKeepsUsersIndex: the demo's database an earlier demo kept
// (--keep) with an index a user made on its usertable is refused, exit
// 2, naming the index and --force-drop, and the index survives; with
// --force-drop the demo drops the database and runs.
func TestDemoKeepsUsersIndex(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	t.Cleanup(func() { adminExec(t, "DROP DATABASE IF EXISTS stampede_demo WITH (FORCE)") })
	url := dbURL(t, "postgres")
	mustRun(t, "demo", "--keep", "--records", "1000", "--duration", "1s", url)
	execIn(t, "stampede_demo", "CREATE INDEX my_idx ON usertable (field1)")
	r := stampede(t, "demo", "--records", "1000", "--duration", "1s", url)
	checkOneLineError(t, r, 2, "index public.my_idx on table usertable")
	if !strings.Contains(r.stderr, "--force-drop") || strings.Contains(r.stdout+r.stderr, "--force-drop: dropping") {
		t.Errorf("the demo does not refuse naming --force-drop, or drops as if it were given: %s%s", r.stdout, r.stderr)
	}
	if n := queryInt(t, "stampede_demo", "SELECT count(*) FROM pg_class WHERE relname = 'my_idx'"); n != 1 {
		t.Fatalf("the user's index is gone after the demo's refusal")
	}
	r = mustRun(t, "demo", "--force-drop", "--records", "1000", "--duration", "1s", url)
	if !strings.Contains(r.stdout+r.stderr, "my_idx") {
		t.Errorf("--force-drop does not say it drops my_idx: %s%s", r.stdout, r.stderr)
	}
}

// TestSchemaFleetRefusesUsersSchema: a user's schema that the tenant
// pattern matches, holding a table of the marker's name (not stampede's
// marker) and the user's own table, is refused by a schema-mode init up
// front, exit 2, naming it and --force-drop, as database mode refuses a
// user's database: it was counted as a loaded tenant ("1 of 2 tenants
// exist already").
func TestSchemaFleetRefusesUsersSchema(t *testing.T) {
	testServer(t)
	db := freshDB(t, "fix28ab_uschema")
	adminExec(t, "CREATE DATABASE "+db)
	execIn(t, db, "CREATE SCHEMA bank_2", "CREATE TABLE bank_2.stampede_tenant (x int)",
		"CREATE TABLE bank_2.mydata (id int)", "INSERT INTO bank_2.mydata VALUES (1), (2)")
	r := stampede(t, "init", "bank", "--rows", "100", "--tenants", "2", "--tenant-mode", "schema", "--db", db, dbURL(t, ""))
	checkOneLineError(t, r, 2, "schema bank_2")
	if !strings.Contains(r.stderr, "--force-drop") || strings.Contains(r.stdout+r.stderr, "exist already") {
		t.Errorf("the refusal does not name --force-drop, or counts the user's schema as a tenant: %s%s", r.stdout, r.stderr)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM bank_2.mydata"); n != 2 {
		t.Errorf("%d rows of the user's table left, want 2", n)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM pg_namespace WHERE nspname = 'bank_1'"); n != 0 {
		t.Errorf("init created tenant 1 before it refused the user's schema")
	}
}

// TestForceDropNotesRead: the lines --force-drop says read as sentences:
// a copy's tables go "of database X, which looks like a copy of ...", a
// user's index on one table goes "with the table"; and a cleanup without
// --profile of a HammerDB load says that init recorded the load with
// other flags, not that init may have ended before recording it.
func TestForceDropNotesRead(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	src, cp := freshDB(t, "fix28ab_nsrc"), freshDB(t, "fix28ab_ncopy")
	mustRun(t, "init", "bank", "--rows", "40", dbURL(t, src))
	adminExec(t, "CREATE DATABASE "+cp+" TEMPLATE "+src)
	r := mustRun(t, "cleanup", "bank", "--force-drop", dbURL(t, cp))
	if want := fmt.Sprintf("--force-drop: dropping the tables of database %q, which looks like a copy of database %q", cp, src); !strings.Contains(r.stdout+r.stderr, want) {
		t.Errorf("the copy's note does not say %q: %s%s", want, r.stdout, r.stderr)
	}
	execIn(t, src, "CREATE INDEX my_idx ON bank (balance)")
	r = mustRun(t, "cleanup", "bank", "--force-drop", dbURL(t, src))
	if want := "--force-drop: dropping index public.my_idx on table bank, which stampede did not make, with the table"; !strings.Contains(r.stdout+r.stderr, want) {
		t.Errorf("the index's note does not say %q: %s%s", want, r.stdout, r.stderr)
	}
	hdb := freshDB(t, "fix28ab_nhdb")
	mustRun(t, "init", "tpcc", "--profile", "hammerdb", "--warehouses", "1", dbURL(t, hdb))
	r = mustRun(t, "cleanup", "tpcc", dbURL(t, hdb))
	out := r.stdout + r.stderr
	if !strings.Contains(out, "init recorded its load here") || strings.Contains(out, "ended before it recorded") {
		t.Errorf("cleanup's note on HammerDB's orders does not say that init recorded its load: %s", out)
	}
}

// TestDatabaseFleetKeepsUsersIndex: an index a user made on a table of a
// database-mode tenant is refused by cleanup and init --drop, exit 2,
// naming it and --force-drop, and the index survives.
func TestDatabaseFleetKeepsUsersIndex(t *testing.T) {
	testServer(t)
	pattern := fmt.Sprintf("fix28ab_dx%d_%%d", time.Now().UnixNano()%1e6)
	t.Cleanup(func() {
		for i := 1; i <= 2; i++ {
			adminExec(t, "DROP DATABASE IF EXISTS "+fmt.Sprintf(pattern, i)+" WITH (FORCE)")
		}
	})
	fleet := []string{"--tenants", "2", "--tenant-pattern", pattern}
	mustRun(t, append(append([]string{"init", "ycsb", "--record-count", "50"}, fleet...), dbURL(t, ""))...)
	one := fmt.Sprintf(pattern, 1)
	execIn(t, one, "CREATE INDEX my_idx ON usertable (field1)")
	for _, args := range [][]string{
		append(append([]string{"cleanup", "ycsb"}, fleet...), dbURL(t, "")),
		append(append([]string{"init", "ycsb", "--drop", "--record-count", "50"}, fleet...), dbURL(t, "")),
	} {
		r := stampede(t, args...)
		checkOneLineError(t, r, 2, "index public.my_idx on table usertable")
		if !strings.Contains(r.stderr, "--force-drop") {
			t.Errorf("%v: the refusal does not name --force-drop: %s", args, r.stderr)
		}
		if n := queryInt(t, one, "SELECT count(*) FROM pg_class WHERE relname = 'my_idx'"); n != 1 {
			t.Fatalf("%v: the user's index is gone", args)
		}
	}
}
