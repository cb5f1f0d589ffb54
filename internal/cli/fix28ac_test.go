package cli_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestPgbenchFormCopyRefused: `stampede pgbench -i` wrote no record of
// its load, so a copy a user made of its database (CREATE DATABASE ...
// TEMPLATE) was not told from the original: pgbench -i, cleanup pgbench
// and init pgbench --drop dropped the copy's tables at exit 0 (issue
// 28). The pgbench form now records its load bound to the database's
// OID, as init pgbench does: each form is refused on the copy in one
// line naming the copy, its source and --force-drop, and the copy's rows
// (a user's history row among them) stay; --force-drop drops them; the
// original cleans up as before.
func TestPgbenchFormCopyRefused(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	src := freshDB(t, "fix28ac_src")
	adminExec(t, "CREATE DATABASE "+src)
	mustRun(t, "pgbench", "-i", "-s", "1", dbURL(t, src))
	if n := queryInt(t, src, "SELECT count(*) FROM stampede_load WHERE database_oid = (SELECT oid::text FROM pg_database WHERE datname = current_database())"); n != 1 {
		t.Fatalf("pgbench -i wrote %d records of its load bound to the database, want 1", n)
	}
	const rows = "SELECT (SELECT count(*) FROM pgbench_accounts) + (SELECT count(*) FROM pgbench_history)"
	for _, form := range [][]string{{"pgbench", "-i"}, {"cleanup", "pgbench"}, {"init", "pgbench", "--drop"}} {
		t.Run(strings.Join(form, " "), func(t *testing.T) {
			cp := freshDB(t, "fix28ac_copy")
			adminExec(t, "CREATE DATABASE "+cp+" TEMPLATE "+src)
			execIn(t, cp, "INSERT INTO pgbench_history VALUES (1, 1, 1, 1, now(), 'mine')")
			r := stampede(t, append(form, dbURL(t, cp))...)
			checkOneLineError(t, r, 2, fmt.Sprintf("database %q looks like a copy of database %q", cp, src))
			if !strings.Contains(r.stderr, "add --force-drop") {
				t.Errorf("the refusal does not name --force-drop: %s", r.stderr)
			}
			if n := queryInt(t, cp, rows); n != 100001 {
				t.Fatalf("after the refusal the copy holds %d rows, want 100001", n)
			}
			r = mustRun(t, append(append(form, "--force-drop"), dbURL(t, cp))...)
			if !strings.Contains(r.stdout+r.stderr, "--force-drop: dropping the tables of database") {
				t.Errorf("--force-drop does not say what it drops: %s%s", r.stdout, r.stderr)
			}
			left := "SELECT count(*) FROM pgbench_history WHERE filler = 'mine'" // reloaded
			if form[0] == "cleanup" {
				left = "SELECT count(*) FROM pg_class WHERE relname LIKE 'pgbench_%'"
			}
			if n := queryInt(t, cp, left); n != 0 {
				t.Errorf("--force-drop left what it drops: %s is %d", left, n)
			}
		})
	}
	r := mustRun(t, "cleanup", "pgbench", dbURL(t, src))
	if strings.Contains(r.stderr, "copy") {
		t.Errorf("cleanup of the original took it for a copy: %s", r.stderr)
	}
	if n := queryInt(t, src, "SELECT count(*) FROM pg_class WHERE relname LIKE 'pgbench_%'"); n != 0 {
		t.Errorf("cleanup of the original left %d of pgbench's relations", n)
	}
}

