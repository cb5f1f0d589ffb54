package cli_test

import (
	"strings"
	"testing"
)

// TestFleetExecIndexMarkBound (chk28d F4's nit): an index fleet exec made
// (CREATE INDEX CONCURRENTLY too) carried a mark without an OID, which
// anyone can write on a user's index; the census now takes an index's
// mark only when bound to the index's own OID. fleet exec binds it, so
// cleanup still drops the tenants with the index, in database and schema
// modes; a copy of that mark on a user's index is refused.
func TestFleetExecIndexMarkBound(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	for _, mode := range []string{"database", "schema"} {
		t.Run(mode, func(t *testing.T) {
			db := freshDB(t, "fix28aj_ix")
			fleet := []string{"--tenants", "2", "--tenant-mode", mode, "--tenant-pattern", db + "_%d"}
			base, in, schema := dbURL(t, db), db, db+"_1"
			if mode == "database" {
				base, in, schema = dbURL(t, ""), db+"_1", "public"
				t.Cleanup(func() {
					adminExec(t, "DROP DATABASE IF EXISTS "+db+"_1 WITH (FORCE)", "DROP DATABASE IF EXISTS "+db+"_2 WITH (FORCE)")
				})
			} else {
				adminExec(t, "CREATE DATABASE "+db)
			}
			mustRun(t, append(append([]string{"init", "bank", "--rows", "20"}, fleet...), base)...)
			mustRun(t, append(append([]string{"fleet", "exec", "--workload", "bank", "CREATE INDEX CONCURRENTLY ex_idx ON bank (balance)"}, fleet...), base)...)
			if n := queryInt(t, in, "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = '"+schema+
				"' AND c.relname = 'ex_idx' AND obj_description(c.oid, 'pg_class') = 'made by stampede fleet exec; oid ' || c.oid"); n != 1 {
				t.Fatalf("fleet exec's index in %s.%s carries %d marks bound to its OID, want 1", in, schema, n)
			}
			// The same mark copied onto a user's index is no mark.
			execIn(t, in, "CREATE INDEX my_idx ON "+schema+".bank (id, balance)",
				"DO $$ BEGIN EXECUTE format('COMMENT ON INDEX "+schema+".my_idx IS %L', obj_description('"+schema+".ex_idx'::regclass, 'pg_class')); END $$")
			r := stampede(t, append(append([]string{"cleanup", "bank"}, fleet...), base)...)
			checkOneLineError(t, r, 2, "my_idx")
			if strings.Contains(r.stderr, "ex_idx") {
				t.Errorf("cleanup names fleet exec's index as the user's: %s", r.stderr)
			}
			execIn(t, in, "DROP INDEX "+schema+".my_idx")
			mustRun(t, append(append([]string{"cleanup", "bank"}, fleet...), base)...)
		})
	}
}
