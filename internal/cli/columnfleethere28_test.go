package cli_test

import (
	"strings"
	"testing"
)

// TestColumnFleetNamedByPlainCleanup: cleanup or init --drop without the
// fleet's flags on a column-mode fleet's database called the fleet's
// tenant_id "a column added since init" (chk28e NIT); they name the fleet
// and the command that drops or reloads it, which runs as written, and
// every row stays until it does.
func TestColumnFleetNamedByPlainCleanup(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "colfleet_plain")
	adminExec(t, "CREATE DATABASE "+db)
	u := dbURL(t, db)
	mustRun(t, "init", "bank", "--rows", "10", "--tenants", "3", "--tenant-mode", "column", u)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"cleanup", "bank", u}, "holds a column-mode fleet of 3 bank tenants (its shared tables' tenant_id column): cleanup drops nothing without the fleet's flags; `stampede cleanup bank --tenants 3 --tenant-mode column"},
		{[]string{"init", "bank", "--drop", "--rows", "10", u}, "--drop drops nothing without the fleet's flags; `stampede init bank --drop --tenants 3 --tenant-mode column --rows 10"},
	} {
		r := stampede(t, tc.args...)
		checkOneLineError(t, r, 2, tc.want)
		if got := queryInt(t, db, "SELECT count(*) FROM bank"); got != 30 {
			t.Fatalf("%v: %d rows after the refusal, want 30", tc.args, got)
		}
	}
	r := stampede(t, "cleanup", "bank", u)
	cmd := r.stderr[strings.Index(r.stderr, "`")+1 : strings.LastIndex(r.stderr, "`")]
	words := strings.Fields(cmd)[1:]
	for i, w := range words {
		words[i] = strings.Trim(w, "'")
	}
	mustRun(t, words...)
	if got := queryInt(t, db, "SELECT count(*) FROM pg_tables WHERE tablename = 'bank'"); got != 0 {
		t.Errorf("after the suggested %q, table bank is still there", cmd)
	}
}

// TestSchemaFleetNamedByPlainCleanup: a plain cleanup of a database that
// holds a schema-mode fleet found no plain load and said only "nothing to
// drop" (the recheck of chk28e); it names the fleet's tenant schemas and
// the command that drops them, and drops nothing.
func TestSchemaFleetNamedByPlainCleanup(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "schemafleet_plain")
	adminExec(t, "CREATE DATABASE "+db)
	u := dbURL(t, db)
	mustRun(t, "init", "bank", "--rows", "10", "--tenants", "2", "--tenant-mode", "schema", u)
	r := mustRun(t, "cleanup", "bank", u)
	if !strings.Contains(r.stderr, "nothing to drop (it holds 2 tenant schemas of a schema-mode fleet of bank: `stampede cleanup bank --tenants 2 --tenant-mode schema`") {
		t.Errorf("plain cleanup of a schema fleet's database:\n%s", r.stderr)
	}
	if got := queryInt(t, db, "SELECT count(*) FROM bank_2.bank"); got != 10 {
		t.Errorf("%d rows in bank_2.bank, want 10", got)
	}
}
