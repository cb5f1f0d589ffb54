package lambda

import (
	"context"
	"testing"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// TestRunDefaults checks the workload's own rate schedule and workers:
// the sum of the paths' rates, and four ingest workers beside one for
// each path that runs (a rate of 0 turns a path off).
func TestRunDefaults(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		rate    float64
		workers int
		roles   []string // the workers' roles, for --concurrency 6
	}{
		{nil, 10 + 1 + 10 + 0.1, 7, []string{"ingest", "ingest", "ingest", "hot", "serve", "batch"}},
		{[]string{"--ingest-rate", "100000", "--batch", "5000"}, 20 + 1 + 10 + 0.1, 7, []string{"ingest", "ingest", "ingest", "hot", "serve", "batch"}},
		{[]string{"--serve-rate", "0", "--batch-every", "0"}, 10 + 1, 5, []string{"ingest", "ingest", "ingest", "ingest", "ingest", "hot"}},
		{[]string{"--hot-rate", "0", "--batch-every", "2s"}, 10 + 10 + 0.5, 6, []string{"ingest", "ingest", "ingest", "ingest", "serve", "batch"}},
		{[]string{"--hot-rate", "0", "--serve-rate", "0", "--batch-every", "0"}, 10, 4, []string{"ingest", "ingest", "ingest", "ingest", "ingest", "ingest"}},
	} {
		g := newGen(t, tc.args...)
		rd := g.RunDefaults()
		if rd.MaxRate != tc.rate || rd.Concurrency != tc.workers {
			t.Errorf("%v: rate %g with %d workers, want %g with %d", tc.args, rd.MaxRate, rd.Concurrency, tc.rate, tc.workers)
		}
		r, err := g.newRun(nullDB(t), workload.OpsConfig{Concurrency: 6, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		roles := make([]string, 6)
		for w := range r.ingesters {
			roles[w] = "ingest"
		}
		if r.hot != nil {
			roles[r.hot.w] = "hot"
		}
		if r.serve != nil {
			roles[r.serve.w] = "serve"
		}
		if r.batch != nil {
			roles[r.batch.w] = "batch"
		}
		for w := range roles {
			if roles[w] != tc.roles[w] {
				t.Errorf("%v: workers' roles %q, want %q", tc.args, roles, tc.roles)
				break
			}
		}
		r.close()
	}
}

// nullDB opens the null driver, which runs the workload without a server.
func nullDB(t *testing.T) *sqlx.DB {
	t.Helper()
	db, err := sqlx.Open(context.Background(), sqlx.Options{Driver: sqlx.DriverNull, Workers: 6})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	return db
}
