package results_test

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
)

// exactPct is the percentile of values in ms, ranked as HdrHistogram
// ranks them: the value of rank p/100*n rounded to the nearest integer.
func exactPct(values []int64, p float64) float64 {
	s := slices.Clone(values)
	slices.Sort(s)
	i := int(p/100*float64(len(s))+0.5) - 1
	return float64(s[min(max(i, 0), len(s)-1)]) / 1e6
}

// near reports whether got is within the histograms' precision (3
// significant digits) of want.
func near(got, want float64) bool {
	return math.Abs(got-want) <= want*2e-3
}

// telemetryLine is a telemetry.ndjson line in the format of
// telemetry.Sample (only the fields TimeSeries reads, plus one it ignores).
type telemetryLine struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	CPU   struct {
		User    float64 `json:"user_pct"`
		Nice    float64 `json:"nice_pct"`
		System  float64 `json:"system_pct"`
		IOWait  float64 `json:"iowait_pct"`
		SoftIRQ float64 `json:"softirq_pct"`
		Idle    float64 `json:"idle_pct"`
	} `json:"cpu"`
	Disks []map[string]any `json:"disks,omitempty"`
	Procs []map[string]any `json:"procs,omitempty"`
}

func TestTimeSeries(t *testing.T) {
	root := t.TempDir()
	series := []string{"read", "update", "read.lag", "delete"}
	w, err := runlog.Create(root, runlog.RunInfo{ID: "20261122-103512-ycsb-ts01", Workload: "ycsb", Series: series, Start: t0, Tags: map[string]string{"k": "v"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.SetRampEnd(t0.Add(1500 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	ivs := synthetic(4)
	// Intervals of 2 seconds; in the third, update does nothing but fail.
	ivs[2].series["update"] = nil
	ivs[2].errors["update"] = 5
	for i, iv := range ivs {
		var ss []runlog.IntervalSeries
		for _, name := range series {
			h := hist(t, iv.series[name])
			ss = append(ss, runlog.IntervalSeries{Name: name, Hist: h, Count: h.TotalCount(), Errors: iv.errors[name]})
		}
		start := t0.Add(time.Duration(2*i) * time.Second)
		if err := w.WriteInterval(start, start.Add(2*time.Second), ss, nil); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			// The baseline sample, which covers no time.
			var base telemetryLine
			base.Start, base.End = start, start
			if err := w.WriteTelemetry(base); err != nil {
				t.Fatal(err)
			}
		}
		var tl telemetryLine
		tl.Start, tl.End = start, start.Add(2*time.Second)
		tl.CPU.User, tl.CPU.Nice, tl.CPU.System, tl.CPU.SoftIRQ, tl.CPU.IOWait = 30, 5, 10, 2, float64(i)
		tl.CPU.Idle = 100 - 47 - float64(i)
		tl.Disks = []map[string]any{{"name": "vda", "rkB_s": 1.5, "wkB_s": float64(100 * i), "r_s": 3.0}}
		if i >= 2 {
			tl.Disks = append(tl.Disks, map[string]any{"name": "vdb", "rkB_s": 0.0, "wkB_s": 7.0})
		}
		tl.Procs = []map[string]any{{"name": "postgres", "processes": 3, "cpu_cores": 0.5 * float64(i), "read_bytes_s": 10.0, "write_bytes_s": 4096.0}}
		if err := w.WriteTelemetry(tl); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(t0.Add(8*time.Second), runlog.StatusCompleted, "", nil); err != nil {
		t.Fatal(err)
	}
	run, err := runlog.Open(filepath.Join(root, "20261122-103512-ycsb-ts01"))
	if err != nil {
		t.Fatal(err)
	}
	before := hashDir(t, run.Dir)

	s, err := results.TimeSeries(run)
	if err != nil {
		t.Fatal(err)
	}
	if s.ID != run.Info.ID || s.Workload != "ycsb" || !s.Start.Equal(t0) || s.Tags["k"] != "v" {
		t.Errorf("identity: %+v", s)
	}
	if s.RampEnd != 1.5 {
		t.Errorf("RampEnd = %v, want 1.5", s.RampEnd)
	}
	if len(s.Warnings) != 0 {
		t.Errorf("warnings: %v", s.Warnings)
	}
	// read.lag is not an operation; delete saw nothing.
	var names []string
	for _, op := range s.Ops {
		names = append(names, op.Name)
	}
	if !slices.Equal(names, []string{"read", "update"}) {
		t.Fatalf("ops = %v, want [read update]", names)
	}
	for _, op := range s.Ops {
		if len(op.Points) != len(ivs) {
			t.Fatalf("%s: %d points, want %d", op.Name, len(op.Points), len(ivs))
		}
		for i, p := range op.Points {
			vals := ivs[i].series[op.Name]
			if p.From != float64(2*i) || p.To != float64(2*i+2) {
				t.Errorf("%s[%d]: span %v-%v", op.Name, i, p.From, p.To)
			}
			if p.Count != int64(len(vals)) || p.Errors != ivs[i].errors[op.Name] {
				t.Errorf("%s[%d]: count %d errors %d, want %d %d", op.Name, i, p.Count, p.Errors, len(vals), ivs[i].errors[op.Name])
			}
			if want := float64(len(vals)) / 2; p.Rate != want {
				t.Errorf("%s[%d]: rate %v, want %v", op.Name, i, p.Rate, want)
			}
			if len(vals) == 0 {
				if p.P50 != 0 || p.P95 != 0 || p.P99 != 0 || p.Max != 0 {
					t.Errorf("%s[%d]: latencies without operations: %+v", op.Name, i, p)
				}
				continue
			}
			for _, c := range []struct {
				name     string
				got, pct float64
			}{{"p50", p.P50, 50}, {"p95", p.P95, 95}, {"p99", p.P99, 99}, {"max", p.Max, 100}} {
				if want := exactPct(vals, c.pct); !near(c.got, want) {
					t.Errorf("%s[%d] %s = %v ms, want %v within 0.2%%", op.Name, i, c.name, c.got, want)
				}
			}
		}
	}

	tel := s.Telemetry
	if tel == nil {
		t.Fatal("no telemetry")
	}
	if len(tel.CPU) != 4 {
		t.Fatalf("%d CPU points, want 4 (the baseline left out)", len(tel.CPU))
	}
	for i, c := range tel.CPU {
		want := results.CPUPoint{Span: results.Span{From: float64(2 * i), To: float64(2*i + 2)},
			User: 35, System: 12, Busy: 47, IOWait: float64(i), Idle: 53 - float64(i)}
		if c != want {
			t.Errorf("CPU[%d] = %+v, want %+v", i, c, want)
		}
	}
	if len(tel.Disks) != 2 || tel.Disks[0].Name != "vda" || tel.Disks[1].Name != "vdb" {
		t.Fatalf("disks: %+v", tel.Disks)
	}
	if len(tel.Disks[0].Points) != 4 || tel.Disks[0].Points[3].WriteKBPerSec != 300 || tel.Disks[0].Points[3].ReadKBPerSec != 1.5 {
		t.Errorf("vda: %+v", tel.Disks[0].Points)
	}
	if p := tel.Disks[1].Points; len(p) != 2 || p[0].From != 4 || p[0].WriteKBPerSec != 7 {
		t.Errorf("vdb (from the third sample): %+v", p)
	}
	if len(tel.Procs) != 1 || len(tel.Procs[0].Points) != 4 {
		t.Fatalf("procs: %+v", tel.Procs)
	}
	if p := tel.Procs[0].Points[2]; p.CPUCores != 1 || p.WriteBytesPerSec != 4096 || p.ReadBytesPerSec != 10 {
		t.Errorf("postgres[2] = %+v", p)
	}
	if after := hashDir(t, run.Dir); !slices.Equal(before, after) {
		t.Error("TimeSeries modified the run directory")
	}

	// A torn last telemetry line is a warning; the samples before it stay.
	f, err := os.OpenFile(filepath.Join(run.Dir, runlog.TelemetryFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"start":"2026-`)
	f.Close()
	s, err = results.TimeSeries(run)
	if err != nil {
		t.Fatal(err)
	}
	if s.Telemetry == nil || len(s.Telemetry.CPU) != 4 || len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "telemetry.ndjson") {
		t.Errorf("torn telemetry: %d warnings %v", len(s.Warnings), s.Warnings)
	}
	// TelemetrySeries reads the same samples, and says the same, without
	// the intervals.
	tel, warnings := results.TelemetrySeries(run)
	if !reflect.DeepEqual(tel, s.Telemetry) || !slices.Equal(warnings, s.Warnings) {
		t.Errorf("TelemetrySeries: %+v %v, TimeSeries %+v %v", tel, warnings, s.Telemetry, s.Warnings)
	}
}

// TestTimeSeriesKilled checks a run killed in the middle of an interval
// without telemetry: the complete intervals, a warning, no telemetry, and
// the ramp-up's end from the events log.
func TestTimeSeriesKilled(t *testing.T) {
	root := t.TempDir()
	run := writeRun(t, root, runSpec{id: "20261122-103512-ycsb-ts02", intervals: synthetic(3), rampEnd: time.Second, killed: true})
	hlog := filepath.Join(run.Dir, runlog.HlogFile)
	f, err := os.OpenFile(hlog, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("Tag=read,3.000000,1.0")
	f.Close()
	s, err := results.TimeSeries(run)
	var trunc *runlog.TruncatedError
	if err != nil && !errors.As(err, &trunc) {
		t.Fatal(err)
	}
	if len(s.Ops) != 2 || len(s.Ops[0].Points) != 3 {
		t.Fatalf("ops: %+v", s.Ops)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "truncated") {
		t.Errorf("warnings: %v", s.Warnings)
	}
	if s.Telemetry != nil {
		t.Errorf("telemetry without telemetry.ndjson: %+v", s.Telemetry)
	}
	if s.RampEnd != 1 {
		t.Errorf("RampEnd = %v, want 1 (from events.ndjson)", s.RampEnd)
	}
}

// hashDir lists every file under dir with its content.
func hashDir(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out = append(out, p+"\x00"+string(b))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTimeSeriesShortLastInterval is the run whose chart ended in a jump
// to 4.8k ops/s, held at 4k ops/s, and a 34% iowait that never happened:
// three intervals of 1 s, then a last one of 11 ms with 53 operations and
// one error, sampled by telemetry at 34% iowait. The last interval is
// merged into the one before: one point over 2-3.011 s with the exact rate,
// count, errors and latencies of both, and the telemetry weighted by
// length.
func TestTimeSeriesShortLastInterval(t *testing.T) {
	root := t.TempDir()
	w, err := runlog.Create(root, runlog.RunInfo{ID: "20261122-103512-kv-ts03", Workload: "kv", Series: []string{"write"}, Start: t0})
	if err != nil {
		t.Fatal(err)
	}
	type iv struct {
		from, to time.Duration
		lat      []int64 // ns
		errs     int64
		iowait   float64
		cores    float64
	}
	ms := time.Millisecond
	vals := func(n int, base int64) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = base + int64(i)*1000
		}
		return out
	}
	ivs := []iv{
		{0, 1000 * ms, vals(4000, 1e6), 0, 2, 1},
		{1000 * ms, 2000 * ms, vals(4000, 1e6), 0, 2, 1},
		{2000 * ms, 3000 * ms, vals(4000, 1e6), 0, 2, 1},
		{3000 * ms, 3011 * ms, vals(53, 9e6), 1, 34, 3},
	}
	base := telemetryLine{Start: t0, End: t0}
	if err := w.WriteTelemetry(base); err != nil {
		t.Fatal(err)
	}
	for _, v := range ivs {
		h := hist(t, v.lat)
		start, end := t0.Add(v.from), t0.Add(v.to)
		if err := w.WriteInterval(start, end, []runlog.IntervalSeries{{Name: "write", Hist: h, Count: h.TotalCount(), Errors: v.errs}}, nil); err != nil {
			t.Fatal(err)
		}
		var tl telemetryLine
		tl.Start, tl.End = start, end
		tl.CPU.User, tl.CPU.IOWait, tl.CPU.Idle = 20, v.iowait, 80-v.iowait
		tl.Disks = []map[string]any{{"name": "vda", "wkB_s": 100 * v.iowait}}
		tl.Procs = []map[string]any{{"name": "postgres", "cpu_cores": v.cores}}
		if err := w.WriteTelemetry(tl); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(t0.Add(3011*ms), runlog.StatusCompleted, "", nil); err != nil {
		t.Fatal(err)
	}
	run, err := runlog.Open(filepath.Join(root, "20261122-103512-kv-ts03"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := results.TimeSeries(run)
	if err != nil {
		t.Fatal(err)
	}
	pts := s.Ops[0].Points
	if len(pts) != 3 {
		t.Fatalf("%d points, want 3 (the 11 ms interval merged): %+v", len(pts), pts)
	}
	last := pts[2]
	all := append(slices.Clone(ivs[2].lat), ivs[3].lat...)
	if last.From != 2 || last.To != 3.011 || last.Count != 4053 || last.Errors != 1 || math.Abs(last.Rate-4053/1.011) > 1e-9 {
		t.Errorf("last point %+v, want 4053 operations and 1 error over 2-3.011 s (%.1f ops/s)", last, 4053/1.011)
	}
	for _, c := range []struct {
		name     string
		got, pct float64
	}{{"p50", last.P50, 50}, {"p99", last.P99, 99}, {"max", last.Max, 100}} {
		if want := exactPct(all, c.pct); !near(c.got, want) {
			t.Errorf("last point %s = %v ms, want %v (both intervals' latencies)", c.name, c.got, want)
		}
	}
	for i, p := range pts {
		if p.Rate > 4010 {
			t.Errorf("point %d: %.0f ops/s, above the 4k the run held", i, p.Rate)
		}
	}
	tel := s.Telemetry
	if len(tel.CPU) != 3 || len(tel.Disks[0].Points) != 3 || len(tel.Procs[0].Points) != 3 {
		t.Fatalf("telemetry points: %d CPU, %d disk, %d process", len(tel.CPU), len(tel.Disks[0].Points), len(tel.Procs[0].Points))
	}
	wavg := func(a, b float64) float64 { return (a*1 + b*0.011) / 1.011 }
	c := tel.CPU[2]
	if c.From != 2 || c.To != 3.011 || math.Abs(c.IOWait-wavg(2, 34)) > 1e-9 || math.Abs(c.Busy-20) > 1e-9 {
		t.Errorf("last CPU point %+v, want iowait %.3f%% over 2-3.011 s", c, wavg(2, 34))
	}
	if d := tel.Disks[0].Points[2]; math.Abs(d.WriteKBPerSec-wavg(200, 3400)) > 1e-9 {
		t.Errorf("last disk point %+v, want %.1f kB/s", d, wavg(200, 3400))
	}
	if p := tel.Procs[0].Points[2]; math.Abs(p.CPUCores-wavg(1, 3)) > 1e-9 {
		t.Errorf("last process point %+v, want %.4f cores", p, wavg(1, 3))
	}
}

// TestTimeSeriesShortFirstInterval checks that a short first interval is
// merged into the one after it, and that intervals of usual length are
// left alone.
func TestTimeSeriesShortFirstInterval(t *testing.T) {
	root := t.TempDir()
	w, err := runlog.Create(root, runlog.RunInfo{ID: "20261122-103512-kv-ts04", Workload: "kv", Series: []string{"write"}, Start: t0})
	if err != nil {
		t.Fatal(err)
	}
	bounds := []time.Duration{0, 100 * time.Millisecond, 1100 * time.Millisecond, 2100 * time.Millisecond, 2700 * time.Millisecond}
	for i := 1; i < len(bounds); i++ {
		h := hist(t, []int64{1e6, 2e6})
		if err := w.WriteInterval(t0.Add(bounds[i-1]), t0.Add(bounds[i]), []runlog.IntervalSeries{{Name: "write", Hist: h, Count: 2}}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(t0.Add(bounds[len(bounds)-1]), runlog.StatusCompleted, "", nil); err != nil {
		t.Fatal(err)
	}
	run, err := runlog.Open(filepath.Join(root, "20261122-103512-kv-ts04"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := results.TimeSeries(run)
	if err != nil {
		t.Fatal(err)
	}
	var spans []string
	for _, p := range s.Ops[0].Points {
		spans = append(spans, fmt.Sprintf("%g-%g:%d", p.From, p.To, p.Count))
	}
	// 0.1 s (short) joins the next; 0.6 s is not short (half of 1 s is).
	if got := strings.Join(spans, " "); got != "0-1.1:4 1.1-2.1:2 2.1-2.7:2" {
		t.Errorf("points %s, want 0-1.1:4 1.1-2.1:2 2.1-2.7:2", got)
	}
}

// TestIntervalPoints checks that the live view's points of each interval
// are the points TimeSeries draws for it, field by field.
func TestIntervalPoints(t *testing.T) {
	root := t.TempDir()
	series := []string{"read", "update", "read.lag"}
	w, err := runlog.Create(root, runlog.RunInfo{ID: "20261122-103512-ycsb-ip01", Workload: "ycsb", Series: series, Start: t0})
	if err != nil {
		t.Fatal(err)
	}
	ivs := synthetic(3)
	ivs[1].series["update"] = nil
	ivs[1].errors["update"] = 4
	for i, iv := range ivs {
		var ss []runlog.IntervalSeries
		for _, name := range series {
			h := hist(t, iv.series[name])
			ss = append(ss, runlog.IntervalSeries{Name: name, Hist: h, Count: h.TotalCount(), Errors: iv.errors[name]})
		}
		start := t0.Add(time.Duration(2*i) * time.Second)
		if err := w.WriteInterval(start, start.Add(2*time.Second), ss, nil); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	run, err := runlog.Open(w.Dir())
	if err != nil {
		t.Fatal(err)
	}
	s, err := results.TimeSeries(run)
	if err != nil {
		t.Fatal(err)
	}
	read, err := run.Intervals()
	if err != nil {
		t.Fatal(err)
	}
	for k := range read {
		pts := results.IntervalPoints(run, &read[k])
		var names []string
		for _, p := range pts {
			names = append(names, p.Name)
		}
		if !slices.Equal(names, []string{"read", "update"}) {
			t.Fatalf("interval %d: operations %v, want read, update (not read.lag)", k, names)
		}
		for i, p := range pts {
			if want := s.Ops[i].Points[k]; p.OpPoint != want {
				t.Errorf("interval %d %s: %+v, TimeSeries %+v", k, p.Name, p.OpPoint, want)
			}
		}
	}
}
