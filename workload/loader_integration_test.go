package workload_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stampede-bench/stampede/internal/testdb"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// twoTables is a generator of two tables of 10 batches of 100 rows, both
// with an EncodeBatch: plain, whose columns a RowWriter encodes, and
// priced, whose NUMERIC column it cannot, so its rows must come through
// FillBatch instead.
type twoTables struct {
	encoded atomic.Int64 // batches written by EncodeBatch
}

func (*twoTables) Meta() workload.Meta { return workload.Meta{Name: "two_tables"} }

func (g *twoTables) Tables() []workload.Table {
	const batches, per = 10, 100
	table := func(name, schema string) workload.Table {
		return workload.Table{
			Name:    name,
			Schema:  schema,
			Columns: []string{"id", "v"},
			InitialRows: workload.BatchedTuples{
				NumBatches: batches,
				NumRows:    batches * per,
				FillBatch: func(b int, rows [][]any) [][]any {
					for i := range per {
						id := b*per + i
						rows = append(rows, []any{id, fmt.Sprint(id * 3)})
					}
					return rows
				},
				EncodeBatch: func(b int, w *sqlx.RowWriter) {
					g.encoded.Add(1)
					for i := range per {
						id := b*per + i
						w.Row()
						w.Int(int64(id))
						w.String(fmt.Sprint(id * 3))
					}
				},
			},
		}
	}
	return []workload.Table{
		table("plain", "(id INTEGER PRIMARY KEY, v TEXT)"),
		table("priced", "(id INTEGER PRIMARY KEY, v NUMERIC)"),
	}
}

// TestSetupEncodeAndFallback loads twoTables on the test server: both
// tables must hold every row, v = 3 id, and the progress callback must
// count each row once; EncodeBatch must have written plain's 10 batches
// and none of priced's.
func TestSetupEncodeAndFallback(t *testing.T) {
	ctx := context.Background()
	db := testdb.Fresh(t, "stampede_loader_test", sqlx.Options{MaxConns: 3})
	g := &twoTables{}
	var progress atomic.Int64
	opts := workload.LoadOptions{Concurrency: 2, BatchesPerCopy: 3, Progress: func(n int64) { progress.Add(n) }}
	if err := workload.Setup(ctx, db, g, opts); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"plain", "priced"} {
		var n, bad int64
		if err := db.QueryRow(ctx, "SELECT count(*), count(*) FILTER (WHERE v::numeric <> 3 * id) FROM "+table).Scan(&n, &bad); err != nil {
			t.Fatal(err)
		}
		if n != 1000 || bad != 0 {
			t.Errorf("%s: %d rows, %d of them wrong; want 1000 rows, v = 3 id", table, n, bad)
		}
	}
	if got := progress.Load(); got != 2000 {
		t.Errorf("progress counted %d rows, want 2000", got)
	}
	if got := g.encoded.Load(); got != 10 {
		t.Errorf("EncodeBatch wrote %d batches, want plain's 10", got)
	}
}
