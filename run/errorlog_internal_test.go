package run

import (
	"fmt"
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
