package workload

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/sqlx"
)

// ErrRollback, returned by a transaction body run by RunTx (or wrapped in
// the error it returns), asks for the transaction to be rolled back on
// purpose, such as TPC-C New-Order's unused item: RunTx rolls back and
// returns the body's error as is, without retrying it. Callers usually
// count it a success.
var ErrRollback = errors.New("rollback requested")

// rollbackTimeout bounds the ROLLBACK after a failure: it runs even when
// the worker's context has ended.
const rollbackTimeout = 5 * time.Second

// The statements of CockroachDB's client-side retry protocol. They take
// no arguments, so pgx sends them with the simple protocol.
const (
	savepointStmt  = "SAVEPOINT cockroach_restart"
	releaseStmt    = "RELEASE SAVEPOINT cockroach_restart"
	rollbackToStmt = "ROLLBACK TO SAVEPOINT cockroach_restart"
)

// RunTx runs body in a transaction on conn, started with opts, until it
// succeeds, with the retry protocol d's capabilities call for. Failures
// are handled as RetryTx does: serialization failures and deadlocks
// (sqlx.IsRetryable) are retried up to MaxConflictRetries times with a
// growing random pause, a lost connection restarts the whole transaction
// (MaxConnLosses times in a row at most), each retry is counted through
// rec.RecordError(op, err), and other errors, and the end of ctx, return at
// once, prefixed by name. A body error that is (or wraps) ErrRollback
// rolls the transaction back and is returned as is.
//
// Without Capabilities.SavepointRetry each attempt is a new transaction,
// rolled back when it fails:
//
//	BEGIN; body; COMMIT
//
// With it, retryable errors are retried inside one transaction, which
// keeps its priority on CockroachDB:
//
//	BEGIN; SAVEPOINT cockroach_restart; body;
//	  [ROLLBACK TO SAVEPOINT cockroach_restart; body; ...]
//	  RELEASE SAVEPOINT cockroach_restart; COMMIT
//
// where RELEASE may fail with a retryable error too, and is then retried
// the same way. Any other failure (of body, of the protocol's statements
// or of COMMIT) ends the transaction, rolled back, and is then handled as
// without savepoints: a lost connection, or a conflict at COMMIT, starts
// a new transaction.
//
// body must run every statement through the tx it is given and may be
// called several times: it must not keep state across calls that a retry
// would get wrong. A lost connection during COMMIT (or RELEASE) leaves
// unknown whether the transaction committed; it is run again, as RetryTx
// does.
func RunTx(ctx context.Context, conn sqlx.Conn, d dialect.Dialect, opts sqlx.TxOptions, rec Recorder, op int, name string,
	body func(tx sqlx.Tx) error,
) error {
	savepoints := d.Capabilities().SavepointRetry
	r := retrier{ctx: ctx, rec: rec, op: op, name: name}
	for {
		var err error
		if savepoints {
			var final bool
			if final, err = savepointTx(ctx, conn, opts, body, &r); final {
				return err
			}
		} else {
			err = wholeTx(ctx, conn, opts, body)
		}
		if err == nil || errors.Is(err, ErrRollback) {
			return err
		}
		if err := r.failed(err); err != nil {
			return err
		}
	}
}

// wholeTx runs body once in a transaction, rolling it back on failure.
func wholeTx(ctx context.Context, conn sqlx.Conn, opts sqlx.TxOptions, body func(tx sqlx.Tx) error) error {
	tx, err := conn.Begin(ctx, opts)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := body(tx); err != nil {
		rollback(ctx, tx)
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// savepointTx runs body in one transaction with CockroachDB's retry
// protocol, retrying it inside the transaction after retryable errors as
// r decides. It returns a nil error once committed; otherwise it rolls
// the transaction back (unless COMMIT failed) and returns the error:
// final when r already handled it (the retries are used up or ctx ended),
// else left to r to judge whether a new transaction should follow.
func savepointTx(ctx context.Context, conn sqlx.Conn, opts sqlx.TxOptions, body func(tx sqlx.Tx) error, r *retrier) (final bool, err error) {
	// RELEASE must come between the body's last statement and COMMIT.
	opts.Pipeline = false
	tx, err := conn.Begin(ctx, opts)
	if err != nil {
		return false, fmt.Errorf("begin: %w", err)
	}
	if _, err := tx.Exec(ctx, savepointStmt); err != nil {
		rollback(ctx, tx)
		return false, fmt.Errorf("savepoint: %w", err)
	}
	for {
		err := body(tx)
		if err == nil {
			if _, err = tx.Exec(ctx, releaseStmt); err == nil {
				if err := tx.Commit(ctx); err != nil {
					return false, fmt.Errorf("commit: %w", err)
				}
				return false, nil
			}
			err = fmt.Errorf("release savepoint: %w", err)
		}
		if !sqlx.IsRetryable(err) || errors.Is(err, ErrRollback) {
			rollback(ctx, tx)
			return false, err
		}
		if err := r.failed(err); err != nil {
			rollback(ctx, tx)
			return true, err
		}
		if _, err := tx.Exec(ctx, rollbackToStmt); err != nil {
			rollback(ctx, tx)
			return false, fmt.Errorf("rollback to savepoint: %w", err)
		}
	}
}

// rollback rolls tx back, best effort: the connection may be gone.
func rollback(ctx context.Context, tx sqlx.Tx) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rollbackTimeout)
	_ = tx.Rollback(rctx)
	cancel()
}
