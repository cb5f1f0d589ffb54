package telemetry_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/telemetry"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func approx(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// samples is a baseline and two intervals: vda is busy in both, sdb only
// appears in the second, the group's process count changes.
func samples() []telemetry.Sample {
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	return []telemetry.Sample{
		{Start: at(0), End: at(0), CPU: telemetry.CPU{Cores: 4}, Memory: telemetry.Memory{TotalBytes: 8e9, UsedBytes: 1e9, CacheBytes: 2e9},
			Disks: []telemetry.Disk{{Name: "vda"}}, Net: []telemetry.NetDev{{Name: "lo"}},
			Procs: []telemetry.ProcGroup{{Name: "^postgres", Processes: 2, RSSBytes: 100}}},
		{Start: at(0), End: at(1), CPU: telemetry.CPU{Cores: 4, User: 20, System: 10, IOWait: 5, Idle: 65}, Memory: telemetry.Memory{TotalBytes: 8e9, UsedBytes: 2e9, CacheBytes: 2e9},
			Disks: []telemetry.Disk{{Name: "vda", WritesPerSec: 100, WriteKBPerSec: 4000, AwaitMs: 2, UtilPct: 30}},
			Net:   []telemetry.NetDev{{Name: "lo", RxBytesPerSec: 1000, TxBytesPerSec: 3000}},
			Procs: []telemetry.ProcGroup{{Name: "^postgres", Processes: 3, CPUCores: 0.5, RSSBytes: 200, WriteBytesPerSec: 1e6}}},
		{Start: at(1), End: at(2), CPU: telemetry.CPU{Cores: 4, User: 40, System: 20, IOWait: 15, Idle: 25}, Memory: telemetry.Memory{TotalBytes: 8e9, UsedBytes: 3e9, CacheBytes: 2e9, SwapUsedBytes: 1e6},
			Disks: []telemetry.Disk{{Name: "sdb", ReadsPerSec: 10}, {Name: "vda", WritesPerSec: 300, WriteKBPerSec: 6000, AwaitMs: 4, UtilPct: 90}},
			Net:   []telemetry.NetDev{{Name: "lo", RxBytesPerSec: 3000, TxBytesPerSec: 1000}},
			Procs: []telemetry.ProcGroup{{Name: "^postgres", Processes: 4, CPUCores: 1.5, RSSBytes: 300, WriteBytesPerSec: 3e6}}},
	}
}

func TestSummarize(t *testing.T) {
	sum := telemetry.Summarize(samples())
	s := func(avg, max float64) telemetry.Stat { return telemetry.Stat{Avg: avg, Max: max} }
	for _, tc := range []struct {
		name      string
		got, want telemetry.Stat
	}{
		{"cpu user (intervals only)", sum.CPU.User, s(30, 40)},
		{"cpu iowait", sum.CPU.IOWait, s(10, 15)},
		{"cpu idle", sum.CPU.Idle, s(45, 65)},
		{"mem used (levels: the intervals' ends; peak of all samples)", sum.Memory.UsedBytes, s(2.5e9, 3e9)},
		{"swap used", sum.Memory.SwapUsedBytes, s(0.5e6, 1e6)},
		{"vda w/s", sum.Disks[1].WritesPerSec, s(200, 300)},
		{"vda wkB/s", sum.Disks[1].WriteKBPerSec, s(5000, 6000)},
		{"vda await (weighed by requests: 100 at 2 ms, 300 at 4 ms)", sum.Disks[1].AwaitMs, s(3.5, 4)},
		{"vda w_await (by writes)", sum.Disks[1].WriteAwaitMs, s(0, 0)},
		{"vda util", sum.Disks[1].UtilPct, s(60, 90)},
		{"sdb r/s (absent = 0)", sum.Disks[0].ReadsPerSec, s(5, 10)},
		{"lo rx", sum.Net[0].RxBytesPerSec, s(2000, 3000)},
		{"lo tx", sum.Net[0].TxBytesPerSec, s(2000, 3000)},
		{"processes (levels)", sum.Procs[0].Processes, s(3.5, 4)},
		{"rss", sum.Procs[0].RSSBytes, s(250, 300)},
		{"cores", sum.Procs[0].CPUCores, s(1, 1.5)},
		{"write", sum.Procs[0].WriteBytesPerSec, s(2e6, 3e6)},
	} {
		if !approx(tc.got.Avg, tc.want.Avg) || tc.got.Max != tc.want.Max {
			t.Errorf("%s = %+v, want %+v", tc.name, tc.got, tc.want)
		}
	}
	if sum.Intervals != 2 || sum.Cores != 4 || sum.Memory.TotalBytes != 8e9 || !sum.Start.Equal(t0) || !sum.End.Equal(t0.Add(2*time.Second)) {
		t.Errorf("summary header = %d intervals, %d cores, %d bytes, [%v, %v]", sum.Intervals, sum.Cores, sum.Memory.TotalBytes, sum.Start, sum.End)
	}
	if sum.Disks[0].Name != "sdb" || sum.Disks[1].Name != "vda" || sum.Procs[0].Name != "^postgres" {
		t.Errorf("names = %s %s %s", sum.Disks[0].Name, sum.Disks[1].Name, sum.Procs[0].Name)
	}
	if empty := telemetry.Summarize(nil); !reflect.DeepEqual(empty, telemetry.Summary{}) {
		t.Errorf("Summarize(nil) = %+v", empty)
	}
}

