package cli_test

import (
	"strings"
	"testing"
)

// TestWorkloadVerb checks the wiring of `stampede workload`: cockroach's
// lines are parsed by cmdline/cockroach, refusals are one line with exit
// code 2, and --help lists cockroach's flags.
func TestWorkloadVerb(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"workload", "run", "kv"}, `cockroach's workload "kv" is not one stampede runs`},
		{[]string{"workload", "run", "tpcc", "--partitions=3"}, "--partitions 3 without --partition-affinity"},
		{[]string{"workload", "run", "tpcc", "--warehouses=4", "--partitions=2"}, "--partitions 2 without --partition-affinity"},
		{[]string{"workload", "run", "ycsb", "--read-freq=0.5"}, "the shares apply with --workload=CUSTOM only"},
		{[]string{"workload", "run", "ycsb", "--no-such-flag"}, "unknown flag: --no-such-flag"},
		{[]string{"workload", "frobnicate"}, "unknown `workload frobnicate`"},
	} {
		checkOneLineError(t, stampede(t, tc.args...), 2, tc.want)
	}
	if r := stampede(t, "workload", "--help"); r.code != 0 || !strings.Contains(r.stdout, "Usage: stampede workload init|run|check") {
		t.Errorf("workload --help: code %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r := stampede(t, "workload", "run", "tpcc", "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "--active-warehouses") || !strings.Contains(r.stdout, "--wait string") {
		t.Errorf("workload run tpcc --help: code %d\n%s", r.code, r.stdout)
	}
}
