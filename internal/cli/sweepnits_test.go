package cli_test

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
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

// TestSweepCPUsAboveCores (issue 34): a swept --cpus above the machine's
// cores is refused before any step, in one line that names the cores
// and why (a limit above them never binds), as run refuses it.
func TestSweepCPUsAboveCores(t *testing.T) {
	n := runtime.NumCPU()
	want := fmt.Sprintf("--cpus %d is above the %d cores this machine has: a cgroup CPU limit above the cores never binds (its processes cannot use more than %d); give between 0.01 and %d, or leave --cpus out for no limit", n+1, n, n, n)
	for _, verb := range [][]string{{"sweep", "ycsb", "--cpus", fmt.Sprintf("0.5,%d", n+1)}, {"run", "ycsb", "--cpus", strconv.Itoa(n + 1)}} {
		root := t.TempDir()
		r := stampede(t, append(verb, "--watch-process", "postgres", "--driver", "null", "--duration", "200ms", "--results-dir", root)...)
		checkOneLineError(t, r, 2, want)
		if entries, _ := os.ReadDir(root); len(entries) != 0 {
			t.Errorf("%s ran before the refusal: %v", verb[0], entries)
		}
	}
}
