package cli_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestFleetKeepsRenamedTables: a table of a tenant's load that the user
// renamed to keep it (ALTER TABLE bank RENAME TO bank_keep) went with the
// tenant database or schema, exit 0, under cleanup, init --drop and the
// init that resumes the fleet (which counted the tenant as loaded). Each
// now refuses in one line naming the tenant, the table and --force-drop,
// exit 2, and every row survives; --force-drop alone drops the fleet.
func TestFleetKeepsRenamedTables(t *testing.T) {
	srv := testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	host := func() string { u, _ := url.Parse(srv); return u.Host }()
	pattern := fmt.Sprintf("ren%d_%%d", time.Now().UnixNano()%1e6)
	schemaDB := freshDB(t, "fix28ren")
	for _, tc := range []struct {
		mode, url string
		fleet     []string
		db, table string // where the renamed table is, and its name there
		tenant    string // the refusal's tenant and place
	}{
		{"database", u0(t), []string{"--tenants", "2", "--tenant-pattern", pattern}, fmt.Sprintf(pattern, 2), "public.bank_keep",
			fmt.Sprintf(`database %q on %s`, fmt.Sprintf(pattern, 2), host)},
		{"schema", dbURL(t, schemaDB), []string{"--tenants", "2", "--tenant-mode", "schema"}, schemaDB, "bank_2.bank_keep",
			fmt.Sprintf(`schema "bank_2" in database %q on %s`, schemaDB, host)},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Cleanup(func() {
				for i := 1; i <= 2; i++ {
					adminExec(t, "DROP DATABASE IF EXISTS "+fmt.Sprintf(pattern, i)+" WITH (FORCE)")
				}
			})
			mustRun(t, append(append([]string{"init", "bank", "--rows", "10"}, tc.fleet...), tc.url)...)
			bank := strings.TrimSuffix(tc.table, "_keep")
			execIn(t, tc.db, "ALTER TABLE "+bank+" RENAME TO bank_keep", "UPDATE "+tc.table+" SET balance = balance + 1")
			sum := queryInt(t, tc.db, "SELECT sum(balance) FROM "+tc.table)
			for _, c := range []struct {
				args   []string
				action string
			}{
				{append([]string{"cleanup", "bank"}, tc.fleet...), "cleanup"},
				{append([]string{"init", "bank", "--rows", "10", "--drop"}, tc.fleet...), "--drop"},
				{append([]string{"init", "bank", "--rows", "10"}, tc.fleet...), "init (which counts it as no loaded tenant)"},
			} {
				r := stampede(t, append(c.args, tc.url)...)
				checkFinalError(t, r, 2, "")
				want := fmt.Sprintf("stampede: error: %s holds 1 object that is not stampede's to drop (table %s (stampede's table of bank, renamed)): %s leaves the %s alone; to drop it anyway, add --force-drop",
					tc.tenant, tc.table, c.action, tc.mode)
				if got := strings.TrimSpace(r.stderr); got != want {
					t.Errorf("%s:\n got %s\nwant %s", c.args[:2], got, want)
				}
				if n, s := queryInt(t, tc.db, "SELECT count(*) FROM "+tc.table), queryInt(t, tc.db, "SELECT sum(balance) FROM "+tc.table); n != 10 || s != sum {
					t.Errorf("%s: %s holds %d rows summing %d after the refusal, want 10 summing %d", c.args[:2], tc.table, n, s, sum)
				}
			}
			r := stampede(t, append(append([]string{"cleanup", "bank", "--force-drop"}, tc.fleet...), tc.url)...)
			if r.code != 0 || !strings.Contains(r.stderr, "--force-drop: dropping "+tc.mode) || !strings.Contains(r.stderr, "(table "+tc.table+" (stampede's table of bank, renamed))") {
				t.Errorf("cleanup --force-drop: exit %d\n%s", r.code, r.stderr)
			}
		})
	}
}

