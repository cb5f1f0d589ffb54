package cli_test

import (
	"strings"
	"testing"
)

// TestTemplateCopyNeverDrops: a database a user copied with CREATE
// DATABASE ... TEMPLATE from one stampede loaded keeps every table's OID,
// so the tables' bound marks match, and init's record with them; the
// record's database OID (written by init) is the source's, so cleanup and
// init --drop on the copy refuse in one line naming the source and
// --force-drop, exit 2, and every row survives; --force-drop drops; and
// cleanup of the source still works.
func TestTemplateCopyNeverDrops(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	src, cp := freshDB(t, "fix28z_src"), freshDB(t, "fix28z_copy")
	mustRun(t, "init", "bank", "--rows", "40", dbURL(t, src))
	adminExec(t, "CREATE DATABASE "+cp+" TEMPLATE "+src)
	// The user's edit: a transfer of 7, which keeps bank's invariant.
	execIn(t, cp, "UPDATE bank SET balance = balance + 7 WHERE id = 1", "UPDATE bank SET balance = balance - 7 WHERE id = 2")
	want := queryInt(t, cp, "SELECT balance FROM bank WHERE id = 1")
	for _, args := range [][]string{
		{"cleanup", "bank", dbURL(t, cp)},
		{"init", "bank", "--drop", "--rows", "40", dbURL(t, cp)},
	} {
		r := stampede(t, args...)
		checkOneLineError(t, r, 2, "looks like a copy of database \""+src+"\"")
		for _, w := range []string{"CREATE DATABASE ... TEMPLATE", "--force-drop"} {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%v: the refusal does not say %s: %s", args, w, r.stderr)
			}
		}
		if got := queryInt(t, cp, "SELECT count(*) FROM bank"); got != 40 {
			t.Fatalf("%v: %d rows of bank left in the copy, want 40", args, got)
		}
		if got := queryInt(t, cp, "SELECT balance FROM bank WHERE id = 1"); got != want {
			t.Fatalf("%v: the copy's edited balance is %d, want %d", args, got, want)
		}
	}
	// run and check do not drop: they work on the copy.
	mustRun(t, "check", "bank", dbURL(t, cp))
	r := mustRun(t, "cleanup", "bank", "--force-drop", dbURL(t, cp))
	if !strings.Contains(r.stdout+r.stderr, "looks like a copy") {
		t.Errorf("--force-drop does not say it drops a copy's tables: %s%s", r.stdout, r.stderr)
	}
	if n := queryInt(t, cp, "SELECT count(*) FROM pg_class WHERE relname = 'bank'"); n != 0 {
		t.Errorf("--force-drop left bank in the copy")
	}
	mustRun(t, "cleanup", "bank", dbURL(t, src))
	if n := queryInt(t, src, "SELECT count(*) FROM pg_class WHERE relname = 'bank'"); n != 0 {
		t.Errorf("cleanup of stampede's own load left bank")
	}
}

// TestUserIndexNeverDrops: an index a user adds to stampede's table is
// refused by cleanup and init --drop in one line naming it and
// --force-drop, exit 2, index and rows kept, as a trigger is; stampede's
// own indexes (primary keys, TPC-C's secondary ones) are not; with
// --force-drop the index goes and the line says so.
func TestUserIndexNeverDrops(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	for _, c := range []struct {
		name, table, cols string
		init              []string
	}{
		{"bank", "bank", "balance, id", []string{"bank", "--rows", "40"}},
		{"tpcc", "customer", "c_balance", []string{"tpcc", "--warehouses", "1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := freshDB(t, "fix28z_idx")
			mustRun(t, append([]string{"init"}, append(c.init, dbURL(t, db))...)...)
			rows := queryInt(t, db, "SELECT count(*) FROM "+c.table)
			// Stampede's own indexes alone: init --drop works as before.
			mustRun(t, append([]string{"init"}, append(c.init, "--drop", dbURL(t, db))...)...)
			execIn(t, db, "CREATE INDEX my_idx ON "+c.table+" ("+c.cols+")")
			for _, args := range [][]string{
				{"cleanup", c.init[0], dbURL(t, db)},
				append([]string{"init"}, append(c.init, "--drop", dbURL(t, db))...),
			} {
				r := stampede(t, args...)
				checkOneLineError(t, r, 2, "index public.my_idx on table "+c.table)
				if !strings.Contains(r.stderr, "--force-drop") {
					t.Errorf("%v: the refusal does not name --force-drop: %s", args, r.stderr)
				}
				if n := queryInt(t, db, "SELECT count(*) FROM pg_class WHERE relname = 'my_idx'"); n != 1 {
					t.Fatalf("%v: the user's index is gone", args)
				}
				if n := queryInt(t, db, "SELECT count(*) FROM "+c.table); n != rows {
					t.Fatalf("%v: %d rows of %s left, want %d", args, n, c.table, rows)
				}
			}
			r := mustRun(t, "cleanup", c.init[0], "--force-drop", dbURL(t, db))
			if !strings.Contains(r.stdout+r.stderr, "my_idx") {
				t.Errorf("--force-drop does not say it drops my_idx: %s%s", r.stdout, r.stderr)
			}
			if n := queryInt(t, db, "SELECT count(*) FROM pg_class WHERE relname IN ('my_idx', '"+c.table+"')"); n != 0 {
				t.Errorf("--force-drop left the index or its table")
			}
			// Without the user's index, cleanup works as before.
			mustRun(t, append([]string{"init"}, append(c.init, dbURL(t, db))...)...)
			mustRun(t, "cleanup", c.init[0], dbURL(t, db))
			if n := queryInt(t, db, "SELECT count(*) FROM pg_class WHERE relname = '"+c.table+"'"); n != 0 {
				t.Errorf("cleanup left %s", c.table)
			}
		})
	}
}

// TestOtherProfilesIndexesAreStampedes: a bare cleanup of a TPC-C load
// made with --profile hammerdb (whose indexes are HammerDB's,
// customer_i2 and orders_i2) takes them for TPC-C's, not a user's, and
// drops the load.
func TestOtherProfilesIndexesAreStampedes(t *testing.T) {
	testServer(t)
	db := freshDB(t, "fix28z_hdb")
	if r := stampede(t, "init", "tpcc", "--warehouses", "1", "--profile", "hammerdb", "--db", db, testServer(t)); r.code != 0 {
		t.Fatalf("init: exit %d\n%s", r.code, r.stderr)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM pg_class WHERE relname IN ('customer_i2', 'orders_i2')"); n != 2 {
		t.Fatalf("%d of HammerDB's 2 indexes after init", n)
	}
	if r := stampede(t, "cleanup", "tpcc", "--db", db, testServer(t)); r.code != 0 {
		t.Fatalf("a bare cleanup of a --profile hammerdb load: exit %d\n%s", r.code, r.stderr)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"); n != 0 {
		t.Errorf("%d tables left after cleanup", n)
	}
}
