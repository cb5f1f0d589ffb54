package sqlscript_test

import (
	"testing"

	"github.com/stampede-bench/stampede/workload"
)

// TestWorkerEnd checks the transaction's end a pgbench script's worker
// hands the engine (workload.Result.End): its last statement's end, read
// during the call, so that the engine does not read the clock again; 0
// under --connect-each (pgbench's -C), whose disconnect after the last
// statement belongs to the transaction.
func TestWorkerEnd(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flags []string
		want  bool // End is set
	}{
		{"one connection", nil, true},
		{"connect each", []string{"--connect-each"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, w, _ := selectOnlyWorker(t, tc.flags...)
			before := workload.Now()
			res := w(ctx)
			after := workload.Now()
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			switch {
			case tc.want && (res.End <= before || res.End > after):
				t.Errorf("End %s, want after %s and at most %s (the call's)", res.End, before, after)
			case !tc.want && res.End != 0:
				t.Errorf("End %s, want 0", res.End)
			}
		})
	}
}
