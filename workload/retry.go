package workload

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/stampede-bench/stampede/sqlx"
)

// Limits of RetryTx and RunTx.
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
// row at most. Each retried failure is counted through rec.RecordError(op, err).
// Other errors, and the end of ctx, return at once. name prefixes the
// error of a transaction that gives up.
func RetryTx(ctx context.Context, rec Recorder, op int, name string, attempt func() error) error {
	r := retrier{ctx: ctx, rec: rec, op: op, name: name}
	for {
		err := attempt()
		if err == nil {
			return nil
		}
		if err := r.failed(err); err != nil {
			return err
		}
	}
}

// retrier holds the state of one transaction's retries, for RetryTx and
// RunTx: how many failures it has retried, and how many of the last ones
// in a row were lost connections.
type retrier struct {
	ctx        context.Context
	rec        Recorder
	op         int
	name       string
	retries    int
	connLosses int
}

// failed handles err, the failure of one attempt, as RetryTx describes:
// it returns nil when the attempt is to be retried (after counting the
// failure and pausing as needed), or the error to end with.
func (r *retrier) failed(err error) error {
	ctx := r.ctx
	if ctx.Err() != nil {
		return fmt.Errorf("%w: %v", ctx.Err(), err)
	}
	switch {
	case sqlx.IsRetryable(err):
		r.connLosses = 0
		if r.retries > 0 {
			limit := min(conflictBackoff<<min(r.retries-1, 10), maxConflictBackoff)
			if !pause(ctx, rand.N(limit)) {
				return fmt.Errorf("%w: %v", ctx.Err(), err)
			}
		}
	case sqlx.IsConnectionError(err):
		r.connLosses++
		if r.connLosses > MaxConnLosses {
			return fmt.Errorf("%s: connection lost %d times in a row: %w", r.name, r.connLosses, err)
		}
		if r.connLosses > 1 && !pause(ctx, connBackoff<<(r.connLosses-2)) {
			return fmt.Errorf("%w: %v", ctx.Err(), err)
		}
	default:
		if strings.HasPrefix(err.Error(), r.name+":") {
			return err // it names the operation already (a script's FILE:LINE)
		}
		return fmt.Errorf("%s: %w", r.name, err)
	}
	if r.retries == MaxConflictRetries {
		return fmt.Errorf("%s retried %d times, giving up: %w", r.name, MaxConflictRetries, err)
	}
	r.retries++
	r.rec.RecordError(r.op, err)
	return nil
}

// pause is the retries' Sleep; tests replace it to run without waiting.
var pause = Sleep

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
