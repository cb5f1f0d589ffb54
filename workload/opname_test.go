package workload_test

import (
	"testing"

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
