package sqlx

import (
	"bytes"
	"errors"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// TestMsgReaderAsPgproto3 reads backend message streams with msgReader,
// whole and one byte per read, and checks each message against what
// pgproto3's Frontend decodes from the same bytes: rows of every size
// (one past the buffer, one of 3 MiB), NULLs, errors mid-result, notices,
// ParameterStatus; and the bytes after ReadyForQuery stay for the
// connection's next reader.
func TestMsgReaderAsPgproto3(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 3<<20)
	past := bytes.Repeat([]byte("y"), msgReaderSize+1)
	for _, tc := range []struct {
		name string
		msgs []pgproto3.BackendMessage
		// after are sent after the ReadyForQuery that ends the exchange.
		after []pgproto3.BackendMessage
	}{
		{"select-only", []pgproto3.BackendMessage{&pgproto3.BindComplete{}, &pgproto3.DataRow{Values: [][]byte{[]byte("42")}},
			&pgproto3.CommandComplete{CommandTag: []byte("SELECT 1")}, &pgproto3.ReadyForQuery{TxStatus: 'I'}}, nil},
		{"nulls and empties", []pgproto3.BackendMessage{&pgproto3.BindComplete{}, &pgproto3.DataRow{Values: [][]byte{nil, {}, []byte("a")}},
			&pgproto3.CommandComplete{CommandTag: []byte("SELECT 1")}, &pgproto3.ReadyForQuery{TxStatus: 'T'}}, nil},
		{"row past the buffer", []pgproto3.BackendMessage{&pgproto3.BindComplete{}, &pgproto3.DataRow{Values: [][]byte{past}},
			&pgproto3.DataRow{Values: [][]byte{[]byte("b")}}, &pgproto3.CommandComplete{CommandTag: []byte("SELECT 2")}, &pgproto3.ReadyForQuery{TxStatus: 'I'}}, nil},
		{"3 MiB row", []pgproto3.BackendMessage{&pgproto3.BindComplete{}, &pgproto3.DataRow{Values: [][]byte{big, []byte("z")}},
			&pgproto3.CommandComplete{CommandTag: []byte("SELECT 1")}, &pgproto3.ReadyForQuery{TxStatus: 'I'}}, nil},
		{"error mid-result", []pgproto3.BackendMessage{&pgproto3.BindComplete{}, &pgproto3.DataRow{Values: [][]byte{[]byte("5")}},
			&pgproto3.ErrorResponse{Severity: "ERROR", SeverityUnlocalized: "ERROR", Code: "22012", Message: "division by zero", Detail: "d", Hint: "h",
				Position: 8, File: "int.c", Line: 841, Routine: "int4div"},
			&pgproto3.ReadyForQuery{TxStatus: 'E'}}, nil},
		{"notice, status, notification", []pgproto3.BackendMessage{&pgproto3.BindComplete{}, &pgproto3.NoticeResponse{Severity: "NOTICE", Message: "hi"},
			&pgproto3.ParameterStatus{Name: "application_name", Value: "x"}, &pgproto3.NotificationResponse{PID: 7, Channel: "c", Payload: "p"},
			&pgproto3.NoData{}, &pgproto3.CommandComplete{CommandTag: []byte("SET")}, &pgproto3.ReadyForQuery{TxStatus: 'I'}}, nil},
		{"messages after ReadyForQuery", []pgproto3.BackendMessage{&pgproto3.BindComplete{}, &pgproto3.CommandComplete{CommandTag: []byte("UPDATE 3")},
			&pgproto3.ReadyForQuery{TxStatus: 'I'}},
			[]pgproto3.BackendMessage{&pgproto3.NoticeResponse{Severity: "NOTICE", Message: strings.Repeat("n", 100)},
				&pgproto3.ErrorResponse{Severity: "FATAL", SeverityUnlocalized: "FATAL", Code: "57P01", Message: "terminating connection due to administrator command"}}},
	} {
		var wire []byte
		for _, m := range append(append([]pgproto3.BackendMessage(nil), tc.msgs...), tc.after...) {
			var err error
			if wire, err = m.Encode(wire); err != nil {
				t.Fatal(err)
			}
		}
		for _, oneByte := range []bool{false, true} {
			var src io.Reader = bytes.NewReader(wire)
			if oneByte {
				src = iotest.OneByteReader(src)
			}
			fe := pgproto3.NewFrontend(bytes.NewReader(wire), io.Discard)
			c := &countingConn{Conn: readerConn{src}, n: new(atomic.Int64)}
			var r msgReader
			r.begin(c)
			for i := range tc.msgs {
				typ, body, err := r.next(c.Conn)
				if err != nil {
					t.Fatalf("%s (one byte a read %v): message %d: %v", tc.name, oneByte, i, err)
				}
				want, err := fe.Receive()
				if err != nil {
					t.Fatal(err)
				}
				// The same message: its type byte and body encode what
				// pgproto3 decoded.
				enc, err := want.Encode(nil)
				if err != nil {
					t.Fatal(err)
				}
				if typ != enc[0] || !bytes.Equal(body, enc[5:]) {
					t.Errorf("%s (one byte a read %v): message %d: type %q, %d bytes; pgproto3 read %T (%q, %d bytes)",
						tc.name, oneByte, i, typ, len(body), want, enc[0], len(enc)-5)
				}
			}
			r.finish(c)
			// What followed ReadyForQuery is the connection's to read:
			// pgproto3 reading the connection now gets the rest.
			next := pgproto3.NewFrontend(c, io.Discard)
			for i := range tc.after {
				want, _ := fe.Receive()
				got, err := next.Receive()
				if err != nil {
					t.Fatalf("%s (one byte a read %v): after ReadyForQuery, message %d: %v", tc.name, oneByte, i, err)
				}
				we, _ := want.Encode(nil)
				ge, _ := got.Encode(nil)
				if !bytes.Equal(we, ge) {
					t.Errorf("%s (one byte a read %v): after ReadyForQuery, message %d: %T, want %T", tc.name, oneByte, i, got, want)
				}
			}
			if _, err := next.Receive(); !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
				t.Errorf("%s (one byte a read %v): more than the messages after ReadyForQuery: %v", tc.name, oneByte, err)
			}
		}
	}
}

