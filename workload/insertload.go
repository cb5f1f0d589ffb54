package workload

import (
	"context"
	"strings"
	"sync/atomic"

	"github.com/stampede-bench/stampede/sqlx"
)

// maxInsertParams bounds the parameters of one INSERT statement (the
// protocol's limit is 65535).
const maxInsertParams = 60000

// insertBatches loads t's batches [lo, hi) of initial rows with multi-row
// INSERT statements, as cockroach workload's INSERT data loader does:
// each batch's rows (FillBatch) in statements of up to 1000 rows bound as
// parameters. It has copyBatches' signature; the stream and encode are
// unused (each statement borrows a connection).
func insertBatches(ctx context.Context, db *sqlx.DB, _ int, t Table, lo, hi int, progress func(int64), _ *atomic.Bool) error {
	cols := len(t.Columns)
	if cols == 0 {
		return nil
	}
	perStmt := min(1000, maxInsertParams/cols)
	d := db.Dialect()
	quoted := make([]string, cols)
	for i, c := range t.Columns {
		quoted[i] = d.QuoteIdent(c)
	}
	head := "INSERT INTO " + d.QuoteIdent(t.Name) + " (" + strings.Join(quoted, ", ") + ") VALUES "
	var rows [][]any
	for b := lo; b < hi; b++ {
		rows = t.InitialRows.FillBatch(b, rows[:0])
		for start := 0; start < len(rows); start += perStmt {
			chunk := rows[start:min(start+perStmt, len(rows))]
			var sql strings.Builder
			sql.WriteString(head)
			args := make([]any, 0, len(chunk)*cols)
			for i, r := range chunk {
				if i > 0 {
					sql.WriteString(", ")
				}
				sql.WriteByte('(')
				for j := range r {
					if j > 0 {
						sql.WriteString(", ")
					}
					sql.WriteString(d.Placeholder(len(args) + 1))
					args = append(args, r[j])
				}
				sql.WriteByte(')')
			}
			if _, err := db.Exec(ctx, sql.String(), args...); err != nil {
				return err
			}
			if progress != nil {
				progress(int64(len(chunk)))
			}
		}
	}
	return nil
}
