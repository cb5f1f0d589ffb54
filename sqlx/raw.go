package sqlx

import (
	"context"
	"strconv"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgconn"
)

// RawQuerier is the fast path of a worker's dedicated connection, for the
// few statements a benchmark runs millions of times. It bypasses pgx's
// statement cache, argument encoding and row decoding: the statement is
// prepared once per connection and run with parameters the caller has
// already encoded as text (PostgreSQL parses them as it parses libpq's),
// and rows are handed back as the server sent them.
//
// A Conn from DB.Conn(w, true) implements it, and so does a Tx begun on
// one, unless the DB shares its connections among more workers (then
// each call borrows a connection and there is nothing to prepare on).
// Callers type-assert and fall back to Querier. It is not safe for
// concurrent use.
type RawQuerier interface {
	// QueryRaw runs sql with params (each in text format; nil is NULL),
	// calls row, when not nil, with each row's columns in text format
	// (valid only during the call), and returns the number of rows the
	// statement affected or returned.
	QueryRaw(ctx context.Context, sql string, params [][]byte, row func([][]byte)) (int64, error)
}

// rawStmtSeq numbers the fast path's prepared statements.
var rawStmtSeq atomic.Uint64

// rawStmts are the statements a worker prepared on its connection for
// the fast path. They belong to one server connection: reset forgets them
// when the worker's connection is replaced.
type rawStmts struct {
	pc    *pgconn.PgConn
	descs map[string]*rawStmt
}

// rawStmt is a statement prepared for the fast path.
type rawStmt struct {
	sd *pgconn.StatementDescription
	// small says the statement's last response fitted in one of the
	// server's output buffers (smallResponse bytes).
	small bool
}

// smallResponse is PostgreSQL's output buffer size: a response up to it
// is sent in one write, as soon as the statement has run.
const smallResponse = 8192

// reset forgets the statements prepared on the previous connection.
func (s *rawStmts) reset() {
	s.pc = nil
	clear(s.descs)
}

// query runs sql on pc, preparing it first if pc has not seen it.
//
// Measured with oltp_point_select --threads=8 on one PostgreSQL 15 (2
// vCPU, load average 10-12 from other jobs): client user CPU per query
// fell from 7.7-8.7 µs through pgx's Conn.Query (statement cache lookup,
// encode plans, a Rows per query, scan plans) to 4.7-6.0 µs; system CPU
// (the socket and the Go scheduler, 13-14 µs) did not change.
// scripts/bench sysbench, before and after: stampede's CPU per 1000
// transactions 18.0 -> 17.1 ms (point select), 794 -> 683 ms (read/write).
func (s *rawStmts) query(ctx context.Context, pc *pgconn.PgConn, sql string, params [][]byte, row func([][]byte)) (int64, error) {
	if s.pc != pc {
		s.reset()
		s.pc = pc
	}
	if s.descs == nil {
		s.descs = make(map[string]*rawStmt)
	}
	st := s.descs[sql]
	if st == nil {
		// Names are unique in the process, as a connection returned to
		// the pool keeps its statements for its next user; pgx's own
		// cache names start with "stmtcache_".
		name := "stampede_raw_" + strconv.FormatUint(rawStmtSeq.Add(1), 10)
		sd, err := pc.Prepare(ctx, name, sql, nil)
		if err != nil {
			return 0, err
		}
		st = &rawStmt{sd: sd}
		s.descs[sql] = st
	}
	// A backend woken by a statement from this machine's client is put on
	// the client's CPU, where the kernel expects the client to wait (a
	// synchronous wake-up, as libpq's client does in poll). A Go client
	// goes on running other goroutines there instead, and the backend
	// waits for a preemption. So after sending a statement whose response
	// came in one piece last time, the client yields the CPU: the backend
	// answers at once. After a statement with a larger response (a range
	// of 100 rows) yielding costs more than it saves. Measured on 2 vCPUs
	// with a local PostgreSQL 15, 8 workers, two rounds each beside
	// sysbench 1.0.20: oltp_point_select 60,800 and 52,500 -> 78,000 and
	// 64,800 tps (sysbench 87,000 and 71,600), client CPU per query 11.5
	// and 13.3 -> 8.4 and 10.3 µs; yielding after every statement made
	// range-only events (oltp_read_only --point_selects=0) 11% slower.
	cc, _ := pc.Conn().(*countingConn)
	var before int64
	if cc != nil {
		before = cc.read.Load()
		if cc.local && st.small {
			cc.yieldNext.Store(true)
		}
	}
	// ExecStatement sends Bind, Execute and Sync in one write, without
	// pgx's per-query allocations; text results need no format codes.
	rr := pc.ExecStatement(ctx, st.sd, params, nil, nil)
	for rr.NextRow() {
		if row != nil {
			row(rr.Values())
		}
	}
	tag, err := rr.Close()
	if cc != nil {
		cc.yieldNext.Store(false) // not used when the write failed
		st.small = cc.read.Load()-before <= smallResponse
	}
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

var (
	_ RawQuerier = (*workerConn)(nil)
	_ RawQuerier = rawTx{}
)

// QueryRaw implements RawQuerier.
func (w *workerConn) QueryRaw(ctx context.Context, sql string, params [][]byte, row func([][]byte)) (int64, error) {
	c, err := w.conn(ctx)
	if err != nil {
		return 0, err
	}
	return w.raw.query(ctx, c.PgConn(), sql, params, row)
}

// rawTx is a transaction on a worker's dedicated connection: it shares
// the connection's prepared fast-path statements.
type rawTx struct {
	txAdapter
	raw *rawStmts
}

// QueryRaw implements RawQuerier.
func (t rawTx) QueryRaw(ctx context.Context, sql string, params [][]byte, row func([][]byte)) (int64, error) {
	return t.raw.query(ctx, t.tx.Conn().PgConn(), sql, params, row)
}
