package workload

import (
	"context"
	"strings"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/sqlx"
)

// insertBatches sends t's batches [lo, hi) of initial rows in INSERT
// statements of t.InitialRows.InsertRows rows (fewer for the last of
// each batch), reporting the rows sent to progress (when set):
//
//	INSERT INTO t (c1, c2) VALUES ($1, $2), ($3, $4), ...
func insertBatches(ctx context.Context, db *sqlx.DB, t Table, lo, hi int, progress func(int64)) error {
	rt := t.InitialRows
	d := db.Dialect()
	cols := len(t.Columns)
	stmts := map[int]string{} // by the number of rows
	stmt := func(n int) string {
		if s, ok := stmts[n]; ok {
			return s
		}
		var b strings.Builder
		b.WriteString("INSERT INTO " + d.QuoteIdent(t.Name) + " (" + strings.Join(t.Columns, ", ") + ") VALUES ")
		for r := 0; r < n; r++ {
			if r > 0 {
				b.WriteString(", ")
			}
			b.WriteString("(" + dialect.Placeholders(d, 1+r*cols, cols) + ")")
		}
		stmts[n] = b.String()
		return stmts[n]
	}
	var rows [][]any
	args := make([]any, 0, rt.InsertRows*cols)
	for b := lo; b < hi; b++ {
		rows = rt.FillBatch(b, rows[:0])
		for start := 0; start < len(rows); start += rt.InsertRows {
			end := min(start+rt.InsertRows, len(rows))
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
