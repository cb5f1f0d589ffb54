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
	descs map[string]*pgconn.StatementDescription
	// lastSQL and lastSD are the statement looked up last: a worker that
	// runs one statement over and over (pgbench's select-only, a point
	// select) finds it by the string's identity, without hashing its
	// text into descs (see desc).
	lastSQL string
	lastSD  *pgconn.StatementDescription
	// text sends statements as text instead (Options.TextStatements).
	text bool
	// fast runs a script's prepared statements (ScriptQuerier).
	fast scriptFast
}

// reset forgets the statements prepared on the previous connection.
func (s *rawStmts) reset() {
	s.pc = nil
	clear(s.descs)
	s.lastSQL, s.lastSD = "", nil
	s.fast.valid = false
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
	if s.text {
		return textQuery(ctx, pc, sql, params, row)
	}
	sd, err := s.prepare(ctx, pc, sql)
	if err != nil {
		return 0, err
	}
	// ExecStatement sends Bind, Execute and Sync in one write, without
	// pgx's per-query allocations; text results need no format codes.
	rr := pc.ExecStatement(ctx, sd, params, nil, nil)
	for rr.NextRow() {
		if row != nil {
			row(rr.Values())
		}
	}
	tag, err := rr.Close()
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

// desc returns sql's statement prepared on the current connection, nil
// when it has not been prepared there.
func (s *rawStmts) desc(sql string) *pgconn.StatementDescription {
	// The same string as last time compares by its pointer and length
	// alone (the runtime's memequal checks the pointers first).
	if s.lastSD != nil && sql == s.lastSQL {
		return s.lastSD
	}
	sd := s.descs[sql]
	if sd != nil {
		s.lastSQL, s.lastSD = sql, sd
	}
	return sd
}

// prepare returns sql's statement on pc, preparing it first if pc has not
// seen it.
func (s *rawStmts) prepare(ctx context.Context, pc *pgconn.PgConn, sql string) (*pgconn.StatementDescription, error) {
	if s.pc != pc {
		s.reset()
		s.pc = pc
	}
	if s.descs == nil {
		s.descs = make(map[string]*pgconn.StatementDescription)
	}
	sd := s.desc(sql)
	if sd == nil {
		var err error
		// Names are unique in the process, as a connection returned to
		// the pool keeps its statements for its next user; pgx's own
		// cache names start with "stmtcache_".
		name := "stampede_raw_" + strconv.FormatUint(rawStmtSeq.Add(1), 10)
		sd, err = pc.Prepare(ctx, name, sql, nil)
		if err != nil {
			return nil, err
		}
		s.descs[sql] = sd
	}
	return sd, nil
}

var (
	_ RawQuerier = (*workerConn)(nil)
	_ RawQuerier = rawTx{}
)

// QueryRaw implements RawQuerier. Outside a transaction, the statement
// goes through the fast path of scripts' prepared statements
// (scriptFast): Bind, Execute and Sync in one write and the server's
// messages read up to ReadyForQuery, without pgconn's per-statement
// allocations (a context watch, a timer, a ResultReader). HammerDB's
// virtual users make one such call per transaction:
// BenchmarkHammerCall, 5 allocations per call through pgconn, 0 here.
func (w *workerConn) QueryRaw(ctx context.Context, sql string, params [][]byte, row func([][]byte)) (int64, error) {
	// As QueryScript: the fast path's own exchange, when it was the last
	// command on the connection, left pgconn nothing buffered.
	synced := w.raw.fast.valid
	c, err := w.conn(ctx)
	if err != nil {
		return 0, err
	}
	pc := c.PgConn()
	if w.raw.text || !fastable(params) {
		return w.raw.query(ctx, pc, sql, params, row)
	}
	if w.raw.pc != pc || w.raw.desc(sql) == nil {
		synced = false // prepare runs a command through pgconn
	}
	sd, err := w.raw.prepare(ctx, pc, sql)
	if err != nil {
		return 0, err
	}
	return w.raw.fast.exec(ctx, pc, sd, params, nil, row, synced)
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
