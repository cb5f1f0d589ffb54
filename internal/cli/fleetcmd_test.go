package cli_test

import (
	"context"
	"fmt"
	"github.com/stampede-bench/stampede/dialect"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestFleetBadInput checks the one-line errors of the tenant flags and of
// `fleet exec`; none of these cases needs a server.
func TestFleetBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"pattern without %d", []string{"init", "bank", "--tenants", "3", "--tenant-pattern", "tenant"}, "must hold exactly one %d"},
		{"pattern with two %d", []string{"check", "bank", "--tenants", "3", "--tenant-pattern", "t_%d_%d"}, "must hold exactly one %d"},
		{"tenants 0 with mode", []string{"init", "bank", "--tenants", "0", "--tenant-mode", "schema"}, "--tenant-mode needs --tenants"},
		{"pattern without tenants", []string{"cleanup", "bank", "--tenant-pattern", "t_%d"}, "--tenant-pattern needs --tenants"},
		{"extra tables without tenants", []string{"init", "bank", "--extra-tables", "3"}, "--extra-tables needs --tenants"},
		{"negative tenants", []string{"init", "bank", "--tenants", "-2"}, "--tenants -2: need at least 1 tenant"},
		{"unknown mode", []string{"init", "bank", "--tenants", "2", "--tenant-mode", "shard"}, `unknown tenant mode "shard"`},
		{"upper-case schema", []string{"init", "bank", "--tenants", "2", "--tenant-mode", "schema", "--tenant-pattern", "Bank_%d"}, "lower-case"},
		{"long names", []string{"init", "bank", "--tenants", "2", "--tenant-pattern", strings.Repeat("x", 62) + "_%d"}, "63-byte"},
		{"column mode unsupported", []string{"init", "bulk_insert", "--tenants", "2", "--tenant-mode", "column"}, "workload bulk_insert cannot share tables between tenants (--tenant-mode column); use --tenant-mode database or schema"},
		{"init concurrency 0", []string{"init", "bank", "--tenants", "2", "--init-concurrency", "0"}, "--init-concurrency 0"},
		{"null driver", []string{"init", "bank", "--tenants", "2", "--driver", "null"}, "needs a server"},
		{"exec no statement", []string{"fleet", "exec", "--workload", "bank", "--tenants", "2"}, "give the statement"},
		{"exec no workload", []string{"fleet", "exec", "--tenants", "2", "SELECT 1"}, "--workload"},
		{"exec unknown workload", []string{"fleet", "exec", "--workload", "nosuch", "--tenants", "2", "SELECT 1"}, `unknown workload "nosuch"`},
		{"exec no tenants", []string{"fleet", "exec", "--workload", "bank", "SELECT 1"}, "--tenants N"},
		{"exec bad pattern", []string{"fleet", "exec", "--workload", "bank", "--tenants", "2", "--tenant-pattern", "x", "SELECT 1"}, "exactly one %d"},
		{"exec two statements", []string{"fleet", "exec", "--workload", "bank", "--tenants", "2", "SELECT 1", "SELECT 2"}, `unexpected argument "SELECT 2"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := stampede(t, tc.args...)
			if r.code != 2 {
				t.Errorf("exit code %d, want 2 (stderr %q)", r.code, r.stderr)
			}
			lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "stampede: error: ") || !strings.Contains(lines[0], tc.want) {
				t.Errorf("stderr %q: want one error line containing %q", r.stderr, tc.want)
			}
		})
	}
}

// fleetPattern returns a tenant pattern no other test uses.
func fleetPattern(prefix string) string {
	return fmt.Sprintf("%s%d_%%d", prefix, time.Now().UnixNano()%1e8)
}

// countMatching counts the databases (or, with db set, the schemas of db)
// whose names the pattern makes.
func countMatching(t testing.TB, db, pattern string) int64 {
	t.Helper()
	like := strings.Replace(pattern, "%d", "%", 1)
	if db == "" {
		return queryInt(t, "postgres", fmt.Sprintf("SELECT count(*) FROM pg_database WHERE datname LIKE '%s'", like))
	}
	return queryInt(t, db, fmt.Sprintf("SELECT count(*) FROM pg_namespace WHERE nspname LIKE '%s'", like))
}

// mustRun runs stampede and fails the test on a non-zero exit.
func mustRun(t testing.TB, args ...string) result {
	t.Helper()
	r := stampede(t, args...)
	if r.code != 0 {
		t.Fatalf("stampede %s: exit %d\nstdout %s\nstderr %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

var createdRE = regexp.MustCompile(`tenants: +(\d+) \((\d+) created now, (\d+) already there\)`)

// created parses init's totals: tenants created now and already there.
func created(t testing.TB, out string) (now, before int) {
	t.Helper()
	m := createdRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no totals in %q", out)
	}
	fmt.Sscan(m[2], &now)
	fmt.Sscan(m[3], &before)
	return now, before
}

// interruptedInit starts init and cancels it once count() reaches at
// least n; it returns init's result.
func interruptedInit(t testing.TB, n int64, count func() int64, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			if count() >= n {
				cancel()
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	return stampedeCtx(t, ctx, args...)
}

// TestFleetDatabases creates 200 tenant databases (interrupted partway and
// resumed), checks them, applies an ALTER TABLE to every one (resuming
// after a tenant fails), and drops them.
func TestFleetDatabases(t *testing.T) {
	srv := testServer(t)
	t.Parallel()
	const n = 200
	pat := fleetPattern("fdb")
	tenants := []string{"--tenants", fmt.Sprint(n), "--tenant-pattern", pat}
	t.Cleanup(func() { stampede(t, append([]string{"cleanup", "bank", srv}, tenants...)...) })
	initArgs := append([]string{"init", "bank", "--rows", "100", "--init-concurrency", "8", srv}, tenants...)

	r := interruptedInit(t, 60, func() int64 { return countMatching(t, "", pat) }, initArgs...)
	if r.code == 0 || !strings.Contains(r.stderr, "run the same command again") {
		t.Fatalf("interrupted init: exit %d, stderr %q", r.code, r.stderr)
	}
	r = mustRun(t, initArgs...)
	now, before := created(t, r.stdout)
	if before < 1 || now+before != n {
		t.Errorf("resumed init created %d and found %d, want %d in all and some found:\n%s", now, before, n, r.stdout)
	}
	if !strings.Contains(r.stderr, "exist already") {
		t.Errorf("resumed init does not say tenants existed: %q", r.stderr)
	}
	if got := countMatching(t, "", pat); got != n {
		t.Fatalf("%d tenant databases, want %d", got, n)
	}
	r = mustRun(t, append([]string{"check", "bank", "--rows", "100", srv}, tenants...)...)
	if !strings.Contains(r.stdout, fmt.Sprintf("%d tenants checked, 0 failed", n)) {
		t.Errorf("check: %q", r.stdout)
	}

	// A missing tenant fails the check, named, with the command to resume.
	more := []string{"check", "bank", "--rows", "100", "--tenants", fmt.Sprint(n + 1), "--tenant-pattern", pat, srv}
	r = stampede(t, more...)
	missing := fmt.Sprintf(pat, n+1)
	if r.code != 1 || !strings.Contains(r.stdout, "tenant "+missing+": database") || !strings.Contains(r.stdout, "stampede init bank --tenants 201") ||
		!strings.Contains(r.stdout, fmt.Sprintf("%d tenants checked, 1 failed", n+1)) {
		t.Errorf("check with a missing tenant: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// fleet exec, with one tenant failing, then fixed and resumed.
	results := t.TempDir()
	broken := fmt.Sprintf(pat, 7)
	execIn(t, broken, "DROP TABLE bank")
	execArgs := append([]string{"fleet", "exec", "--workload", "bank", "--results-dir", results,
		"ALTER TABLE bank ADD COLUMN note TEXT", srv}, tenants...)
	r = stampede(t, execArgs...)
	if r.code != 1 || !strings.Contains(r.stdout, "tenant "+broken+": ") || !strings.Contains(r.stdout, fmt.Sprintf("applied to %d tenants", n-1)) ||
		!strings.Contains(r.stdout, "p99") {
		t.Fatalf("exec with a broken tenant: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// Made again as stampede's (its mark, as the other tenants' bank
	// carries it): an unmarked one would be a user's, and cleanup would
	// refuse it.
	mark := queryString(t, fmt.Sprintf(pat, 8), "SELECT "+dialect.OwnComment(dialect.Postgres{}, "'bank'::regclass", "pg_class"))
	execIn(t, broken, "CREATE TABLE bank (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL, payload TEXT NOT NULL)",
		dialect.CommentOnTable(dialect.Postgres{}, "bank", mark))
	r = mustRun(t, execArgs...)
	if !strings.Contains(r.stdout, fmt.Sprintf("applied to 1 tenants, %d skipped", n-1)) || !strings.Contains(r.stderr, "skipped") {
		t.Errorf("resumed exec: %s%s", r.stdout, r.stderr)
	}
	if got := queryInt(t, fmt.Sprintf(pat, n), "SELECT count(*) FROM information_schema.columns WHERE table_name = 'bank' AND column_name = 'note'"); got != 1 {
		t.Errorf("tenant %d has no column note", n)
	}

	r = mustRun(t, append([]string{"cleanup", "bank", srv}, tenants...)...)
	if !strings.Contains(r.stdout, fmt.Sprintf("dropped %d tenant databases; 0 left", n)) {
		t.Errorf("cleanup: %q", r.stdout)
	}
	if got := countMatching(t, "", pat); got != 0 {
		t.Errorf("%d tenant databases left after cleanup", got)
	}
}

// TestFleetSchemas creates 2,000 tenant schemas with two extra tables each,
// reloads a half-loaded tenant 1, checks every tenant, and drops them.
func TestFleetSchemas(t *testing.T) {
	srv := testServer(t)
	t.Parallel()
	const n = 300 // scale is scripts/bench fleet-init's (20,000 tenants); 300 keeps every path
	db := freshDB(t, "fleet_schemas")
	pat := fleetPattern("fs")
	tenants := []string{"--tenants", fmt.Sprint(n), "--tenant-mode", "schema", "--tenant-pattern", pat, "--db", db}

	// A tenant 1 left half-loaded (no marker, but the comment init puts
	// on the schema it creates, bound to the schema's OID) is reloaded. (A schema without the
	// comment is a user's: TestFleetNeverDropsForeignTenants.)
	adminExec(t, "CREATE DATABASE "+db)
	first := fmt.Sprintf(pat, 1)
	execIn(t, db, "CREATE SCHEMA "+first, dialect.MarkSchema(dialect.Postgres{}, first, "made by stampede fleet tenant of bank"),
		"CREATE TABLE "+first+".bank (id BIGINT PRIMARY KEY, balance BIGINT, payload TEXT)")
	r := mustRun(t, append([]string{"init", "bank", "--rows", "100", "--extra-tables", "2", srv}, tenants...)...)
	if !strings.Contains(r.stderr, "half-loaded") {
		t.Errorf("init does not say tenant 1 was half-loaded: %q", r.stderr)
	}
	if now, before := created(t, r.stdout); now != n || before != 0 {
		t.Errorf("init created %d and found %d, want %d and 0", now, before, n)
	}
	// bank, extra_001, extra_002 and the marker, in every schema.
	if !strings.Contains(r.stdout, fmt.Sprintf("tables:    %d", 4*n)) || !strings.Contains(r.stdout, fmt.Sprintf("schemas:   %d", n)) {
		t.Errorf("totals: %q", r.stdout)
	}
	last := fmt.Sprintf(pat, n)
	if got := queryInt(t, db, "SELECT count(*) + sum(balance) FROM "+last+".bank"); got != 100+100*1000 {
		t.Errorf("tenant %d: count + total balance = %d, want %d", n, got, 100+100*1000)
	}
	if got := queryInt(t, db, "SELECT count(*) FROM pg_indexes WHERE schemaname = '"+last+"'"); got < 3 {
		t.Errorf("tenant %d has %d indexes, want the primary keys copied", n, got)
	}
	r = mustRun(t, append([]string{"init", "bank", "--rows", "100", "--extra-tables", "2", srv}, tenants...)...)
	if now, before := created(t, r.stdout); now != 0 || before != n {
		t.Errorf("second init created %d and found %d, want 0 and %d", now, before, n)
	}
	r = stampede(t, append([]string{"init", "bank", "--rows", "50", srv}, tenants...)...)
	if r.code != 2 || !strings.Contains(r.stderr, "--drop") {
		t.Errorf("init with other flags: exit %d, %q", r.code, r.stderr)
	}
	r = mustRun(t, append([]string{"check", "bank", "--rows", "100", srv}, tenants...)...)
	if !strings.Contains(r.stdout, fmt.Sprintf("%d tenants checked, 0 failed", n)) {
		t.Errorf("check: %q", r.stdout)
	}
	r = mustRun(t, append([]string{"fleet", "exec", "--workload", "bank", "--results-dir", t.TempDir(), "CREATE INDEX ON bank (balance)", srv}, tenants...)...)
	if !strings.Contains(r.stdout, fmt.Sprintf("applied to %d tenants", n)) {
		t.Errorf("exec: %q", r.stdout)
	}
	r = mustRun(t, append([]string{"cleanup", "bank", srv}, tenants...)...)
	if !strings.Contains(r.stdout, fmt.Sprintf("dropped %d tenant schemas", n)) || countMatching(t, db, pat) != 0 {
		t.Errorf("cleanup: %q, %d schemas left", r.stdout, countMatching(t, db, pat))
	}
}

// TestFleetColumns loads tenants into shared tables, resumes an
// interrupted load, and checks every tenant.
func TestFleetColumns(t *testing.T) {
	srv := testServer(t)
	t.Parallel()
	const n = 40
	db := freshDB(t, "fleet_columns")
	tenants := []string{"--tenants", fmt.Sprint(n), "--tenant-mode", "column", "--db", db}
	r := mustRun(t, append([]string{"init", "bank", "--rows", "100", srv}, tenants...)...)
	if now, _ := created(t, r.stdout); now != n {
		t.Errorf("init created %d tenants, want %d", now, n)
	}
	// Forget tenant 5's marker and half its rows: init reloads it.
	execIn(t, db, "DELETE FROM stampede_tenant WHERE tenant_id = 5", "DELETE FROM bank WHERE tenant_id = 5 AND id < 50")
	r = mustRun(t, append([]string{"init", "bank", "--rows", "100", srv}, tenants...)...)
	if now, before := created(t, r.stdout); now != 1 || before != n-1 {
		t.Errorf("resumed init created %d and found %d, want 1 and %d", now, before, n-1)
	}
	r = mustRun(t, append([]string{"check", "bank", "--rows", "100", srv}, tenants...)...)
	if !strings.Contains(r.stdout, fmt.Sprintf("%d tenants checked, 0 failed", n)) {
		t.Errorf("check: %q", r.stdout)
	}
	if got := queryInt(t, db, "SELECT count(*) FROM bank"); got != 100*n {
		t.Errorf("%d rows, want %d", got, 100*n)
	}
	r = mustRun(t, append([]string{"cleanup", "bank", srv}, tenants...)...)
	if !strings.Contains(r.stdout, "0 tables left") {
		t.Errorf("cleanup: %q", r.stdout)
	}
}

// TestFleetColumnsKeepUserTables checks that a column-mode fleet never
// replaces shared tables it did not make (a single-tenant load) unless
// --drop is given, and that --drop names what it drops.
func TestFleetColumnsKeepUserTables(t *testing.T) {
	srv := testServer(t)
	t.Parallel()
	db := freshDB(t, "fleet_coluser")
	mustRun(t, "init", "bank", "--rows", "10", "--db", db, srv)
	tenants := []string{"--tenants", "2", "--tenant-mode", "column", "--db", db}
	r := stampede(t, append([]string{"init", "bank", "--rows", "10", srv}, tenants...)...)
	checkFinalError(t, r, 2, "table bank exists in database \""+db+"\" without the fleet's stampede_tenant table")
	if got := queryInt(t, db, "SELECT count(*) FROM bank"); got != 10 {
		t.Errorf("the refused fleet init changed the single-tenant table: %d rows", got)
	}
	r = mustRun(t, append([]string{"init", "bank", "--rows", "10", "--drop", srv}, tenants...)...)
	if !strings.Contains(r.stderr+r.stdout, "--drop: dropping the shared tables bank in database \""+db+"\"") {
		t.Errorf("init --drop does not name what it drops:\n%s\n%s", r.stdout, r.stderr)
	}
	if got := queryInt(t, db, "SELECT count(*) FROM bank"); got != 20 {
		t.Errorf("after --drop, %d rows, want 20", got)
	}
}

// TestFleetConnectionLimit checks the error when the server refuses more
// connections: a role limited to 2 connections checks a fleet 8 tenants
// at a time.
func TestFleetConnectionLimit(t *testing.T) {
	srv := testServer(t)
	t.Parallel()
	pat := fleetPattern("flim")
	role := strings.TrimSuffix(pat, "_%d")
	tenants := []string{"--tenants", "12", "--tenant-pattern", pat}
	t.Cleanup(func() {
		stampede(t, append([]string{"cleanup", "bank", srv}, tenants...)...)
		adminExec(t, "DROP ROLE IF EXISTS "+role)
	})
	mustRun(t, append([]string{"init", "bank", "--rows", "10", srv}, tenants...)...)
	adminExec(t, "CREATE ROLE "+role+" LOGIN CONNECTION LIMIT 2")
	u, _ := url.Parse(srv)
	u.User = url.User(role)
	r := stampede(t, append([]string{"check", "bank", "--rows", "10", "--conns", "8", u.String()}, tenants...)...)
	if r.code != 1 || !strings.Contains(r.stderr, "the server refused a connection while stampede held up to") ||
		!strings.Contains(r.stderr, "CONNECTION LIMIT") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}
