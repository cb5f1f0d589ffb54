package pgbench

import (
	"testing"

	"github.com/stampede-bench/stampede/workload"
)

// TestPartitionMethodAnyCase: pgbench takes --partition-method in any
// case (census29b #312: HASH was refused); the tables get the method in
// SQL's words.
func TestPartitionMethodAnyCase(t *testing.T) {
	meta, _ := workload.Get("pgbench")
	for _, c := range []struct{ given, want string }{{"HASH", "hash"}, {"Range", "range"}, {"hash", "hash"}} {
		w, err := workload.FromFlags(meta, "--partitions", "2", "--partition-method", c.given)
		if err != nil {
			t.Errorf("--partition-method %s: %v", c.given, err)
			continue
		}
		if got := w.(*generator).partitionMethod(); got != c.want {
			t.Errorf("--partition-method %s: method %q, want %q", c.given, got, c.want)
		}
	}
}
