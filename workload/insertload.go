package workload

import (
	"context"
	"strings"
	"time"

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
	stmt := newInsertStatements(db, t)
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

// insertStatements builds (and keeps) the INSERT statements of t by
// their number of rows.
type insertStatements struct {
	head  string
	cols  int
	d     interface{ Placeholder(int) string }
	stmts map[int]string
}

// newInsertStatements returns the builder of t's INSERT statements.
func newInsertStatements(db *sqlx.DB, t Table) func(rows int) string {
	d := db.Dialect()
	quoted := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		quoted[i] = d.QuoteIdent(c)
	}
	s := &insertStatements{head: "INSERT INTO " + d.QuoteIdent(t.Name) + " (" + strings.Join(quoted, ", ") + ") VALUES ",
		cols: len(t.Columns), d: d, stmts: map[int]string{}}
	return s.stmt
}

// stmt returns the statement of n rows.
func (s *insertStatements) stmt(n int) string {
	if st, ok := s.stmts[n]; ok {
		return st
	}
	var b strings.Builder
	b.WriteString(s.head)
	for r := 0; r < n; r++ {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for j := 0; j < s.cols; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(s.d.Placeholder(1 + r*s.cols + j))
		}
		b.WriteByte(')')
	}
	s.stmts[n] = b.String()
	return s.stmts[n]
}

// timedInserter is one stream of a load that inserts as YCSB's load does
// (LoadOptions.Timer): per rows a statement, gathered across the batches
// the stream claims, each row timed.
type timedInserter struct {
	ctx      context.Context
	db       *sqlx.DB
	t        Table
	per      int
	timer    InsertTimer
	progress func(int64)
	stmt     func(rows int) string
	rows     [][]any
	args     []any
	n        int // the rows gathered in args
}

func newTimedInserter(ctx context.Context, db *sqlx.DB, t Table, per int, timer InsertTimer, progress func(int64)) *timedInserter {
	per = max(1, min(per, maxInsertParams/max(1, len(t.Columns))))
	return &timedInserter{ctx: ctx, db: db, t: t, per: per, timer: timer, progress: progress, stmt: newInsertStatements(db, t)}
}

// batches inserts t's batches [lo, hi) of initial rows: each row joins
// the statement being gathered, which is sent when it holds per rows.
func (ti *timedInserter) batches(lo, hi int) error {
	for b := lo; b < hi; b++ {
		ti.rows = ti.t.InitialRows.FillBatch(b, ti.rows[:0])
		for _, row := range ti.rows {
			start := time.Now()
			ti.args = append(ti.args, row...)
			ti.n++
			if ti.n < ti.per {
				ti.timer.Insert(time.Since(start), true)
				continue
			}
			err := ti.send()
			ti.timer.Insert(time.Since(start), false)
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// send sends the rows gathered in one statement.
func (ti *timedInserter) send() error {
	_, err := ti.db.Exec(ti.ctx, ti.stmt(ti.n), ti.args...)
	if err == nil && ti.progress != nil {
		ti.progress(int64(ti.n))
	}
	ti.args, ti.n = ti.args[:0], 0
	return err
}

// cleanup ends the stream, sending the rows still gathered (none unless
// per > 1), and times it; a load that failed sends nothing.
func (ti *timedInserter) cleanup() error {
	if ti.ctx.Err() != nil {
		return nil
	}
	start := time.Now()
	var err error
	if ti.n > 0 {
		err = ti.send()
	}
	ti.timer.Cleanup(time.Since(start))
	return err
}
