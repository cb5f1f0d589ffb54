package cli_test

import (
	"strings"
	"testing"
)

// TestSweepPlanLine (issue 34 NITs 7, 8): --cpus none beside a swept
// --concurrency is no limit, as if not given (it was refused as "--cpus
// 0"), and the plan line counts its steps in the singular for one.
func TestSweepPlanLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"cpus none", []string{"--cpus", "none", "--concurrency", "1,2"}, "--concurrency 1,2 (2 steps)\n"},
		{"one step", []string{"--concurrency", "1"}, "--concurrency 1 (1 step)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := stampede(t, append([]string{"sweep", "ycsb", "--driver", "null", "--duration", "200ms", "--results-dir", t.TempDir()}, tc.args...)...)
			if r.code != 0 || !strings.Contains(r.stdout, tc.want) {
				t.Errorf("exit %d, want %q in:\n%s%s", r.code, tc.want, r.stdout, r.stderr)
			}
		})
	}
}
