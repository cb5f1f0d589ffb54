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
	if !strings.Contains(r.stdout+r.stderr, fmt.Sprintf(`--force-drop: dropping the tables of database %q, a copy of a fleet's tenant`, cp)) {
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

// TestUsersRecordTableUntouched: a table of the user's named
// stampede_load, which stampede did not make (other columns, a column of
// the user's, a comment of the user's, or the record's columns but
// neither stampede's mark nor loaded_at), is refused by cleanup and init,
// with or without --force-drop, in one line naming it, how it differs
// and what to do; it is never written (init added its columns and its
// record to one of the record's columns). Stampede's own record carries
// its mark, and an older one without it still cleans up.
func TestUsersRecordTableUntouched(t *testing.T) {
	srv := testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	host := func() string { u, _ := url.Parse(srv); return u.Host }()
	const shape = "data text PRIMARY KEY, workload text NOT NULL, version text NOT NULL, settings text NOT NULL"
	for _, c := range []struct {
		name, create, why string
	}{
		{"other columns", "CREATE TABLE stampede_load (id int PRIMARY KEY, note text); INSERT INTO stampede_load VALUES (1, 'mine')",
			"it has not the columns data, workload, version, settings"},
		{"a column of the user's", "CREATE TABLE stampede_load (" + shape + ", note text); INSERT INTO stampede_load VALUES ('ycsb', 'ycsb', '1', '{}', 'mine')",
			"it has columns stampede's record has not: note"},
		{"a comment of the user's", "CREATE TABLE stampede_load (" + shape + ", loaded_at timestamptz); INSERT INTO stampede_load VALUES ('ycsb', 'ycsb', '1', '{}', now()); COMMENT ON TABLE stampede_load IS 'my jobs'",
			"it carries a comment, not stampede's mark"},
		{"the record's columns alone", "CREATE TABLE stampede_load (" + shape + "); INSERT INTO stampede_load VALUES ('ycsb', 'ycsb', '1', '{}')",
			"it carries neither stampede's mark nor the column loaded_at that every record of stampede's has"},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := freshDB(t, "fix28aa_rec")
			adminExec(t, "CREATE DATABASE "+db)
			execIn(t, db, c.create)
			fingerprint := `SELECT (SELECT string_agg(attname || ' ' || format_type(atttypid, atttypmod), ', ' ORDER BY attnum) FROM pg_attribute
				WHERE attrelid = 'stampede_load'::regclass AND attnum > 0 AND NOT attisdropped)
				|| ' | ' || coalesce(obj_description('stampede_load'::regclass, 'pg_class'), '') || ' | ' || (SELECT string_agg(t::text, ';') FROM stampede_load t)`
			before := queryString(t, db, fingerprint)
			for _, args := range [][]string{
				{"cleanup", "ycsb"},
				{"cleanup", "ycsb", "--force-drop"},
				{"init", "ycsb", "-p", "recordcount=10"},
				{"init", "ycsb", "-p", "recordcount=10", "--drop", "--force-drop"},
			} {
				r := stampede(t, append(args, dbURL(t, db))...)
				checkOneLineError(t, r, 2, fmt.Sprintf(`table stampede_load in database %q on %s is not stampede's record of what init loaded (%s): a table of yours with the name stampede records its loads under, which stampede never reads, writes or drops (--force-drop neither); rename it (ALTER TABLE stampede_load RENAME TO ...), or use another database`,
					db, host, c.why))
				if after := queryString(t, db, fingerprint); after != before {
					t.Fatalf("%v changed the user's stampede_load: %s, was %s", args, after, before)
				}
			}
			if n := queryInt(t, db, "SELECT count(*) FROM pg_class WHERE relname = 'usertable'"); n != 0 {
				t.Errorf("init loaded usertable beside the user's stampede_load")
			}
		})
	}
	t.Run("stampede's own", func(t *testing.T) {
		db := freshDB(t, "fix28aa_rec")
		mustRun(t, "init", "ycsb", "-p", "recordcount=10", dbURL(t, db))
		if c := queryString(t, db, "SELECT obj_description('stampede_load'::regclass, 'pg_class')"); !strings.HasPrefix(c, "made by stampede init: its record of the loads in this database; oid ") {
			t.Errorf("stampede's record carries %q, not its mark", c)
		}
		mustRun(t, "init", "bank", "--rows", "10", dbURL(t, db))
		execIn(t, db, "COMMENT ON TABLE stampede_load IS NULL") // as an older stampede left it
		mustRun(t, "cleanup", "ycsb", dbURL(t, db))
		mustRun(t, "cleanup", "bank", dbURL(t, db))
		if n := queryInt(t, db, "SELECT count(*) FROM pg_class WHERE relname IN ('usertable', 'bank', 'stampede_load')"); n != 0 {
			t.Errorf("cleanup left %d of usertable, bank and stampede_load", n)
		}
	})
}

