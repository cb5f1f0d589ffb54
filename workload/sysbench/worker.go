package sysbench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/stampede-bench/stampede/internal/cacheline"
	"github.com/stampede-bench/stampede/randgen"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// workerStream is the random stream of worker w: (run seed, 1<<63 | w),
// which no data batch uses.
func workerStream(w int) uint64 { return 1<<63 | uint64(w) }

// uniqueStream is the stream that seeds oltp_insert's shared unique ids,
// used by no worker and no data batch.
const uniqueStream = 1 << 62

// Limits of restarting an event after errors.
const (
	// maxRestarts bounds the restarts of one event after ignorable
	// errors; sysbench restarts without limit.
	maxRestarts = 100
	// maxConnRetries bounds the consecutive connection losses one event
	// survives: a lost connection is re-established by the next
	// statement, so a second loss in a row means the server is unwell.
	maxConnRetries = 5
	// connBackoff is the pause before the second attempt after a lost
	// connection, doubled for each further one (the first attempt is
	// immediate).
	connBackoff = 50 * time.Millisecond
	// rollbackTimeout bounds the ROLLBACK after a failed statement.
	rollbackTimeout = 5 * time.Second
)

// ignorable reports whether err is one of the errors sysbench's pgsql
// driver ignores by rolling back and restarting the event (drv_pgsql.c):
// serialization failure (40001), deadlock (40P01) and unique violation
// (23505). The last happens in oltp_read_write and oltp_write_only when
// two workers delete and re-insert the same id (under READ COMMITTED the
// second DELETE finds the row gone once the first commits, and its
// INSERT then collides with the first's), and in oltp_insert when a
// client-chosen id exists.
func ignorable(err error) bool {
	return sqlx.IsRetryable(err) || sqlx.SQLState(err) == "23505"
}

// worker is one worker of an OLTP or select_random_* workload: its
// stream, generators, connection and the arguments and scan destinations
// its statements reuse. It is not safe for concurrent use.
type worker struct {
	_     cacheline.Pad // the fields below are written on every event
	cfg   *config
	event func(*worker, context.Context) error
	stmts []tableStatements // stmts[n-1] is table n's
	op    *[numKinds]int    // operation index per kind

	conn sqlx.Conn
	q    sqlx.Querier // conn, or tx while a transaction is open
	tx   sqlx.Tx
	// raw is q's fast path, when it has one (see sqlx.RawQuerier), and
	// params the parameters encoded for it; ints[i] is the buffer
	// reused for the digits of an integer parameter i (a []byte
	// parameter is passed as is, never written into).
	raw    sqlx.RawQuerier
	text   bool // off the fast path, statements go as text (see useText)
	params [][]byte
	ints   [][]byte
	rec    workload.Recorder
	base   time.Time // origin of the monotonic clock readings

	r      *rand.Rand
	ids    randgen.IntGenerator // sysbench.rand.default(1, table_size)
	digits digitSource
	unique *uniqueIDs // oltp_insert with --auto_inc off

	// Bind parameters, boxed once: a, b and k are set in place, cBuf and
	// padBuf filled in place.
	a, b, k        intArg
	tenant         intArg // the tenant id, in column mode
	cBuf, padBuf   []byte
	args1          []any // [tenant,] a
	args2          []any // [tenant,] a, b
	updateArgs     []any // c, [tenant,] a
	insertArgs     []any // [tenant,] a, k, c, pad
	insertAutoArgs []any // [tenant,] k, c, pad

	// select_random_*: the worker's segment of k values, its statement
	// and parameters.
	segment   randgen.IntGenerator
	randomSQL string
	points    []intArg
	pointArgs []any

	// Scan destinations, reused.
	idCol, kCol  intDest
	cCol, padCol column
	num          intDest
	cDest        []any // c
	numDest      []any // SUM(k) or count(k)
	rowDest      []any // id, k, c, pad
	_            cacheline.Pad
}

