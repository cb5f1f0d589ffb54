package workload_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/engine"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/workload"
)

// TestCheckOpNameAsRunLog: a name is a workload's operation name exactly
// when the run log can keep it as a series name.
func TestCheckOpNameAsRunLog(t *testing.T) {
	for _, name := range []string{
		"read", "read_order", "write.sql:4", "tpcb-like", "a/b", "ünïcode", "",
		"has space", "a,b", "a=b", "tab\there", "nl\n", "\x00", "bad\xffutf8", "\u00a0nbsp", "\u2028", "x\u200by",
	} {
		ours, theirs := workload.CheckOpName(name) == nil, runlog.ValidSeriesName(name) == nil
		if ours != theirs {
			t.Errorf("%q: workload.CheckOpName accepts it %v, runlog.ValidSeriesName %v", name, ours, theirs)
		}
	}
}

// TestReservedOpNamesAsTheRunLog: every series the run log adds beside an
// operation under a rate (engine.Series), compare's total row, and every
// name results does not read as an operation is refused as a name of a
// user's operation; ordinary names are not.
func TestReservedOpNamesAsTheRunLog(t *testing.T) {
	derived := engine.Series{Ops: []string{"read.sql"}, Rated: true}.Names()[1:]
	for _, name := range append(derived, results.CompareTotal, "__total", "pacer", "x.service", "x.lag") {
		if workload.CheckReservedOpName(name) == nil {
			t.Errorf("%q is accepted as an operation's name, but the run log or compare keeps it", name)
		}
	}
	for _, name := range []string{"read", "read.sql", "read.sql:4", "read.sql:4:2", "pacer2", "lag", "service_x", "_one"} {
		if err := workload.CheckReservedOpName(name); err != nil {
			t.Errorf("%q: %v", name, err)
		}
		if !results.IsOp(name) {
			t.Errorf("%q is accepted but results does not read it as an operation", name)
		}
	}
}

type nopRecorder struct{}

func (nopRecorder) Record(int, time.Duration) {}
func (nopRecorder) RecordError(int, error)    {}

// TestRetryTxNamesOnce: an error that is not retried is named by its
// operation once: a script's error, which starts with the script's
// FILE:LINE, is not prefixed with the file's name again.
func TestRetryTxNamesOnce(t *testing.T) {
	for _, c := range []struct{ name, err, want string }{
		{"br.sql", "br.sql:4: variable x is not set", "br.sql:4: variable x is not set"},
		{"new_order", "no such row", "new_order: no such row"},
		{"a.sql", "a.sqlx:1: other", "a.sql: a.sqlx:1: other"},
	} {
		got := workload.RetryTx(context.Background(), nopRecorder{}, 0, c.name, func() error { return errors.New(c.err) })
		if got == nil || got.Error() != c.want {
			t.Errorf("%s, %q: %v, want %q", c.name, c.err, got, c.want)
		}
	}
}
