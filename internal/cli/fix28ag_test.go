package cli_test

import (
	"fmt"
	"strings"
	"testing"
)

// fleetPaths are the ways stampede drops a load of bank: each loads bank
// into db, and refused are the commands that must refuse a user's object
// on it, each taking --force-drop last; in is the database holding the
// tables and table the bank table there, as SQL names it.
type fix28agPath struct {
	name    string
	load    func(t *testing.T, db string)
	refused func(t *testing.T, db string) [][]string
	in      func(db string) string
	table   string
	// marker is the fleet's marker table as SQL names it there ("" for
	// none); key is bank's key there.
	marker, key string
}

func fix28agPaths() []fix28agPath {
	return []fix28agPath{
		{name: "cockroach form", table: "bank",
			load: func(t *testing.T, db string) { mustRun(t, "workload", "init", "bank", "--db", db, dbURL(t, "")) },
			refused: func(t *testing.T, db string) [][]string {
				return [][]string{{"workload", "init", "bank", "--drop", "--db", db, dbURL(t, "")}}
			},
			in: func(db string) string { return db }},
		{name: "tables", table: "bank",
			load: func(t *testing.T, db string) {
				adminExec(t, "CREATE DATABASE "+db)
				mustRun(t, "init", "bank", "--rows", "50", dbURL(t, db))
			},
			refused: func(t *testing.T, db string) [][]string {
				return [][]string{{"cleanup", "bank", dbURL(t, db)}, {"init", "bank", "--drop", "--rows", "50", dbURL(t, db)}}
			},
			in: func(db string) string { return db }},
		{name: "database fleet", table: "bank", marker: "stampede_tenant",
			load: func(t *testing.T, db string) {
				mustRun(t, "init", "bank", "--rows", "50", "--tenants", "1", "--tenant-pattern", db+"_%d", dbURL(t, ""))
			},
			refused: func(t *testing.T, db string) [][]string {
				fleet := []string{"--tenants", "1", "--tenant-pattern", db + "_%d", dbURL(t, "")}
				return [][]string{append([]string{"cleanup", "bank"}, fleet...), append([]string{"init", "bank", "--drop", "--rows", "50"}, fleet...)}
			},
			in: func(db string) string { return db + "_1" }},
		{name: "schema fleet", table: "bank_1.bank", marker: "bank_1.stampede_tenant",
			load: func(t *testing.T, db string) {
				adminExec(t, "CREATE DATABASE "+db)
				mustRun(t, "init", "bank", "--rows", "50", "--tenants", "1", "--tenant-mode", "schema", dbURL(t, db))
			},
			refused: func(t *testing.T, db string) [][]string {
				return [][]string{{"cleanup", "bank", "--tenants", "1", "--tenant-mode", "schema", dbURL(t, db)}}
			},
			in: func(db string) string { return db }},
		{name: "column fleet", table: "bank", marker: "stampede_tenant", key: "tenant_id, id",
			load: func(t *testing.T, db string) {
				adminExec(t, "CREATE DATABASE "+db)
				mustRun(t, "init", "bank", "--rows", "50", "--tenants", "2", "--tenant-mode", "column", dbURL(t, db))
			},
			refused: func(t *testing.T, db string) [][]string {
				return [][]string{{"cleanup", "bank", "--tenants", "2", "--tenant-mode", "column", dbURL(t, db)}}
			},
			in: func(db string) string { return db }},
	}
}

// refusesAndForces runs each of p's refused commands, which must refuse
// in one line (exit 2) naming named and --force-drop, with count still 1
// after each; then the first with --force-drop, which must say it drops
// named.
func refusesAndForces(t *testing.T, p fix28agPath, db, named, count string) {
	t.Helper()
	for _, args := range p.refused(t, db) {
		r := stampede(t, args...)
		checkOneLineError(t, r, 2, named)
		if !strings.Contains(r.stderr, "--force-drop") {
			t.Errorf("%v: the refusal does not name --force-drop: %s", args, r.stderr)
		}
		if n := queryInt(t, p.in(db), count); n != 1 {
			t.Fatalf("%v: the user's object is gone after the refusal (%d left)", args, n)
		}
	}
	args := p.refused(t, db)[0]
	r := mustRun(t, append(args[:len(args)-1:len(args)-1], "--force-drop", args[len(args)-1])...)
	if !strings.Contains(r.stdout+r.stderr, named) {
		t.Errorf("--force-drop does not say it drops %s: %s%s", named, r.stdout, r.stderr)
	}
}

