package churn_test

import (
	"context"
	"github.com/stampede-bench/stampede/dialect"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// TestChurnFresh runs churn twice in one database, the second run with
// --fresh: it starts from a fresh schema, as a sweep's step must (the
// second of two runs once inherited the first's tables, so that their
// tables alive and database size could not be compared). After it, the
// tables alive are the second run's alone: the bookkeeping holds exactly
// the tables it created, the marked tables on the server are its live
// ones, its tables_alive figure says so, a user's table survives, and
// check passes.
func TestChurnFresh(t *testing.T) {
	db := testdb.Fresh(t, "churn_fresh", sqlx.Options{MaxConns: 2})
	ctx := context.Background()
	first := churnRun(t, db, 4, 2*time.Second, 1, "--rows", "1-20")
	if first.Summary.Figures["tables_alive"] == 0 {
		t.Fatal("the first run left no table alive")
	}
	if _, err := db.Exec(ctx, "CREATE TABLE users_own (a int); INSERT INTO users_own VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	r, err := run.Start(ctx, run.Spec{Workload: gen(t, "--rows", "1-20", "--fresh"), Conn: conn(t, db), Concurrency: 4, Duration: 2 * time.Second, Seed: 2,
		Telemetry: run.Telemetry{Off: true}, ResultsDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Wait()
	if err != nil {
		t.Fatal(err)
	}
	var creates, drops int64
	for _, op := range res.Summary.Ops {
		switch op.Name {
		case "create":
			creates = op.Count
		case "drop":
			drops = op.Count
		}
	}
	if book := one(t, db, "SELECT count(*) FROM churn_tables"); book != creates {
		t.Errorf("churn_tables holds %d tables after the --fresh run, which created %d: the earlier run's are left", book, creates)
	}
	alive := one(t, db, "SELECT count(*) FROM churn_tables WHERE dropped_at IS NULL")
	if alive != creates-drops || float64(alive) != res.Summary.Figures["tables_alive"] {
		t.Errorf("%d tables alive in churn_tables, tables_alive figure %v; the run created %d and dropped %d", alive, res.Summary.Figures["tables_alive"], creates, drops)
	}
	marked := one(t, db, "SELECT count(*) FROM pg_class c WHERE c.relkind = 'r' AND "+dialect.OwnComment(dialect.Postgres{}, "c.oid", "pg_class")+" = $1", workload.RunMark("churn"))
	if marked != alive {
		t.Errorf("%d marked tables on the server, %d alive in churn_tables", marked, alive)
	}
	if n := one(t, db, "SELECT count(*) FROM users_own"); n != 1 {
		t.Errorf("the user's table holds %d rows after --fresh, want 1", n)
	}
	m, _ := workload.Get("churn")
	g, _ := workload.FromFlags(m)
	var rep lines
	if err := g.(workload.Hookser).Hooks().CheckConsistency(ctx, db, &rep); err != nil {
		t.Errorf("check after the --fresh run: %v", err)
	}
}

// lines is a workload.Reporter that keeps nothing.
type lines struct{}

func (*lines) Printf(string, ...any) {}
