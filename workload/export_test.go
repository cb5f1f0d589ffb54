package workload

import (
	"context"
	"testing"
	"time"
)

// RecordPauses makes the retries of the test skip their pauses, and
// returns the pauses they would have made, in order.
func RecordPauses(t testing.TB) *[]time.Duration {
	var pauses []time.Duration
	old := pause
	pause = func(_ context.Context, d time.Duration) bool {
		pauses = append(pauses, d)
		return true
	}
	t.Cleanup(func() { pause = old })
	return &pauses
}

// FailBeforeMark makes CreateMarkedTable fail with err between its CREATE
// and its mark, for the test.
func FailBeforeMark(t testing.TB, err error) {
	old := beforeMark
	beforeMark = func(string) error { return err }
	t.Cleanup(func() { beforeMark = old })
}
