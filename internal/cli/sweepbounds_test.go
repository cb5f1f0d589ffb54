package cli_test

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestSweepBeyondWorkers sweeps sizes and counts of 2^31 and more
// against PostgreSQL: they are no workers, so each step runs at its
// value, and its run records it (in bytes for a size).
func TestSweepBeyondWorkers(t *testing.T) {
	t.Parallel()
	srv := testServer(t)
	db := freshDB(t, "stampede_sweep_bounds")
	if r := stampede(t, "init", "ycsb", "-p", "recordcount=1000", "--db", db, srv); r.code != 0 {
		t.Fatalf("init: %s", r.stderr)
	}
	for _, tc := range []struct {
		flag, values string
		limit        bool // a cgroup limit: needs root and cgroup v1
		want         []float64
	}{
		{flag: "max-ops", values: "10,3000000000", want: []float64{10, 3e9}},
		{flag: "memory", values: "512M,2G", limit: true, want: []float64{512 << 20, 2 << 30}},
		{flag: "io-write-bps", values: "1M,3G", limit: true, want: []float64{1 << 20, 3 << 30}},
	} {
		t.Run(tc.flag, func(t *testing.T) {
			args := []string{"sweep", "ycsb", "-p", "recordcount=1000", "--workload", "c", "--concurrency", "2", "--duration", "1s",
				"--" + tc.flag, tc.values, "--db", db, "--format", "json"}
			if tc.limit {
				requireLimitV1(t)
				sleep := exec.Command("sleep", "60") // the limited process: the server is shared
				if err := sleep.Start(); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = sleep.Process.Kill(); _ = sleep.Wait() })
				args = append(args, "--limit-pid", strconv.Itoa(sleep.Process.Pid))
				if strings.HasPrefix(tc.flag, "io-") {
					args = append(args, "--io-path", t.TempDir()) // the disk the IO limit is on
				}
			}
			root := t.TempDir()
			r := stampede(t, append(args, "--results-dir", root, srv)...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			s := parseSweep(t, r.stdout)
			if len(s.Steps) != len(tc.want) {
				t.Fatalf("%d steps, want %d:\n%s", len(s.Steps), len(tc.want), r.stdout)
			}
			for i, st := range s.Steps {
				if st.Value != tc.want[i] || st.Status != "completed" || st.Total.Count == 0 {
					t.Errorf("step %d: value %g, %s, %d ops; want %g, completed", i+1, st.Value, st.Status, st.Total.Count, tc.want[i])
				}
			}
			checkSweepRuns(t, root, s, tc.flag)
		})
	}
}
