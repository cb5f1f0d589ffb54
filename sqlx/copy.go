package sqlx

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// ErrCopyTypes is returned (wrapped) by CopyEncoded when a column's type is
// one a RowWriter cannot encode: the caller loads through CopyFrom instead.
var ErrCopyTypes = errors.New("column type not supported by RowWriter")

// RowWriter writes rows of integers, strings and times for CopyEncoded, in
// PostgreSQL's binary COPY format, straight into the buffer sent to the
// server. It is the loader's fast path: pgx's CopyFrom encodes every value
// through its type map (a plan lookup by type and OID, and an interface
// value boxed by the caller), which was about a fifth of stampede's CPU
// while it loaded sysbench's tables.
//
// A row is Row followed by one Int, String, Bytes, Text or Time per column,
// in the order of CopyEncoded's columns. Each integer is written at its column's
// width (smallint, integer or bigint, as the server described the column),
// so a workload need not know how a dialect spells INTEGER (CockroachDB's is
// 64 bits). A RowWriter is not safe for concurrent use.
type RowWriter struct {
	buf    []byte
	widths []int8 // per column: 2, 4 or 8 for an integer column, 0 for text
	col    int    // the next column of the current row
	rows   int64
	err    error
}

// untyped is the width of a column of no known type (the null driver's),
// which takes an integer, a string or a time; timeCol that of a timestamp
// or timestamptz column.
const (
	untyped = -2
	timeCol = -3
)

// newRowWriter returns a writer for columns of the given widths.
func newRowWriter(widths []int8) *RowWriter {
	return &RowWriter{widths: widths, col: len(widths)}
}

// Rows returns the number of rows started so far.
func (w *RowWriter) Rows() int64 { return w.rows }

// Row starts a row.
func (w *RowWriter) Row() {
	w.endRow()
	w.buf = binary.BigEndian.AppendUint16(w.buf, uint16(len(w.widths)))
	w.col = 0
	w.rows++
}

// endRow checks that the current row has every column.
func (w *RowWriter) endRow() {
	if w.col != len(w.widths) && w.err == nil {
		w.err = fmt.Errorf("row %d has %d values for %d columns", w.rows, w.col, len(w.widths))
	}
}

// next returns the width of the next column and moves past it, or records
// an error when the row is full or the column is not of kind integer
// (int) or text.
func (w *RowWriter) next(integer bool) int8 {
	width := w.nextCol()
	switch width {
	case -1:
		return -1
	case timeCol:
		if w.err == nil {
			w.err = fmt.Errorf("row %d: column %d is a timestamp column", w.rows, w.col)
		}
		return -1
	case untyped:
		if integer {
			return 8
		}
		return 0
	}
	if (width != 0) != integer && w.err == nil {
		kind := "a string column"
		if integer {
			kind = "an integer column"
		}
		w.err = fmt.Errorf("row %d: column %d is not %s", w.rows, w.col, kind)
		return -1
	}
	return width
}

// Int writes the next column, an integer column. A value out of the
// column's range is an error, as it would be from the server.
func (w *RowWriter) Int(v int64) {
	switch w.next(true) {
	case 4:
		if int64(int32(v)) == v {
			w.buf = binary.BigEndian.AppendUint32(append(w.buf, 0, 0, 0, 4), uint32(v))
			return
		}
	case 8:
		w.buf = binary.BigEndian.AppendUint64(append(w.buf, 0, 0, 0, 8), uint64(v))
		return
	case 2:
		if int64(int16(v)) == v {
			w.buf = binary.BigEndian.AppendUint16(append(w.buf, 0, 0, 0, 2), uint16(v))
			return
		}
	default: // the error is recorded
		return
	}
	w.outOfRange(v)
}

func (w *RowWriter) outOfRange(v int64) {
	if w.err == nil {
		w.err = fmt.Errorf("row %d: %d is out of range for column %d", w.rows, v, w.col)
	}
}

// String writes the next column, a text column.
func (w *RowWriter) String(s string) {
	if w.next(false) < 0 {
		return
	}
	w.buf = binary.BigEndian.AppendUint32(w.buf, uint32(len(s)))
	w.buf = append(w.buf, s...)
}

