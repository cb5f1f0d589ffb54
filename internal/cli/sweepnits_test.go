package cli_test

import (
	"strings"
	"testing"
)

// TestSweepPlanLine (issue 34 NITs 7, 8): --cpus none beside a swept
// --concurrency is no limit, as if not given (it was refused as "--cpus
// 0"), the plan line counts its steps in the singular for one, and a
// fleet's step line names its active tenants' workers (NIT 12).
func TestSweepPlanLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"cpus none", []string{"ycsb", "--cpus", "none", "--concurrency", "1,2"}, "--concurrency 1,2 (2 steps)\n"},
		{"one step", []string{"ycsb", "--concurrency", "1"}, "--concurrency 1 (1 step)\n"},
		// NIT 12: a fleet's step line names its active tenants' workers, not --concurrency.
		{"fleet", []string{"bank", "--tenants", "4", "--active", "2,4"}, "step 2: --active 4, closed loop, 4 active tenants' workers, 200ms each\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := stampede(t, append(append([]string{"sweep"}, tc.args...), "--driver", "null", "--duration", "200ms", "--results-dir", t.TempDir())...)
			if r.code != 0 || !strings.Contains(r.stdout+r.stderr, tc.want) {
				t.Errorf("exit %d, want %q in:\n%s%s", r.code, tc.want, r.stdout, r.stderr)
			}
		})
	}
}
