package churn_test

import (
	"context"
	"fmt"
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

// TestChurnIndexNameTaken: a table the user renamed to keep it keeps its
// indexes' names (churn_W_N_i1...), and a user may name an index so too.
// churn's tables of those names, and the indexes their alters add, take
// the next free numbers instead of failing the run on "relation already
// exists" (as TestChurnFreshSaysKept did when a --fresh run remade the
// renamed table's name).
func TestChurnIndexNameTaken(t *testing.T) {
	db := testdb.Fresh(t, "churn_ixname", sqlx.Options{MaxConns: 2})
	ctx := context.Background()
	args := []string{"--rows", "1-5", "--max-tables", "6", "--mix", "create=20,insert=1,alter=79"}
	if err := run.Load(ctx, run.LoadSpec{Workload: gen(t, args...), Conn: conn(t, db)}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, "CREATE TABLE mine (x int)"); err != nil {
		t.Fatal(err)
	}
	taken := 0
	// Numbers 4 to 12 of the first 20 tables: a new table (up to 3
	// indexes) takes its name, and its alters meet the taken ones.
	for seq := 0; seq < 20; seq++ {
		for i := 4; i <= 12; i++ {
			if _, err := db.Exec(ctx, fmt.Sprintf("CREATE INDEX churn_0_%d_i%d ON mine (x)", seq, i)); err != nil {
				t.Fatal(err)
			}
			taken++
		}
	}
	r, err := run.Start(ctx, run.Spec{Workload: gen(t, args...), Conn: conn(t, db), Concurrency: 1,
		MaxOps: 80, Seed: 3, Telemetry: run.Telemetry{Off: true}, ResultsDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Wait()
	if err != nil {
		t.Fatalf("a run beside %d taken index names: %v", taken, err)
	}
	if res.Summary.Total.Errors != 0 {
		t.Fatalf("a run beside %d taken index names: %d failed: %v", taken, res.Summary.Total.Errors, res.Summary.Errors)
	}
	if n := one(t, db, "SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid WHERE c.relname = 'mine'"); n != int64(taken) {
		t.Errorf("the user's table holds %d indexes, had %d", n, taken)
	}
	if n := one(t, db, `SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_class x ON x.oid = i.indexrelid
		WHERE c.relname ~ '^churn_0_[0-9]+$' AND x.relname ~ '_i(1[3-9]|[2-9][0-9])$'`); n == 0 {
		t.Errorf("no index of churn's took a number past the user's names")
	}
}