// newWorker returns a worker of g's script on conn, drawing from r.
func newWorker(g *generator, stmts []tableStatements, op *[numKinds]int, conn sqlx.Conn, r *rand.Rand) *worker {
	c := &g.cfg
	w := &worker{
		cfg: c, event: g.s.event, stmts: stmts, op: op,
		conn: conn, rec: nopRecorder{}, base: time.Now(),
		r: r, ids: c.ids(1, int64(c.tableSize)), digits: newDigitSource(r),
		// Buffers written on every event are padded off other
		// workers' (see package cacheline).
		cBuf: cacheline.Slice[byte](cLen), padBuf: cacheline.Slice[byte](padLen),
	}
	cArg, padArg := any(w.cBuf), any(w.padBuf)
	w.args1 = w.withTenant(&w.a)
	w.args2 = w.withTenant(&w.a, &w.b)
	w.updateArgs = append([]any{cArg}, w.withTenant(&w.a)...)
	w.insertArgs = w.withTenant(&w.a, &w.k, cArg, padArg)
	w.insertAutoArgs = w.withTenant(&w.k, cArg, padArg)
	w.cDest = []any{&w.cCol}
	w.numDest = []any{&w.num}
	w.rowDest = []any{&w.idCol, &w.kCol, &w.cCol, &w.padCol}
	w.setQuerier(conn)
	return w
}

// useText makes the worker, when it has no fast path, write its
// parameters into its statements itself (sqlx.Interpolate) for
// connections that send statements as text: pgx would write a []byte as
// a bytea literal, and cannot write an intArg at all.
func (w *worker) useText() { w.text = true }

// withTenant returns args led by the tenant id in column mode, args
// alone without a tenant.
func (w *worker) withTenant(args ...any) []any {
	if w.cfg.tenant == 0 {
		return args
	}
	w.tenant.v = int64(w.cfg.tenant)
	return append([]any{&w.tenant}, args...)
}

// setQuerier makes q the querier of the next statements.
func (w *worker) setQuerier(q sqlx.Querier) {
	w.q = q
	w.raw, _ = q.(sqlx.RawQuerier)
}

// maxIntLen is the length of the longest int64 in decimal.
const maxIntLen = len("-9223372036854775808")

// encode encodes args for the fast path, in text format, into w.params.
// Arguments are what the worker binds: *intArg and []byte.
func (w *worker) encode(args []any) [][]byte {
	if cap(w.params) < len(args) {
		w.params = cacheline.Slice[[]byte](len(args))
		w.ints = cacheline.Slice[[]byte](len(args))
		for i := range w.ints {
			w.ints[i] = cacheline.Slice[byte](maxIntLen)[:0]
		}
	}
	p := w.params[:len(args)]
	for i, a := range args {
		switch a := a.(type) {
		case *intArg:
			w.ints[i] = strconv.AppendInt(w.ints[i][:0], a.v, 10)
			p[i] = w.ints[i]
		case []byte:
			p[i] = a
		default:
			panic(fmt.Sprintf("sysbench: argument of type %T", a))
		}
	}
	return p
}

// setSegment gives a select_random_* worker its segment of k values and
// its statement with n parameters.
func (w *worker) setSegment(segment randgen.IntGenerator, sql string, n int) {
	w.segment, w.randomSQL = segment, sql
	w.points = make([]intArg, n)
	args := make([]any, n)
	for i := range w.points {
		args[i] = &w.points[i]
	}
	w.pointArgs = w.withTenant(args...)
}

// run performs one sysbench event. It is the workload.Worker. An
// ignorable error (see ignorable) or a lost connection rolls back the
// transaction, counts an error of the transaction through the Recorder
// and restarts the event, as sysbench does; other errors end the call
// with the error.
func (w *worker) run(ctx context.Context) workload.Result {
	connLosses := 0
	for restarts := 0; ; restarts++ {
		err := w.event(w, ctx)
		if err == nil {
			return workload.Result{}
		}
		w.rollback(ctx)
		if ctx.Err() != nil {
			// The run is ending (the engine ignores context.Canceled
			// then) or timed out: no restart.
			return workload.Result{Err: fmt.Errorf("%w: %v", ctx.Err(), err)}
		}
		switch {
		case ignorable(err):
			connLosses = 0
		case sqlx.IsConnectionError(err):
			connLosses++
			if connLosses > maxConnRetries {
				return workload.Result{Err: fmt.Errorf("connection lost %d times in a row: %w", connLosses, err)}
			}
			if connLosses > 1 && !workload.Sleep(ctx, connBackoff<<(connLosses-2)) {
				return workload.Result{Err: fmt.Errorf("%w: %v", ctx.Err(), err)}
			}
		default:
			return workload.Result{Err: err}
		}
		if restarts == maxRestarts {
			return workload.Result{Err: fmt.Errorf("event restarted %d times, giving up: %w", maxRestarts, err)}
		}
		w.rec.RecordError(w.op[kTransaction], err)
	}
}

