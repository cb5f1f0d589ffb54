package sqlscript_test

import (
	"strings"
	"testing"
)

// TestSQLKeepsUsersRelations: cleanup sql and init sql --drop refuse, in
// one line naming the object and --force-drop, a user's partition of a
// table init made (DROP TABLE of the parent took it with its rows) and a
// table init made that the user renamed to keep it; init sql refuses a
// user's relation its file DROPs before any statement runs. Every row
// stays; --force-drop then drops what the line named.
func TestSQLKeepsUsersRelations(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, file, user, rows string
		// init is whether the refusal is init's (the user's table is
		// there before it), else cleanup's and --drop's.
		init bool
		want string
	}{
		{"partition of init's table",
			"CREATE TABLE ev (id int, v text) PARTITION BY RANGE (id);\nCREATE TABLE ev_1 PARTITION OF ev FOR VALUES FROM (0) TO (100);\nINSERT INTO ev VALUES (1, 'a');\n",
			"CREATE TABLE ev_mine PARTITION OF ev FOR VALUES FROM (100) TO (200); INSERT INTO ev VALUES (150, 'mine')",
			"SELECT count(*) FROM ev_mine", false,
			"table public.ev_mine (a partition of public.ev) in database \"%d\" on %h: not made by stampede, and dropping the table init sql made would drop it with its rows: %s drops nothing; to drop it too, add --force-drop"},
		{"renamed table",
			"CREATE TABLE accounts (id int, v text);\nINSERT INTO accounts VALUES (1, 'a');\n",
			"ALTER TABLE accounts RENAME TO accounts_keep; INSERT INTO accounts_keep VALUES (2, 'mine')",
			"SELECT count(*) FROM accounts_keep", false,
			"table public.accounts_keep (made as public.accounts) in database \"%d\" on %h: init sql made it and you renamed it since, which makes it yours (as every workload keeps a table of its load you renamed): %s drops nothing; to drop it too, add --force-drop"},
		{"table the file drops",
			"DROP TABLE IF EXISTS accounts;\nCREATE TABLE accounts (id int, v text);\n",
			"CREATE TABLE accounts (id int, v text, mine text); INSERT INTO accounts VALUES (1, 'x', 'mine')",
			"SELECT count(*) FROM accounts WHERE mine = 'mine'", true,
			"table accounts in database \"%d\" on %h was not made by stampede (init.sql:1 drops it, and the one there carries no mark of stampede's init: it is yours; no statement of the file ran): init sql leaves it alone; to drop it anyway, add --force-drop"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			name, u, conn := freshDB(t, "sql28b")
			p := testURL(t, u)
			host := p.host + ":" + p.port
			want := strings.NewReplacer("%d", name, "%h", host).Replace(c.want)
			write(t, dir, "init.sql", c.file)
			if c.init {
				exec1(t, conn, c.user)
				oneLine(t, stampede(t, dir, "init", "sql", "--init-file", "init.sql", u), want)
				oneLine(t, stampede(t, dir, "init", "sql", "--drop", "--init-file", "init.sql", u), want)
				if n := count(t, conn, c.rows); n != 1 {
					t.Fatalf("a refused init dropped the user's rows: %d left", n)
				}
				r := stampede(t, dir, "init", "sql", "--force-drop", "--init-file", "init.sql", u)
				if r.code != 0 || !strings.Contains(r.stderr+r.stdout, "--force-drop: init.sql:1 drops table accounts, which stampede did not make") {
					t.Fatalf("--force-drop: exit %d: %s%s", r.code, r.stdout, r.stderr)
				}
				// Now init's own: the file drops and makes it again.
				if r := stampede(t, dir, "init", "sql", "--init-file", "init.sql", u); r.code != 0 {
					t.Fatalf("init over init's own table: exit %d: %s", r.code, r.stderr)
				}
				return
			}
			if r := stampede(t, dir, "init", "sql", "--init-file", "init.sql", u); r.code != 0 {
				t.Fatalf("init: exit %d: %s", r.code, r.stderr)
			}
			exec1(t, conn, c.user)
			before := count(t, conn, c.rows)
			oneLine(t, stampede(t, dir, "cleanup", "sql", u), strings.Replace(want, "%s", "cleanup", 1))
			oneLine(t, stampede(t, dir, "init", "sql", "--drop", "--init-file", "init.sql", u), strings.Replace(want, "%s", "init sql --drop", 1))
			if n := count(t, conn, c.rows); n != before || before == 0 {
				t.Fatalf("a refused cleanup dropped the user's rows: %d of %d left", n, before)
			}
			if n := count(t, conn, "SELECT count(*) FROM pg_class WHERE relname IN ('ev', 'ev_1', 'accounts', 'accounts_keep')"); n == 0 {
				t.Fatal("a refused cleanup dropped init's tables")
			}
			r := stampede(t, dir, "cleanup", "sql", "--force-drop", u)
			if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "--force-drop: dropping table public.") {
				t.Fatalf("cleanup --force-drop: exit %d: %s%s", r.code, r.stdout, r.stderr)
			}
			if n := count(t, conn, "SELECT count(*) FROM pg_class WHERE relname IN ('ev', 'ev_1', 'ev_mine', 'accounts', 'accounts_keep')"); n != 0 {
				t.Errorf("cleanup --force-drop left %d tables", n)
			}
		})
	}
}

