package cli_test

import (
	"strings"
	"testing"
)

// TestCensusAttachedObjects: the census of a whole database (the
// cockroach form's --drop, a database-mode fleet's cleanup and init
// --drop) missed what a user hangs on stampede's tables, and dropped the
// database with it at exit 0; the table-level check of cleanup and init
// --drop missed policies and statistics objects. Each kind is refused
// now on every path, exit 2, in one line naming it and --force-drop, and
// survives; --force-drop then drops it.
func TestCensusAttachedObjects(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	for _, k := range []struct{ kind, sql, named, count string }{
		{"trigger", "CREATE TRIGGER t28 BEFORE UPDATE ON bank FOR EACH ROW EXECUTE FUNCTION suppress_redundant_updates_trigger()",
			"trigger t28 on public.bank", "SELECT count(*) FROM pg_trigger WHERE tgname = 't28'"},
		{"rule", "CREATE RULE r28 AS ON DELETE TO bank DO INSTEAD NOTHING",
			"rule r28 on public.bank", "SELECT count(*) FROM pg_rewrite WHERE rulename = 'r28'"},
		{"policy", "CREATE POLICY p28 ON bank USING (true)",
			"policy p28 on public.bank", "SELECT count(*) FROM pg_policy WHERE polname = 'p28'"},
		{"statistics", "CREATE STATISTICS s28 ON id, balance FROM bank",
			"statistics object public.s28", "SELECT count(*) FROM pg_statistic_ext WHERE stxname = 's28'"},
	} {
		for _, p := range []struct {
			path string
			// load loads bank into db; refused are the commands
			// that must refuse it, each taking --force-drop last.
			load    func(db string)
			refused func(db string) [][]string
			// in is the database holding the tables.
			in func(db string) string
		}{
			{"cockroach form",
				func(db string) { mustRun(t, "workload", "init", "bank", "--db", db, dbURL(t, "")) },
				func(db string) [][]string {
					return [][]string{{"workload", "init", "bank", "--drop", "--db", db, dbURL(t, "")}}
				},
				func(db string) string { return db }},
			{"database fleet",
				func(db string) {
					mustRun(t, "init", "bank", "--rows", "50", "--tenants", "1", "--tenant-pattern", db+"_%d", dbURL(t, ""))
				},
				func(db string) [][]string {
					fleet := []string{"--tenants", "1", "--tenant-pattern", db + "_%d", dbURL(t, "")}
					return [][]string{append([]string{"cleanup", "bank"}, fleet...), append([]string{"init", "bank", "--drop", "--rows", "50"}, fleet...)}
				},
				func(db string) string { return db + "_1" }},
			{"tables",
				func(db string) {
					adminExec(t, "CREATE DATABASE "+db)
					mustRun(t, "init", "bank", "--rows", "50", dbURL(t, db))
				},
				func(db string) [][]string {
					return [][]string{{"cleanup", "bank", dbURL(t, db)}, {"init", "bank", "--drop", "--rows", "50", dbURL(t, db)}}
				},
				func(db string) string { return db }},
		} {
			t.Run(k.kind+"/"+p.path, func(t *testing.T) {
				db := freshDB(t, "fix28ad_att")
				t.Cleanup(func() { adminExec(t, "DROP DATABASE IF EXISTS "+db+"_1 WITH (FORCE)") })
				p.load(db)
				execIn(t, p.in(db), k.sql)
				for _, args := range p.refused(db) {
					r := stampede(t, args...)
					checkOneLineError(t, r, 2, k.named)
					if !strings.Contains(r.stderr, "--force-drop") {
						t.Errorf("%v: the refusal does not name --force-drop: %s", args, r.stderr)
					}
					if n := queryInt(t, p.in(db), k.count); n != 1 {
						t.Fatalf("%v: the user's %s is gone after the refusal", args, k.kind)
					}
				}
				args := p.refused(db)[0]
				r := mustRun(t, append(args[:len(args)-1:len(args)-1], "--force-drop", args[len(args)-1])...)
				if !strings.Contains(r.stdout+r.stderr, k.named) {
					t.Errorf("--force-drop does not say it drops %s: %s%s", k.named, r.stdout, r.stderr)
				}
			})
		}
	}
}