// TestFleetColumnKeepsReplacedTable: in column mode the tenants are rows
// of shared tables, and a shared table the user made in place of the
// fleet's (DROP TABLE bank; CREATE TABLE bank ...) counted as the fleet's
// beside the fleet's marker: cleanup and init --drop dropped it, exit 0,
// and the init that resumes the fleet would load the missing tenants into
// it. The marker now says that the fleet marked its tables, so each
// refuses in one line naming the table and --force-drop, exit 2, and the
// user's row survives; init --force-drop replaces it and reloads the
// fleet; a shared table the user renamed to keep it is left by cleanup,
// rows and all; and a fleet of a stampede that marked nothing (neither
// marker nor tables) is still its own to drop.
func TestFleetColumnKeepsReplacedTable(t *testing.T) {
	srv := testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	host := func() string { u, _ := url.Parse(srv); return u.Host }()
	db := freshDB(t, "fix28col")
	adminExec(t, "CREATE DATABASE "+db)
	fleet := []string{"--tenants", "2", "--tenant-mode", "column", dbURL(t, db)}
	mustRun(t, append([]string{"init", "bank", "--rows", "10"}, fleet...)...)
	execIn(t, db, "DROP TABLE bank", "CREATE TABLE bank (id int, note text)", "INSERT INTO bank VALUES (1, 'MINE')")
	for _, c := range []struct {
		args   []string
		action string
	}{
		{[]string{"init", "bank", "--rows", "10"}, "init (which would load the missing tenants into it)"},
		{[]string{"init", "bank", "--rows", "10", "--drop"}, "--drop"},
		{[]string{"cleanup", "bank"}, "cleanup"},
	} {
		r := stampede(t, append(c.args, fleet...)...)
		checkFinalError(t, r, 2, "")
		want := fmt.Sprintf("stampede: error: table bank in database %q on %s was not made by stampede (no mark of stampede's init of bank on it, which a bank fleet's shared tables carry: a table of the shared tables' name that someone else made): %s leaves it alone; to drop it anyway, add --force-drop",
			db, host, c.action)
		if got := strings.TrimSpace(r.stderr); got != want {
			t.Errorf("%s:\n got %s\nwant %s", c.args[:2], got, want)
		}
		if n := queryInt(t, db, "SELECT count(*) FROM bank WHERE note = 'MINE'"); n != 1 {
			t.Errorf("%s: the user's row is gone", c.args[:2])
		}
	}
	r := stampede(t, append([]string{"init", "bank", "--rows", "10", "--force-drop"}, fleet...)...)
	if r.code != 0 || !strings.Contains(r.stderr, "--force-drop: dropping table bank, which stampede did not make") {
		t.Errorf("init --force-drop: exit %d\n%s", r.code, r.stderr)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM bank"); n != 20 {
		t.Errorf("after init --force-drop bank holds %d rows, want the 2 tenants' 20", n)
	}
	// Renamed to keep it: cleanup drops the fleet's tables by name only.
	execIn(t, db, "ALTER TABLE bank RENAME TO bank_keep")
	// It said "0 tables left" (fix28c): what is left, and why.
	r = mustRun(t, append([]string{"cleanup", "bank"}, fleet...)...)
	if want := fmt.Sprintf("dropped the shared tables of 2 tenants from database %q; 1 table left, kept as yours: table public.bank_keep (stampede's table of bank, renamed)\n", db); r.stdout != want {
		t.Errorf("cleanup over the renamed shared table:\n got %q\nwant %q", r.stdout, want)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM bank_keep"); n != 20 {
		t.Errorf("after cleanup bank_keep holds %d rows, want 20", n)
	}
	// An older stampede's fleet, which marked neither its marker nor its
	// tables: the marker still vouches for them.
	mustRun(t, append([]string{"init", "bank", "--rows", "10"}, fleet...)...)
	execIn(t, db, "COMMENT ON TABLE stampede_tenant IS NULL", "COMMENT ON TABLE bank IS NULL",
		"COMMENT ON TYPE stampede_tenant IS NULL", "COMMENT ON TYPE bank IS NULL")
	mustRun(t, append([]string{"cleanup", "bank"}, fleet...)...)
	if n := queryInt(t, db, "SELECT count(*) FROM pg_tables WHERE tablename IN ('bank', 'stampede_tenant')"); n != 0 {
		t.Errorf("cleanup of an older stampede's column-mode fleet left %d of its tables", n)
	}
}

// TestDemoKeepsWhatAppearedWhileItRan: the demo on a URL dropped its
// stampede_demo database at its end whatever it then held: a user's
// table made there while the demo ran went with it, without a word. The
// end now looks again: the database stays, a warning names the table,
// and its row survives.
func TestDemoKeepsWhatAppearedWhileItRan(t *testing.T) {
	srv := testServer(t)
	host := func() string { u, _ := url.Parse(srv); return u.Host }()
	if queryInt(t, "postgres", "SELECT count(*) FROM pg_database WHERE datname = 'stampede_demo'") != 0 {
		t.Fatal("the test server already has a stampede_demo database")
	}
	t.Cleanup(func() { adminExec(t, "DROP DATABASE IF EXISTS stampede_demo WITH (FORCE)") })
	// Once the demo's load is in, the user makes a table of theirs in
	// the demo's database.
	made := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		for ctx.Err() == nil && queryIntMaybe("stampede_demo", "SELECT count(*) FROM stampede_load") < 1 {
			time.Sleep(50 * time.Millisecond)
		}
		u, err := url.Parse(os.Getenv("STAMPEDE_TEST_DATABASE"))
		if err != nil {
			made <- err
			return
		}
		u.Path = "/stampede_demo"
		conn, err := pgx.Connect(ctx, u.String())
		if err != nil {
			made <- err
			return
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, "CREATE TABLE mine (a int); INSERT INTO mine VALUES (42)")
		made <- err
	}()
	r := stampede(t, "demo", "--duration", "4s", "--records", "500", "--results-dir", t.TempDir(), srv)
	if err := <-made; err != nil {
		t.Fatalf("making the user's table during the demo: %v\n%s", err, r.stderr)
	}
	want := fmt.Sprintf("warning: database \"stampede_demo\" on %s holds 1 object that stampede did not make (table public.mine): the demo's end leaves the database alone; to drop it anyway, add --force-drop\n", host)
	if r.code != 0 || !strings.Contains(r.stderr, want) || strings.Contains(r.stderr, "dropping the demo's database") {
		t.Errorf("demo: exit %d, want the warning %q\n%s", r.code, want, r.stderr)
	}
	if n := queryInt(t, "stampede_demo", "SELECT count(*) FROM mine WHERE a = 42"); n != 1 {
		t.Errorf("the user's table lost its row: %d", n)
	}
}
