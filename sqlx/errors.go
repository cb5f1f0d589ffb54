package sqlx

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// ErrNoRows is what Row.Scan returns when the query returned no row.
var ErrNoRows = pgx.ErrNoRows

// SQLState returns the SQLSTATE code of err, or "" when err carries none.
func SQLState(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}

// IsRetryable reports whether err is a transaction conflict that the client
// should retry: serialization failure (40001) or deadlock (40P01).
func IsRetryable(err error) bool {
	switch SQLState(err) {
	case "40001", "40P01":
		return true
	}
	return false
}

// IsConnectionError reports whether err means the connection is lost or
// could not be made: network errors, EOF, admin shutdown (57P01..57P03) and
// the 08 class.
func IsConnectionError(err error) bool {
	if err == nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return false
	}
	if st := SQLState(err); st != "" {
		return strings.HasPrefix(st, "08") || st == "57P01" || st == "57P02" || st == "57P03"
	}
	var netErr net.Error
	var connErr *pgconn.ConnectError
	switch {
	case errors.As(err, &connErr), errors.As(err, &netErr),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.EPIPE):
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "conn closed") || strings.Contains(msg, "connection reset")
}

// IsTimeout reports whether err is a deadline or statement timeout
// (57014 query_canceled).
func IsTimeout(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err) || SQLState(err) == "57014"
}

// ErrorCode returns a short, stable classification of err for counting:
// the SQLSTATE when there is one, else "conn" for connection errors,
// "timeout", or "other".
func ErrorCode(err error) string {
	if st := SQLState(err); st != "" {
		return st
	}
	switch {
	case IsTimeout(err):
		return "timeout"
	case IsConnectionError(err):
		return "conn"
	}
	return "other"
}
