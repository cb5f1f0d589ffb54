package cli_test

import (
	"net/url"
	"strings"
	"testing"
)

// TestRefusalNamesEveryProblem: a refusal to drop named only the first
// kind of problem it found (a user's table in a tenant schema, or a
// filled column), and --force-drop then also dropped what it never named
// (a user's view over stampede's table, a column of a tenant's row type
// holding data). Every form now names each kind present in its one-line
// refusal, exit 2, and drops nothing.
func TestRefusalNamesEveryProblem(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	u, err := url.Parse(testServer(t))
	if err != nil {
		t.Fatal(err)
	}
	admin := *u
	admin.Path = ""
	bankInit := func(flags ...string) func(db string) []string {
		return func(db string) []string {
			return append(append([]string{"init", "bank", "--rows", "10"}, flags...), dbURL(t, db))
		}
	}
	schema := []string{"--tenants", "2", "--tenant-mode", "schema"}
	column := []string{"--tenants", "2", "--tenant-mode", "column"}
	filled := []string{"ALTER TABLE bank ADD COLUMN notes TEXT", "UPDATE bank SET notes = 'mine' WHERE id = 1"}
	view := []string{"CREATE VIEW myview AS SELECT * FROM bank"}
	tenantSQL := []string{
		"CREATE TABLE bank_1.mine (x int)", "INSERT INTO bank_1.mine VALUES (7)",
		"CREATE VIEW public.myview AS SELECT * FROM bank_2.bank",
		"CREATE TABLE public.mytyped (b bank_2.bank)", "INSERT INTO public.mytyped SELECT b FROM bank_2.bank b LIMIT 1",
		"ALTER TABLE bank_2.bank ADD COLUMN notes TEXT", "UPDATE bank_2.bank SET notes = 'mine' WHERE id = 1",
	}
	for _, tc := range []struct {
		name  string
		init  func(db string) []string
		user  []string
		drop  []string // the drop's arguments, before --force-drop and the URL
		want  []string
		count string // stays the same after the refusal
		// url is the drop's last argument (nil: the database's URL).
		url func(db string) string
	}{
		{"cleanup bank", bankInit(), append(filled, view...), []string{"cleanup", "bank"},
			[]string{"bank.notes", "view public.myview"}, "SELECT count(notes) + (SELECT count(*) FROM myview) FROM bank", nil},
		{"init bank --drop", bankInit(), append(filled, view...), []string{"init", "bank", "--rows", "10", "--drop"},
			[]string{"bank.notes", "view public.myview"}, "SELECT count(notes) + (SELECT count(*) FROM myview) FROM bank", nil},
		{"schema-mode fleet cleanup", bankInit(schema...), tenantSQL, append([]string{"cleanup", "bank"}, schema...),
			[]string{"table bank_1.mine", "view public.myview", "public.mytyped.b", "bank_2.bank.notes"},
			"SELECT (SELECT count(*) FROM bank_1.mine) + (SELECT count(b) FROM public.mytyped) + (SELECT count(*) FROM public.myview)", nil},
		{"schema-mode fleet init --drop", bankInit(schema...), tenantSQL, append([]string{"init", "bank", "--rows", "10", "--drop"}, schema...),
			[]string{"table bank_1.mine", "view public.myview", "public.mytyped.b", "bank_2.bank.notes"},
			"SELECT (SELECT count(*) FROM bank_1.mine) + (SELECT count(b) FROM public.mytyped) + (SELECT count(*) FROM public.myview)", nil},
		{"column-mode fleet cleanup", bankInit(column...), append(filled, view...), append([]string{"cleanup", "bank"}, column...),
			[]string{"bank.notes", "view public.myview"}, "SELECT count(notes) + (SELECT count(*) FROM myview) FROM bank", nil},
		{"column-mode fleet init --drop", bankInit(column...), append(filled, view...), append([]string{"init", "bank", "--rows", "10", "--drop"}, column...),
			[]string{"bank.notes", "view public.myview"}, "SELECT count(notes) + (SELECT count(*) FROM myview) FROM bank", nil},
		{"workload init --drop (the cockroach form)", func(db string) []string {
			adminExec(t, "CREATE DATABASE "+db) // the user's database
			return []string{"workload", "init", "bank", "--rows", "10", "--db", db, admin.String()}
		}, append(filled, view...), []string{"workload", "init", "bank", "--rows", "10", "--drop"},
			[]string{"bank.notes", "view public.myview"}, "SELECT count(notes) + (SELECT count(*) FROM myview) FROM bank",
			func(db string) string { return admin.String() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := freshDB(t, "fix28k_refusal")
			mustRun(t, tc.init(db)...)
			execIn(t, db, tc.user...)
			before := queryInt(t, db, tc.count)
			target := dbURL(t, db)
			if tc.url != nil {
				target = tc.url(db)
			}
			drop := append(append([]string{}, tc.drop...), "--db", db)
			if tc.url == nil {
				drop = tc.drop
			}
			r := stampede(t, append(append([]string{}, drop...), target)...)
			lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
			last := lines[len(lines)-1]
			if r.code != 2 || !strings.HasPrefix(last, "stampede: error: ") || !strings.Contains(last, "add --force-drop") {
				t.Fatalf("exit %d, want 2 and one line of stampede's naming --force-drop:\n%s", r.code, r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(last, w) {
					t.Errorf("the refusal does not name %q:\n%s", w, last)
				}
			}
			if n := queryInt(t, db, tc.count); n != before || n == 0 {
				t.Errorf("%s: %d after the refusal, want %d", tc.count, n, before)
			}
			if r := stampede(t, append(append(append([]string{}, drop...), "--force-drop"), target)...); r.code != 0 {
				t.Errorf("with --force-drop: exit %d\n%s", r.code, r.stderr)
			}
		})
	}
}
