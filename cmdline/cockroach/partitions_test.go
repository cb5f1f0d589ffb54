package cockroach

import (
	"errors"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/run"
)

// TestInitPartitionsNamesWhatWasGiven: init's refusal of cockroach's
// partitions names the flags the line gave, not --partitions at its
// default 1 (rechk28b F-J: `workload init tpcc --partition-affinity 1`
// was told "--partitions 1: ...").
func TestInitPartitionsNamesWhatWasGiven(t *testing.T) {
	for _, tc := range []struct {
		line, want, not string
	}{
		{"init tpcc --partition-affinity=1", "--partition-affinity 1: cockroach partitions the tables", "--partitions"},
		{"init tpcc --partition-affinity 1", "--partition-affinity 1: cockroach partitions the tables", "--partitions"},
		{"init tpcc --warehouses=4 --partitions=2", "--partitions 2: cockroach partitions the tables", "--partition-affinity"},
		{"init tpcc --warehouses=4 --partitions=2 --partition-affinity=0", "--partitions 2 --partition-affinity 0: cockroach partitions the tables", ""},
		{"check tpcc --partition-affinity=0", "--partition-affinity 0: cockroach partitions the tables", "--partitions"},
	} {
		_, err := Parse(strings.Fields(tc.line))
		if err == nil {
			t.Errorf("%s: no error", tc.line)
			continue
		}
		msg := err.Error()
		if !errors.Is(err, run.ErrInput) || !strings.HasPrefix(msg, tc.want) || strings.Contains(msg, "\n") {
			t.Errorf("%s: %q (ErrInput %v): want one line beginning %q", tc.line, msg, errors.Is(err, run.ErrInput), tc.want)
		}
		if before, _, _ := strings.Cut(msg, ":"); tc.not != "" && strings.Contains(before, tc.not) {
			t.Errorf("%s: %q names %s, which the line did not give", tc.line, msg, tc.not)
		}
		named, _, _ := strings.Cut(tc.want, ":")
		if two := strings.Count(named, "--") == 2; two != strings.Contains(msg, "leave them out") {
			t.Errorf("%s: %q: want \"leave them out\" for two flags, \"leave it out\" for one", tc.line, msg)
		}
	}
}
