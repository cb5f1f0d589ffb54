package churn_test

import (
	"bytes"
	"net/url"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/sqlx"
)

// TestChurnFleetBadInput: in a fleet of churn, a run's bad flags are
// one-line refusals, exit 2, as outside a fleet, and nothing runs: the
// workload's own refusals read as themselves, never as a tenant "missing
// or incomplete" to create again (chk32 F1); --conns, which a fleet would
// ignore, is refused naming --conns-per-tenant, --conns 0 included (it
// said "default 20"), and so are tenants' loops on fewer connections
// (--conns-per-tenant 2 --concurrency 3 ran 3 loops on 2; chk32 F4).
// --conns-per-tenant 2 alone runs 2 loops per tenant on 2 connections.
func TestChurnFleetBadInput(t *testing.T) {
	db := testdb.Fresh(t, "churn32_fleetin", sqlx.Options{MaxConns: 2})
	u, err := url.Parse(testdb.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + db.Database()
	target := u.String()
	fleet := []string{"--tenants", "2", "--tenant-mode", "schema", "--tenant-pattern", "cfi_%d"}
	if code, stderr := cliRun(t, append(append([]string{"init", "churn"}, fleet...), target)...); code != 0 {
		t.Fatalf("init: exit %d, stderr %q", code, stderr)
	}
	results := t.TempDir()
	runArgs := func(extra ...string) []string {
		args := append([]string{"run", "churn", "--duration", "1s", "--telemetry=false", "--results-dir", results}, fleet...)
		return append(append(args, extra...), target)
	}
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--appendoptimized", "true"}, "--appendoptimized true: Greenplum's table options on another server: the server is postgres"},
		{[]string{"--distributed-by", "key"}, "--distributed-by key: Greenplum's table options on another server"},
		{[]string{"--max-tables", "1", "--concurrency", "2"}, "--max-tables 1 leaves room for 1 table, fewer than the 2 loops (--concurrency)"},
		{[]string{"--active", "2", "--conns", "4"}, "--conns 4 with --tenants: a fleet run opens connections per tenant: give --conns-per-tenant N"},
		{[]string{"--conns", "0"}, "--conns 0 with --tenants"},
		{[]string{"--conns-per-tenant", "2", "--concurrency", "3"}, "--conns-per-tenant 2 and --concurrency 3: workload churn runs one loop per connection"},
	} {
		code, stderr := cliRun(t, runArgs(tc.flags...)...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		last := lines[len(lines)-1]
		if code != 2 || !strings.Contains(last, tc.want) || strings.Contains(stderr, "missing or incomplete") || strings.Contains(stderr, "default 20") {
			t.Errorf("run %s: exit %d, stderr %q; want exit 2 and a last line with %q", strings.Join(tc.flags, " "), code, stderr, tc.want)
		}
		if n := strings.Count(stderr, "error"); n != 1 {
			t.Errorf("run %s: %d lines of error, want one: %q", strings.Join(tc.flags, " "), n, stderr)
		}
		if n := one(t, db, "SELECT count(*) FROM pg_class WHERE relkind = 'r' AND relname LIKE 'churn\\_%' AND relname <> 'churn_tables'"); n != 0 {
			t.Fatalf("run %s made %d tables", strings.Join(tc.flags, " "), n)
		}
	}
	var out, errb bytes.Buffer
	if code := cliMain(runArgs("--conns-per-tenant", "2", "--active", "1"), &out, &errb); code != 0 {
		t.Fatalf("run --conns-per-tenant 2: exit %d, stderr %q", code, errb.String())
	}
	if !strings.Contains(errb.String(), "2 workers and 2 connections each") || !strings.Contains(errb.String(), "churn: 2 loops,") {
		t.Errorf("run --conns-per-tenant 2: want 2 loops on 2 connections per tenant; stdout %q, stderr %q", out.String(), errb.String())
	}
}