// TestVacuumFirstOnCopySaysEmpty: run sql --vacuum-first on a copy a
// user made of a database stampede loaded was refused in words about
// dropping ("drops nothing; to drop its tables anyway"), though it
// empties pgbench_history and drops nothing (issue 28); with one worker
// on stampede's own load it hung (the check waited for a connection the
// worker held). The refusal now says it would empty the table, the
// user's row stays, and --force-drop empties it saying so; the pgbench
// form without -n empties it as pgbench does, naming the copy and its
// rows; one worker on the original runs.
func TestVacuumFirstOnCopySaysEmpty(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	src, cp := freshDB(t, "fix28ac_vsrc"), freshDB(t, "fix28ac_vcopy")
	adminExec(t, "CREATE DATABASE "+src)
	mustRun(t, "init", "pgbench", "--scale", "1", dbURL(t, src))
	adminExec(t, "CREATE DATABASE "+cp+" TEMPLATE "+src)
	mine := func() { execIn(t, cp, "INSERT INTO pgbench_history VALUES (1, 1, 1, 1, now(), 'mine')") }
	const kept = "SELECT count(*) FROM pgbench_history WHERE filler = 'mine'"
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	run := func(args ...string) result {
		r := stampedeCtx(t, ctx, args...)
		if ctx.Err() != nil {
			t.Fatalf("%v did not end in 3 minutes", args)
		}
		return r
	}
	vacuum := []string{"run", "sql", "-b", "tpcb-like", "--vacuum-first", "--concurrency", "1", "--max-ops", "3"}
	mine()
	r := run(append(vacuum, dbURL(t, cp))...)
	checkOneLineError(t, r, 2, fmt.Sprintf("--vacuum-first would empty table pgbench_history of database %q, which looks like a copy of database %q made with CREATE DATABASE ... TEMPLATE", cp, src))
	if !strings.HasSuffix(strings.TrimSpace(r.stderr), "which stampede did not make: nothing was emptied; to empty it anyway, add --force-drop") || strings.Contains(r.stderr, "drop its tables") {
		t.Errorf("the refusal does not say what --vacuum-first does: %s", r.stderr)
	}
	if n := queryInt(t, cp, kept); n != 1 {
		t.Fatalf("the refusal left %d of the user's history row", n)
	}
	r = run(append(append(vacuum, "--force-drop"), dbURL(t, cp))...)
	if r.code != 0 || !strings.Contains(r.stderr, fmt.Sprintf("--force-drop: emptying table pgbench_history of database %q, which looks like a copy of database %q", cp, src)) {
		t.Fatalf("--force-drop: exit %d, want 0 and the line that says it empties the copy's table:\n%s", r.code, r.stderr)
	}
	if n := queryInt(t, cp, kept); n != 0 {
		t.Errorf("--force-drop kept the row it said it empties")
	}
	mine()
	held := queryInt(t, cp, "SELECT count(*) FROM pgbench_history") // the forced run's 3 and the user's
	// The pgbench form empties pgbench_history as pgbench does without
	// -n, but not a copy's (chk28b): refused, naming -n and --force-drop.
	r = run("pgbench", "-t", "3", dbURL(t, cp))
	want := fmt.Sprintf("table pgbench_history of database %q, which looks like a copy of database %q", cp, src)
	checkOneLineError(t, r, 2, want)
	if !strings.Contains(r.stderr, fmt.Sprintf("holds %d rows, which the run would empty first, as pgbench does without -n: nothing was emptied; give -n to keep them, or --force-drop to empty them", held)) {
		t.Errorf("the pgbench form's refusal does not name the %d rows, -n and --force-drop:\n%s", held, r.stderr)
	}
	if n := queryInt(t, cp, "SELECT count(*) FROM pgbench_history"); n != held {
		t.Errorf("the refused pgbench form left %d of the copy's %d history rows", n, held)
	}
	if r := run("pgbench", "-n", "-t", "3", dbURL(t, cp)); r.code != 0 || queryInt(t, cp, kept) != 1 {
		t.Errorf("the pgbench form with -n: exit %d, the user's row kept %d times (want 0 and 1):\n%s", r.code, queryInt(t, cp, kept), r.stderr)
	}
	r = run("pgbench", "--force-drop", "-t", "3", dbURL(t, cp))
	if r.code != 0 || !strings.Contains(r.stderr, want) || queryInt(t, cp, kept) != 0 {
		t.Errorf("the pgbench form with --force-drop: exit %d, the user's row kept %d times (want 0 and 0), and a warning naming %q:\n%s", r.code, queryInt(t, cp, kept), want, r.stderr)
	}
	if r := run(append(vacuum, dbURL(t, src))...); r.code != 0 {
		t.Errorf("one worker on the original: exit %d:\n%s", r.code, r.stderr)
	}
}
