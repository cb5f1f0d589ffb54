package lambda_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// TestMissingLoad: run and check lambda without init name the missing
// load as bad input (workload.ErrLoadMismatch: exit 2, as churn's), not
// as a failed run or check (exit 1, which check keeps for a failed
// consistency check).
func TestMissingLoad(t *testing.T) {
	db := testdb.Fresh(t, "stampede_lambda_missing", sqlx.Options{MaxConns: 1})
	m, _ := workload.Get("lambda")
	g, err := workload.FromFlags(m)
	if err != nil {
		t.Fatal(err)
	}
	h := g.(workload.Hookser).Hooks()
	ctx := context.Background()
	var rep lines
	for name, err := range map[string]error{"check": h.CheckConsistency(ctx, db, &rep), "run": h.PreRun(ctx, db)} {
		if !errors.Is(err, workload.ErrLoadMismatch) {
			t.Errorf("%s without init: %v, want an error matching workload.ErrLoadMismatch (exit 2)", name, err)
		}
	}
}
