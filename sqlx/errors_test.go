package sqlx_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/stampede-bench/stampede/sqlx"
)

func TestErrorClassification(t *testing.T) {
	pg := func(code string) error { return fmt.Errorf("wrapped: %w", &pgconn.PgError{Code: code}) }
	for _, tc := range []struct {
		err                   error
		retryable, conn, tout bool
		code                  string
	}{
		{pg("40001"), true, false, false, "40001"},
		{pg("40P01"), true, false, false, "40P01"},
		{pg("23505"), false, false, false, "23505"},
		{pg("57P01"), false, true, false, "57P01"},
		{pg("08006"), false, true, false, "08006"},
		{pg("57014"), false, false, true, "57014"},
		{io.EOF, false, true, false, "conn"},
		{fmt.Errorf("x: %w", context.DeadlineExceeded), false, false, true, "timeout"},
		{errors.New("weird"), false, false, false, "other"},
	} {
		if got := sqlx.IsRetryable(tc.err); got != tc.retryable {
			t.Errorf("IsRetryable(%v) = %v", tc.err, got)
		}
		if got := sqlx.IsConnectionError(tc.err); got != tc.conn {
			t.Errorf("IsConnectionError(%v) = %v", tc.err, got)
		}
		if got := sqlx.IsTimeout(tc.err); got != tc.tout {
			t.Errorf("IsTimeout(%v) = %v", tc.err, got)
		}
		if got := sqlx.ErrorCode(tc.err); got != tc.code {
			t.Errorf("ErrorCode(%v) = %q, want %q", tc.err, got, tc.code)
		}
	}
}
