package report_test

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/internal/golden"
	"github.com/stampede-bench/stampede/report"
	"github.com/stampede-bench/stampede/telemetry"
)

func TestTelemetryLine(t *testing.T) {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		s    telemetry.Sample
	}{
		{"busy", telemetry.Sample{
			Start: start, End: start.Add(time.Second),
			CPU:    telemetry.CPU{Cores: 2, User: 23.14, System: 10.2, IOWait: 0.3, IRQ: 0.4, SoftIRQ: 1.1, Steal: 1.25, Idle: 63.61},
			Memory: telemetry.Memory{TotalBytes: 8 << 30, UsedBytes: 3436 << 20, CacheBytes: 2 << 30, SwapUsedBytes: 0},
			Disks: []telemetry.Disk{{Name: "vda", WritesPerSec: 120, WriteKBPerSec: 5120, AvgRequestKB: 42.7, AvgQueueSize: 0.25,
				WriteAwaitMs: 2.1, AwaitMs: 2.1, UtilPct: 12.4}},
			Net: []telemetry.NetDev{{Name: "eth0", RxBytesPerSec: 300, TxBytesPerSec: 12 << 10}, {Name: "lo", RxBytesPerSec: 1.2 * (1 << 20), TxBytesPerSec: 1.2 * (1 << 20)}},
			Procs: []telemetry.ProcGroup{
				{Name: "^postgres", Processes: 3, CPUCores: 0.913, RSSBytes: 210 << 20, ReadBytesPerSec: 0, WriteBytesPerSec: 4.9 * (1 << 20)},
				{Name: "postgres (pid 4242)", Processes: 0},
			},
		}},
		{"baseline", telemetry.Sample{Start: start, End: start, CPU: telemetry.CPU{Cores: 2},
			Memory: telemetry.Memory{TotalBytes: 8 << 30, UsedBytes: 900 << 10, SwapUsedBytes: 512},
			Disks:  []telemetry.Disk{{Name: "nvme0n1"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			golden.Check(t, filepath.Join("testdata", "telemetry_line_"+tc.name+".golden"), []byte(report.TelemetryLine(tc.s)+"\n"))
		})
	}
}

func TestTelemetrySummary(t *testing.T) {
	st := func(avg, max float64) telemetry.Stat { return telemetry.Stat{Avg: avg, Max: max} }
	sum := telemetry.Summary{
		Start: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), End: time.Date(2026, 3, 1, 12, 1, 0, 0, time.UTC),
		Intervals: 61, ShortIntervals: 1, Cores: 2,
		CPU: telemetry.CPUSummary{User: st(23.1, 41.5), System: st(10.2, 14), IOWait: st(0.31, 2.5), SoftIRQ: st(1.1, 2), Steal: st(0.5, 3), Idle: st(64.79, 80)},
		Memory: telemetry.MemorySummary{TotalBytes: 8 << 30, UsedBytes: st(3.2*(1<<30), 3.5*(1<<30)),
			CacheBytes: st(2<<30, 2.1*(1<<30)), SwapUsedBytes: st(0, 0)},
		Disks: []telemetry.DiskSummary{{Name: "vda", ReadsPerSec: st(0.5, 12), WritesPerSec: st(118.3, 250), ReadKBPerSec: st(2, 48),
			WriteKBPerSec: st(5019.6, 5120), AvgRequestKB: st(42.4, 64), AvgQueueSize: st(0.31, 1.2), ReadAwaitMs: st(0.4, 3.1),
			WriteAwaitMs: st(2.1, 9.75), AwaitMs: st(2.09, 9.7), UtilPct: st(12.2, 31)}},
		Net: []telemetry.NetDevSummary{{Name: "lo", RxBytesPerSec: st(1.2*(1<<20), 2*(1<<20)), TxBytesPerSec: st(1.2*(1<<20), 2*(1<<20))}},
		Procs: []telemetry.ProcGroupSummary{{Name: "^postgres", Processes: st(3, 4), CPUCores: st(0.91, 1.43),
			RSSBytes: st(210<<20, 260<<20), ReadBytesPerSec: st(0, 0), WriteBytesPerSec: st(4.9*(1<<20), 5*(1<<20))},
			{Name: "postgres (pid 6991)", Processes: st(12, 14), CPUCores: st(0.95, 1.5), RSSBytes: st(230<<20, 280<<20)}},
	}
	var b bytes.Buffer
	if err := report.TelemetrySummary(&b, sum); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "telemetry_summary.golden"), b.Bytes())
}

func TestBytes(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0, "0B"}, {512, "512B"}, {1023, "1023B"}, {1024, "1.0K"}, {1536, "1.5K"}, {10 << 10, "10K"},
		{210 << 20, "210M"}, {3.2 * (1 << 30), "3.2G"}, {9.96 * (1 << 20), "10M"},
	} {
		if got := report.Bytes(tc.v); got != tc.want {
			t.Errorf("Bytes(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}
