package sqlx

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// scriptFast runs a prepared statement of a user's script (Protocol
// Prepared) as one exchange on the connection's pgproto3.Frontend: Bind,
// Execute and Sync in one write, then the server's messages up to
// ReadyForQuery, read and decoded by pgproto3 as pgconn reads them.
//
// Why: pgconn's ExecStatement, around the same messages, registers the
// statement's context with context.AfterFunc (four allocations and the
// run context's lock, twice, per statement: every worker shares that
// context), arms and stops a timer against a write/read deadlock, and
// builds its ResultReader; that was 2 of the 15 µs of user CPU per
// pgbench select-only transaction. Here the worker's context is watched
// once for as long as it stays the same (a run's workers keep theirs),
// and a write of a few hundred bytes cannot fill the socket's buffer (a
// larger one goes through pgconn).
//
// What pgconn does with the messages is kept: the transaction status of
// ReadyForQuery (TxStatus returns it until pgconn runs another command),
// a FATAL error closes the connection, and a lost connection or a
// cancelled context closes it as pgconn's asyncClose does (the server is
// sent a cancel request). pgconn has no OnNotice or OnNotification here
// (stampede sets neither), so notices and notifications are dropped, as
// pgconn drops them; a ParameterStatus a statement causes is not seen by
// pgconn.ParameterStatus (nothing reads it after the connection is set
// up: TextStatements, which does, sends no prepared statement).
type scriptFast struct {
	// txStatus is the status of the last ReadyForQuery the fast path
	// read; valid says it is newer than pgconn's (workerConn.conn clears
	// it, as every other command goes through it).
	txStatus byte
	valid    bool

	// Reused messages: a message given to the Frontend by pointer would
	// otherwise escape to the heap on every statement.
	bind     pgproto3.Bind
	describe pgproto3.Describe
	execute  pgproto3.Execute
	sync     pgproto3.Sync

	// The context watched, and what its AfterFunc shares with the worker:
	// mu guards conn (the connection of the statement in flight, nil
	// between statements) and fired (the context's end was seen).
	watched context.Context
	stop    func() bool
	mu      sync.Mutex
	conn    net.Conn
	fired   bool
}

// maxFastWrite is the largest statement the fast path writes itself: far
// below a socket's send buffer, so that the write returns without the
// server reading (pgconn arms its timer against a server blocked writing
// to a client that is blocked writing to it).
const maxFastWrite = 16 << 10

// fastable reports whether params fit the fast path.
func fastable(params [][]byte) bool {
	if len(params) > math.MaxUint16 {
		return false
	}
	n := 0
	for _, p := range params {
		n += len(p) + 4
	}
	return n <= maxFastWrite
}

// watch makes sure ctx's end interrupts the statement in flight, and
// returns ctx's error if it is already done.
func (f *scriptFast) watch(ctx context.Context, conn net.Conn) error {
	if ctx != f.watched {
		f.unwatch()
		f.watched = ctx
		if ctx.Done() != nil {
			f.stop = context.AfterFunc(ctx, func() {
				f.mu.Lock()
				f.fired = true
				if f.conn != nil {
					_ = f.conn.SetDeadline(time.Now()) // as pgconn's DeadlineContextWatcherHandler
				}
				f.mu.Unlock()
			})
		}
	}
	f.mu.Lock()
	f.conn = conn
	f.mu.Unlock()
	if err := ctx.Err(); err != nil {
		f.done()
		return fmt.Errorf("context already done: %w", err)
	}
	return nil
}

// done ends the statement in flight; it clears a deadline the context's
// end set during it.
func (f *scriptFast) done() {
	f.mu.Lock()
	if f.fired && f.conn != nil {
		_ = f.conn.SetDeadline(time.Time{})
	}
	f.conn = nil
	f.mu.Unlock()
}

// unwatch stops watching the context (the connection or the worker's
// context changes, or the worker lets its connection go).
func (f *scriptFast) unwatch() {
	if f.stop != nil {
		f.stop()
	}
	f.stop, f.watched = nil, nil
	f.mu.Lock()
	f.fired = false
	f.mu.Unlock()
}

