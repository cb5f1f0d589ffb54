package sqlscript_test

import (
	"strings"
	"testing"
)

// TestCleanupRefusesUsersAttachedParts: a user's policy, statistics
// object or publication membership on a table an init file made went
// with cleanup sql and init sql --drop, exit 0, while every workload
// refuses each (chk28c F6). Each is refused now in one line naming it and
// --force-drop, and stays; --force-drop drops it with the table. Two of
// the user's are named with "they would go with the table" (it said
// "them would go": chk28c N1). The file's own policy, statistics object
// and publication membership go without a word. Fails on the old code:
// exit 0.
func TestCleanupRefusesUsersAttachedParts(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "init.sql", initWithParts)
	for _, c := range []struct {
		name, sql, named, exists string
	}{
		{"policy", "CREATE POLICY u_p ON a USING (true)", "policy u_p on table a in database",
			"SELECT count(*) FROM pg_policy WHERE polname = 'u_p'"},
		{"statistics", "CREATE STATISTICS u_st ON id, n FROM a", "statistics object public.u_st on table a",
			"SELECT count(*) FROM pg_statistic_ext WHERE stxname = 'u_st'"},
		{"publication", "CREATE PUBLICATION u_pub FOR TABLE a", "the membership of table a in publication u_pub",
			"SELECT count(*) FROM pg_publication_rel r JOIN pg_publication p ON p.oid = r.prpubid WHERE p.pubname = 'u_pub'"},
		{"two", "CREATE POLICY u_p ON a USING (true); CREATE STATISTICS u_st ON id, n FROM a", "and they would go with the table",
			"SELECT count(*) FROM pg_policy WHERE polname = 'u_p'"},
	} {
		for _, form := range [][]string{{"cleanup", "sql"}, {"init", "sql", "--drop", "--init-file", "init.sql"}} {
			t.Run(c.name+"/"+strings.Join(form[:2], " "), func(t *testing.T) {
				_, u, conn := freshDB(t, "sql28ag")
				if r := stampede(t, dir, "init", "sql", "--init-file", "init.sql", u); r.code != 0 {
					t.Fatalf("init: exit %d: %s", r.code, r.stderr)
				}
				exec1(t, conn, c.sql)
				t.Cleanup(func() { exec1(t, conn, "DROP PUBLICATION IF EXISTS u_pub") })
				r := stampede(t, dir, append(form, u)...)
				oneLine(t, r, c.named)
				if !strings.HasSuffix(strings.TrimSpace(r.stderr), "add --force-drop") {
					t.Errorf("the refusal does not end with --force-drop: %s", r.stderr)
				}
				if n := count(t, conn, c.exists); n != 1 {
					t.Errorf("after the refusal, the user's %s: %d, want 1", c.name, n)
				}
				if n := count(t, conn, "SELECT count(*) FROM a"); n != 10 {
					t.Errorf("after the refusal, the table's rows: %d, want 10", n)
				}
				r = stampede(t, dir, append(append(form, "--force-drop"), u)...)
				if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "--force-drop") {
					t.Fatalf("--force-drop: exit %d, want 0 and a line that says what goes:\n%s%s", r.code, r.stdout, r.stderr)
				}
				if n := count(t, conn, c.exists); n != 0 {
					t.Errorf("--force-drop left the user's %s", c.name)
				}
			})
		}
	}
	t.Run("the file's own", func(t *testing.T) {
		// (Not init sql --drop: the file's CREATE PUBLICATION would meet
		// the publication cleanup keeps, which init sql does not mark.)
		write(t, dir, "own.sql", initWithParts+"CREATE POLICY a_p ON a USING (true);\nCREATE STATISTICS a_st ON id, n FROM a;\nCREATE PUBLICATION a_pub FOR TABLE a;\n")
		_, u, conn := freshDB(t, "sql28ag")
		t.Cleanup(func() { exec1(t, conn, "DROP PUBLICATION IF EXISTS a_pub") })
		for _, args := range [][]string{{"init", "sql", "--init-file", "own.sql", u}, {"cleanup", "sql", u}} {
			if r := stampede(t, dir, args...); r.code != 0 || strings.Contains(r.stderr, "--force-drop") {
				t.Fatalf("%s: exit %d: %s", strings.Join(args[:2], " "), r.code, r.stderr)
			}
		}
		if n := count(t, conn, "SELECT count(*) FROM pg_class WHERE relname = 'a'"); n != 0 {
			t.Error("cleanup left the file's table")
		}
	})
}
