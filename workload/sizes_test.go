package workload_test

import (
	"testing"

	"github.com/stampede-bench/stampede/workload"
)

func TestEstimateBytes(t *testing.T) {
	// table returns a table of rows rows, batches of 10, each row an
	// int64 and a string of width bytes (8 + width bytes).
	table := func(rows int64, width int) workload.Table {
		return workload.Table{Name: "t", InitialRows: workload.BatchedTuples{
			NumBatches: int((rows + 9) / 10), NumRows: rows,
			FillBatch: func(i int, out [][]any) [][]any {
				for k := range 10 {
					out = append(out, []any{int64(i*10 + k), string(make([]byte, width))})
				}
				return out
			},
		}}
	}
	many := func(n int, rows int64, width int) []workload.Table {
		var ts []workload.Table
		for range n {
			ts = append(ts, table(rows, width))
		}
		return ts
	}
	for _, tc := range []struct {
		name   string
		tables []workload.Table
		want   int64
	}{
		{"none", nil, 0},
		{"empty table", []workload.Table{{Name: "e"}}, 0},
		{"one table", []workload.Table{table(1000, 92)}, 100 * 1000},
		{"two kinds", []workload.Table{table(1000, 92), table(10, 2)}, 100*1000 + 10*10},
		// 16 tables sampled, the other 4 at their mean row size.
		{"many identical", many(20, 1_000_000, 192), 20 * 200 * 1_000_000},
		{"huge", []workload.Table{table(1_000_000_000_000, 1016)}, 1024 * 1_000_000_000_000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := workload.EstimateBytes(tc.tables); got != tc.want {
				t.Fatalf("EstimateBytes = %d, want %d", got, tc.want)
			}
		})
	}
}