// TestSummarizeShortInterval is the run that printed a host sys peak of
// 100% where mpstat's was 46.6%: whole intervals of 1 s, then a last one of
// 11 ms in which the few ticks counted were all system time. The short
// interval must not set a peak, and must count for 11 ms in the averages.
func TestSummarizeShortInterval(t *testing.T) {
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	iv := func(from, to int, usr, sys, wkB, cores float64) telemetry.Sample {
		return telemetry.Sample{Start: at(from), End: at(to),
			CPU:   telemetry.CPU{Cores: 2, User: usr, System: sys, Idle: 100 - usr - sys},
			Disks: []telemetry.Disk{{Name: "vda", WritesPerSec: wkB / 8, WriteKBPerSec: wkB, WriteAwaitMs: 1, AwaitMs: 1, UtilPct: 50}},
			Procs: []telemetry.ProcGroup{{Name: "postgres", Processes: 5, CPUCores: cores}}}
	}
	in := []telemetry.Sample{
		{Start: at(0), End: at(0), CPU: telemetry.CPU{Cores: 2}},
		iv(0, 1000, 59.8, 40.0, 8000, 1.2),
		iv(1000, 2000, 50.0, 46.6, 8000, 1.4),
		iv(2000, 3000, 45.0, 30.0, 8000, 1.0),
		iv(3000, 3011, 0, 100, 80000, 2.9),
	}
	sum := telemetry.Summarize(in)
	if u := telemetry.UsualInterval(in); u != time.Second {
		t.Errorf("UsualInterval = %v, want 1s", u)
	}
	w := func(a, b, c, d float64) float64 { return (a*1000 + b*1000 + c*1000 + d*11) / 3011 }
	for _, tc := range []struct {
		name      string
		got, want telemetry.Stat
	}{
		{"sys", sum.CPU.System, telemetry.Stat{Avg: w(40, 46.6, 30, 100), Max: 46.6}},
		{"usr", sum.CPU.User, telemetry.Stat{Avg: w(59.8, 50, 45, 0), Max: 59.8}},
		// The last 11 ms join the second before them for the peak: one
		// interval of 1011 ms, whose rate is above the average's.
		{"wkB/s", sum.Disks[0].WriteKBPerSec, telemetry.Stat{Avg: w(8000, 8000, 8000, 80000), Max: (8000*1000 + 80000*11) / 1011.0}},
		{"cores", sum.Procs[0].CPUCores, telemetry.Stat{Avg: w(1.2, 1.4, 1.0, 2.9), Max: 1.4}},
		{"processes", sum.Procs[0].Processes, telemetry.Stat{Avg: 5, Max: 5}},
	} {
		if !approx(tc.got.Avg, tc.want.Avg) || !approx(tc.got.Max, tc.want.Max) {
			t.Errorf("%s = %+v, want %+v", tc.name, tc.got, tc.want)
		}
	}
	if sum.Intervals != 4 || sum.ShortIntervals != 1 {
		t.Errorf("Intervals = %d, ShortIntervals = %d; want 4 and 1 (the short one counts, and is said to join a neighbour for peaks)", sum.Intervals, sum.ShortIntervals)
	}

	// A run shorter than one display interval has only short intervals:
	// its peaks come from them.
	short := []telemetry.Sample{in[0], iv(0, 300, 10, 20, 800, 0.5), iv(300, 310, 0, 100, 0, 0)}
	if got, want := telemetry.Summarize(short), (20*300+100*10)/310.0; !approx(got.CPU.System.Max, want) || got.ShortIntervals != 1 {
		t.Errorf("sys peak of a 310 ms run = %v (%d short intervals), want %v (the 300 ms interval joined by the 10 ms one)", got.CPU.System.Max, got.ShortIntervals, want)
	}
	if got := telemetry.Summarize([]telemetry.Sample{in[0], in[4]}); got.CPU.System.Max != 100 || got.ShortIntervals != 0 {
		t.Errorf("a run of one 11 ms interval: sys peak %v, %d short intervals; want 100 from it, none left out", got.CPU.System.Max, got.ShortIntervals)
	}
	if got := telemetry.Summarize(short[:2]).CPU.System.Max; got != 20 {
		t.Errorf("sys peak of a run of one interval = %v, want 20", got)
	}
}