// TestDemoRefusesTrigger: a trigger a user made on the usertable of the
// demo's database an earlier demo kept was dropped with it, the demo
// saying "--force-drop: dropping table usertable ..." though the user
// gave no --force-drop. The demo refuses it now, exit 2, naming the
// trigger and --force-drop, and says nothing of --force-drop; the
// trigger survives.
func TestDemoRefusesTrigger(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	t.Cleanup(func() { adminExec(t, "DROP DATABASE IF EXISTS stampede_demo WITH (FORCE)") })
	url := dbURL(t, "postgres")
	mustRun(t, "demo", "--keep", "--records", "1000", "--duration", "1s", url)
	execIn(t, "stampede_demo", "CREATE TRIGGER t28 BEFORE UPDATE ON usertable FOR EACH ROW EXECUTE FUNCTION suppress_redundant_updates_trigger()")
	r := stampede(t, "demo", "--records", "1000", "--duration", "1s", url)
	checkOneLineError(t, r, 2, "trigger t28 on public.usertable")
	if !strings.Contains(r.stderr, "--force-drop") || strings.Contains(r.stdout+r.stderr, "--force-drop: dropping") {
		t.Errorf("the demo does not refuse naming --force-drop, or drops as if it were given: %s%s", r.stdout, r.stderr)
	}
	if n := queryInt(t, "stampede_demo", "SELECT count(*) FROM pg_trigger WHERE tgname = 't28'"); n != 1 {
		t.Fatalf("the user's trigger is gone after the demo's refusal (%d left)", n)
	}
}

// TestFleetExecColumnRefusesUsersDatabase: fleet exec --tenant-mode
// column ran its statement on any database (DROP TABLE of a user's bank,
// "1 applied now", exit 0), where cleanup, run and init refuse it. It is
// refused now, exit 2, in one line, and the user's rows survive: a
// user's table of the workload's name, beside a hand-made marker table
// or not, and a database with no fleet at all. A column-mode fleet's own
// database takes the statement.
func TestFleetExecColumnRefusesUsersDatabase(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	for _, c := range []struct {
		name, table string
		setup       []string
		want        string
	}{
		{"user's bank", "bank", []string{"CREATE TABLE bank (id int)", "INSERT INTO bank VALUES (1), (2)"}, "table bank in database"},
		{"hand-made marker", "bank", []string{"CREATE TABLE bank (id int)", "INSERT INTO bank VALUES (1), (2)", "CREATE TABLE stampede_tenant (x int)"}, "table bank in database"},
		{"no fleet", "mine", []string{"CREATE TABLE mine (id int)", "INSERT INTO mine VALUES (1), (2)"}, "no stampede_tenant marker of stampede's records a column-mode fleet of bank"},
	} {
		for _, verb := range []string{"DROP TABLE ", "TRUNCATE ", "DELETE FROM "} {
			t.Run(c.name+"/"+verb, func(t *testing.T) {
				db := freshDB(t, "fix28ad_colv")
				adminExec(t, "CREATE DATABASE "+db)
				execIn(t, db, c.setup...)
				r := stampede(t, "fleet", "exec", "--workload", "bank", "--tenants", "2", "--tenant-mode", "column", verb+c.table, dbURL(t, db))
				checkOneLineError(t, r, 2, c.want)
				if n := queryInt(t, db, "SELECT count(*) FROM "+c.table); n != 2 {
					t.Fatalf("%d of the user's 2 rows left after the refusal", n)
				}
			})
		}
	}
	db := freshDB(t, "fix28ad_colf")
	adminExec(t, "CREATE DATABASE "+db)
	mustRun(t, "init", "bank", "--rows", "20", "--tenants", "2", "--tenant-mode", "column", dbURL(t, db))
	r := mustRun(t, "fleet", "exec", "--workload", "bank", "--tenants", "2", "--tenant-mode", "column", "DELETE FROM bank WHERE id = 1", dbURL(t, db))
	if !strings.Contains(r.stdout+r.stderr, "1 applied now") {
		t.Errorf("fleet exec on the fleet's own database: %s%s", r.stdout, r.stderr)
	}
}