// TestMsgReaderBrokenStreams checks that a stream that ends mid-message or
// holds an impossible length is an error, never a message.
func TestMsgReaderBrokenStreams(t *testing.T) {
	whole, _ := (&pgproto3.DataRow{Values: [][]byte{[]byte("abc")}}).Encode(nil)
	for _, tc := range []struct {
		name string
		wire []byte
		want string
	}{
		{"nothing", nil, io.ErrUnexpectedEOF.Error()},
		{"half a header", whole[:3], io.ErrUnexpectedEOF.Error()},
		{"half a body", whole[:len(whole)-1], io.ErrUnexpectedEOF.Error()},
		{"length below 4", []byte{'D', 0, 0, 0, 3}, "invalid message length 3"},
		{"length above pgproto3's limit", []byte{'D', 0x7f, 0xff, 0xff, 0xff}, "invalid body length"},
	} {
		var r msgReader
		_, _, err := r.next(bytes.NewReader(tc.wire))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}

// readerConn is a net.Conn that reads from r.
type readerConn struct{ r io.Reader }

func (c readerConn) Read(b []byte) (int, error) { return c.r.Read(b) }

func (readerConn) Write(b []byte) (int, error) { return len(b), nil }

func (readerConn) Close() error { return nil }

func (readerConn) LocalAddr() net.Addr { return nil }

func (readerConn) RemoteAddr() net.Addr { return nil }

func (readerConn) SetDeadline(t time.Time) error { return nil }

func (readerConn) SetReadDeadline(t time.Time) error { return nil }

func (readerConn) SetWriteDeadline(t time.Time) error { return nil }