// Bytes writes the next column, a text column holding b.
func (w *RowWriter) Bytes(b []byte) {
	if w.next(false) < 0 {
		return
	}
	w.buf = binary.BigEndian.AppendUint32(w.buf, uint32(len(b)))
	w.buf = append(w.buf, b...)
}

// pgEpoch is PostgreSQL's epoch in Unix microseconds: binary timestamps
// count microseconds from 2000-01-01 00:00:00 UTC.
const pgEpoch = 946684800 * 1_000_000

// Time writes the next column, a timestamp or timestamptz column, at
// microsecond precision (the server's; finer is truncated toward the past).
// A timestamptz holds the instant; a timestamp the UTC wall time of t, as
// pgx writes a time.Time into one.
func (w *RowWriter) Time(t time.Time) {
	switch w.nextCol() {
	case timeCol, untyped:
	case -1:
		return
	default:
		if w.err == nil {
			w.err = fmt.Errorf("row %d: column %d is not a timestamp column", w.rows, w.col)
		}
		return
	}
	us := t.Unix()*1_000_000 + int64(t.Nanosecond()/1000) - pgEpoch
	w.buf = binary.BigEndian.AppendUint64(append(w.buf, 0, 0, 0, 8), uint64(us))
}

// nextCol returns the width of the next column and moves past it, or -1
// (an error recorded) when the row is full.
func (w *RowWriter) nextCol() int8 {
	if w.col >= len(w.widths) {
		if w.err == nil {
			w.err = fmt.Errorf("row %d has more values than its %d columns", w.rows, len(w.widths))
		}
		return -1
	}
	w.col++
	return w.widths[w.col-1]
}

// Text writes the next column, a text column of n bytes, and returns them
// for the caller to fill before its next call on w.
func (w *RowWriter) Text(n int) []byte {
	if w.next(false) < 0 {
		return make([]byte, n)
	}
	w.buf = binary.BigEndian.AppendUint32(w.buf, uint32(n))
	start := len(w.buf)
	w.buf = append(w.buf, make([]byte, n)...)
	return w.buf[start:]
}

// copyWidths maps the OIDs of the columns to RowWriter widths, or returns
// an error wrapping ErrCopyTypes.
func copyWidths(fields []uint32, columns []string) ([]int8, error) {
	widths := make([]int8, len(fields))
	for i, oid := range fields {
		switch oid {
		case pgtype.Int2OID:
			widths[i] = 2
		case pgtype.Int4OID:
			widths[i] = 4
		case pgtype.Int8OID:
			widths[i] = 8
		case pgtype.TextOID, pgtype.VarcharOID, pgtype.BPCharOID, pgtype.NameOID:
			widths[i] = 0
		case pgtype.TimestampOID, pgtype.TimestamptzOID:
			widths[i] = timeCol
		default:
			return nil, fmt.Errorf("%w: column %s has type OID %d", ErrCopyTypes, columns[i], oid)
		}
	}
	return widths, nil
}

// binaryCopyHeader starts a binary COPY stream: the signature, no flags,
// no header extension.
const binaryCopyHeader = "PGCOPY\n\377\r\n\000\000\000\000\000\000\000\000\000"

// encodedSource is the io.Reader CopyEncoded hands pgconn: the header,
// then what fill writes, batch after batch, then the trailer.
type encodedSource struct {
	w    *RowWriter
	fill func(w *RowWriter) bool
	off  int  // how much of w.buf has been read
	done bool // fill returned false and the trailer is in w.buf
}

func (s *encodedSource) Read(p []byte) (int, error) {
	for s.off >= len(s.w.buf) {
		if s.done {
			return 0, io.EOF
		}
		s.w.buf, s.off = s.w.buf[:0], 0
		if !s.fill(s.w) {
			s.w.endRow()
			s.w.buf = append(s.w.buf, 0xff, 0xff) // the trailer: a row of -1 columns
			s.done = true
		}
		if s.w.err != nil {
			return 0, s.w.err
		}
	}
	n := copy(p, s.w.buf[s.off:])
	s.off += n
	return n, nil
}

