package sqlx

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"
)

// Protocol is how a user's script sends its statements, as pgbench's
// --protocol (-M) says.
type Protocol uint8

const (
	// Prepared prepares each statement once per connection and then
	// sends only Bind and Execute (pgbench's -M prepared).
	Prepared Protocol = iota
	// Extended sends Parse, Bind and Execute of an unnamed statement
	// every time (pgbench's -M extended).
	Extended
	// Simple sends the statement's text with its values written into it
	// over the simple query protocol (pgbench's -M simple).
	Simple
)

// ParseProtocol reads pgbench's names of the protocols.
func ParseProtocol(s string) (Protocol, error) {
	switch s {
	case "prepared":
		return Prepared, nil
	case "extended":
		return Extended, nil
	case "simple":
		return Simple, nil
	}
	return 0, fmt.Errorf("unknown protocol %q: use simple, extended or prepared", s)
}

// String returns pgbench's name of p.
func (p Protocol) String() string {
	switch p {
	case Extended:
		return "extended"
	case Simple:
		return "simple"
	}
	return "prepared"
}

// ScriptRow receives one row of a script statement's results: the
// result's columns and the row's values in text format (nil is NULL),
// both valid only during the call. result counts the statement's results
// from 0 (a simple-protocol string may hold several statements).
type ScriptRow func(result int, fields []pgconn.FieldDescription, values [][]byte)

// ScriptQuerier runs the statements of a user's script on a worker's
// dedicated connection, in the protocol the script asks for: the
// connection keeps its session (a transaction a script begins stays open
// for its next statement). A Conn from DB.Conn(w, true) implements it
// unless the DB shares connections among workers.
type ScriptQuerier interface {
	// QueryScript runs sql with params (text format; nil is NULL) in
	// protocol p (Simple takes no params: the values are in sql), calls
	// row, when not nil, with every row, and returns the rows the last
	// result affected or returned.
	QueryScript(ctx context.Context, p Protocol, sql string, params [][]byte, row ScriptRow) (int64, error)
	// TxStatus is the connection's transaction status as the server last
	// reported it: 'I' idle, 'T' in a transaction, 'E' in a failed one;
	// 0 when the worker holds no connection.
	TxStatus() byte
	// CopyIn runs sql, a COPY ... FROM STDIN, with data as its input,
	// and returns the rows copied.
	CopyIn(ctx context.Context, sql string, data io.Reader) (int64, error)
	// Describe prepares sql as an unnamed statement and returns the
	// names of the columns it returns; a server error is returned as is
	// (a syntax error, a table that does not exist).
	Describe(ctx context.Context, sql string) ([]string, error)
	// Connect makes sure the worker holds a connection, connecting if
	// it does not.
	Connect(ctx context.Context) error
	// Disconnect closes the worker's connection: its next statement
	// opens a new one (pgbench's -C).
	Disconnect(ctx context.Context)
}

var (
	_ ScriptQuerier = (*workerConn)(nil)
	_ ScriptQuerier = nullConn{}
)

// PrepareError is a script statement's failure to prepare, under the
// prepared protocol, as QueryScript returns it: pgbench says such an
// error apart from the execution that follows (see output.Pgbench).
type PrepareError struct{ Err error }

func (e *PrepareError) Error() string { return e.Err.Error() }
func (e *PrepareError) Unwrap() error { return e.Err }

// QueryScript implements ScriptQuerier.
func (w *workerConn) QueryScript(ctx context.Context, p Protocol, sql string, params [][]byte, row ScriptRow) (int64, error) {
	// The last command on the worker's connection was the fast path's
	// own exchange, which left pgconn nothing buffered (w.conn clears it).
	synced := w.raw.fast.valid
	c, err := w.conn(ctx)
	if err != nil {
		return 0, err
	}
	pc := c.PgConn()
	switch p {
	case Simple:
		return simpleScript(ctx, pc, sql, row)
	case Extended:
		rr := pc.ExecParams(ctx, sql, params, nil, nil, nil)
		return readScriptResult(rr, 0, row)
	}
	if w.raw.pc != pc {
		w.raw.reset()
		w.raw.pc = pc
		synced = false
	}
	if w.raw.descs == nil {
		w.raw.descs = make(map[string]*pgconn.StatementDescription)
	}
	sd := w.raw.desc(sql)
	if sd == nil {
		name := "stampede_raw_" + strconv.FormatUint(rawStmtSeq.Add(1), 10)
		if sd, err = pc.Prepare(ctx, name, sql, nil); err != nil {
			return 0, &PrepareError{Err: err}
		}
		w.raw.descs[sql] = sd
		synced = false
	}
	if !fastable(params) {
		return readScriptResult(pc.ExecStatement(ctx, sd, params, nil, nil), 0, row)
	}
	return w.raw.fast.exec(ctx, pc, sd, params, row, nil, synced)
}

