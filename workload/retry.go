package workload

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/stampede-bench/stampede/sqlx"
)

// Limits of RetryTx.
const (
	// MaxConflictRetries bounds the retries of one transaction after
	// serialization failures and deadlocks.
	MaxConflictRetries = 100
	// MaxConnLosses is the number of consecutive connection losses one
	// transaction survives: the worker's connection is re-established by
	// its next statement, so several losses in a row mean the server is
	// down.
	MaxConnLosses = 5
	// connBackoff is the pause before the second attempt after a lost
	// connection, doubled for each further one (the first is immediate).
	connBackoff = 50 * time.Millisecond
	// conflictBackoff is the limit of the random pause before the second
	// retry of a conflict, doubled per retry up to maxConflictBackoff.
	conflictBackoff    = time.Millisecond
	maxConflictBackoff = 100 * time.Millisecond
)

// RetryTx runs attempt, one transaction, until it succeeds, the way
// benchmark clients treat failures: serialization failures and deadlocks
// (sqlx.IsRetryable) are retried, up to MaxConflictRetries times, with a
// random pause from the second retry on (immediate retries of colliding
// transactions tend to collide again; the jitter comes from the global
// source so it does not shift a worker's seeded sequence); a lost
// connection is retried after a growing pause, MaxConnLosses times in a
// row at most. Each retried failure is counted through rec.RecordError(op).
// Other errors, and the end of ctx, return at once. name prefixes the
// error of a transaction that gives up.
func RetryTx(ctx context.Context, rec Recorder, op int, name string, attempt func() error) error {
	connLosses := 0
	for retries := 0; ; retries++ {
		err := attempt()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%w: %v", ctx.Err(), err)
		}
		switch {
		case sqlx.IsRetryable(err):
			connLosses = 0
			if retries > 0 {
				limit := min(conflictBackoff<<min(retries-1, 10), maxConflictBackoff)
				if !Sleep(ctx, rand.N(limit)) {
					return fmt.Errorf("%w: %v", ctx.Err(), err)
				}
			}
		case sqlx.IsConnectionError(err):
			connLosses++
			if connLosses > MaxConnLosses {
				return fmt.Errorf("%s: connection lost %d times in a row: %w", name, connLosses, err)
			}
			if connLosses > 1 && !Sleep(ctx, connBackoff<<(connLosses-2)) {
				return fmt.Errorf("%w: %v", ctx.Err(), err)
			}
		default:
			return fmt.Errorf("%s: %w", name, err)
		}
		if retries == MaxConflictRetries {
			return fmt.Errorf("%s retried %d times, giving up: %w", name, MaxConflictRetries, err)
		}
		rec.RecordError(op)
	}
}

// Sleep waits for d or until ctx ends; it reports whether it slept all of d.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