// CopyEncoded loads rows into table through one COPY in binary format (on
// the endpoint of stream, round-robin) and returns the number of rows
// copied. fill writes rows into w, typically a batch per call, and returns
// false when it has no more; a call that writes nothing and returns true
// is called again. The column types come from the server; when one is
// neither an integer, a string nor a timestamp type the error wraps ErrCopyTypes and
// nothing is copied.
func (db *DB) CopyEncoded(ctx context.Context, stream int, table string, columns []string, fill func(w *RowWriter) bool) (int64, error) {
	if db.null {
		// The null driver has no column types: it takes any value in
		// any column, and the rows go nowhere.
		widths := make([]int8, len(columns))
		for i := range widths {
			widths[i] = untyped
		}
		w := newRowWriter(widths)
		for fill(w) {
			if w.err != nil {
				return w.rows, w.err
			}
			w.buf = w.buf[:0]
		}
		w.endRow()
		return w.rows, w.err
	}
	conn, err := db.pool(stream).Acquire(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Release()
	quoted := make([]string, len(columns))
	for i, c := range columns {
		quoted[i] = pgx.Identifier{c}.Sanitize()
	}
	cols := strings.Join(quoted, ", ")
	name := pgx.Identifier{table}.Sanitize()
	sd, err := conn.Conn().PgConn().Prepare(ctx, "", "SELECT "+cols+" FROM "+name, nil)
	if err != nil {
		return 0, fmt.Errorf("describing %s: %w", table, err)
	}
	oids := make([]uint32, len(sd.Fields))
	for i, f := range sd.Fields {
		oids[i] = f.DataTypeOID
	}
	widths, err := copyWidths(oids, columns)
	if err != nil {
		return 0, err
	}
	w := newRowWriter(widths)
	w.buf = append(make([]byte, 0, 256<<10), binaryCopyHeader...)
	src := &encodedSource{w: w, fill: fill}
	// The statement is spelled as pgx's CopyFrom spells it (the old
	// BINARY keyword): a server that takes pgx's COPY takes this one.
	tag, err := conn.Conn().PgConn().CopyFrom(ctx, src, "COPY "+name+" ("+cols+") FROM STDIN BINARY")
	return tag.RowsAffected(), err
}

// CopyInTx runs, in one transaction on one connection (of the endpoint of
// stream), the statements before, then copy, a COPY ... FROM STDIN
// statement whose data (in the format copy names) it reads from r, and
// commits; it returns the number of rows copied. A COPY with FREEZE needs
// it: the table must be created or truncated in the copy's transaction
// (pgbench's initialisation loads pgbench_accounts so).
func (db *DB) CopyInTx(ctx context.Context, stream int, before []string, copy string, r io.Reader) (int64, error) {
	if db.null {
		_, err := io.Copy(io.Discard, r)
		return 0, err
	}
	conn, err := db.pool(stream).Acquire(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Release()
	pc := conn.Conn().PgConn()
	if err := pc.Exec(ctx, "BEGIN").Close(); err != nil {
		return 0, err
	}
	done := false
	defer func() {
		if !done {
			// A failed transaction is rolled back; the pool drops a
			// connection left in a transaction or broken (Release).
			_ = pc.Exec(context.WithoutCancel(ctx), "ROLLBACK").Close()
		}
	}()
	for _, q := range before {
		if err := pc.Exec(ctx, q).Close(); err != nil {
			return 0, fmt.Errorf("%s: %w", statementPrefix(q), err)
		}
	}
	tag, err := pc.CopyFrom(ctx, r, copy)
	if err != nil {
		return 0, err
	}
	if err := pc.Exec(ctx, "COMMIT").Close(); err != nil {
		return 0, err
	}
	done = true
	return tag.RowsAffected(), nil
}

// statementPrefix is the start of statement q for an error message: an
// INSERT of 10,000 rows' values (pgbench -i's tellers) is 190 kB, which
// no one reads on a terminal.
func statementPrefix(q string) string {
	const limit = 60
	if len(q) <= limit {
		return q
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(q[cut]) {
		cut--
	}
	return q[:cut] + "..."
}
