package pgbench_test

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// initStampede loads the pgbench workload with args into database name.
func initStampede(t *testing.T, name string, spec run.LoadSpec, args ...string) error {
	t.Helper()
	meta, _ := workload.Get("pgbench")
	gen, err := workload.FromFlags(meta, args...)
	if err != nil {
		t.Fatal(err)
	}
	spec.Workload, spec.Conn = gen, run.Conn{URLs: []string{testdb.URL(t)}, Database: name}
	return run.Load(context.Background(), spec)
}

// check runs `stampede check pgbench` with args on database name.
func check(t *testing.T, name string, args ...string) (string, error) {
	t.Helper()
	meta, _ := workload.Get("pgbench")
	gen, err := workload.FromFlags(meta, args...)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	err = run.Check(context.Background(), gen, run.Conn{URLs: []string{testdb.URL(t)}, Database: name}, &out, &bytes.Buffer{})
	return out.String(), err
}

func exec1(t *testing.T, db *sqlx.DB, q string) {
	t.Helper()
	if _, err := db.Exec(context.Background(), q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// TestCheckAfterTpcbRuns: after the real pgbench's tpcb-like transactions
// on stampede's tables the check passes with balances that moved; an
// account changed alone, or a teller missing, fails it.
func TestCheckAfterTpcbRuns(t *testing.T) {
	bin := realPgbench(t)
	db := testdb.Fresh(t, "pginit_check", sqlx.Options{MaxConns: 1})
	if err := initStampede(t, db.Database(), run.LoadSpec{}, "--scale", "2"); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, "-n", "-c", "2", "-t", "300", "-b", "tpcb-like", dbURL(t, db.Database())).CombinedOutput(); err != nil {
		t.Fatalf("pgbench: %v\n%s", err, out)
	}
	out, err := check(t, db.Database())
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var sum int64
	if err := db.QueryRow(context.Background(), "SELECT sum(abs(delta)) FROM pgbench_history").Scan(&sum); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "(600 history rows): equal PASS") || sum == 0 || !strings.Contains(out, "pgbench_accounts: 200000 rows (expected 200000) PASS") {
		t.Errorf("check after 600 transactions (deltas' sum of magnitudes %d):\n%s", sum, out)
	}
	exec1(t, db, "UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = 7")
	if out, err := check(t, db.Database()); err == nil || !strings.Contains(out, "equal FAIL") {
		t.Errorf("a changed account passed: %v\n%s", err, out)
	}
	exec1(t, db, "UPDATE pgbench_accounts SET abalance = abalance - 1 WHERE aid = 7")
	exec1(t, db, "DELETE FROM pgbench_tellers WHERE tid = 3")
	if out, err := check(t, db.Database()); err == nil || !strings.Contains(out, "pgbench_tellers: 19 rows (expected 20) FAIL") {
		t.Errorf("a missing teller passed: %v\n%s", err, out)
	}
}

// TestOwnership: step d and cleanup leave the tables the real pgbench made
// alone (refused in one line naming --force-drop); stampede's own are
// dropped, partitions included; --force-drop drops pgbench's.
func TestOwnership(t *testing.T) {
	bin := realPgbench(t)
	ctx := context.Background()
	db := testdb.Fresh(t, "pginit_own", sqlx.Options{MaxConns: 1})
	if out, err := exec.Command(bin, "-i", "-s", "1", dbURL(t, db.Database())).CombinedOutput(); err != nil {
		t.Fatalf("pgbench: %v\n%s", err, out)
	}
	// check reads pgbench's own tables, its scale from the branches.
	if out, err := check(t, db.Database()); err != nil || !strings.Contains(out, "scale 1 (pgbench_branches holds 1 row)") ||
		!strings.Contains(out, "pgbench_accounts: 100000 rows (expected 100000) PASS") {
		t.Errorf("check of pgbench's tables: %v\n%s", err, out)
	}
	empty := testdb.Fresh(t, "pginit_empty", sqlx.Options{MaxConns: 1})
	if out, err := exec.Command(bin, "-i", "-I", "dt", dbURL(t, empty.Database())).CombinedOutput(); err != nil {
		t.Fatalf("pgbench: %v\n%s", err, out)
	}
	if out, err := check(t, empty.Database()); err == nil || !strings.Contains(err.Error(), "is empty") {
		t.Errorf("check of empty tables passed: %v\n%s", err, out)
	}
	err := initStampede(t, db.Database(), run.LoadSpec{}, "--scale", "2")
	if !errors.Is(err, workload.ErrForeign) || !strings.Contains(err.Error(), "--force-drop") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("init over pgbench's tables: %v", err)
	}
	meta, _ := workload.Get("pgbench")
	gen, _ := workload.FromFlags(meta)
	err = run.Cleanup(ctx, run.CleanupSpec{Workload: gen, Conn: run.Conn{URLs: []string{testdb.URL(t)}, Database: db.Database()}})
	if !errors.Is(err, workload.ErrForeign) {
		t.Fatalf("cleanup of pgbench's tables: %v", err)
	}
	var n int64
	if err := db.QueryRow(ctx, "SELECT count(*) FROM pgbench_accounts").Scan(&n); err != nil || n != 100000 {
		t.Fatalf("pgbench's accounts after the refusals: %d, %v", n, err)
	}
	if err := initStampede(t, db.Database(), run.LoadSpec{Drop: true, ForceDrop: true}, "--scale", "2", "--partitions", "3"); err != nil {
		t.Fatal(err)
	}
	// Again: step d drops stampede's own tables without being asked.
	if err := initStampede(t, db.Database(), run.LoadSpec{}, "--scale", "2", "--partitions", "2"); err != nil {
		t.Fatal(err)
	}
	if out, err := check(t, db.Database()); err != nil || !strings.Contains(out, "pgbench_accounts: 200000 rows") {
		t.Fatalf("%v\n%s", err, out)
	}
	// Without d, tables that exist are refused.
	if err := initStampede(t, db.Database(), run.LoadSpec{}, "--init-steps", "tg"); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("init without d over existing tables: %v", err)
	}
	gen, _ = workload.FromFlags(meta)
	if err := run.Cleanup(ctx, run.CleanupSpec{Workload: gen, Conn: run.Conn{URLs: []string{testdb.URL(t)}, Database: db.Database()}}); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(ctx, "SELECT count(*) FROM pg_class WHERE relname LIKE 'pgbench%'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d pgbench relations after cleanup (%v)", n, err)
	}
}
