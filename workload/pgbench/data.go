package pgbench

import (
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// Rows per batch of initial data: a tenth of a scale unit of accounts,
// so that a batch ends on every 100,000th account (pgbench's progress
// lines), and the branches and tellers of many units.
const (
	accountsPerBatch = 10000
	branchesPerBatch = 10000
	tellersPerBatch  = 10000
)

// batches returns the batches of n rows, per to a batch.
func batches(n, per int64) int { return int((n + per - 1) / per) }

// branchRows are pgbench_branches' rows: bid 1..scale, bbalance 0, filler
// NULL (pgbench inserts bid and bbalance only).
func (g *generator) branchRows() workload.BatchedTuples {
	n := int64(g.scale) * branchesPerScale
	return workload.BatchedTuples{
		NumBatches: batches(n, branchesPerBatch),
		NumRows:    n,
		FillBatch: func(b int, rows [][]any) [][]any {
			lo := int64(b) * branchesPerBatch
			for i := lo; i < min(lo+branchesPerBatch, n); i++ {
				rows = append(rows, []any{int32(i + 1), int32(0), nil})
			}
			return rows
		},
	}
}

// tellerRows are pgbench_tellers' rows: tid 1..10 x scale, bid (tid-1)/10+1,
// tbalance 0, filler NULL.
func (g *generator) tellerRows() workload.BatchedTuples {
	n := int64(g.scale) * tellersPerScale
	return workload.BatchedTuples{
		NumBatches: batches(n, tellersPerBatch),
		NumRows:    n,
		FillBatch: func(b int, rows [][]any) [][]any {
			lo := int64(b) * tellersPerBatch
			for i := lo; i < min(lo+tellersPerBatch, n); i++ {
				rows = append(rows, []any{int32(i + 1), int32(i/tellersPerScale + 1), int32(0), nil})
			}
			return rows
		},
	}
}

// accountRows are pgbench_accounts' rows: aid 1..100,000 x scale, bid
// (aid-1)/100,000+1, abalance 0, filler ” (blank-padded by char(84)).
func (g *generator) accountRows() workload.BatchedTuples {
	n := g.accounts()
	span := func(b int) (lo, hi int64) {
		lo = int64(b) * accountsPerBatch
		return lo, min(lo+accountsPerBatch, n)
	}
	return workload.BatchedTuples{
		NumBatches: batches(n, accountsPerBatch),
		NumRows:    n,
		FillBatch: func(b int, rows [][]any) [][]any {
			lo, hi := span(b)
			for i := lo; i < hi; i++ {
				rows = append(rows, []any{i + 1, int32(i/accountsPerScale + 1), int32(0), ""})
			}
			g.log.tuples(hi - lo)
			return rows
		},
		EncodeBatch: func(b int, w *sqlx.RowWriter) {
			lo, hi := span(b)
			for i := lo; i < hi; i++ {
				w.Row()
				w.Int(i + 1)
				w.Int(i/accountsPerScale + 1)
				w.Int(0)
				w.String("")
			}
			g.log.tuples(hi - lo)
		},
	}
}
