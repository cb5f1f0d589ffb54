package workload

import (
	"context"
	"fmt"
	"strings"
	"sync"
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

// timedLoad inserts t's initial rows as YCSB's load does
// (LoadOptions.Timer): the streams share the rows as YCSB's Client shares
// a load's inserts among its threads (each total/streams of them, the
// first total%streams one more), each stream inserting its share in
// order, one row a statement or InsertRows a statement (YCSB's JDBC
// binding's db.batchsize), the rows carried from batch to batch so that
// only the stream's last statement is short, sent at its end (the
// binding's cleanup), and each stream's end timed, even a stream with no
// rows. The batches must hold the same number of rows but the last.
func timedLoad(ctx context.Context, db *sqlx.DB, t Table, opts LoadOptions) error {
	rt := t.InitialRows
	perBatch := int64(len(rt.FillBatch(0, nil)))
	if perBatch == 0 {
		return nil
	}
	streams := int64(max(opts.Concurrency, 1))
	base, extra := rt.NumRows/streams, rt.NumRows%streams
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var once sync.Once
	var firstErr error
	for s := range streams {
		lo := s*base + min(s, extra)
		n := base
		if s < extra {
			n++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ti := newTimedInserter(ctx, db, t, max(rt.InsertRows, 1), opts.Timer, opts.Progress)
			err := ti.insert(lo, lo+n, perBatch)
			if err == nil {
				err = ti.cleanup()
			}
			if err != nil {
				once.Do(func() {
					firstErr = fmt.Errorf("loading %s (rows %d-%d): %w", t.Name, lo, lo+n-1, err)
					cancel()
				})
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

// timedInserter is one stream of timedLoad: per rows a statement,
// gathered across batches, each row timed.
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

// insert inserts the initial rows [lo, hi) (in batches of perBatch
// rows): each row joins the statement being gathered, which is sent when
// it holds per rows.
func (ti *timedInserter) insert(lo, hi, perBatch int64) error {
	for b := lo / perBatch; b*perBatch < hi; b++ {
		if err := ti.ctx.Err(); err != nil {
			return err
		}
		ti.rows = ti.t.InitialRows.FillBatch(int(b), ti.rows[:0])
		for i, row := range ti.rows {
			if k := b*perBatch + int64(i); k < lo || k >= hi {
				continue
			}
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
// per > 1), and times it.
func (ti *timedInserter) cleanup() error {
	start := time.Now()
	var err error
	if ti.n > 0 {
		err = ti.send()
	}
	ti.timer.Cleanup(time.Since(start))
	return err
}
