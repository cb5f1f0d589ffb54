package cli_test

import (
	"fmt"
	"testing"
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