// TestCopiedFleetDatabase: a copy a user made (CREATE DATABASE ...
// TEMPLATE) of a schema- or column-mode fleet's database was taken for
// the fleet: cleanup dropped its tenants, init --drop reloaded them,
// fleet exec deleted their rows, exit 0. The fleet's marker now names
// the database it was made in, so each refuses the copy in one line,
// exit 2, and the copy's rows survive; cleanup --force-drop then drops
// it. The fleet's own database is still the fleet's, and so is one whose
// marker carries the mark of a stampede before this change (no database
// named): fleet exec and cleanup work on it.
func TestCopiedFleetDatabase(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	for _, c := range []struct{ mode, rows, marker string }{
		{"schema", "SELECT count(*) FROM bank_1.bank", "bank_1.stampede_tenant"},
		{"column", "SELECT count(*) FROM bank", "stampede_tenant"},
	} {
		t.Run(c.mode, func(t *testing.T) {
			src, cp := freshDB(t, "fix28ad_src"), freshDB(t, "fix28ad_copy")
			adminExec(t, "CREATE DATABASE "+src)
			fleet := []string{"--tenants", "2", "--tenant-mode", c.mode}
			mustRun(t, append(append([]string{"init", "bank", "--rows", "20"}, fleet...), dbURL(t, src))...)
			adminExec(t, "CREATE DATABASE "+cp+" TEMPLATE "+src)
			want := queryInt(t, cp, c.rows)
			for _, args := range [][]string{
				append([]string{"cleanup", "bank"}, fleet...),
				append([]string{"init", "bank", "--drop", "--rows", "20"}, fleet...),
				{"init", "bank", "--rows", "20", "--tenants", "3", "--tenant-mode", c.mode},
				append([]string{"fleet", "exec", "--workload", "bank", "DELETE FROM bank"}, fleet...),
			} {
				r := stampede(t, append(args, dbURL(t, cp))...)
				checkOneLineError(t, r, 2, "a copy of the fleet's database made with CREATE DATABASE ... TEMPLATE")
				if args[0] != "fleet" && !strings.Contains(r.stderr, "--force-drop") {
					t.Errorf("%v: the refusal does not name --force-drop: %s", args, r.stderr)
				}
				if got := queryInt(t, cp, c.rows); got != want {
					t.Fatalf("%v: %d rows in the copy after the refusal, want %d", args, got, want)
				}
			}
			mustRun(t, append(append([]string{"cleanup", "bank", "--force-drop"}, fleet...), dbURL(t, cp))...)
			if n := queryInt(t, cp, "SELECT count(*) FROM pg_class WHERE relname = 'bank'"); n != 0 {
				t.Errorf("cleanup --force-drop left %d bank tables in the copy", n)
			}
			// A marker of a stampede before this change names no
			// database: the fleet keeps working.
			execIn(t, src, "DO $$ BEGIN EXECUTE format('COMMENT ON TABLE "+c.marker+" IS %L', regexp_replace(obj_description('"+c.marker+"'::regclass, 'pg_class'), '; database oid [0-9]+', '')); END $$")
			mustRun(t, append(append([]string{"fleet", "exec", "--workload", "bank", "DELETE FROM bank WHERE id = 1"}, fleet...), dbURL(t, src))...)
			r := mustRun(t, append(append([]string{"cleanup", "bank"}, fleet...), dbURL(t, src))...)
			if !strings.Contains(r.stdout+r.stderr, "dropped") {
				t.Errorf("cleanup of the fleet: %s%s", r.stdout, r.stderr)
			}
			if n := queryInt(t, src, "SELECT count(*) FROM pg_class WHERE relname = 'bank'"); n != 0 {
				t.Errorf("cleanup of the fleet left %d bank tables", n)
			}
		})
	}
}

// TestFleetExecMadeDropsWithTenant: a table fleet exec made in every
// tenant (a migration's CREATE TABLE audit) was refused at cleanup as
// the user's ("holds 2 objects that stampede did not make (table
// public.audit ...)", exit 2). fleet exec marks what its statement made
// (tables, sequences, views, materialized views, functions) as it marked
// indexes, so cleanup drops it with the tenant, in database and schema
// modes; a table the user made by hand in a tenant is still refused.
func TestFleetExecMadeDropsWithTenant(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	const stmt = "CREATE TABLE audit (x serial PRIMARY KEY); CREATE SEQUENCE sq; CREATE VIEW v AS SELECT * FROM bank; " +
		"CREATE VIEW v2 AS SELECT * FROM v; CREATE MATERIALIZED VIEW mv AS SELECT 1 AS a; CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1'"
	for _, mode := range []string{"database", "schema"} {
		t.Run(mode, func(t *testing.T) {
			db := freshDB(t, "fix28ad_exm")
			fleet := []string{"--tenants", "2", "--tenant-mode", mode, "--tenant-pattern", db + "_%d"}
			base, tenant, in := dbURL(t, db), db+"_1", db
			if mode == "database" {
				base, in = dbURL(t, ""), tenant
				t.Cleanup(func() {
					adminExec(t, "DROP DATABASE IF EXISTS "+db+"_1 WITH (FORCE)", "DROP DATABASE IF EXISTS "+db+"_2 WITH (FORCE)")
				})
			} else {
				adminExec(t, "CREATE DATABASE "+db)
			}
			mustRun(t, append(append([]string{"init", "bank", "--rows", "20"}, fleet...), base)...)
			mustRun(t, append(append([]string{"fleet", "exec", "--workload", "bank", stmt}, fleet...), base)...)
			// A table the user made by hand is still the user's.
			mine := "CREATE TABLE mine (x int)"
			if mode == "schema" {
				mine = "CREATE TABLE " + tenant + ".mine (x int)"
			}
			execIn(t, in, mine)
			r := stampede(t, append(append([]string{"cleanup", "bank"}, fleet...), base)...)
			checkOneLineError(t, r, 2, "mine")
			if strings.Contains(r.stderr, "audit") || strings.Contains(r.stderr, " v ") || strings.Contains(r.stderr, "function") {
				t.Errorf("cleanup names what fleet exec made as the user's: %s", r.stderr)
			}
			execIn(t, in, strings.Replace(strings.Replace(mine, "CREATE", "DROP", 1), " (x int)", "", 1))
			mustRun(t, append(append([]string{"cleanup", "bank"}, fleet...), base)...)
			if mode == "database" {
				if n := queryInt(t, "postgres", "SELECT count(*) FROM pg_database WHERE datname LIKE '"+db+"\\_%'"); n != 0 {
					t.Errorf("cleanup left %d tenant databases", n)
				}
			} else if n := queryInt(t, db, "SELECT count(*) FROM pg_namespace WHERE nspname LIKE '"+db+"\\_%'"); n != 0 {
				t.Errorf("cleanup left %d tenant schemas", n)
			}
		})
	}
}