// TestInitFileDropsHidden: init sql refuses a user's relation or schema
// that its file drops however the statement hides it from a plain
// reading (rechk of fix28b): a search_path the file sets (SET, and
// pg_dump's set_config), comments inside the DROP, and DROP SCHEMA ...
// CASCADE of a schema holding the user's table. No statement of the file
// runs and every row stays; a file whose DROP SCHEMA meets only what an
// earlier init of sql made runs again.
func TestInitFileDropsHidden(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, user, file, want string
	}{
		{"SET search_path", "CREATE SCHEMA app; CREATE TABLE app.t (id int, mine text); INSERT INTO app.t VALUES (1, 'mine')",
			"SET search_path = app;\nDROP TABLE IF EXISTS t;\nCREATE TABLE t (id int, mine text);\n", "table app.t "},
		{"set_config", "CREATE SCHEMA app; CREATE TABLE app.t (id int, mine text); INSERT INTO app.t VALUES (1, 'mine')",
			"SELECT pg_catalog.set_config('search_path', 'app', false);\nDROP TABLE IF EXISTS t;\nCREATE TABLE t (id int, mine text);\n", "table app.t "},
		{"comments in the DROP", "CREATE SCHEMA app; CREATE TABLE app.t (id int, mine text); INSERT INTO app.t VALUES (1, 'mine')",
			"/* c */ DROP /* c */ TABLE /* c */ app.t;\nCREATE TABLE app.t (id int, mine text);\n", "table app.t "},
		{"DROP SCHEMA CASCADE", "CREATE SCHEMA app; CREATE TABLE app.t (id int, mine text); INSERT INTO app.t VALUES (1, 'mine')",
			"DROP SCHEMA IF EXISTS app CASCADE;\nCREATE SCHEMA app;\nCREATE TABLE app.t (id int, mine text);\n", "schema app "},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, u, conn := freshDB(t, "sql28h")
			exec1(t, conn, c.user)
			write(t, dir, "init.sql", c.file)
			r := stampede(t, dir, "init", "sql", "--init-file", "init.sql", u)
			var errs []string
			for _, l := range strings.Split(r.stderr, "\n") {
				if strings.HasPrefix(l, "stampede: error: ") {
					errs = append(errs, l)
				}
			}
			if r.code != 2 || len(errs) != 1 || !strings.Contains(errs[0], c.want) || !strings.Contains(errs[0], "no statement of the file ran") || !strings.Contains(errs[0], "--force-drop") {
				t.Fatalf("exit %d, want 2 and one line naming %q and --force-drop:\n%s%s", r.code, c.want, r.stdout, r.stderr)
			}
			if n := count(t, conn, "SELECT count(*) FROM app.t WHERE mine = 'mine'"); n != 1 {
				t.Fatalf("a refused init dropped the user's rows: %d left", n)
			}
		})
	}
	// The file's DROP SCHEMA of a schema that init made runs again.
	_, u, _ := freshDB(t, "sql28h")
	write(t, dir, "init.sql", "DROP SCHEMA IF EXISTS app CASCADE;\nCREATE SCHEMA app;\nCREATE TABLE app.t (id serial PRIMARY KEY, v text);\nCREATE TYPE app.mood AS ENUM ('a', 'b');\n")
	for i := 0; i < 2; i++ {
		if r := stampede(t, dir, "init", "sql", "--init-file", "init.sql", u); r.code != 0 {
			t.Fatalf("init %d over init's own schema: exit %d: %s", i+1, r.code, r.stderr)
		}
	}
}
