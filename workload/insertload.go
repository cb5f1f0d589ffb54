package workload

import (
	"context"
	"strings"

	"github.com/stampede-bench/stampede/sqlx"
)

// maxInsertParams bounds the parameters of one INSERT statement (the
// protocol's limit is 65535).
const maxInsertParams = 60000

// insertRowsPerStatement is how many rows of t one INSERT of cockroach
// workload's INSERT data loader carries: up to 1000, fewer for wide
// tables.
func insertRowsPerStatement(t Table) int {
	return max(1, min(1000, maxInsertParams/max(1, len(t.Columns))))
}

// insertBatches sends t's batches [lo, hi) of initial rows in multi-row
// INSERT statements of per rows (fewer for the last of each batch), as a
// client without COPY does (YCSB's JDBC binding with db.batchsize,
// cockroach workload's --data-loader=insert), reporting the rows sent to
// progress (when set):
//
//	INSERT INTO t (c1, c2) VALUES ($1, $2), ($3, $4), ...
func insertBatches(ctx context.Context, db *sqlx.DB, t Table, lo, hi, per int, progress func(int64)) error {
	cols := len(t.Columns)
	if cols == 0 {
		return nil
	}
	per = max(1, min(per, maxInsertParams/cols))
	d := db.Dialect()
	quoted := make([]string, cols)
	for i, c := range t.Columns {
		quoted[i] = d.QuoteIdent(c)
	}
	head := "INSERT INTO " + d.QuoteIdent(t.Name) + " (" + strings.Join(quoted, ", ") + ") VALUES "
	stmts := map[int]string{} // by the number of rows
	stmt := func(n int) string {
		if s, ok := stmts[n]; ok {
			return s
		}
		var b strings.Builder
		b.WriteString(head)
		for r := 0; r < n; r++ {
			if r > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('(')
			for j := 0; j < cols; j++ {
				if j > 0 {
					b.WriteString(", ")
				}
				b.WriteString(d.Placeholder(1 + r*cols + j))
			}
			b.WriteByte(')')
		}
		stmts[n] = b.String()
		return stmts[n]
	}
	var rows [][]any
	args := make([]any, 0, per*cols)
	for b := lo; b < hi; b++ {
		rows = t.InitialRows.FillBatch(b, rows[:0])
		for start := 0; start < len(rows); start += per {
			end := min(start+per, len(rows))
			args = args[:0]
			for _, row := range rows[start:end] {
				args = append(args, row...)
			}
			if _, err := db.Exec(ctx, stmt(end-start), args...); err != nil {
				return err
			}
			if progress != nil {
				progress(int64(end - start))
			}
		}
	}
	return nil
}
