package run

import (
	"errors"
	"strings"

	"fmt"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stampede-bench/stampede/engine"
	"github.com/stampede-bench/stampede/workload"
	"testing"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload/ycsb"
)

// TestNotFoundIsNamed checks that YCSB's reads of keys with no row, which
// its workers count and do not retry, are classed and named as what they
// are (not_found), not as retried or ignored failures of another kind
// (retries_other), and that other handled failures keep their lines.
func TestNotFoundIsNamed(t *testing.T) {
	code := sqlx.ErrorCode(fmt.Errorf("read user123: %w", ycsb.ErrNotFound))
	if code != "not_found" {
		t.Fatalf("ErrorCode of a YCSB NOT_FOUND read: %q, want not_found", code)
	}
	if got := sqlx.ErrorCode(fmt.Errorf("read: %w", fmt.Errorf("boom"))); got != "other" {
		t.Errorf("ErrorCode of a plain error: %q, want other", got)
	}
	extras := CodeExtras(nil, map[string]int64{code: 434, "40001": 3})
	want := map[string]string{
		"not_found":     "434 found no row for their key (YCSB's NOT_FOUND reads, UNEXPECTED_STATE updates and deletes): counted, not retried",
		"retries_40001": "3 retried or ignored (SQLSTATE 40001, serialization_failure)",
	}
	if len(extras) != len(want) {
		t.Fatalf("extras %+v, want %d", extras, len(want))
	}
	for _, e := range extras {
		if want[e.Name] != e.Text {
			t.Errorf("%s: %q, want %q", e.Name, e.Text, want[e.Name])
		}
	}
}

// TestErrorMessagesSummarized: the failed operations' messages are in the
// final lines, each distinct one once with its count, most frequent
// first, at most maxMessagesPerCode per code and the rest counted; a
// retried failure's message is not among them.
func TestErrorMessagesSummarized(t *testing.T) {
	e := newErrorLog(nil)
	missing := &pgconn.PgError{Severity: "ERROR", Code: "42883", Message: "function dbms_random(integer, integer) does not exist"}
	for range 5 {
		e.record(0, "newOrder", fmt.Errorf("neword: %w", missing))
	}
	e.record(1, "payment", fmt.Errorf("payment: %w", &pgconn.PgError{Severity: "ERROR", Code: "42883", Message: "function payment() does not exist"}))
	for i := range 4 {
		e.record(0, "x", fmt.Errorf("dup: %w", &pgconn.PgError{Severity: "ERROR", Code: "23505", Message: fmt.Sprintf("key %d", i)}))
	}
	e.retried(0, "x", &pgconn.PgError{Severity: "ERROR", Code: "40001", Message: "retried"})
	want := []string{
		"message_23505: 1 x dup: ERROR: key 0 (SQLSTATE 23505)",
		"message_23505_2: 1 x dup: ERROR: key 1 (SQLSTATE 23505)",
		"message_23505_3: 1 x dup: ERROR: key 2 (SQLSTATE 23505)",
		"message_23505_4: 1 x other messages (the run log, events.ndjson, keeps the first 1000 failures of each code)",
		"message_42883: 5 x neword: ERROR: function dbms_random(integer, integer) does not exist (SQLSTATE 42883)",
		"message_42883_2: 1 x payment: ERROR: function payment() does not exist (SQLSTATE 42883)",
	}
	var got []string
	for _, x := range e.messageExtras() {
		got = append(got, x.Name+": "+x.Text)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("message lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestStopHint: a run stopped by an error names the workload's own remedy
// when it gives one (--profile hammerdb's --raise-error), the generic
// --tolerate-errors otherwise.
func TestStopHint(t *testing.T) {
	base := errors.New("neword: boom")
	cases := []struct {
		err  error
		want string
	}{
		{&engine.OpError{Op: "newOrder", Err: base}, "pass --tolerate-errors to keep going"},
		{&engine.OpError{Op: "newOrder", Err: &workload.HintedError{Err: base, Hint: "leave --raise-error out"}}, "leave --raise-error out"},
		{&engine.OpError{Op: "newOrder", Err: fmt.Errorf("x: %w", workload.ErrLoadMismatch)}, "the run does not match the load"},
	}
	for _, c := range cases {
		if got := stopHint(c.err); got != c.want {
			t.Errorf("stopHint(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}
