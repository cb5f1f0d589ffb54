package churn

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync/atomic"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/internal/cacheline"
	"github.com/stampede-bench/stampede/randgen"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// Streams: loop w draws its statements and shapes from (seed, shapeStream
// | w) and its fake values from (seed, dataStream | w), so that the
// shapes do not depend on the values drawn; the run's pool of gofakeit
// values comes from (seed, poolStream).
const (
	shapeStream = 1 << 32
	dataStream  = 2 << 32
	poolStream  = 3 << 32
)

// duplicateTable is the SQLSTATE of CREATE TABLE of a name taken, and
// maxNameTries how many names a create tries past taken ones.
const (
	duplicateTable = "42P07"
	maxNameTries   = 100
)

// tableName is the name of loop w's table number seq, prefix churn_ (or
// churn_cI_ for client I of several).
func tableName(prefix string, w, seq int) string {
	return prefix + strconv.Itoa(w) + "_" + strconv.Itoa(seq)
}

// totals are what the loops inserted, for the run's figures. Safe for
// concurrent use.
type totals struct {
	rows, bytes atomic.Int64
}

// worker is one loop: its streams, its connection and the tables it made
// in this run. It is not safe for concurrent use.
type worker struct {
	_      cacheline.Pad
	id     int
	conn   sqlx.Conn
	d      dialect.Dialect
	r      *rand.Rand // statements and shapes
	fill   *filler    // values
	sz     sizes
	cum    [numOps]int // cumulative weights
	share  int         // most tables alive at once
	nextSq int         // the next table's number
	made   int         // tables created, for shape.created
	tables []*shape    // alive, in creation order
	tot    *totals
	buf    []byte
	mark   string
	prefix string // of its tables' names (tableName)
	_      cacheline.Pad
}

// run performs one statement kind drawn from the mix: the
// workload.Worker.
func (w *worker) run(ctx context.Context) workload.Result {
	op := w.pick()
	var err error
	switch op {
	case opCreate:
		err = w.create(ctx)
	case opInsert:
		err = w.insert(ctx)
	case opAlter:
		err = w.alter(ctx)
	case opDrop:
		err = w.drop(ctx)
	}
	return workload.Result{Op: op, Err: err}
}

// pick draws the next statement kind: from the mix, but a loop without a
// table creates one, and one at its share of --max-tables drops one
// instead of creating.
func (w *worker) pick() int {
	x := w.r.IntN(w.cum[numOps-1])
	op := 0
	for x >= w.cum[op] {
		op++
	}
	switch {
	case len(w.tables) == 0:
		return opCreate
	case op == opCreate && len(w.tables) >= w.share:
		return opDrop
	}
	return op
}

// create makes a table of a new shape, in one transaction with its mark,
// its indexes and its bookkeeping row:
//
//	BEGIN
//	CREATE TABLE "churn_W_N" (...)   ("churn_cI_W_N" for client I of several) [WITH (appendoptimized=...) DISTRIBUTED BY (...)]
//	COMMENT ON TABLE "churn_W_N" IS 'made by stampede run of churn'
//	CREATE INDEX "churn_W_N_i1" ON "churn_W_N" (...)   (each index)
//	INSERT INTO churn_tables (name, worker, seq, first_shape, shape) VALUES ($1, $2, $3, $4, $4)
//	COMMIT
func (w *worker) create(ctx context.Context) error {
	seq := w.nextSq
	w.nextSq++
	s := newShape(w.r, tableName(w.prefix, w.id, seq), w.sz)
	s.created = w.made
	w.made++
	stmts, err := s.createSQL(w.d)
	if err != nil {
		return err
	}
	stmts = append(stmts, dialect.CommentOnTable(w.d, s.name, w.mark))
	for try := 0; ; try++ {
		err = w.tx(ctx, stmts, "INSERT INTO "+bookTable+" (name, worker, seq, first_shape, shape) VALUES ("+dialect.Placeholders(w.d, 1, 4)+", "+w.d.Placeholder(4)+")",
			s.name, w.id, seq, s.String())
		if err == nil || sqlx.SQLState(err) != duplicateTable || try == maxNameTries {
			break
		}
		// A table of that name that churn did not make (a user's): the
		// shape takes the loop's next name.
		seq = w.nextSq
		w.nextSq++
		s.name = tableName(w.prefix, w.id, seq)
		if stmts, err = s.createSQL(w.d); err != nil {
			return err
		}
		stmts = append(stmts, dialect.CommentOnTable(w.d, s.name, w.mark))
	}
	if err != nil {
		return fmt.Errorf("creating table %s: %w", s.name, err)
	}
	w.tables = append(w.tables, s)
	return nil
}

// maxInsertBytes bounds the SQL text of one INSERT: rows are added to a
// statement until it reaches this size (a statement holds at least one
// row), so that the client's memory stays bounded whatever --rows and
// --columns (an INSERT of 100,000 rows of 200 columns took gigabytes).
const maxInsertBytes = 1 << 20

