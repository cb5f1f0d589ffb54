package cli_test

import (
	"strings"
	"testing"
)

// TestFleetKeepsUsersDependentsOutsideTenants: a schema-mode fleet's
// cleanup and init --drop used DROP SCHEMA ... CASCADE, which took along
// the user's objects outside the tenant schemas that depend on objects
// inside them (a view, a function, a column of a tenant's row type and its
// data, a foreign key, an extension created in a tenant schema and an
// index using it), exit 0. Both now refuse in one line, exit 2, naming
// them and --force-drop, and keep everything; --force-drop alone then
// drops the tenants.
func TestFleetKeepsUsersDependentsOutsideTenants(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "depschema")
	fleet := []string{"--tenants", "2", "--tenant-mode", "schema"}
	mustRun(t, append(append([]string{"init", "bank", "--rows", "10"}, fleet...), dbURL(t, db))...)
	execIn(t, db,
		"CREATE VIEW public.myview AS SELECT * FROM bank_1.bank",
		"CREATE TABLE public.myfk (a BIGINT REFERENCES bank_1.bank (id))", "INSERT INTO public.myfk VALUES (1)",
		"CREATE FUNCTION public.myf() RETURNS bank_1.bank LANGUAGE sql AS 'SELECT * FROM bank_1.bank LIMIT 1'",
		"CREATE TABLE public.mytyped (b bank_1.bank)", "INSERT INTO public.mytyped SELECT bank FROM bank_1.bank LIMIT 1",
		"CREATE EXTENSION pg_trgm SCHEMA bank_2", "CREATE TABLE public.docs (t TEXT)",
		"CREATE INDEX docs_t ON public.docs USING gin (t bank_2.gin_trgm_ops)")
	survived := func() {
		t.Helper()
		for sql, want := range map[string]int64{
			"SELECT count(*) FROM pg_views WHERE viewname = 'myview'":                 1,
			"SELECT count(*) FROM public.myfk":                                        1,
			"SELECT count(*) FROM pg_constraint WHERE conname = 'myfk_a_fkey'":        1,
			"SELECT count(*) FROM pg_proc WHERE proname = 'myf'":                      1,
			"SELECT count(*) FROM public.mytyped WHERE b IS NOT NULL":                 1,
			"SELECT count(*) FROM pg_extension WHERE extname = 'pg_trgm'":             1,
			"SELECT count(*) FROM pg_indexes WHERE indexname = 'docs_t'":              1,
			"SELECT count(*) FROM pg_namespace WHERE nspname IN ('bank_1', 'bank_2')": 2,
		} {
			if n := queryInt(t, db, sql); n != want {
				t.Errorf("%s: %d, want %d", sql, n, want)
			}
		}
	}
	for _, args := range [][]string{
		append([]string{"cleanup", "bank"}, fleet...),
		append([]string{"init", "bank", "--rows", "10", "--drop"}, fleet...),
	} {
		r := stampede(t, append(args, dbURL(t, db))...)
		checkFinalError(t, r, 2, "6 objects that stampede did not make depend on the tenant schemas bank_1, bank_2 in database")
		for _, want := range []string{"extension pg_trgm", "function public.myf()", "index public.docs_t",
			"table column public.mytyped.b", "table constraint myfk_a_fkey on public.myfk", "and 1 more", "to drop them too, add --force-drop"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("%s: the refusal lacks %q: %s", args[:2], want, r.stderr)
			}
		}
		survived()
	}
	r := stampede(t, append(append([]string{"cleanup", "bank", "--force-drop"}, fleet...), dbURL(t, db))...)
	if r.code != 0 || !strings.Contains(r.stderr, "--force-drop: dropping the tenant schemas bank_1, bank_2") {
		t.Fatalf("cleanup --force-drop: exit %d\n%s", r.code, r.stderr)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM pg_namespace WHERE nspname IN ('bank_1', 'bank_2')"); n != 0 {
		t.Errorf("%d tenant schemas left after --force-drop", n)
	}
}