// exec runs the prepared statement sd with params on pc, hands its rows to
// row (or, when raw is not nil, their values to raw, as RawQuerier does),
// and returns the rows its command tag counts.
func (f *scriptFast) exec(ctx context.Context, pc *pgconn.PgConn, sd *pgconn.StatementDescription, params [][]byte, row ScriptRow, raw func([][]byte)) (int64, error) {
	conn := pc.Conn()
	if err := f.watch(ctx, conn); err != nil {
		return 0, err
	}
	defer f.done()
	fe := pc.Frontend()
	f.bind.PreparedStatement, f.bind.Parameters = sd.Name, params
	fe.SendBind(&f.bind)
	f.bind.Parameters = nil
	fields := sd.Fields
	if len(fields) == 0 {
		// As pgconn: the server describes what the statement returned
		// when preparing it could not (a FETCH, say).
		f.describe.ObjectType = 'P'
		fe.SendDescribe(&f.describe)
	}
	fe.SendExecute(&f.execute)
	fe.SendSync(&f.sync)
	if err := fe.Flush(); err != nil {
		return 0, f.lost(ctx, pc, err)
	}
	var n int64
	var pgErr *pgconn.PgError
	for {
		msg, err := fe.Receive()
		if err != nil {
			return 0, f.lost(ctx, pc, err)
		}
		switch m := msg.(type) {
		case *pgproto3.DataRow:
			switch {
			case pgErr != nil:
			case raw != nil:
				raw(m.Values)
			case row != nil:
				row(0, fields, m.Values)
			}
		case *pgproto3.CommandComplete:
			n = rowsAffected(m.CommandTag)
		case *pgproto3.RowDescription:
			fields = make([]pgconn.FieldDescription, len(m.Fields))
			for i, fd := range m.Fields {
				fields[i] = pgconn.FieldDescription{Name: string(fd.Name), TableOID: fd.TableOID, TableAttributeNumber: fd.TableAttributeNumber,
					DataTypeOID: fd.DataTypeOID, DataTypeSize: fd.DataTypeSize, TypeModifier: fd.TypeModifier, Format: fd.Format}
			}
		case *pgproto3.ErrorResponse:
			pgErr = pgconn.ErrorResponseToPgError(m)
			if pgErr.Severity == "FATAL" {
				// pgconn's default OnPgError: the server ends the session.
				_ = pc.Close(context.Background())
				return 0, pgErr
			}
		case *pgproto3.ReadyForQuery:
			f.txStatus, f.valid = m.TxStatus, true
			if pgErr != nil {
				return 0, pgErr
			}
			return n, nil
		case *pgproto3.BindComplete, *pgproto3.NoData, *pgproto3.EmptyQueryResponse,
			*pgproto3.NoticeResponse, *pgproto3.NotificationResponse, *pgproto3.ParameterStatus:
		default:
			return 0, f.lost(ctx, pc, fmt.Errorf("unexpected message %T from the server", msg))
		}
	}
}

// lost closes pc after err broke the exchange, as pgconn's asyncClose
// does: the server is asked to cancel the statement (from another
// connection) and pc is closed, so that the worker's next statement takes
// a new one. It returns err as pgconn would: context.Canceled, or a
// timeout wrapping the context's error, when the context's end
// interrupted it.
func (f *scriptFast) lost(ctx context.Context, pc *pgconn.PgConn, err error) error {
	go func() {
		cctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		_ = pc.CancelRequest(cctx)
	}()
	_ = pc.Conn().SetDeadline(time.Now().Add(time.Second))
	_ = pc.Close(context.Background()) // Terminate, within the deadline
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		switch ctx.Err() {
		case context.Canceled:
			return context.Canceled
		case context.DeadlineExceeded:
			return fmt.Errorf("timeout: %w", ctx.Err())
		}
	}
	return err
}

// rowsAffected is the number at the end of a command tag, as
// pgconn.CommandTag.RowsAffected reads it.
func rowsAffected(tag []byte) int64 {
	var n, mult int64 = 0, 1
	for i := len(tag) - 1; i >= 0 && tag[i] >= '0' && tag[i] <= '9'; i-- {
		n += int64(tag[i]-'0') * mult
		mult *= 10
	}
	return n
}