// TestUnreadableRecordAsFleets: a role that may not read where init
// recorded the data flags (a single database's stampede_load, a fleet's
// stampede_tenant) runs and checks with the flags given and the
// defaults, in both forms, each saying so in one warning line that names
// the table and what to grant (a single database's run and check were
// refused, a fleet's went on). A single database's cleanup, which must
// remove the load's record, is refused naming the grant it needs, and
// drops nothing.
func TestUnreadableRecordAsFleets(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	role := fmt.Sprintf("fix28aa_ro_%d", time.Now().UnixNano()%1e9)
	adminExec(t, "CREATE ROLE "+role+" LOGIN")
	one, fl := freshDB(t, "fix28aa_one"), freshDB(t, "fix28aa_fl")
	t.Cleanup(func() {
		adminExec(t, "DROP DATABASE IF EXISTS "+one+" WITH (FORCE)", "DROP DATABASE IF EXISTS "+fl+" WITH (FORCE)", "DROP ROLE IF EXISTS "+role)
	})
	adminExec(t, "CREATE DATABASE "+one, "CREATE DATABASE "+fl)
	mustRun(t, "init", "bank", "--rows", "10", dbURL(t, one))
	mustRun(t, "init", "bank", "--rows", "10", "--tenants", "2", "--tenant-mode", "schema", dbURL(t, fl))
	execIn(t, one, "ALTER TABLE bank OWNER TO "+role, "REVOKE ALL ON stampede_load FROM "+role)
	execIn(t, fl, "GRANT USAGE ON SCHEMA bank_1, bank_2 TO "+role, "GRANT SELECT, UPDATE ON bank_1.bank, bank_2.bank TO "+role)
	for _, c := range []struct {
		name, db, warning string
		fleet             []string
	}{
		{"single database", one, "warning: role " + role + " may not read table stampede_load (stampede's record of what init loaded), so the defaults --initial-balance 1000 stand: give init's data flags on the command line, or have postgres `GRANT SELECT ON stampede_load TO " + role + "`", nil},
		{"fleet", fl, "warning: this role may not read table stampede_tenant in schema \"bank_1\" of database \"" + fl + "\", where init recorded the fleet's data flags, so the defaults --initial-balance 1000 stand: give init's data flags on the command line",
			[]string{"--tenants", "2", "--tenant-mode", "schema"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, verb := range [][]string{{"run", "bank", "--rows", "10", "--max-ops", "20"}, {"check", "bank", "--rows", "10"}} {
				r := stampede(t, append(append(verb, c.fleet...), roleURL(t, c.db, role))...)
				if r.code != 0 || !strings.Contains(r.stderr, c.warning+"\n") {
					t.Errorf("%v: exit %d, want 0 and the warning %q:\n%s", verb, r.code, c.warning, r.stderr)
				}
			}
		})
	}
	r := stampede(t, "cleanup", "bank", roleURL(t, one, role))
	checkOneLineError(t, r, 1, "role "+role+" may not read table stampede_load (stampede's record of what init loaded), which belongs to role postgres: connect as postgres or a superuser, or have postgres `GRANT SELECT, DELETE ON stampede_load TO "+role+"`; cleanup removes the load's record there, so it drops nothing")
	if n := queryInt(t, one, "SELECT count(*) FROM bank"); n != 10 {
		t.Errorf("bank holds %d rows after the refused cleanup, want 10", n)
	}
}