// TestRenamedTableKeptByCleanup: a table of stampede's load that the
// user renamed to keep it (ALTER TABLE bank RENAME TO bank_keep) was
// dropped by cleanup ("carries the mark of stampede's init of bank though
// its flags do not name it ...: cleanup drops it too"), exit 0, in every
// form, though the README says a renamed table is the user's. cleanup
// keeps it now and says so in one line; init --drop before it keeps it
// too. TPC-C's HammerDB orders table, which a cleanup without --profile
// does not name, is still dropped: another profile's name, not a rename.
func TestRenamedTableKeptByCleanup(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	sysbench := func(db, verb string) []string {
		p := strings.Split(strings.Split(testServer(t), "@127.0.0.1:")[1], "/")[0]
		return []string{"oltp_read_write", "--db-driver=pgsql", "--pgsql-host=127.0.0.1", "--pgsql-port=" + p, "--pgsql-user=postgres", "--pgsql-db=" + db, "--table-size=100", verb}
	}
	for _, c := range []struct {
		name, table string
		load        func(db string) []string
		cleanup     func(db string) []string
		drop        bool // init --drop before cleanup
	}{
		{"bank", "bank", func(db string) []string { return []string{"init", "bank", "--rows", "100", dbURL(t, db)} },
			func(db string) []string { return []string{"cleanup", "bank", dbURL(t, db)} }, false},
		{"bank after init --drop", "bank", func(db string) []string { return []string{"init", "bank", "--rows", "100", dbURL(t, db)} },
			func(db string) []string { return []string{"cleanup", "bank", dbURL(t, db)} }, true},
		{"ycsb", "usertable", func(db string) []string { return []string{"init", "ycsb", "-p", "recordcount=100", dbURL(t, db)} },
			func(db string) []string { return []string{"cleanup", "ycsb", dbURL(t, db)} }, false},
		{"sysbench form", "sbtest1", func(db string) []string { return sysbench(db, "prepare") },
			func(db string) []string { return sysbench(db, "cleanup") }, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := freshDB(t, "fix28ad_ren")
			adminExec(t, "CREATE DATABASE "+db)
			mustRun(t, c.load(db)...)
			execIn(t, db, "ALTER TABLE "+c.table+" RENAME TO "+c.table+"_keep")
			if c.drop {
				mustRun(t, append(c.load(db)[:len(c.load(db))-1], "--drop", dbURL(t, db))...)
			}
			r := mustRun(t, c.cleanup(db)...)
			want := "kept 1 table (" + c.table + "_keep): it carries the mark of stampede's init of"
			if !strings.Contains(r.stdout+r.stderr, want) || strings.Contains(r.stdout+r.stderr, "dropped table "+c.table+"_keep") {
				t.Errorf("cleanup does not keep %s_keep saying %q:\n%s%s", c.table, want, r.stdout, r.stderr)
			}
			if n := queryInt(t, db, "SELECT count(*) FROM "+c.table+"_keep"); n != 100 {
				t.Errorf("%d rows of %s_keep left, want 100", n, c.table)
			}
		})
	}
	t.Run("tpcc hammerdb orders", func(t *testing.T) {
		db := freshDB(t, "fix28ad_hdb")
		adminExec(t, "CREATE DATABASE "+db)
		mustRun(t, "init", "tpcc", "--warehouses", "1", "--profile", "hammerdb", dbURL(t, db))
		r := mustRun(t, "cleanup", "tpcc", dbURL(t, db))
		if strings.Contains(r.stdout+r.stderr, "kept") {
			t.Errorf("cleanup kept a table of the HammerDB profile as renamed:\n%s%s", r.stdout, r.stderr)
		}
		if n := queryInt(t, db, "SELECT count(*) FROM pg_class WHERE relname = 'orders'"); n != 0 {
			t.Errorf("cleanup without --profile left HammerDB's orders")
		}
	})
}