// TestCensusUsersConstraints: a UNIQUE (with its index), CHECK or EXCLUDE
// constraint a user added to stampede's bank, a foreign key from it to a
// user's table, and a DEFAULT the user set on its column were in no
// census: cleanup, init --drop, the cockroach form's --drop and every
// fleet's cleanup dropped them, exit 0 (chk28c F4). Each is refused now,
// in one line naming it and --force-drop, and survives; --force-drop
// drops it and says so. Fails on the old code: exit 0, "dropped table
// bank".
func TestCensusUsersConstraints(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	for _, k := range []struct {
		kind, sql, named, count string
	}{
		{"unique", "ALTER TABLE %[1]s ADD CONSTRAINT c28 UNIQUE (%[2]s, balance)", "UNIQUE constraint c28 on table",
			"SELECT count(*) FROM pg_constraint WHERE conname = 'c28'"},
		{"check", "ALTER TABLE %[1]s ADD CONSTRAINT c28 CHECK (balance > -1000000000000)", "CHECK constraint c28 on table",
			"SELECT count(*) FROM pg_constraint WHERE conname = 'c28'"},
		{"exclude", "ALTER TABLE %[1]s ADD CONSTRAINT c28 EXCLUDE USING btree (%[3]s)", "EXCLUDE constraint c28 on table",
			"SELECT count(*) FROM pg_constraint WHERE conname = 'c28'"},
		{"foreign key", "CREATE TABLE public.mine28 (id bigint PRIMARY KEY); INSERT INTO public.mine28 SELECT g FROM generate_series(0, 100000) g; " +
			"ALTER TABLE %[1]s ADD CONSTRAINT c28 FOREIGN KEY (id) REFERENCES public.mine28", "FOREIGN KEY constraint c28 on table",
			"SELECT count(*) FROM pg_constraint WHERE conname = 'c28'"},
		{"default", "ALTER TABLE %[1]s ALTER COLUMN balance SET DEFAULT 7", "default 7 of column balance on table",
			"SELECT count(*) FROM pg_attrdef d JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum WHERE a.attname = 'balance'"},
	} {
		for _, p := range fix28agPaths() {
			t.Run(k.kind+"/"+p.name, func(t *testing.T) {
				db := freshDB(t, "fix28ag_con")
				t.Cleanup(func() { adminExec(t, "DROP DATABASE IF EXISTS "+db+"_1 WITH (FORCE)") })
				p.load(t, db)
				key := p.key
				if key == "" {
					key = "id"
				}
				exclude := strings.ReplaceAll(key, ",", " WITH =,") + " WITH ="
				execIn(t, p.in(db), fmt.Sprintf(k.sql, p.table, key, exclude))
				refusesAndForces(t, p, db, k.named, k.count)
			})
		}
	}
}

// TestCensusBookkeepingTables: what a user made on stampede's own tables
// went without a word: an index, trigger or statistics object on
// stampede_load with cleanup (the index even past the cockroach form's
// census), an index on a fleet's stampede_tenant with every mode's
// cleanup; and a view on stampede_load made cleanup and init --drop drop
// bank, then fail with the server's error, exit 1 (chk28c F5). Each is
// refused now before anything is dropped, in one line naming it and
// --force-drop, and bank's rows survive; --force-drop drops it. Fails on
// the old code (exit 0, or exit 1 with bank dropped).
func TestCensusBookkeepingTables(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	var record, fleets []fix28agPath
	for _, p := range fix28agPaths() {
		if p.marker == "" {
			record = append(record, p)
		} else {
			fleets = append(fleets, p)
		}
	}
	for _, k := range []struct {
		kind, sql, named, count string
	}{
		{"index", "CREATE INDEX i28 ON stampede_load (version)", "index public.i28 on table stampede_load",
			"SELECT count(*) FROM pg_class WHERE relname = 'i28'"},
		{"trigger", "CREATE TRIGGER t28 BEFORE UPDATE ON stampede_load FOR EACH ROW EXECUTE FUNCTION suppress_redundant_updates_trigger()",
			"trigger t28 on public.stampede_load", "SELECT count(*) FROM pg_trigger WHERE tgname = 't28'"},
		{"statistics", "CREATE STATISTICS s28 ON data, version FROM stampede_load", "statistics object public.s28",
			"SELECT count(*) FROM pg_statistic_ext WHERE stxname = 's28'"},
		{"view", "CREATE VIEW v28 AS SELECT data FROM stampede_load", "view public.v28",
			"SELECT count(*) FROM pg_class WHERE relname = 'v28'"},
		{"constraint", "ALTER TABLE stampede_load ADD CONSTRAINT c28 CHECK (version <> '')", "CHECK constraint c28 on table stampede_load",
			"SELECT count(*) FROM pg_constraint WHERE conname = 'c28'"},
	} {
		for _, p := range record {
			t.Run("stampede_load "+k.kind+"/"+p.name, func(t *testing.T) {
				db := freshDB(t, "fix28ag_rec")
				p.load(t, db)
				execIn(t, p.in(db), k.sql)
				for _, args := range p.refused(t, db) {
					stampede(t, args...)
					if n := queryInt(t, p.in(db), "SELECT count(*) FROM bank"); n == 0 {
						t.Fatalf("%v: bank is empty after the refusal", args)
					}
				}
				refusesAndForces(t, p, db, k.named, k.count)
			})
		}
	}
	for _, p := range fleets {
		t.Run("stampede_tenant index/"+p.name, func(t *testing.T) {
			db := freshDB(t, "fix28ag_ten")
			t.Cleanup(func() { adminExec(t, "DROP DATABASE IF EXISTS "+db+"_1 WITH (FORCE)") })
			p.load(t, db)
			execIn(t, p.in(db), "CREATE INDEX i28 ON "+p.marker+" (workload)")
			refusesAndForces(t, p, db, "i28 on table stampede_tenant", "SELECT count(*) FROM pg_class WHERE relname = 'i28'")
		})
	}
}