func TestFlat(t *testing.T) {
	sum := telemetry.Summarize(samples())
	sum.Procs = append(sum.Procs, telemetry.ProcGroupSummary{Name: "postgres$"}, telemetry.ProcGroupSummary{Name: "pid 42"})
	got := map[string]telemetry.Figure{}
	var names []string
	for _, f := range sum.Flat() {
		if _, dup := got[f.Name]; dup {
			t.Errorf("duplicate figure %s", f.Name)
		}
		got[f.Name] = f
		names = append(names, f.Name)
	}
	for _, tc := range []struct {
		name  string
		value float64
		unit  string
	}{
		{"cpu_cores", 4, "CPUs"},
		{"cpu_user_pct_avg", 30, "%"},
		{"cpu_iowait_pct_max", 15, "%"},
		{"mem_total_bytes", 8e9, "bytes"},
		{"mem_used_bytes_max", 3e9, "bytes"},
		{"disk_vda_wkB_s_avg", 5000, "kB/s"},
		{"disk_vda_util_pct_max", 90, "%"},
		{"disk_vda_await_ms_avg", 3.5, "ms"},
		{"disk_sdb_r_s_avg", 5, "1/s"},
		{"net_lo_rx_bytes_s_avg", 2000, "bytes/s"},
		{"proc_postgres_cpu_cores_avg", 1, "cores"},
		{"proc_postgres_write_bytes_s_avg", 2e6, "bytes/s"},
		{"proc_postgres_processes_max", 4, "processes"},
		{"proc_postgres_2_cpu_cores_avg", 0, "cores"}, // "postgres$" clashes with "^postgres"
		{"proc_pid_42_rss_bytes_max", 0, "bytes"},
	} {
		f, ok := got[tc.name]
		if !ok {
			t.Errorf("no figure %s in %s", tc.name, strings.Join(names, " "))
			continue
		}
		if !approx(f.Value, tc.value) || f.Unit != tc.unit {
			t.Errorf("%s = %v %s, want %v %s", tc.name, f.Value, f.Unit, tc.value, tc.unit)
		}
	}
}

