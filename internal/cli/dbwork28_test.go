package cli_test

import (
	"strings"
	"testing"
)

// TestDatabaseWorkRefused: every verb that drops a whole database that
// stampede made dropped with it a user's work on the database itself
// (here ALTER DATABASE ... SET work_mem), exit 0 (fails on the old
// code). Each refuses now in one line naming the database, the setting
// and --force-drop; the setting survives; --force-drop drops it.
func TestDatabaseWorkRefused(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	set := "ALTER DATABASE %s SET work_mem = '64MB'"
	kept := func(t *testing.T, db string) {
		t.Helper()
		if n := queryInt(t, "postgres", "SELECT count(*) FROM pg_db_role_setting s JOIN pg_database d ON d.oid = s.setdatabase WHERE d.datname = '"+db+"'"); n != 1 {
			t.Errorf("the setting on %s is gone after the refusal", db)
		}
	}
	exists := func(db string) bool {
		return queryInt(t, "postgres", "SELECT count(*) FROM pg_database WHERE datname = '"+db+"'") == 1
	}
	t.Run("fleet cleanup --tenants", func(t *testing.T) {
		base := freshDB(t, "fix28ah_fc")
		adminExec(t, "CREATE DATABASE "+base)
		pattern := base + "_t%d"
		t.Cleanup(func() {
			adminExec(t, "DROP DATABASE IF EXISTS "+base+"_t1 WITH (FORCE)", "DROP DATABASE IF EXISTS "+base+"_t2 WITH (FORCE)")
		})
		fleet := []string{"--tenants", "2", "--tenant-pattern", pattern, dbURL(t, base)}
		mustRun(t, append([]string{"init", "bank", "--rows", "10"}, fleet...)...)
		adminExec(t, strings.ReplaceAll(set, "%s", base+"_t2"))
		r := stampede(t, append([]string{"cleanup", "bank"}, fleet...)...)
		checkOneLineError(t, r, 2, `database "`+base+`_t2" on `)
		if !strings.Contains(r.stderr, "has a user's setting work_mem=64MB, which dropping it would lose: cleanup drops nothing; to drop it anyway, add --force-drop") {
			t.Errorf("cleanup: %s", r.stderr)
		}
		kept(t, base+"_t2")
		if !exists(base+"_t1") || !exists(base+"_t2") {
			t.Error("a tenant went although cleanup refused")
		}
		r = mustRun(t, append([]string{"cleanup", "bank", "--force-drop"}, fleet...)...)
		if !strings.Contains(r.stderr, `--force-drop: dropping database "`+base+`_t2" and with it a user's setting work_mem=64MB`) || exists(base+"_t2") {
			t.Errorf("cleanup --force-drop: %s", r.stderr)
		}
	})
	t.Run("cockroach form --drop", func(t *testing.T) {
		db := freshDB(t, "fix28ah_cr")
		mustRun(t, "workload", "init", "bank", "--rows", "10", "--db", db, dbURL(t, db))
		adminExec(t, strings.ReplaceAll(set, "%s", db))
		drop := []string{"workload", "init", "bank", "--drop", "--rows", "10", "--db", db, dbURL(t, db)}
		r := stampede(t, drop...)
		checkOneLineError(t, r, 2, "holds 1 object that stampede did not make (database setting work_mem=64MB): --drop leaves the database alone; to drop it anyway, add --force-drop")
		kept(t, db)
		r = mustRun(t, append(drop, "--force-drop")...)
		if !strings.Contains(r.stderr, "--force-drop: dropping database \""+db+"\" with objects stampede did not make: database setting work_mem=64MB") {
			t.Errorf("--force-drop: %s", r.stderr)
		}
	})
	t.Run("demo", func(t *testing.T) {
		t.Cleanup(func() { adminExec(t, "DROP DATABASE IF EXISTS stampede_demo WITH (FORCE)") })
		url := dbURL(t, "postgres")
		mustRun(t, "demo", "--keep", "--records", "1000", "--duration", "1s", url)
		adminExec(t, strings.ReplaceAll(set, "%s", "stampede_demo"))
		r := stampede(t, "demo", "--records", "1000", "--duration", "1s", url)
		checkOneLineError(t, r, 2, "(database setting work_mem=64MB): the demo leaves the database alone; to drop it anyway, add --force-drop")
		kept(t, "stampede_demo")
	})
}