// insert adds --rows rows of fake values to one of the loop's tables,
// drawn at random, and their count and bytes to its bookkeeping row, in
// one transaction: the rows in INSERTs of at most maxInsertBytes of text
// each (nextInsert), then the bookkeeping.
func (w *worker) insert(ctx context.Context) error {
	s := w.tables[w.r.IntN(len(w.tables))]
	n := drawIn(w.r, w.sz.rows)
	head := w.insertHead(s)
	err := func() error {
		tx, err := w.conn.Begin(ctx, sqlx.TxOptions{})
		if err != nil {
			return err
		}
		defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
		var bytes int64
		for left := n; left > 0; {
			k, b := w.nextInsert(head, s, left)
			left -= k
			bytes += b
			if _, err := tx.Exec(ctx, string(w.buf)); err != nil {
				return err
			}
		}
		p := w.d.Placeholder
		if _, err := tx.Exec(ctx, "UPDATE "+bookTable+" SET rows = rows + "+p(1)+", bytes = bytes + "+p(2)+" WHERE name = "+p(3), int64(n), bytes, s.name); err != nil {
			return err
		}
		if err := tx.Commit(ctx); err != nil {
			return err
		}
		w.tot.rows.Add(int64(n))
		w.tot.bytes.Add(bytes)
		return nil
	}()
	if err != nil {
		return fmt.Errorf("inserting into %s: %w", s.name, err)
	}
	return nil
}

// insertHead returns "INSERT INTO "t" ("c1", ...) VALUES " of s.
func (w *worker) insertHead(s *shape) string {
	b := append(w.buf[:0], "INSERT INTO "...)
	b = append(b, w.d.QuoteIdent(s.name)...)
	b = append(b, " ("...)
	for i, c := range s.columns {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, w.d.QuoteIdent(c.name)...)
	}
	b = append(b, ") VALUES "...)
	w.buf = b
	return string(b)
}

// nextInsert writes into w.buf the next INSERT of s's rows: head, then
// rows until the text reaches maxInsertBytes or left rows are in (at
// least one); it returns the rows written and their values' bytes.
func (w *worker) nextInsert(head string, s *shape, left int) (int, int64) {
	w.buf = append(w.buf[:0], head...)
	k := 0
	for k < left && (k == 0 || len(w.buf) < maxInsertBytes) {
		if k > 0 {
			w.buf = append(w.buf, ", "...)
		}
		w.buf = w.fill.appendRow(w.buf, s)
		k++
	}
	return k, w.fill.takeBytes()
}

// alter adds a column (of a random kind, NULL in the rows already
// there) or a secondary index to one of the loop's tables, drawn at
// random, and records the new shape.
func (w *worker) alter(ctx context.Context) error {
	i := w.r.IntN(len(w.tables))
	s := w.tables[i]
	addIndex := w.r.IntN(2) == 0
	if len(s.columns) >= maxColumns {
		addIndex = true
	}
	if len(s.indexes) >= maxIndexes {
		addIndex = false
	}
	// The change is made on a copy, kept when the transaction commits.
	next := *s
	next.columns = append([]column(nil), s.columns...)
	next.indexes = append([][]int(nil), s.indexes...)
	var stmt string
	if addIndex {
		cols := next.addIndex(w.r)
		if cols == nil {
			addIndex = false
		} else {
			stmt = next.indexSQL(w.d, next.nIndex, cols)
		}
	}
	if !addIndex {
		stmt = next.addColumnSQL(w.d, next.addColumn(w.r))
	}
	book := "UPDATE " + bookTable + " SET shape = " + w.d.Placeholder(1) + " WHERE name = " + w.d.Placeholder(2)
	err := w.tx(ctx, []string{stmt}, book, next.String(), s.name)
	for try := 0; addIndex && err != nil && sqlx.SQLState(err) == duplicateTable && try < maxNameTries; try++ {
		// The index's name is another relation's: the index of a table
		// the user renamed to keep it (its indexes keep churn's names),
		// or a user's own. The index takes the table's next number.
		next.nIndex++
		stmt = next.indexSQL(w.d, next.nIndex, next.indexes[len(next.indexes)-1])
		err = w.tx(ctx, []string{stmt}, book, next.String(), s.name)
	}
	if err != nil {
		return fmt.Errorf("altering %s: %w", s.name, err)
	}
	*s = next
	return nil
}

// drop drops one of the loop's tables, drawn at random, and marks its
// bookkeeping row dropped (the row stays, for the totals), in one
// transaction.
func (w *worker) drop(ctx context.Context) error {
	i := w.r.IntN(len(w.tables))
	s := w.tables[i]
	err := w.tx(ctx, []string{"DROP TABLE " + w.d.QuoteIdent(s.name)},
		"UPDATE "+bookTable+" SET dropped_at = now() WHERE name = "+w.d.Placeholder(1), s.name)
	if err != nil {
		return fmt.Errorf("dropping %s: %w", s.name, err)
	}
	w.tables = append(w.tables[:i], w.tables[i+1:]...)
	return nil
}

// tx runs stmts, then book with args, in one transaction.
func (w *worker) tx(ctx context.Context, stmts []string, book string, args ...any) error {
	tx, err := w.conn.Begin(ctx, sqlx.TxOptions{})
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	for _, s := range stmts {
		if _, err := tx.Exec(ctx, s); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(ctx, book, args...); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// newWorker returns loop id of a run seeded seed, whose tables are
// numbered from next on and which keeps at most share alive, drawing
// values from p.
func newWorker(g *churn, d dialect.Dialect, conn sqlx.Conn, seed uint64, id, next, share int, tot *totals, p *pool) *worker {
	w := &worker{
		id: id, conn: conn, d: d, sz: g.sz, share: share, nextSq: next, tot: tot,
		r:    randgen.New(seed, shapeStream|uint64(id)),
		fill: newFiller(randgen.New(seed, dataStream|uint64(id)), p),
		mark: workload.RunMark(churnMeta.Name), prefix: g.tablePrefix(),
	}
	sum := 0
	for i, x := range g.weights {
		sum += x
		w.cum[i] = sum
	}
	return w
}
