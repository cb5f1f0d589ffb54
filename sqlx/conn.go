package sqlx

import (
	"context"
)

// Row is the result of QueryRow; errors are deferred to Scan.
type Row interface {
	// Scan copies the row's columns into dest.
	Scan(dest ...any) error
}

// Rows is a result set. pgx.Rows satisfies it.
type Rows interface {
	// Next advances to the next row, reporting whether there is one.
	Next() bool
	// Scan copies the current row's columns into dest.
	Scan(dest ...any) error
	// RawValues returns the current row's columns as the server sent them,
	// without decoding; valid until the next call of Next. Reading a row
	// this way costs the client almost nothing, as a benchmark client
	// that only needs to receive the data wants.
	RawValues() [][]byte
	// Err returns the error that ended iteration, if any.
	Err() error
	// Close releases the result set; it is safe to call more than once.
	Close()
}

// Querier runs statements. Statements are prepared once per connection and
// use the binary protocol.
type Querier interface {
	// Exec runs a statement and returns the number of rows it affected.
	Exec(ctx context.Context, sql string, args ...any) (int64, error)
	// Query runs a statement that returns rows.
	Query(ctx context.Context, sql string, args ...any) (Rows, error)
	// QueryRow runs a statement expected to return at most one row.
	QueryRow(ctx context.Context, sql string, args ...any) Row
}

// Isolation is a transaction isolation level.
type Isolation string

// Isolation levels.
const (
	DefaultIsolation Isolation = ""
	ReadCommitted    Isolation = "read committed"
	RepeatableRead   Isolation = "repeatable read"
	Serializable     Isolation = "serializable"
)

// TxOptions configures a transaction.
type TxOptions struct {
	// Isolation is the isolation level; "" uses the server's default.
	Isolation Isolation
	// ReadOnly starts a read-only transaction.
	ReadOnly bool
	// Pipeline sends BEGIN together with the transaction's first
	// statement, in one round trip, instead of on its own, and lets
	// QueryCommit send COMMIT with the last statement. It applies on a
	// worker's dedicated connection (DB.Conn without sharing) and is
	// ignored elsewhere. The server runs the same statements either way.
	Pipeline bool
}

// Tx is an open transaction.
type Tx interface {
	Querier
	// Commit commits the transaction.
	Commit(ctx context.Context) error
	// Rollback aborts the transaction; it is a no-op after Commit.
	Rollback(ctx context.Context) error
}

// Conn is a worker's connection. A Conn is not safe for concurrent use: each
// worker gets its own. When its underlying connection is lost, the next call
// reconnects (and the DB counts a reconnect).
type Conn interface {
	Querier
	// Begin starts a transaction.
	Begin(ctx context.Context, opts TxOptions) (Tx, error)
	// Release returns the connection; the Conn must not be used afterwards.
	Release()
}
