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

// Detail returns the DETAIL of the server's error err (its lines joined
// by "; "), or "" when err carries none.
func Detail(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return strings.Join(strings.Fields(strings.ReplaceAll(pgErr.Detail, "\n", "; ")), " ")
	}
	return ""
}

// Message returns the server's message of err ("permission denied for
// table bank"), without its severity and SQLSTATE, or err's text when it
// carries none.
func Message(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Message
	}
	return err.Error()
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

// Coder is an error that names its own class for ErrorCode (a
// workload's outcome that is not the server's error, such as YCSB's
// NOT_FOUND).
type Coder interface {
	error
	ErrorCode() string
}

// ErrorCode returns a short, stable classification of err for counting:
// the code of a Coder in err's chain, else the SQLSTATE when there is
// one, else "conn" for connection errors, "timeout", or "other".
func ErrorCode(err error) string {
	if c, ok := errors.AsType[Coder](err); ok {
		return c.ErrorCode()
	}
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

// sqlStateNames are the condition names (PostgreSQL's Appendix A) of the
// SQLSTATE codes a benchmark commonly meets.
var sqlStateNames = map[string]string{
	"08000": "connection_exception",
	"08003": "connection_does_not_exist",
	"08006": "connection_failure",
	"22P02": "invalid_text_representation",
	"23503": "foreign_key_violation",
	"23505": "unique_violation",
	"25P02": "in_failed_sql_transaction",
	"28P01": "invalid_password",
	"3D000": "invalid_catalog_name",
	"40001": "serialization_failure",
	"40003": "statement_completion_unknown",
	"40P01": "deadlock_detected",
	"42501": "insufficient_privilege",
	"42P01": "undefined_table",
	"53100": "disk_full",
	"53200": "out_of_memory",
	"53300": "too_many_connections",
	"55P03": "lock_not_available",
	"57014": "query_canceled",
	"57P01": "admin_shutdown",
	"57P02": "crash_shutdown",
	"57P03": "cannot_connect_now",
	"XX000": "internal_error",
}

// SQLStateName returns the condition name of an SQLSTATE code, such as
// "serialization_failure" for 40001, or "" for a code it does not know.
func SQLStateName(code string) string { return sqlStateNames[code] }

// LibpqText returns a server error as libpq's PQerrorMessage words it
// when it knows no statement text (see LibpqQueryText); ok is false when
// err is not the server's.
func LibpqText(err error) (text string, ok bool) { return LibpqQueryText(err, "") }
