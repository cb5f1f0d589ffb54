package telemetry_test

import (
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/telemetry"
)

// TestBottleneck checks what Bottleneck names for each kind of limit,
// from summaries whose figures say it.
func TestBottleneck(t *testing.T) {
	cpu := func(idle, iowait float64) telemetry.CPUSummary {
		return telemetry.CPUSummary{Idle: telemetry.Stat{Avg: idle}, IOWait: telemetry.Stat{Avg: iowait}}
	}
	disk := func(util float64) []telemetry.DiskSummary {
		return []telemetry.DiskSummary{{Name: "vda", UtilPct: telemetry.Stat{Avg: util}}}
	}
	server := func(cores float64) []telemetry.ProcGroupSummary {
		return []telemetry.ProcGroupSummary{{Name: "postgres", CPUCores: telemetry.Stat{Avg: cores}}}
	}
	for _, tc := range []struct {
		name   string
		s      telemetry.Summary
		client float64
		want   string
	}{
		{"no samples", telemetry.Summary{}, 0.5, ""},
		{"disk busy", telemetry.Summary{Intervals: 3, Cores: 2, CPU: cpu(50, 5), Disks: disk(97), Procs: server(0.5)}, 0.2, "disk: vda 97% utilised"},
		{"iowait", telemetry.Summary{Intervals: 3, Cores: 2, CPU: cpu(40, 30), Disks: disk(60)}, 0.2, "disk: vda 60% utilised (await 0.0 ms), iowait 30.0%"},
		{"server CPU", telemetry.Summary{Intervals: 3, Cores: 2, CPU: cpu(2, 0), Disks: disk(10), Procs: server(1.4)}, 0.5,
			"the server's CPU: the host's 2 CPUs 98.0% busy (steal 0.0%) (cores: the server (watched) 1.40, this client 0.50, other processes 0.06)"},
		{"client CPU", telemetry.Summary{Intervals: 3, Cores: 2, CPU: cpu(1, 0), Disks: disk(10), Procs: server(0.4)}, 1.5, "the client's CPU: "},
		{"others' CPU", telemetry.Summary{Intervals: 3, Cores: 2, CPU: cpu(0, 0), Disks: disk(10), Procs: server(0.4)}, 0.2,
			"other processes' CPU (the host is shared): the host's 2 CPUs 100.0% busy (steal 0.0%) (cores: the server (watched) 0.40, this client 0.20, other processes 1.40)"},
		{"CPU, server not watched", telemetry.Summary{Intervals: 3, Cores: 2, CPU: cpu(0, 0), Disks: disk(10)}, 0.2,
			"CPU: the host's 2 CPUs 100.0% busy (steal 0.0%) (cores: this client 0.20), vda 10% utilised (await 0.0 ms); watch the server (--watch-pid PID or --watch-process)"},
		{"client, server not watched", telemetry.Summary{Intervals: 3, Cores: 2, CPU: cpu(5, 0)}, 1.2, "the client's CPU: the host's 2 CPUs 95.0% busy"},
		{"neither", telemetry.Summary{Intervals: 3, Cores: 2, CPU: cpu(60, 1), Disks: disk(20), Procs: server(0.5)}, 0.2,
			"neither CPU nor disk: the host's 2 CPUs 39.0% busy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := telemetry.Bottleneck(tc.s, tc.client)
			if tc.want == "" && got != "" || !strings.HasPrefix(got, tc.want) {
				t.Errorf("Bottleneck = %q, want it to start %q", got, tc.want)
			}
		})
	}
}
