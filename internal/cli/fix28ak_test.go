package cli_test

import (
	"strings"
	"testing"
)

// TestFleetExecOutsideCleanup (issue 28 F6): what `fleet exec` makes
// outside the tenants of a schema- or column-mode fleet (a schema, a
// table in it, an extension) is dropped by cleanup after the tenants, and
// cleanup's output names it; a user's table put in the exec-made schema
// is refused in one line (exit 2) with every row kept, then dropped by
// --force-drop; the user's own tables elsewhere keep every row.
func TestFleetExecOutsideCleanup(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	for _, mode := range []string{"schema", "column"} {
		t.Run(mode, func(t *testing.T) {
			db := freshDB(t, "fix28ak_cli")
			adminExec(t, "CREATE DATABASE "+db)
			execIn(t, db, "CREATE TABLE public.mine (id int)", "INSERT INTO public.mine VALUES (1), (2)",
				"CREATE SCHEMA app", "CREATE TABLE app.t (x int)", "INSERT INTO app.t VALUES (7)")
			fleet := []string{"--tenants", "3", "--tenant-mode", mode}
			base := dbURL(t, db)
			mustRun(t, append(append([]string{"init", "bank", "--rows", "10"}, fleet...), base)...)
			for _, s := range []string{"CREATE SCHEMA IF NOT EXISTS audit", "CREATE TABLE IF NOT EXISTS audit.log (id int)", "CREATE EXTENSION IF NOT EXISTS pg_trgm"} {
				mustRun(t, append(append([]string{"fleet", "exec", "--workload", "bank", "--concurrency", "1", s}, fleet...), base)...)
			}
			execIn(t, db, "CREATE TABLE audit.mine (x int)", "INSERT INTO audit.mine VALUES (5)")
			r := stampede(t, append(append([]string{"cleanup", "bank"}, fleet...), base)...)
			checkOneLineError(t, r, 2, "table audit.mine")
			if !strings.Contains(r.stderr, "--force-drop") {
				t.Errorf("the refusal names no --force-drop: %s", r.stderr)
			}
			if n := queryInt(t, db, "SELECT sum(x) FROM audit.mine"); n != 5 {
				t.Fatalf("the user's row in audit.mine: %d, want 5", n)
			}
			if n := queryInt(t, db, "SELECT count(*) FROM pg_extension WHERE extname = 'pg_trgm'") + queryInt(t, db, "SELECT count(*) FROM pg_tables WHERE tablename = 'bank'"); n < 2 {
				t.Fatalf("the refused cleanup dropped the extension or the fleet's tables (%d left)", n)
			}
			r = mustRun(t, append(append([]string{"cleanup", "bank", "--force-drop"}, fleet...), base)...)
			if !strings.Contains(r.stdout, "dropped what fleet exec made outside the tenants: ") || !strings.Contains(r.stdout, "schema audit") || !strings.Contains(r.stdout, "table audit.log") {
				t.Errorf("cleanup's output does not name what exec made outside the tenants:\n%s", r.stdout)
			}
			if n := queryInt(t, db, "SELECT count(*) FROM pg_namespace WHERE nspname IN ('audit', 'bank_1', 'bank_2', 'bank_3')") +
				queryInt(t, db, "SELECT count(*) FROM pg_extension WHERE extname = 'pg_trgm'") +
				queryInt(t, db, "SELECT count(*) FROM pg_tables WHERE tablename IN ('bank', 'log', 'stampede_tenant')"); n != 0 {
				t.Errorf("%d of the tenants, the shared tables and what exec made are left after cleanup --force-drop", n)
			}
			if n := queryInt(t, db, "SELECT (SELECT sum(id) FROM public.mine) + (SELECT sum(x) FROM app.t)"); n != 10 {
				t.Errorf("the user's own rows sum to %d after cleanup, want 10", n)
			}
		})
	}
}
