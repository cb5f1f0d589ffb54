package cli_test

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestTenantCopyNeverDrops: a database-mode fleet's tenants are clones of
// its first tenant (CREATE DATABASE ... TEMPLATE), each marked as
// stampede's once made, so a cleanup of one tenant (--db) and of the
// fleet go on; a user's own CREATE DATABASE ... TEMPLATE of a tenant
// holds the tenant's marker but not the mark, and its cleanup --db (and
// init --drop) dropped its bank with the user's row, exit 0. Now each is
// refused in one line naming the copy and --force-drop, and the row
// stays; --force-drop drops it and says so.
func TestTenantCopyNeverDrops(t *testing.T) {
	srv := testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	pattern := fmt.Sprintf("fix28aa_t%d_%%d", time.Now().UnixNano()%1e6)
	cp := freshDB(t, "fix28aa_tcopy")
	t.Cleanup(func() {
		for i := 1; i <= 3; i++ {
			adminExec(t, "DROP DATABASE IF EXISTS "+fmt.Sprintf(pattern, i)+" WITH (FORCE)")
		}
	})
	fleet := []string{"--tenants", "3", "--tenant-pattern", pattern}
	mustRun(t, append(append([]string{"init", "bank", "--rows", "10"}, fleet...), srv)...)
	adminExec(t, "CREATE DATABASE "+cp+" TEMPLATE "+fmt.Sprintf(pattern, 1))
	execIn(t, cp, "INSERT INTO bank VALUES (100000, 5, 'mine')")
	for _, args := range [][]string{
		{"cleanup", "bank", "--db", cp, srv},
		{"init", "bank", "--rows", "10", "--drop", "--db", cp, srv},
	} {
		r := stampede(t, args...)
		action := map[string]string{"cleanup": "cleanup", "init": "--drop"}[args[0]]
		checkOneLineError(t, r, 2, fmt.Sprintf(`database %q, a copy of a fleet's tenant made with CREATE DATABASE ... TEMPLATE (it holds the tenant's marker, stampede_tenant, but not the tenant mark stampede binds to each tenant database it makes), which stampede did not make: %s drops nothing; to drop its tables anyway, add --force-drop`, cp, action))
		if n := queryInt(t, cp, "SELECT count(*) FROM bank WHERE payload = 'mine'"); n != 1 {
			t.Fatalf("%v: the user's row: %d left", args, n)
		}
	}
	// A tenant of stampede's alone, then the fleet: stampede's own clones.
	one := fmt.Sprintf(pattern, 2)
	mustRun(t, "cleanup", "bank", "--db", one, srv)
	if n := queryInt(t, one, "SELECT count(*) FROM pg_class WHERE relname = 'bank'"); n != 0 {
		t.Errorf("cleanup --db %s left its bank", one)
	}
	r := mustRun(t, append(append([]string{"cleanup", "bank"}, fleet...), srv)...)
	if !strings.Contains(r.stdout+r.stderr, "dropped 3 tenant databases") {
		t.Errorf("the fleet's cleanup: %s%s", r.stdout, r.stderr)
	}
	r = mustRun(t, "cleanup", "bank", "--force-drop", "--db", cp, srv)
	if !strings.Contains(r.stdout+r.stderr, fmt.Sprintf(`--force-drop: dropping tables of database %q, a copy of a fleet's tenant`, cp)) {
		t.Errorf("--force-drop does not say it drops a copy's tables: %s%s", r.stdout, r.stderr)
	}
	if n := queryInt(t, cp, "SELECT count(*) FROM pg_class WHERE relname = 'bank'"); n != 0 {
		t.Errorf("--force-drop left bank in the copy")
	}
}

// TestCleanupAfterInitFlags: a bare cleanup after an init given flags
// beside the data's goes on: --json (the table's layout, which the load
// now records and cleanup adopts; the field column was refused as one
// the user added) and flags that change nothing of the data
// (--concurrency, --seed, --analyze). A run without --json takes it from
// the load and says so.
func TestCleanupAfterInitFlags(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	for _, flags := range [][]string{
		{"--json"},
		{"--concurrency", "2"},
		{"--seed", "3"},
		{"--analyze=false"},
		{"--json", "--concurrency", "1", "--seed", "5"},
	} {
		t.Run(strings.Join(flags, " "), func(t *testing.T) {
			db := freshDB(t, "fix28aa_flags")
			mustRun(t, append(append([]string{"init", "ycsb", "-p", "recordcount=20"}, flags...), dbURL(t, db))...)
			if slices.Contains(flags, "--json") {
				r := mustRun(t, "run", "ycsb", "--max-ops", "10", dbURL(t, db))
				if !strings.Contains(r.stderr, "using --json=true, -p recordcount=20, as init (of ycsb) loaded") {
					t.Errorf("run without --json: %s", r.stderr)
				}
			}
			r := mustRun(t, "cleanup", "ycsb", dbURL(t, db))
			if !strings.Contains(r.stdout+r.stderr, "dropped table usertable") {
				t.Errorf("cleanup: %s%s", r.stdout, r.stderr)
			}
			if n := queryInt(t, db, "SELECT count(*) FROM pg_class WHERE relname IN ('usertable', 'stampede_load')"); n != 0 {
				t.Errorf("cleanup left %d of usertable and stampede_load", n)
			}
		})
	}
}

// TestRestoredCopyNamesItsMark: a table stampede loaded, restored into
// another database with pg_dump -t, carries the mark bound to the
// source's OID; cleanup and init --drop said "no mark of stampede's
// init on it". Now the one line says what was found, a copy of a table
// stampede made in another database, by both OIDs, and --force-drop;
// every row survives.
func TestRestoredCopyNamesItsMark(t *testing.T) {
	srv := testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	host := func() string { u, _ := url.Parse(srv); return u.Host }()
	src, dst := freshDB(t, "fix28aa_rsrc"), freshDB(t, "fix28aa_rdst")
	mustRun(t, "init", "bank", "--rows", "40", dbURL(t, src))
	adminExec(t, "CREATE DATABASE "+dst)
	restoreTables(t, src, dst, []string{"bank"})
	from, own := queryInt(t, src, "SELECT 'bank'::regclass::oid::int"), queryInt(t, dst, "SELECT 'bank'::regclass::oid::int")
	for _, c := range []struct {
		args   []string
		action string
	}{
		{[]string{"cleanup", "bank"}, "cleanup"},
		{[]string{"init", "bank", "--rows", "40", "--drop"}, "--drop"},
	} {
		r := stampede(t, append(c.args, dbURL(t, dst))...)
		checkOneLineError(t, r, 2, fmt.Sprintf(`table bank in database %q on %s was not made by stampede (a copy of a table stampede made in another database (a restore of its pg_dump, say): it carries the mark bound to that table's OID, %d, not to its own, %d): %s leaves it alone; to drop it anyway, add --force-drop`,
			dst, host, from, own, c.action))
		if n := queryInt(t, dst, "SELECT count(*) FROM bank"); n != 40 {
			t.Fatalf("%v: %d rows of the copy left, want 40", c.args, n)
		}
	}
}
