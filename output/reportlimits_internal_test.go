package output

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stampede-bench/stampede/runlog"
)

// TestWriteLimits: report shows a run's limits, on what and where, and how
// the CPU limit bore, or that nothing was limited (issue 34's NIT: report
// showed neither).
func TestWriteLimits(t *testing.T) {
	rec := json.RawMessage(`{"text":"cpus 0.5","cgroup":"/sys/fs/cgroup/{cpu,cpuacct}/stampede/run-x","cgroup_version":"cgroup v1","cpus":0.5,"pids":[42]}`)
	for _, tc := range []struct {
		name string
		runs []*runlog.Run
		want string
	}{
		{name: "no limits", runs: []*runlog.Run{{Info: runlog.RunInfo{ID: "a"}}}, want: ""},
		{name: "bound", runs: []*runlog.Run{{Info: runlog.RunInfo{ID: "a", Limits: rec},
			Summary: json.RawMessage(`{"cpu_limit":{"cpus":0.5,"used_cores":0.49,"nr_periods":40,"nr_throttled":38}}`)}},
			want: "\nlimits: cpus 0.5, applied to pid 42 (cgroup v1 /sys/fs/cgroup/{cpu,cpuacct}/stampede/run-x)\n" +
				"  over the run's measured period the limited processes used 0.49 of 0.5 CPU, throttled in 38 of 40 periods\n"},
		{name: "nothing limited", runs: []*runlog.Run{{Info: runlog.RunInfo{ID: "a", Limits: rec},
			Summary: json.RawMessage(`{"cpu_limit":{"cpus":0.5},"not_limited":"no process matched --limit-process x: nothing was limited"}`)}},
			want: "\nlimits: cpus 0.5, applied to pid 42 (cgroup v1 /sys/fs/cgroup/{cpu,cpuacct}/stampede/run-x)\n" +
				"  no process matched --limit-process x: nothing was limited\n"},
		{name: "killed run: no summary", runs: []*runlog.Run{{Info: runlog.RunInfo{ID: "a", Limits: rec}}},
			want: "\nlimits: cpus 0.5, applied to pid 42 (cgroup v1 /sys/fs/cgroup/{cpu,cpuacct}/stampede/run-x)\n"},
		{name: "two runs", runs: []*runlog.Run{{Info: runlog.RunInfo{ID: "a", Limits: rec}}, {Info: runlog.RunInfo{ID: "b"}}},
			want: "\nrun a limits: cpus 0.5, applied to pid 42 (cgroup v1 /sys/fs/cgroup/{cpu,cpuacct}/stampede/run-x)\n"},
		{name: "unreadable record", runs: []*runlog.Run{{Info: runlog.RunInfo{ID: "a", Limits: json.RawMessage(`{"x": 1}`)}}},
			want: "\nlimits: {\"x\":1}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			writeLimits(&b, tc.runs)
			if b.String() != tc.want {
				t.Errorf("got\n%q\nwant\n%q", b.String(), tc.want)
			}
		})
	}
}