// TestForceDropLinesRead: the lines around --force-drop say what
// happened, once, in plain words: a demo's --force-drop that finds
// nothing to drop says so instead of nothing; a sweep's refused --reload
// names --reload, once; a fleet's --force-drop of two tenant databases
// says "databases", and column mode's cleanup of one tenant "1 tenant";
// a cleanup of a database that does not exist says there is nothing to
// clean up.
func TestForceDropLinesRead(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	t.Run("demo", func(t *testing.T) {
		t.Cleanup(func() { adminExec(t, "DROP DATABASE IF EXISTS stampede_demo WITH (FORCE)") })
		r := mustRun(t, "demo", "--force-drop", "--records", "1000", "--duration", "1s", dbURL(t, "postgres"))
		if want := `note: --force-drop dropped nothing: no database "stampede_demo" on `; !strings.Contains(r.stderr, want) {
			t.Errorf("the demo's --force-drop with nothing to drop does not say %q: %s", want, r.stderr)
		}
	})
	t.Run("sweep --reload", func(t *testing.T) {
		db := freshDB(t, "fix28ad_sw")
		adminExec(t, "CREATE DATABASE "+db)
		mustRun(t, "init", "ycsb", "-p", "recordcount=100", dbURL(t, db))
		execIn(t, db, "CREATE INDEX my_idx ON usertable (field1)")
		r := stampede(t, "sweep", "ycsb", "--workload", "c", "-p", "recordcount=100", "-p", "fieldlength=50,200", "--reload", "--duration", "1s", dbURL(t, db))
		checkFinalError(t, r, 2, "index public.my_idx on table usertable")
		if strings.Count(r.stdout+r.stderr, "my_idx") != 1 || !strings.Contains(r.stderr, "--reload drops nothing") {
			t.Errorf("the refusal is not said once, naming --reload:\n%s%s", r.stdout, r.stderr)
		}
	})
	t.Run("fleet wording", func(t *testing.T) {
		db := freshDB(t, "fix28ad_g")
		t.Cleanup(func() {
			adminExec(t, "DROP DATABASE IF EXISTS "+db+"_1 WITH (FORCE)", "DROP DATABASE IF EXISTS "+db+"_2 WITH (FORCE)")
		})
		fleet := []string{"--tenants", "2", "--tenant-pattern", db + "_%d", dbURL(t, "")}
		mustRun(t, append([]string{"init", "bank", "--rows", "20"}, fleet...)...)
		execIn(t, db+"_1", "CREATE TABLE mine (x int)")
		execIn(t, db+"_2", "CREATE TABLE mine (x int)")
		r := mustRun(t, append([]string{"cleanup", "bank", "--force-drop"}, fleet...)...)
		if want := "--force-drop: dropping databases " + db + "_1, " + db + "_2 with"; !strings.Contains(r.stdout+r.stderr, want) {
			t.Errorf("want %q:\n%s%s", want, r.stdout, r.stderr)
		}
		cdb := freshDB(t, "fix28ad_gc")
		adminExec(t, "CREATE DATABASE "+cdb)
		mustRun(t, "init", "bank", "--rows", "20", "--tenants", "1", "--tenant-mode", "column", dbURL(t, cdb))
		r = mustRun(t, "cleanup", "bank", "--tenants", "1", "--tenant-mode", "column", dbURL(t, cdb))
		if want := "dropped the shared tables of 1 tenant from"; !strings.Contains(r.stdout, want) {
			t.Errorf("want %q: %s", want, r.stdout)
		}
	})
	t.Run("no database", func(t *testing.T) {
		r := stampede(t, "cleanup", "bank", dbURL(t, "fix28ad_nosuch"))
		checkOneLineError(t, r, 1, `database "fix28ad_nosuch" does not exist on `)
	})
}
