package churn_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/sqlx"
)

// TestChurnKeepsRenamedTable renames one of churn's live tables to keep
// it (issue 28 F1: cleanup and run --fresh dropped it, as it still carries
// churn's mark). A --fresh run and then cleanup drop churn's other tables
// and keep the renamed one with every row; cleanup says it kept it.
func TestChurnKeepsRenamedTable(t *testing.T) {
	db := testdb.Fresh(t, "churn_renamed", sqlx.Options{MaxConns: 2})
	ctx := context.Background()
	churnRun(t, db, 1, 2*time.Second, 1, "--rows", "1-20", "--max-tables", "3")
	var name string
	if err := db.QueryRow(ctx, "SELECT name FROM churn_tables WHERE dropped_at IS NULL ORDER BY name LIMIT 1").Scan(&name); err != nil {
		t.Fatalf("no live table after the first run: %v", err)
	}
	if _, err := db.Exec(ctx, "ALTER TABLE "+name+" RENAME TO my_archive"); err != nil {
		t.Fatal(err)
	}
	rows := one(t, db, "SELECT count(*) FROM my_archive")

	r, err := run.Start(ctx, run.Spec{Workload: gen(t, "--rows", "1-20", "--max-tables", "3", "--fresh"), Conn: conn(t, db), Concurrency: 1, Duration: time.Second, Seed: 2,
		Telemetry: run.Telemetry{Off: true}, ResultsDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Wait(); err != nil {
		t.Fatal(err)
	}
	if n := one(t, db, "SELECT count(*) FROM my_archive"); n != rows {
		t.Fatalf("my_archive holds %d rows after run --fresh, want %d", n, rows)
	}

	var log strings.Builder
	if err := run.Cleanup(ctx, run.CleanupSpec{Workload: gen(t), Conn: conn(t, db), Log: &log}); err != nil {
		t.Fatalf("cleanup: %v\n%s", err, log.String())
	}
	if n := one(t, db, "SELECT count(*) FROM my_archive"); n != rows {
		t.Errorf("my_archive holds %d rows after cleanup, want %d\n%s", n, rows, log.String())
	}
	if strings.Contains(log.String(), "dropped table my_archive") || !strings.Contains(log.String(), "kept table my_archive") {
		t.Errorf("cleanup's log does not say it kept my_archive:\n%s", log.String())
	}
	if n := one(t, db, "SELECT count(*) FROM pg_class WHERE relkind = 'r' AND relname ~ '^churn_'"); n != 0 {
		t.Errorf("%d of churn's tables left after cleanup\n%s", n, log.String())
	}
}
