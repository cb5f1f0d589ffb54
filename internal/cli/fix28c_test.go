package cli_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"
)

// TestSearchPathHidesLoad: with a search_path that puts a user's schema
// first (app, public) and the user's app.bank beside stampede's
// public.bank, cleanup and init --drop refused naming "table bank"
// (whose?), and --force-drop dropped app.bank and stampede's record,
// leaving stampede's public.bank without it. The refusals now name
// app.bank, and --force-drop drops both tables by their schema's name,
// the record last: nothing of the load is left without its record.
// Cleanup, since, drops the load's public.bank and its record, never the
// user's app.bank, and says so (fix28s 5): nothing to refuse or force;
// and so does init --drop, which reloads public.bank (fix28x).
func TestSearchPathHidesLoad(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	const note = "note: search_path \"app,public\" finds app.bank before public.bank, which init loaded: using the load's tables, with search_path public, app,public\n"
	for _, tc := range []struct {
		name string
		args []string // before the URL
		// want leads the output; left: the tables named bank, and the
		// records, after the command (schema.name, sorted).
		want, left string
	}{
		{"cleanup", []string{"cleanup", "bank"}, note + "dropped table public.bank\n", "app.bank"},
		// init --drop reloads the load's public.bank (fix28x: it
		// refused app.bank); TestDropReloadsLoadSchema checks more.
		{"init --drop", []string{"init", "bank", "--rows", "10", "--drop"}, note + "--drop: dropping 1 table (public.bank) in database ",
			"app.bank,public.bank,public.stampede_load"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := freshDB(t, "fix28c_path")
			mustRun(t, "init", "bank", "--rows", "10", dbURL(t, db))
			execIn(t, db, "CREATE SCHEMA app", "CREATE TABLE app.bank (id int, note text)", "INSERT INTO app.bank VALUES (1, 'MINE')")
			u, err := url.Parse(dbURL(t, db))
			if err != nil {
				t.Fatal(err)
			}
			q := u.Query()
			q.Set("options", "-csearch_path=app,public")
			u.RawQuery = q.Encode()
			r := stampede(t, append(tc.args, u.String())...)
			if r.code != 0 || !strings.HasPrefix(r.stderr+r.stdout, tc.want) {
				t.Errorf("exit %d, output %q; want 0 and %q first", r.code, r.stderr+r.stdout, tc.want)
			}
			if got := leftTables(t, db); got != tc.left || queryInt(t, db, "SELECT count(*) FROM app.bank WHERE note = 'MINE'") != 1 {
				t.Errorf("%q left, want %q with the user's row", got, tc.left)
			}
			if tc.args[0] == "init" && queryInt(t, db, "SELECT count(*) FROM public.bank") != 10 {
				t.Error("init --drop did not reload public.bank's 10 rows")
			}
		})
	}
}

// leftTables returns which of the tables named bank and the records of
// the load are in db, schema.name, comma-separated.
func leftTables(t *testing.T, db string) string {
	t.Helper()
	var left []string
	for _, rel := range []string{"app.bank", "public.bank", "app.stampede_load", "public.stampede_load"} {
		if queryInt(t, db, fmt.Sprintf("SELECT count(*) FROM pg_class WHERE oid = to_regclass('%s')", rel)) == 1 {
			left = append(left, rel)
		}
	}
	return strings.Join(left, ",")
}

// TestRefusalSurveysFirst: cleanup as a role that does not own a user's
// bank (with the user's view over it) named only the ownership, and init
// --drop named the user's table and view, then with --force-drop said
// "--force-drop: dropping ..." and ended in the server's "must be owner"
// (exit 1). Every problem is now surveyed first: one refusal names them
// all, exit 2, and with --force-drop the one it cannot force is refused
// before a word of dropping.
func TestRefusalSurveysFirst(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	role := fmt.Sprintf("fix28c_r_%d", time.Now().UnixNano()%1e9)
	db := freshDB(t, "fix28c_own")
	adminExec(t, "CREATE ROLE "+role+" LOGIN", "CREATE DATABASE "+db)
	t.Cleanup(func() { adminExec(t, "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)", "DROP ROLE IF EXISTS "+role) })
	execIn(t, db, "GRANT ALL ON SCHEMA public TO "+role, "CREATE TABLE bank (id int, note text)", "INSERT INTO bank VALUES (1, 'MINE')",
		"CREATE VIEW myview AS SELECT * FROM bank")
	denied := "table bank belongs to role postgres, and role " + role + " may not drop it (only its owner may): connect as its owner postgres or a superuser"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"cleanup", "bank"}, "was not made by stampede (no mark of stampede's init on it, which every table stampede's init makes carries); and 1 object that stampede did not make depends on table bank in database \"" + db + "\""},
		{[]string{"init", "bank", "--rows", "10", "--drop"}, "(view public.myview): --drop drops nothing; and " + denied + ", and to drop them anyway, add --force-drop as well"},
		{[]string{"cleanup", "bank", "--force-drop"}, denied + "; nothing was dropped"},
		{[]string{"init", "bank", "--rows", "10", "--force-drop"}, denied + "; nothing was dropped"},
	} {
		r := stampede(t, append(tc.args, roleURL(t, db, role))...)
		checkOneLineError(t, r, 2, tc.want)
		if !strings.Contains(r.stderr, denied) {
			t.Errorf("%s: the refusal does not name the ownership:\n%s", tc.args, r.stderr)
		}
		if n := queryInt(t, db, "SELECT count(*) FROM myview WHERE note = 'MINE'"); n != 1 {
			t.Errorf("%s: the user's row is gone", tc.args)
		}
	}
}

// TestForceDropKeepsPublications: the --force-drop line named a user's
// publication FOR ALL TABLES among "the objects that depend on it",
// which it does not drop. It now says the publication is kept.
func TestForceDropKeepsPublications(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "fix28c_pub")
	pub := db + "_pub"
	mustRun(t, "init", "bank", "--rows", "10", dbURL(t, db))
	execIn(t, db, "CREATE VIEW myview AS SELECT * FROM bank", "CREATE PUBLICATION "+pub+" FOR ALL TABLES")
	r := stampede(t, "cleanup", "bank", "--force-drop", dbURL(t, db))
	// (stampede_load goes with the load's record, and the publication
	// published it too: chk28c F5.)
	want := fmt.Sprintf("--force-drop: dropping tables bank, stampede_load in database %q on ", db)
	keep := fmt.Sprintf(" and the objects that depend on them (view public.myview); kept, not dropped: publication %s (FOR ALL TABLES), which no longer publishes them\n", pub)
	if r.code != 0 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, keep) {
		t.Errorf("cleanup --force-drop: exit %d, want a line with %q ...%q\n%s", r.code, want, keep, r.stderr)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM pg_publication WHERE pubname = '"+pub+"'"); n != 1 {
		t.Errorf("the publication is gone")
	}
}