// TestCensusConstraintsOtherDrops: the demo's kept stampede_demo, run
// churn --fresh and init --tenants --drop refuse a user's constraint on
// the tables they would drop, as cleanup does (chk28c F4). Fails on the
// old code: exit 0, the constraint gone.
func TestCensusConstraintsOtherDrops(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	const count = "SELECT count(*) FROM pg_constraint WHERE conname = 'c28'"
	t.Run("demo", func(t *testing.T) {
		t.Cleanup(func() { adminExec(t, "DROP DATABASE IF EXISTS stampede_demo WITH (FORCE)") })
		url := dbURL(t, "postgres")
		mustRun(t, "demo", "--keep", "--records", "1000", "--duration", "1s", url)
		execIn(t, "stampede_demo", "ALTER TABLE usertable ADD CONSTRAINT c28 UNIQUE (ycsb_key, field0)")
		r := stampede(t, "demo", "--records", "1000", "--duration", "1s", url)
		checkOneLineError(t, r, 2, "UNIQUE constraint c28 on table usertable")
		if n := queryInt(t, "stampede_demo", count); n != 1 {
			t.Fatalf("the user's constraint is gone after the demo's refusal (%d left)", n)
		}
	})
	t.Run("churn --fresh", func(t *testing.T) {
		db := freshDB(t, "fix28ag_churn")
		adminExec(t, "CREATE DATABASE "+db)
		mustRun(t, "init", "churn", dbURL(t, db))
		mustRun(t, "run", "churn", "--duration", "2s", "--concurrency", "2", dbURL(t, db))
		execIn(t, db, `DO $$ BEGIN EXECUTE 'ALTER TABLE ' || (SELECT quote_ident(relname) FROM pg_class WHERE relname LIKE 'churn\_%\_%' AND relkind = 'r' ORDER BY relname LIMIT 1) || ' ADD CONSTRAINT c28 CHECK (true)'; END $$`)
		r := stampede(t, "run", "churn", "--fresh", "--duration", "1s", "--concurrency", "2", dbURL(t, db))
		checkOneLineError(t, r, 2, "CHECK constraint c28 on table churn_")
		if n := queryInt(t, db, count); n != 1 {
			t.Fatalf("the user's constraint is gone after churn's refusal (%d left)", n)
		}
	})
	t.Run("init --tenants --drop", func(t *testing.T) {
		db := freshDB(t, "fix28ag_ten")
		t.Cleanup(func() {
			adminExec(t, "DROP DATABASE IF EXISTS "+db+"_1 WITH (FORCE)", "DROP DATABASE IF EXISTS "+db+"_2 WITH (FORCE)")
		})
		fleet := []string{"--rows", "50", "--tenants", "2", "--tenant-pattern", db + "_%d", dbURL(t, "")}
		mustRun(t, append([]string{"init", "bank"}, fleet...)...)
		execIn(t, db+"_2", "ALTER TABLE bank ALTER COLUMN payload SET DEFAULT 'mine'")
		r := stampede(t, append([]string{"init", "bank", "--drop"}, fleet...)...)
		checkOneLineError(t, r, 2, "default 'mine'::text of column payload on table bank")
		if n := queryInt(t, db+"_2", "SELECT count(*) FROM pg_attrdef d JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum WHERE a.attname = 'payload'"); n != 1 {
			t.Fatalf("the user's default is gone after the refusal (%d left)", n)
		}
	})
}
