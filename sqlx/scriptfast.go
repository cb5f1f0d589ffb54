package sqlx

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// scriptFast runs a prepared statement of a user's script (Protocol
// Prepared) as one exchange: Bind, Execute and Sync encoded by
// pgproto3's message types into one write, made with the first read of
// the reply (countingConn.Exchange), then the server's messages up to
// ReadyForQuery read from the socket itself (msgReader; pgconn's
// SyncConn says nothing is buffered or being read in the background),
// their bodies decoded by pgproto3's own message types in place. A TLS
// connection, whose socket does not carry the messages in the clear,
// goes through pgconn's ExecStatement.
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
// sent a cancel request). A notice goes to the DB's notice function, as
// pgconn's OnNotice; pgconn has no OnNotification here (stampede sets
// none), so notifications are dropped, as pgconn drops them; a ParameterStatus a statement causes is not seen by
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
	// wbuf holds the messages of a statement, encoded (kept for the
	// next).
	wbuf []byte

	// The reply's reader, and the messages decoded in place of the
	// buffer.
	rd       msgReader
	dataRow  pgproto3.DataRow
	complete pgproto3.CommandComplete

	// The context watched, and what its AfterFunc shares with the worker:
	// mu guards conn (the connection of the statement in flight, nil
	// between statements) and fired (the context's end was seen).
	watched context.Context
	stop    func() bool
	mu      sync.Mutex
	conn    net.Conn
	fired   bool
	// gen counts the contexts watched (under mu): a context's function
	// acts only while its context is the one watched.
	gen uint64

	// notice receives the notices of the exchange, as pgconn's
	// OnNotice (the DB's notice).
	notice func(*pgconn.PgConn, *pgconn.Notice)
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
// returns ctx's error if it is already done. It reports whether it
// watches: a context that cannot end (Done is nil: the engine gives its
// workers one) with no watcher left from another needs neither the
// watcher's lock nor done after the statement. Comparing the run's
// context with the one watched (the engine's context.WithoutCancel, a
// struct compared field by field) and the lock twice were about 3% of
// the client's user CPU per pgbench select-only transaction.
func (f *scriptFast) watch(ctx context.Context, conn net.Conn) (bool, error) {
	if f.stop == nil && ctx.Done() == nil {
		return false, nil
	}
	if ctx != f.watched {
		f.unwatch()
		f.watched = ctx
		if ctx.Done() != nil {
			gen := f.gen
			f.stop = context.AfterFunc(ctx, func() {
				f.mu.Lock()
				// A context watched before (cancelled as its statement
				// returned, under --op-timeout) runs this on a goroutine
				// of its own, maybe after the next statement began: it
				// must not end that one.
				if f.gen == gen {
					f.fired = true
					if f.conn != nil {
						_ = f.conn.SetDeadline(time.Now()) // as pgconn's DeadlineContextWatcherHandler
					}
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
		return true, fmt.Errorf("context already done: %w", err)
	}
	return true, nil
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
	f.gen++ // a function of the context left that still runs does nothing
	f.mu.Unlock()
}

// exec runs the prepared statement sd with params on pc, hands its rows to
// row (or, when raw is not nil, their values to raw, as RawQuerier does),
// and returns the rows its command tag counts. synced says pc's last
// command was the fast path's (pgconn's SyncConn is then not needed).
func (f *scriptFast) exec(ctx context.Context, pc *pgconn.PgConn, sd *pgconn.StatementDescription, params [][]byte, row ScriptRow, raw func([][]byte), synced bool) (int64, error) {
	cc, ok := pc.Conn().(*countingConn)
	if !ok || !synced && pc.SyncConn(ctx) != nil {
		// TLS: the bytes on the socket are not the messages. Or pgconn
		// holds bytes it read ahead (it then fails on its own too).
		if raw != nil {
			return readRawResult(pc.ExecStatement(ctx, sd, params, nil, nil), raw)
		}
		return readScriptResult(pc.ExecStatement(ctx, sd, params, nil, nil), 0, row)
	}
	watching, err := f.watch(ctx, cc)
	if err != nil {
		return 0, err
	}
	if watching {
		defer f.done()
	}
	f.bind.PreparedStatement, f.bind.Parameters = sd.Name, params
	w, err := f.bind.Encode(f.wbuf[:0])
	f.bind.Parameters = nil
	if err != nil {
		return 0, err // nothing was sent: fastable bounds what Encode refuses
	}
	fields := sd.Fields
	if len(fields) == 0 {
		// As pgconn: the server describes what the statement returned
		// when preparing it could not (a FETCH, say).
		f.describe.ObjectType = 'P'
		w, _ = f.describe.Encode(w)
	}
	w, _ = f.execute.Encode(w)
	w, _ = f.sync.Encode(w)
	if cap(w) <= maxFastWrite+1024 {
		f.wbuf = w
	}
	n, err := f.receive(pc, cc, w, fields, row, raw)
	switch {
	case err == nil:
		return n, nil
	case errors.As(err, new(*pgconn.PgError)):
		return 0, err
	}
	return 0, f.lost(ctx, pc, err)
}

// receive sends w, the statement's messages, on c, reads the server's
// messages from c up to ReadyForQuery and returns the rows the command
// tag counts, or the statement's error (a *pgconn.PgError, after which
// the connection is still usable unless it was FATAL: then receive has
// closed it), or the error that broke the exchange (for lost).
func (f *scriptFast) receive(pc *pgconn.PgConn, c *countingConn, w []byte, fields []pgconn.FieldDescription, row ScriptRow, raw func([][]byte)) (int64, error) {
	r := &f.rd
	r.begin(c)
	if err := r.send(c, w); err != nil {
		return 0, err
	}
	var n int64
	var pgErr *pgconn.PgError
	for {
		typ, body, err := r.next(c.Conn)
		if err != nil {
			return 0, err
		}
		switch typ {
		case 'D': // DataRow
			if pgErr == nil && (row != nil || raw != nil) {
				if err := f.dataRow.Decode(body); err != nil {
					return 0, err
				}
				if raw != nil {
					raw(f.dataRow.Values)
				} else {
					row(0, fields, f.dataRow.Values)
				}
			}
		case 'C': // CommandComplete
			if err := f.complete.Decode(body); err != nil {
				return 0, err
			}
			n = rowsAffected(f.complete.CommandTag)
		case 'T': // RowDescription: of the portal described
			var rd pgproto3.RowDescription
			if err := rd.Decode(body); err != nil {
				return 0, err
			}
			fields = make([]pgconn.FieldDescription, len(rd.Fields))
			for i, fd := range rd.Fields {
				fields[i] = pgconn.FieldDescription{Name: string(fd.Name), TableOID: fd.TableOID, TableAttributeNumber: fd.TableAttributeNumber,
					DataTypeOID: fd.DataTypeOID, DataTypeSize: fd.DataTypeSize, TypeModifier: fd.TypeModifier, Format: fd.Format}
			}
		case 'E': // ErrorResponse, decoded whole as pgconn does
			var er pgproto3.ErrorResponse
			if err := er.Decode(body); err != nil {
				return 0, err
			}
			pgErr = pgconn.ErrorResponseToPgError(&er)
			if pgErr.Severity == "FATAL" {
				// pgconn's default OnPgError: the server ends the session.
				r.finish(c)
				_ = pc.Close(context.Background())
				return 0, pgErr
			}
		case 'Z': // ReadyForQuery
			if len(body) != 1 {
				return 0, fmt.Errorf("invalid ReadyForQuery message of %d bytes from the server", len(body))
			}
			r.finish(c)
			f.txStatus, f.valid = body[0], true
			if pgErr != nil {
				return 0, pgErr
			}
			return n, nil
		case 'N': // NoticeResponse: decoded only when one comes
			if f.notice != nil {
				n, err := decodeNotice(body)
				if err != nil {
					return 0, err
				}
				f.notice(pc, n)
			}
		case '2', 'n', 'I', 'A', 'S':
			// BindComplete, NoData, EmptyQueryResponse; a notification
			// or a ParameterStatus, which pgconn drops here too (see
			// scriptFast).
		default:
			return 0, fmt.Errorf("unexpected message %q from the server", typ)
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

// msgReader reads the server's messages from a connection's socket for
// the fast path: whole reads into one buffer, each message's type and
// length read from its header, its body handed out in place (valid until
// the next call). pgproto3's Frontend, which pgconn reads through, goes
// through pgconn's background reader, two reads from its chunk reader
// per message, and a decoded message of its own type for each: about a
// fifth of the client's user CPU per pgbench select-only transaction.
type msgReader struct {
	buf        []byte
	start, end int // the bytes read and not yet handed out
}

const (
	// msgReaderSize is the reader's buffer, as pgproto3's chunk reader's.
	msgReaderSize = 8 << 10
	// msgReaderKeep is the largest buffer kept between exchanges (a big
	// row's buffer is let go).
	msgReaderKeep = 1 << 20
	// maxBodyLen is pgproto3's limit on a message's body.
	maxBodyLen = 0x3fffffff - 1
)

// begin starts an exchange on c: the bytes an earlier exchange read past
// its end come first.
func (r *msgReader) begin(c *countingConn) {
	r.start, r.end = 0, 0
	if len(c.pending) > 0 {
		r.room(len(c.pending))
		r.end = copy(r.buf, c.pending)
		c.pending = nil
	}
}

// send writes w, the exchange's messages, on c and, unless bytes read
// ahead are waiting, reads the first bytes of the reply with it
// (countingConn.Exchange).
func (r *msgReader) send(c *countingConn, w []byte) error {
	if r.end > r.start {
		_, err := c.Write(w)
		return err
	}
	r.room(5)
	n, err := c.Exchange(w, r.buf[r.end:])
	r.end += n
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF // as next
	}
	return err
}

// finish ends the exchange after the message last handed out: the bytes read
// past it (the server's next messages, a notice that followed
// ReadyForQuery, say) are left to the connection's next reader, pgconn's
// or the fast path's.
func (r *msgReader) finish(c *countingConn) {
	if r.start < r.end {
		c.pending = append([]byte(nil), r.buf[r.start:r.end]...)
	}
	r.start, r.end = 0, 0
	if len(r.buf) > msgReaderKeep {
		r.buf = nil
	}
}

// next returns the next message's type and body, reading from src as
// needed.
func (r *msgReader) next(src io.Reader) (byte, []byte, error) {
	for {
		need := 5
		if avail := r.end - r.start; avail >= 5 {
			size := int(binary.BigEndian.Uint32(r.buf[r.start+1:]))
			if size < 4 {
				return 0, nil, fmt.Errorf("invalid message length %d from the server", size)
			}
			if size-4 > maxBodyLen {
				return 0, nil, &pgproto3.ExceededMaxBodyLenErr{MaxExpectedBodyLen: maxBodyLen, ActualBodyLen: size - 4}
			}
			need = 1 + size
			if avail >= need {
				typ, body := r.buf[r.start], r.buf[r.start+5:r.start+need:r.start+need]
				r.start += need
				return typ, body, nil
			}
		}
		r.room(need)
		n, err := src.Read(r.buf[r.end:])
		r.end += n
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF // as pgproto3: the server closed mid-exchange
			}
			return 0, nil, err
		}
	}
}

// room makes the buffer hold need bytes from the first one not handed out,
// with room to read more after them.
func (r *msgReader) room(need int) {
	if r.start == r.end {
		r.start, r.end = 0, 0
	}
	if len(r.buf)-r.start >= need && r.end < len(r.buf) {
		return
	}
	if len(r.buf) >= need && r.start > 0 {
		r.end = copy(r.buf, r.buf[r.start:r.end])
		r.start = 0
		return
	}
	buf := make([]byte, max(need, msgReaderSize))
	r.end = copy(buf, r.buf[r.start:r.end])
	r.buf, r.start = buf, 0
}

// readRawResult reads rr's rows into raw, as rawStmts.query does, and
// returns the rows its command tag counts.
func readRawResult(rr *pgconn.ResultReader, raw func([][]byte)) (int64, error) {
	for rr.NextRow() {
		raw(rr.Values())
	}
	tag, err := rr.Close()
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}
