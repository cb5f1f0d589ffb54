package cli_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestForeignPartitionRefused: a user's table attached as a partition of
// stampede's partitioned pgbench_accounts is named, with --force-drop, by
// cleanup pgbench, init pgbench --drop and the pgbench form's -i (they
// dropped it with its rows, exit 0); its rows stay; --force-drop then
// says it and drops it with the load.
func TestForeignPartitionRefused(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	db := freshDB(t, "fix28b_part")
	u := dbURL(t, db)
	if r := stampede(t, "init", "pgbench", "--scale", "1", "--partitions", "2", u); r.code != 0 {
		t.Fatalf("init: exit %d\n%s", r.code, r.stderr)
	}
	execIn(t, db, "ALTER TABLE pgbench_accounts DETACH PARTITION pgbench_accounts_2",
		"CREATE TABLE my_part (aid int not null, bid int, abalance int, filler char(84))",
		"INSERT INTO my_part VALUES (100005, 1, 0, 'mine')",
		"ALTER TABLE pgbench_accounts ATTACH PARTITION my_part FOR VALUES FROM (100001) TO (MAXVALUE)")
	const named = "(table public.my_part (a partition of public.pgbench_accounts))"
	for _, args := range [][]string{
		{"cleanup", "pgbench", u},
		{"init", "pgbench", "--scale", "1", "--partitions", "2", "--drop", u},
		{"pgbench", "-i", "-s", "1", "--partitions", "2", u},
	} {
		r := stampede(t, args...)
		checkFinalError(t, r, 2, named)
		if !strings.Contains(r.stderr, "add --force-drop") {
			t.Errorf("%s: the refusal does not name --force-drop: %s", args, r.stderr)
		}
		if n := queryInt(t, db, "SELECT count(*) FROM my_part"); n != 1 {
			t.Fatalf("%s: my_part holds %d rows of 1", args, n)
		}
	}
	r := stampede(t, "cleanup", "pgbench", "--force-drop", u)
	if r.code != 0 || !strings.Contains(r.stderr+r.stdout, "--force-drop: dropping") || !strings.Contains(r.stderr+r.stdout, named) {
		t.Fatalf("cleanup --force-drop: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM pg_class WHERE relname IN ('pgbench_accounts', 'my_part')"); n != 0 {
		t.Errorf("cleanup --force-drop left %d of the tables it named", n)
	}
}

// TestFleetRoleHoldsUsersObjects: a fleet's cleanup whose tenant role
// owns, or was granted, a user's object in another database refuses
// before dropping anything, in one line naming the role, the object, its
// database, the remedy and --force-drop (it dropped both tenant databases,
// then failed on the server's raw 2BP01, exit 1); --force-drop drops the
// tenants and keeps those roles, saying what frees them; the user's
// object and its rows stay.
func TestFleetRoleHoldsUsersObjects(t *testing.T) {
	testServer(t)
	t.Setenv("STAMPEDE_RESULTS_DIR", t.TempDir())
	pattern := fmt.Sprintf("f28b%d_%%d", time.Now().UnixNano()%1e6)
	r1, r2 := fmt.Sprintf(pattern, 1), fmt.Sprintf(pattern, 2)
	other := freshDB(t, "fix28b_other")
	adminExec(t, "CREATE DATABASE "+other)
	admin := dbURL(t, "postgres")
	t.Cleanup(func() {
		execIn(t, other, "DROP TABLE IF EXISTS owned2, shared_ref")
		execIn(t, "postgres", "DROP DATABASE IF EXISTS "+r1+" WITH (FORCE)", "DROP DATABASE IF EXISTS "+r2+" WITH (FORCE)",
			"DROP ROLE IF EXISTS "+r1, "DROP ROLE IF EXISTS "+r2)
	})
	fleet := []string{"--tenants", "2", "--tenant-pattern", pattern}
	if r := stampede(t, append(append([]string{"init", "bank", "--rows", "10", "--tenant-roles"}, fleet...), admin)...); r.code != 0 {
		t.Fatalf("init: exit %d\n%s", r.code, r.stderr)
	}
	execIn(t, other, "CREATE TABLE owned2 (a int)", "INSERT INTO owned2 VALUES (1)", "ALTER TABLE owned2 OWNER TO "+r1,
		"CREATE TABLE shared_ref (a int)", "GRANT SELECT ON shared_ref TO "+r2)
	r := stampede(t, append(append([]string{"cleanup", "bank"}, fleet...), admin)...)
	checkFinalError(t, r, 2, fmt.Sprintf("role %s owns table public.owned2 in database %q; role %s holds privileges on table public.shared_ref in database %q, which stampede did not make", r1, other, r2, other))
	for _, want := range []string{"`REASSIGN OWNED BY " + r1 + " TO postgres` in database", "`REVOKE ALL ON TABLE public.shared_ref FROM " + r2 + "`", "add --force-drop"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("the refusal lacks %q: %s", want, r.stderr)
		}
	}
	if n := queryInt(t, "postgres", fmt.Sprintf("SELECT count(*) FROM pg_database WHERE datname IN ('%s', '%s')", r1, r2)); n != 2 {
		t.Fatalf("a refused cleanup dropped %d tenant databases", 2-n)
	}
	r = stampede(t, append(append([]string{"cleanup", "bank", "--force-drop"}, fleet...), admin)...)
	if r.code != 0 || !strings.Contains(r.stderr+r.stdout, "--force-drop: keeping role "+r1) || strings.Contains(r.stderr, "2BP01") {
		t.Fatalf("cleanup --force-drop: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if n := queryInt(t, "postgres", fmt.Sprintf("SELECT count(*) FROM pg_database WHERE datname IN ('%s', '%s')", r1, r2)); n != 0 {
		t.Errorf("cleanup --force-drop left %d tenant databases", n)
	}
	if n := queryInt(t, other, "SELECT count(*) FROM owned2"); n != 1 {
		t.Errorf("the user's owned2 holds %d rows of 1", n)
	}
	if n := queryInt(t, "postgres", fmt.Sprintf("SELECT count(*) FROM pg_roles WHERE rolname IN ('%s', '%s')", r1, r2)); n != 2 {
		t.Errorf("--force-drop dropped a role that holds the user's objects: %d of 2 left", n)
	}
}