// now returns the time since the worker's base, a monotonic clock
// reading only.
func (w *worker) now() time.Duration { return time.Since(w.base) }

// record records the latency of an operation of kind k started at start.
func (w *worker) record(k opKind, start time.Duration) {
	w.rec.Record(w.op[k], w.now()-start)
}

// exec runs a statement that returns no rows, recorded under its kind,
// or under the kind's no-rows kind when it changed no row.
func (w *worker) exec(ctx context.Context, k opKind, sql string, args []any) error {
	start := w.now()
	var n int64
	var err error
	switch {
	case w.raw != nil:
		n, err = w.raw.QueryRaw(ctx, sql, w.encode(args), nil)
	case w.text:
		n, err = w.q.Exec(ctx, sqlx.Interpolate(sql, w.encode(args)))
	default:
		n, err = w.q.Exec(ctx, sql, args...)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", kindNames[k], err)
	}
	if n == 0 && noRows[k] != 0 {
		k = noRows[k]
	}
	w.record(k, start)
	return nil
}

// query runs a statement and reads all its rows: into dest, or on the
// fast path only off the wire, as sysbench does, which frees its results
// without reading them.
func (w *worker) query(ctx context.Context, k opKind, sql string, args, dest []any) error {
	start := w.now()
	if w.raw != nil {
		if _, err := w.raw.QueryRaw(ctx, sql, w.encode(args), nil); err != nil {
			return fmt.Errorf("%s: %w", kindNames[k], err)
		}
		w.record(k, start)
		return nil
	}
	var rows sqlx.Rows
	var err error
	if w.text {
		rows, err = w.q.Query(ctx, sqlx.Interpolate(sql, w.encode(args)))
	} else {
		rows, err = w.q.Query(ctx, sql, args...)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", kindNames[k], err)
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			rows.Close()
			return fmt.Errorf("%s: %w", kindNames[k], err)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: %w", kindNames[k], err)
	}
	w.record(k, start)
	return nil
}

// begin starts the event's transaction (sysbench's BEGIN).
func (w *worker) begin(ctx context.Context) error {
	start := w.now()
	tx, err := w.conn.Begin(ctx, sqlx.TxOptions{})
	if err != nil {
		return fmt.Errorf("%s: %w", kindNames[kBegin], err)
	}
	w.tx = tx
	w.setQuerier(tx)
	w.record(kBegin, start)
	return nil
}

// commit commits the event's transaction.
func (w *worker) commit(ctx context.Context) error {
	start := w.now()
	err := w.tx.Commit(ctx)
	w.tx = nil
	w.setQuerier(w.conn)
	if err != nil {
		return fmt.Errorf("%s: %w", kindNames[kCommit], err)
	}
	w.record(kCommit, start)
	return nil
}

// rollback aborts the open transaction, if any, even when ctx is done.
func (w *worker) rollback(ctx context.Context) {
	if w.tx == nil {
		return
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
	_ = w.tx.Rollback(rctx)
	cancel()
	w.tx = nil
	w.setQuerier(w.conn)
}

// table draws the table of a group of statements, uniform over the
// tables (oltp_common.lua's get_table_num), and returns its statements.
func (w *worker) table() *tableStatements {
	return &w.stmts[w.r.IntN(len(w.stmts))]
}

// id draws an id, or a k value, from the --rand-type distribution over
// [1, table_size] (get_id).
func (w *worker) id() int64 { return w.ids.Next(w.r) }