func TestFigureName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"^postgres", "postgres"},
		{"pid 42", "pid_42"},
		{"postgres (pid 6991)", "postgres_pid_6991"},
		{"cmdline postgres: .*walwriter", "cmdline_postgres_walwriter"},
		{`^(mysqld|mariadbd)$`, "mysqld_mariadbd"},
		{`ycsb\.jar`, "ycsb_jar"},
		{"^$", "group"},
	} {
		if got := telemetry.FigureName(tc.in); got != tc.want {
			t.Errorf("FigureName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestJSONRoundTrip writes samples and a summary as the runner does (one
// JSON object per line) and reads them back.
func TestJSONRoundTrip(t *testing.T) {
	in := samples()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	for _, s := range in {
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
	}
	var out []telemetry.Sample
	dec := json.NewDecoder(strings.NewReader(b.String()))
	for dec.More() {
		var s telemetry.Sample
		if err := dec.Decode(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if !reflect.DeepEqual(in, out) {
		t.Errorf("samples changed in a round trip:\n%s", b.String())
	}
	line := strings.SplitN(b.String(), "\n", 2)[0]
	for _, key := range []string{`"start":`, `"user_pct":`, `"used_bytes":`, `"wkB_s":`, `"util_pct":`, `"rx_bytes_s":`, `"cpu_cores":`, `"write_bytes_s":`} {
		if !strings.Contains(b.String(), key) {
			t.Errorf("no %s in %s", key, line)
		}
	}
	sum := telemetry.Summarize(in)
	j, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	var back telemetry.Summary
	if err := json.Unmarshal(j, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sum, back) {
		t.Errorf("summary changed in a round trip:\n%s", j)
	}
}

// StatsOf returns every Stat of a summary, by its path (CPU.User,
// Disks[0].WriteKBPerSec, ...).
func statsOf(v reflect.Value, path string, out map[string]telemetry.Stat) {
	switch {
	case v.Type() == reflect.TypeOf(telemetry.Stat{}):
		out[path] = v.Interface().(telemetry.Stat)
	case v.Kind() == reflect.Struct:
		for i := range v.NumField() {
			statsOf(v.Field(i), path+"."+v.Type().Field(i).Name, out)
		}
	case v.Kind() == reflect.Slice:
		for i := range v.Len() {
			statsOf(v.Index(i), fmt.Sprintf("%s[%d]", path, i), out)
		}
	}
}

// TestAverageNotAbovePeak: whatever the intervals, short ones first, in
// the middle or last, and the figures, no average is above its peak (the
// run that printed "vda w/s avg 19.4 max 17.6": its last, short interval
// counted in the average and not in the peak).
func TestAverageNotAbovePeak(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 1))
	for trial := range 2000 {
		n := 1 + rng.IntN(6)
		in := []telemetry.Sample{{Start: t0, End: t0, CPU: telemetry.CPU{Cores: 2}}}
		at := t0
		for range n {
			ms := 1000
			if rng.IntN(3) == 0 {
				ms = 1 + rng.IntN(400) // short
			}
			end := at.Add(time.Duration(ms) * time.Millisecond)
			usr := rng.Float64() * 100
			w := rng.Float64() * 500
			if rng.IntN(4) == 0 {
				w = 0 // no request: per-request figures weigh nothing
			}
			in = append(in, telemetry.Sample{Start: at, End: end,
				CPU:    telemetry.CPU{Cores: 2, User: usr, Idle: 100 - usr},
				Memory: telemetry.Memory{UsedBytes: rng.Uint64N(1 << 30)},
				Disks: []telemetry.Disk{{Name: "vda", WritesPerSec: w, WriteKBPerSec: w * rng.Float64() * 64,
					WriteAwaitMs: rng.Float64() * 20, AwaitMs: rng.Float64() * 20, AvgRequestKB: rng.Float64() * 64, UtilPct: rng.Float64() * 100}},
				Net:   []telemetry.NetDev{{Name: "lo", RxBytesPerSec: rng.Float64() * 1e6}},
				Procs: []telemetry.ProcGroup{{Name: "pg", Processes: rng.IntN(9), CPUCores: rng.Float64() * 2, WriteBytesPerSec: rng.Float64() * 1e6}}})
			at = end
		}
		stats := map[string]telemetry.Stat{}
		statsOf(reflect.ValueOf(telemetry.Summarize(in)), "", stats)
		if len(stats) < 20 {
			t.Fatalf("only %d figures found in the summary", len(stats))
		}
		for path, s := range stats {
			if s.Avg > s.Max*(1+1e-12)+1e-12 {
				t.Fatalf("trial %d (%d intervals): %s average %v above its peak %v", trial, n, path, s.Avg, s.Max)
			}
		}
	}
}