// TestCleanupRefusesUsersDependents: cleanup of a workload whose table a
// user's view, foreign key or typed column depends on failed with the raw
// "cannot drop table bank because other objects depend on it (SQLSTATE
// 2BP01)", exit 1. It now refuses in one line, exit 2, naming them and
// --force-drop, before dropping anything; init --drop too; --force-drop
// alone drops them.
func TestCleanupRefusesUsersDependents(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	for _, tc := range []struct {
		workload string
		init     []string
		user     []string
		want     string
	}{
		{"bank", []string{"--rows", "10"}, []string{"CREATE VIEW myview AS SELECT * FROM bank"}, "(view public.myview)"},
		{"ycsb", []string{"--record-count", "10"}, []string{"CREATE TABLE mytyped (u usertable)", "INSERT INTO mytyped SELECT usertable FROM usertable LIMIT 1"}, "(table column public.mytyped.u)"},
		{"tpcc", []string{"--warehouses", "1"}, []string{"CREATE TABLE myfk (w INT REFERENCES warehouse (w_id))", "INSERT INTO myfk VALUES (1)"}, "(table constraint myfk_w_fkey on public.myfk)"},
		// A trigger, a rule or a publication's membership the user put on
		// stampede's table went with it without a word (rechk28d F-4).
		{"bank", []string{"--rows", "10"}, []string{"CREATE TABLE audit (id bigint)",
			"CREATE FUNCTION aud() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO audit VALUES (new.id); RETURN new; END $$",
			"CREATE TRIGGER bank_aud AFTER UPDATE ON bank FOR EACH ROW EXECUTE FUNCTION aud()"}, "(trigger bank_aud on public.bank)"},
		{"bank", []string{"--rows", "10"}, []string{"CREATE TABLE audit (id bigint)", "CREATE RULE r AS ON DELETE TO bank DO ALSO INSERT INTO audit VALUES (old.id)"}, "(rule r on public.bank)"},
		{"bank", []string{"--rows", "10"}, []string{"CREATE PUBLICATION mypub FOR TABLE bank"}, "(publication relation public.bank in publication mypub)"},
		// A publication of every table, or of the schema, that publishes
		// stampede's table without naming it: the drop changes what it
		// replicates (fix28 item 3).
		{"bank", []string{"--rows", "10"}, []string{"CREATE PUBLICATION allpub FOR ALL TABLES"}, "(publication allpub (FOR ALL TABLES))"},
		{"bank", []string{"--rows", "10"}, []string{"CREATE PUBLICATION schemapub FOR TABLES IN SCHEMA public"}, "(publication schemapub (FOR TABLES IN SCHEMA public))"},
		// A user's sequence OWNED BY a column of stampede's table went with
		// it (exit 0) as if stampede had made it (fix28d F1).
		{"bank", []string{"--rows", "10"}, []string{"CREATE SEQUENCE myseq OWNED BY bank.id", "SELECT nextval('myseq')"}, "(sequence public.myseq)"},
	} {
		t.Run(tc.workload+strings.Fields(tc.want)[0], func(t *testing.T) {
			db := freshDB(t, "depcleanup")
			mustRun(t, append(append([]string{"init", tc.workload}, tc.init...), dbURL(t, db))...)
			execIn(t, db, tc.user...)
			tables := queryInt(t, db, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")
			r := stampede(t, "cleanup", tc.workload, dbURL(t, db))
			checkOneLineError(t, r, 2, "1 object that stampede did not make depends on table")
			for _, want := range []string{tc.want, "cleanup drops nothing; to drop it too, add --force-drop"} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("the refusal lacks %q: %s", want, r.stderr)
				}
			}
			if n := queryInt(t, db, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"); n != tables {
				t.Errorf("%d tables after the refusal, want %d", n, tables)
			}
			// init --drop likewise (it failed with the raw 2BP01, exit 1).
			r = stampede(t, append(append([]string{"init", tc.workload, "--drop"}, tc.init...), dbURL(t, db))...)
			checkFinalError(t, r, 2, "1 object that stampede did not make depends on table")
			if !strings.Contains(r.stderr, tc.want) || !strings.Contains(r.stderr, "--drop drops nothing; to drop it too, add --force-drop") {
				t.Errorf("init --drop: %s", r.stderr)
			}
			if n := queryInt(t, db, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"); n != tables {
				t.Errorf("%d tables after init --drop's refusal, want %d", n, tables)
			}
			if r := stampede(t, "cleanup", tc.workload, "--force-drop", dbURL(t, db)); r.code != 0 {
				t.Fatalf("cleanup --force-drop: exit %d\n%s", r.code, r.stderr)
			}
		})
	}
}
