package cli_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// TestRunUsesLoadedSchema: with a search_path that puts a user's schema
// first (app, public), set on the role in the database or in the URL, and
// the user's app.bank (usertable, sbtest1, TPC-C's tables) beside the
// tables init loaded into public, run wrote its transactions into the
// user's tables and check checked those (fix28f F7). Run and check now
// use the load's tables (the search path with init's schema first, said
// in a note): the user's rows are unchanged, the load's changed, and
// check passes where the user's copies, one row short, would fail it.
func TestRunUsesLoadedSchema(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	for _, tc := range []struct {
		name string
		// init and run are the arguments before the URL; tables the
		// tables copied into app, the first of them one row short.
		init, run []string
		tables    []string
		// byRole sets the search path on the role in the database,
		// else in the URL (options=-csearch_path=app,public).
		byRole bool
	}{
		{"bank", []string{"init", "bank", "--rows", "10"}, []string{"run", "bank"}, []string{"bank"}, true},
		{"bank by URL", []string{"init", "bank", "--rows", "10"}, []string{"run", "bank"}, []string{"bank"}, false},
		{"ycsb", []string{"init", "ycsb", "-p", "recordcount=100"}, []string{"run", "ycsb", "--workload", "a"}, []string{"usertable"}, false},
		{"sysbench", []string{"init", "oltp_read_write", "--table_size", "100"}, []string{"run", "oltp_read_write"}, []string{"sbtest1"}, true},
		{"tpcc", []string{"init", "tpcc", "--warehouses", "1"}, []string{"run", "tpcc", "--warehouses", "1", "--wait=false"},
			[]string{"district", "warehouse", "customer", "history", "new_order", "order", "order_line", "item", "stock"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := freshDB(t, "fix28f_path")
			u := dbURL(t, db)
			mustRun(t, append(tc.init, u)...)
			execIn(t, db, "CREATE SCHEMA app")
			for i, tb := range tc.tables {
				execIn(t, db, fmt.Sprintf(`CREATE TABLE app."%s" (LIKE public."%s")`, tb, tb), fmt.Sprintf(`INSERT INTO app."%s" SELECT * FROM public."%s"`, tb, tb))
				if i == 0 {
					execIn(t, db, fmt.Sprintf(`DELETE FROM app."%[1]s" WHERE ctid = (SELECT min(ctid) FROM app."%[1]s")`, tb))
				}
			}
			if tc.byRole {
				execIn(t, db, "ALTER ROLE postgres IN DATABASE "+db+" SET search_path = app, public")
				t.Cleanup(func() { adminExec(t, "ALTER ROLE postgres IN DATABASE "+db+" RESET search_path") })
			} else {
				pu, err := url.Parse(u)
				if err != nil {
					t.Fatal(err)
				}
				q := pu.Query()
				q.Set("options", "-csearch_path=app,public")
				pu.RawQuery = q.Encode()
				u = pu.String()
			}
			mine, loaded := fingerprints(t, db, "app", tc.tables), fingerprints(t, db, "public", tc.tables)
			r := stampede(t, append(tc.run, "--duration", "3s", u)...)
			if r.code != 0 {
				t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
			}
			// The server shows the search path as it was set.
			path := "app,public"
			if tc.byRole {
				path = "app, public"
			}
			note := fmt.Sprintf("note: search_path %q finds ", path)
			hid := fmt.Sprintf("app.%s before public.%s", tc.tables[0], tc.tables[0])
			with := ", which init loaded: using the load's tables, with search_path public, " + path + "\n"
			for _, w := range []string{note, hid, with} {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("run: the note does not say %q:\n%s", w, r.stderr)
				}
			}
			if got := fingerprints(t, db, "app", tc.tables); got != mine {
				t.Errorf("the run changed the user's tables in app:\n%s\nwas\n%s", got, mine)
			}
			if got := fingerprints(t, db, "public", tc.tables); got == loaded {
				t.Errorf("the run changed nothing of the load's tables in public")
			}
			r = stampede(t, append(append([]string{"check"}, tc.init[1:]...), u)...)
			if r.code != 0 || !strings.Contains(r.stdout, "PASS") || strings.Contains(r.stdout, "FAIL") || !strings.Contains(r.stderr, hid) {
				t.Errorf("check of the load's tables (the user's, a row short, fail it): exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			if got := fingerprints(t, db, "app", tc.tables); got != mine {
				t.Errorf("the check changed the user's tables in app")
			}
		})
	}
}

// fingerprints returns, for each of tables in schema, its row count and
// the md5 of its rows, one line each.
func fingerprints(t *testing.T, db, schema string, tables []string) string {
	t.Helper()
	var lines []string
	for _, tb := range tables {
		rel := fmt.Sprintf(`%s."%s"`, schema, tb)
		q := "SELECT ('x' || substr(md5(coalesce(string_agg(r::text, ',' ORDER BY r::text), '')), 1, 15))::bit(60)::bigint FROM " + rel + " r"
		lines = append(lines, fmt.Sprintf("%s: %d rows, md5 %x", rel, queryInt(t, db, "SELECT count(*) FROM "+rel), queryInt(t, db, q)))
	}
	return strings.Join(lines, "\n")
}
