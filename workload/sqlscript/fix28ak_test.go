package sqlscript_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
)

// TestPublicationsPoliciesStatistics (issue 28 F3): an init file's
// CREATE PUBLICATION, and its CREATE POLICY and CREATE STATISTICS on a
// table of the user's, were neither marked nor dropped: cleanup left them
// (a publication FOR TABLE of the user's among them), and init again
// failed with "publication p already exists". Now init marks them as it
// marks a trigger on a user's table, and cleanup sql (and init sql
// --drop) drops them and nothing of the user's: the user's table, its
// row, its own policy and publication stay. On the old code the
// publications, policy and statistics object survived cleanup.
func TestPublicationsPoliciesStatistics(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "f3.sql", "CREATE TABLE t (id int PRIMARY KEY, v int);\n"+
		"CREATE PUBLICATION f3_pub FOR TABLE t;\n"+
		"CREATE POLICY f3_pol ON usert USING (true);\n"+
		"CREATE STATISTICS f3_stx ON id, v FROM usert;\n"+
		"CREATE PUBLICATION f3_pub_user FOR TABLE usert;\n")
	const left = `SELECT string_agg(x, ',' ORDER BY x) FROM (
		SELECT 'pub ' || pubname AS x FROM pg_publication
		UNION ALL SELECT 'pol ' || polname FROM pg_policy
		UNION ALL SELECT 'stx ' || stxname FROM pg_statistic_ext
		UNION ALL SELECT 'rel ' || relname FROM pg_class WHERE relname IN ('t', 'usert')) q`
	for _, form := range [][]string{{"cleanup", "sql"}, {"init", "sql", "--drop", "--init-file", "f3.sql"}} {
		t.Run(strings.Join(form[:2], " "), func(t *testing.T) {
			_, u, conn := freshDB(t, "sql28ak")
			exec1(t, conn, "CREATE TABLE usert (id int PRIMARY KEY, v int)")
			exec1(t, conn, "INSERT INTO usert VALUES (1, 1)")
			exec1(t, conn, "CREATE PUBLICATION user_pub FOR TABLE usert")
			exec1(t, conn, "CREATE POLICY user_pol ON usert USING (true)")
			if r := stampede(t, dir, "init", "sql", "--init-file", "f3.sql", u); r.code != 0 {
				t.Fatalf("init: exit %d: %s", r.code, r.stderr)
			}
			var marked int64
			if err := conn.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM pg_publication WHERE obj_description(oid, 'pg_publication') LIKE 'made by stampede init of sql%')
				+ (SELECT count(*) FROM pg_policy WHERE obj_description(oid, 'pg_policy') LIKE 'made by stampede init of sql%')
				+ (SELECT count(*) FROM pg_statistic_ext WHERE obj_description(oid, 'pg_statistic_ext') LIKE 'made by stampede init of sql%')`).Scan(&marked); err != nil {
				t.Fatal(err)
			}
			if marked != 4 {
				t.Errorf("init marked %d of the file's 2 publications, policy and statistics object, want 4", marked)
			}
			r := stampede(t, dir, append(form, u)...)
			if r.code != 0 {
				t.Fatalf("%s: exit %d: %s", strings.Join(form[:2], " "), r.code, r.stderr)
			}
			// cleanup says "dropped X", init --drop "dropped X, which ...".
			for _, want := range []string{"publication f3_pub", "publication f3_pub_user", "policy f3_pol ON usert", "statistics public.f3_stx"} {
				if !regexp.MustCompile(`(?m)dropped ` + regexp.QuoteMeta(want) + `(,|$)`).MatchString(r.stdout + r.stderr) {
					t.Errorf("no \"dropped %s\" in:\n%s%s", want, r.stdout, r.stderr)
				}
			}
			want := "pol user_pol,pub user_pub,rel usert"
			if form[0] == "init" {
				// --drop runs the file again after dropping.
				want = "pol f3_pol,pol user_pol,pub f3_pub,pub f3_pub_user,pub user_pub,rel t,rel usert,stx f3_stx"
			}
			var got string
			if err := conn.QueryRow(context.Background(), left).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("left %q, want %q", got, want)
			}
			if n := count(t, conn, "SELECT count(*) FROM usert"); n != 1 {
				t.Errorf("usert holds %d rows, want its 1", n)
			}
		})
	}
}
