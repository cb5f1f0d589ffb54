package dashboard_test

import (
	"math"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/dashboard"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/telemetry"
)

// TestTelemetryLevels serves the memory and watched processes' RSS that a
// run's telemetry log records: each sample's levels as written, and for a
// last sample too short to stand alone (merged into the one before it, as
// every telemetry series is), the levels at its end, not an average.
func TestTelemetryLevels(t *testing.T) {
	root := t.TempDir()
	const id = "20261122-103512-kv-mem"
	w, err := runlog.Create(root, runlog.RunInfo{ID: id, Workload: "kv", Series: []string{"write"}, Start: t0})
	if err != nil {
		t.Fatal(err)
	}
	// Each record carries the cumulative counters of the limits' cgroup,
	// as `run --cpus ...` writes limit.Stats.
	type cg struct {
		CPUUsage, ThrottledTime            int64
		Periods, ThrottledPeriods          uint64
		MemoryUsage, MemoryLimit, OOMKills uint64
		IO                                 []map[string]uint64
	}
	type record struct {
		telemetry.Sample
		Cgroup cg `json:"cgroup"`
	}
	counters := []cg{ // the baseline's, then each sample's
		{},
		{CPUUsage: 5e8, Periods: 10, ThrottledPeriods: 0, MemoryUsage: 100 << 20, MemoryLimit: 512 << 20, IO: []map[string]uint64{{"ReadBytes": 1 << 20, "WriteBytes": 2 << 20}}},
		{CPUUsage: 15e8, ThrottledTime: 2e8, Periods: 20, ThrottledPeriods: 5, MemoryUsage: 200 << 20, MemoryLimit: 512 << 20, OOMKills: 1,
			IO: []map[string]uint64{{"ReadBytes": 3 << 20, "WriteBytes": 2 << 20}, {"ReadBytes": 1 << 20}}},
		{CPUUsage: 25e8, ThrottledTime: 4e8, Periods: 30, ThrottledPeriods: 10, MemoryUsage: 300 << 20, MemoryLimit: 512 << 20, OOMKills: 1,
			IO: []map[string]uint64{{"ReadBytes": 5 << 20, "WriteBytes": 2 << 20}, {"ReadBytes": 1 << 20}}},
		{CPUUsage: 26e8, ThrottledTime: 4e8, Periods: 31, ThrottledPeriods: 11, MemoryUsage: 310 << 20, MemoryLimit: 512 << 20, OOMKills: 3,
			IO: []map[string]uint64{{"ReadBytes": 5 << 20, "WriteBytes": 4 << 20}, {"ReadBytes": 1 << 20}}},
	}
	if err := w.WriteTelemetry(record{telemetry.Sample{Start: t0, End: t0}, counters[0]}); err != nil { // the baseline
		t.Fatal(err)
	}
	ms := time.Millisecond
	const mib = 1 << 20
	written := []struct {
		from, to    time.Duration
		used, cache uint64
		swap, rss   uint64
		procs       int
	}{
		{0, 1000 * ms, 900 * mib, 300 * mib, 0, 40 * mib, 3},
		{1000 * ms, 2000 * ms, 950 * mib, 310 * mib, 1 * mib, 60 * mib, 4},
		{2000 * ms, 3000 * ms, 1000 * mib, 320 * mib, 2 * mib, 80 * mib, 5},
		{3000 * ms, 3011 * ms, 1200 * mib, 330 * mib, 3 * mib, 90 * mib, 2}, // short: merged
	}
	for k, s := range written {
		h := stats.NewHistogram()
		_ = h.RecordValue(1_000_000)
		start, end := t0.Add(s.from), t0.Add(s.to)
		if err := w.WriteInterval(start, end, []runlog.IntervalSeries{{Name: "write", Hist: h, Count: 1}}, nil); err != nil {
			t.Fatal(err)
		}
		smp := telemetry.Sample{Start: start, End: end, CPU: telemetry.CPU{User: 10, Idle: 90},
			Memory: telemetry.Memory{TotalBytes: 4096 * mib, UsedBytes: s.used, CacheBytes: s.cache, SwapUsedBytes: s.swap},
			Procs:  []telemetry.ProcGroup{{Name: "postgres", Processes: s.procs, RSSBytes: s.rss, CPUCores: 0.5}}}
		if err := w.WriteTelemetry(record{smp, counters[k+1]}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(t0.Add(3011*ms), runlog.StatusCompleted, "", nil); err != nil {
		t.Fatal(err)
	}
	srv := serve(t, root, "")
	var tel dashboard.TelemetryDoc
	getJSON(t, srv.URL+"/api/runs/"+id+"/telemetry", &tel)

	// Three points: the last sample merged into the third, with its levels.
	want := written[:3:3]
	want[2].used, want[2].cache, want[2].swap, want[2].rss, want[2].procs = written[3].used, written[3].cache, written[3].swap, written[3].rss, written[3].procs
	want[2].to = written[3].to
	if tel.Memory == nil || len(tel.Memory.Used) != 3 || len(tel.Procs) != 1 || len(tel.Procs[0].RSS) != 3 {
		t.Fatalf("telemetry: %+v", tel)
	}
	for i, s := range want {
		m, p := tel.Memory, tel.Procs[0]
		if m.To[i] != s.to.Seconds() || m.Used[i] != s.used || m.Cache[i] != s.cache || m.Swap[i] != s.swap || m.Total[i] != 4096*mib {
			t.Errorf("memory point %d: to %g used %d cache %d swap %d total %d; written %+v", i, m.To[i], m.Used[i], m.Cache[i], m.Swap[i], m.Total[i], s)
		}
		if p.RSS[i] != s.rss || p.Processes[i] != s.procs || math.Abs(p.Cores[i]-0.5) > 1e-9 {
			t.Errorf("process point %d: rss %d processes %d cores %g; written %+v", i, p.RSS[i], p.Processes[i], p.Cores[i], s)
		}
	}

	// The cgroup's points: the changes of its counters, by hand.
	type cgWant struct {
		cores, throttledPct, throttledCores, readBs, writeBs float64
		mem, limit, oom                                      uint64
	}
	wantCg := []cgWant{
		{0.5, 0, 0, 1 << 20, 2 << 20, 100 << 20, 512 << 20, 0},
		{1, 50, 0.2, 3 << 20, 0, 200 << 20, 512 << 20, 1},
		// The short last sample merged: from 2 s to 3.011 s.
		{1.1 / 1.011, 100 * 6.0 / 11, 0.2 / 1.011, (2 << 20) / 1.011, (2 << 20) / 1.011, 310 << 20, 512 << 20, 2},
	}
	g := tel.Cgroup
	if g == nil || len(g.Cores) != 3 {
		t.Fatalf("cgroup: %+v", g)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	for i, c := range wantCg {
		if !near(g.Cores[i], c.cores) || !near(g.ThrottledPct[i], c.throttledPct) || !near(g.ThrottledCores[i], c.throttledCores) ||
			!near(g.Read[i], c.readBs) || !near(g.Write[i], c.writeBs) || g.Memory[i] != c.mem || g.MemoryLimit[i] != c.limit || g.OOMKills[i] != c.oom {
			t.Errorf("cgroup point %d: cores %g throttled %g%% %g cores, read %g write %g B/s, memory %d limit %d, OOM kills %d; want %+v",
				i, g.Cores[i], g.ThrottledPct[i], g.ThrottledCores[i], g.Read[i], g.Write[i], g.Memory[i], g.MemoryLimit[i], g.OOMKills[i], c)
		}
	}
}