// TxStatus implements ScriptQuerier.
func (w *workerConn) TxStatus() byte {
	if w.c == nil {
		return 0
	}
	if f := &w.raw.fast; f.valid {
		// The fast path's statement was the last command, and it left
		// the connection open (a lost one is closed before its
		// ReadyForQuery): no need to reach pgconn, whose memory a
		// worker that just woke up may not have in its CPU's cache.
		return f.txStatus
	}
	pc := w.c.Conn().PgConn()
	if pc.IsClosed() {
		return 0
	}
	return pc.TxStatus()
}

// simpleScript runs sql over the simple query protocol.
func simpleScript(ctx context.Context, pc *pgconn.PgConn, sql string, row ScriptRow) (int64, error) {
	mrr := pc.Exec(ctx, sql)
	var n int64
	for i := 0; mrr.NextResult(); i++ {
		var err error
		if n, err = readScriptResult(mrr.ResultReader(), i, row); err != nil {
			_ = mrr.Close()
			return 0, err
		}
	}
	if err := mrr.Close(); err != nil {
		return 0, err
	}
	return n, nil
}

// readScriptResult hands rr's rows to row and returns its row count.
func readScriptResult(rr *pgconn.ResultReader, result int, row ScriptRow) (int64, error) {
	for rr.NextRow() {
		if row != nil {
			row(result, rr.FieldDescriptions(), rr.Values())
		}
	}
	tag, err := rr.Close()
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

// QueryScript implements ScriptQuerier: nothing runs and no row returns.
func (nullConn) QueryScript(context.Context, Protocol, string, [][]byte, ScriptRow) (int64, error) {
	return 0, nil
}

// TxStatus implements ScriptQuerier: the null driver is always idle.
func (nullConn) TxStatus() byte { return 'I' }

// CopyIn runs sql, a COPY ... FROM STDIN, with data as its input, and
// returns the rows copied.
func (w *workerConn) CopyIn(ctx context.Context, sql string, data io.Reader) (int64, error) {
	c, err := w.conn(ctx)
	if err != nil {
		return 0, err
	}
	tag, err := c.PgConn().CopyFrom(ctx, data, sql)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

// CopyIn implements ScriptQuerier: the data is read and dropped.
func (nullConn) CopyIn(_ context.Context, _ string, data io.Reader) (int64, error) {
	_, err := io.Copy(io.Discard, data)
	return 0, err
}

// Describe implements ScriptQuerier.
func (w *workerConn) Describe(ctx context.Context, sql string) ([]string, error) {
	c, err := w.conn(ctx)
	if err != nil {
		return nil, err
	}
	sd, err := c.PgConn().Prepare(ctx, "", sql, nil)
	if err != nil {
		return nil, err
	}
	cols := make([]string, len(sd.Fields))
	for i, f := range sd.Fields {
		cols[i] = f.Name
	}
	return cols, nil
}

// Describe implements ScriptQuerier: the null driver knows no columns.
func (nullConn) Describe(context.Context, string) ([]string, error) { return nil, nil }

// Connect implements ScriptQuerier.
func (w *workerConn) Connect(ctx context.Context) error {
	_, err := w.conn(ctx)
	return err
}

// Connect implements ScriptQuerier: the null driver is always connected.
func (nullConn) Connect(context.Context) error { return nil }

// Disconnect implements ScriptQuerier.
func (w *workerConn) Disconnect(ctx context.Context) {
	if w.c == nil {
		return
	}
	_ = w.c.Conn().Close(ctx) // the pool drops a closed connection on release
	w.c.Release()
	w.c = nil
	w.raw.reset()
}

// Disconnect implements ScriptQuerier: the null driver has nothing to close.
func (nullConn) Disconnect(context.Context) {}
