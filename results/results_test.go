package results_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
)

var t0 = time.Date(2026, 11, 22, 10, 35, 12, 0, time.UTC)

// interval is the data of one 1-second interval: latencies in ns.
type interval struct {
	series map[string][]int64
	errors map[string]int64
}

// runSpec describes a run directory to write.
type runSpec struct {
	id        string
	start     time.Time
	series    []string
	intervals []interval
	rampEnd   time.Duration // after start; 0: no ramp
	killed    bool          // Close instead of Finish
	workload  string        // "ycsb" when empty
	// lastLen is the last interval's length; 0: one second as the others.
	lastLen time.Duration
	// extra returns interval i's extras; nil: reconnects = i.
	extra func(i int) map[string]float64
	// flags are the run's recorded flags.
	flags map[string]string
	// seed is the seed the run ran with.
	seed uint64
}

// synthetic returns n intervals of read and update values that differ by
// interval, with a few read errors.
func synthetic(n int) []interval {
	ivs := make([]interval, n)
	for i := range ivs {
		var read, update []int64
		for j := range 300 {
			read = append(read, int64(100_000+i*40_000+j*7_919))
		}
		for j := range 30 + i {
			update = append(update, int64(2_000_000+i*500_000+j*333_333))
		}
		ivs[i] = interval{
			series: map[string][]int64{"read": read, "update": update},
			errors: map[string]int64{"read": int64(i % 3)},
		}
	}
	return ivs
}

// namedRun is a test case: a run to write, and its name.
type namedRun struct {
	name string
	spec runSpec
}

// seriesRuns are the runs whose saved series.ndjson the tests check: a
// ramp-up with errors, and endpoints' parts with a short last interval.
func seriesRuns() []namedRun {
	parts := synthetic(6)
	for _, iv := range parts {
		iv.series["read@a:5432"] = iv.series["read"][:100]
		iv.series["read@b:5432"] = iv.series["read"][100:]
	}
	return []namedRun{
		{"ramp and errors", runSpec{id: "ramp", intervals: synthetic(7), rampEnd: 1500 * time.Millisecond}},
		{"endpoints and a short last interval", runSpec{id: "parts", intervals: parts, lastLen: 30 * time.Millisecond,
			series: []string{"read", "update", "read@a:5432", "read@b:5432"}}},
	}
}

func hist(t testing.TB, values []int64) *hdrhistogram.Histogram {
	t.Helper()
	h := stats.NewHistogram()
	for _, v := range values {
		if err := h.RecordValue(v); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// writeRun writes spec under root and opens it.
func writeRun(t testing.TB, root string, spec runSpec) *runlog.Run {
	t.Helper()
	if spec.start.IsZero() {
		spec.start = t0
	}
	if spec.series == nil {
		spec.series = []string{"read", "update"}
	}
	if spec.workload == "" {
		spec.workload = "ycsb"
	}
	w, err := runlog.Create(root, runlog.RunInfo{ID: spec.id, Workload: spec.workload, Series: spec.series, Start: spec.start, Flags: spec.flags, Seed: spec.seed})
	if err != nil {
		t.Fatal(err)
	}
	if spec.rampEnd > 0 {
		if err := w.SetRampEnd(spec.start.Add(spec.rampEnd)); err != nil {
			t.Fatal(err)
		}
	}
	for i, iv := range spec.intervals {
		var ss []runlog.IntervalSeries
		for _, name := range spec.series {
			h := hist(t, iv.series[name])
			ss = append(ss, runlog.IntervalSeries{Name: name, Hist: h, Count: h.TotalCount(), Errors: iv.errors[name]})
		}
		start := spec.start.Add(time.Duration(i) * time.Second)
		extra := map[string]float64{"reconnects": float64(i)}
		if spec.extra != nil {
			extra = spec.extra(i)
		}
		length := time.Second
		if i == len(spec.intervals)-1 && spec.lastLen > 0 {
			length = spec.lastLen
		}
		if err := w.WriteInterval(start, start.Add(length), ss, extra); err != nil {
			t.Fatal(err)
		}
	}
	if spec.killed {
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	} else {
		end := spec.start.Add(time.Duration(len(spec.intervals)) * time.Second)
		if spec.lastLen > 0 {
			end = end.Add(spec.lastLen - time.Second)
		}
		if err := w.Finish(end, runlog.StatusCompleted, "", nil); err != nil {
			t.Fatal(err)
		}
	}
	run, err := runlog.Open(filepath.Join(root, spec.id))
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// expected computes the figures of intervals[lo:hi] directly.
func expected(t testing.TB, ivs []interval, lo, hi int, period time.Duration) (map[string]stats.Summary, stats.Summary) {
	t.Helper()
	hs := map[string]*hdrhistogram.Histogram{}
	errs := map[string]int64{}
	total := stats.NewHistogram()
	var totalErrs int64
	for _, iv := range ivs[lo:hi] {
		for name, vals := range iv.series {
			if hs[name] == nil {
				hs[name] = stats.NewHistogram()
			}
			stats.Merge(hs[name], hist(t, vals))
			stats.Merge(total, hist(t, vals))
		}
		for name, e := range iv.errors {
			errs[name] += e
			totalErrs += e
		}
	}
	out := map[string]stats.Summary{}
	for name, h := range hs {
		out[name] = stats.Summarize(h, errs[name], period)
	}
	return out, stats.Summarize(total, totalErrs, period)
}

func opMap(v results.View) map[string]stats.Summary {
	m := map[string]stats.Summary{}
	for _, op := range v.Ops {
		m[op.Name] = op.Summary
	}
	return m
}

func recompute(t testing.TB, runs []*runlog.Run, w results.Window) (results.View, []error) {
	t.Helper()
	v, warns, err := results.Recompute(runs, w)
	if err != nil {
		t.Fatalf("Recompute: %v", err)
	}
	return v, warns
}

// TestRecomputeEqualsWritten checks that a recomputed run equals the
// figures computed directly from the values written.
func TestRecomputeEqualsWritten(t *testing.T) {
	ivs := synthetic(5)
	run := writeRun(t, t.TempDir(), runSpec{id: "r1", intervals: ivs})
	v, warns := recompute(t, []*runlog.Run{run}, results.Window{})
	if len(warns) != 0 {
		t.Errorf("warnings: %v", warns)
	}
	ops, total := expected(t, ivs, 0, 5, 5*time.Second)
	if !reflect.DeepEqual(opMap(v), ops) {
		t.Errorf("ops\n got %+v\nwant %+v", opMap(v), ops)
	}
	if v.Total != total {
		t.Errorf("total\n got %+v\nwant %+v", v.Total, total)
	}
	if v.Seconds != 5 || !v.From.Equal(t0) || !v.To.Equal(t0.Add(5*time.Second)) || v.Intervals != 5 {
		t.Errorf("period %s..%s (%gs, %d intervals)", v.From, v.To, v.Seconds, v.Intervals)
	}
	if v.Reconnects == nil || *v.Reconnects != 4 {
		t.Errorf("reconnects %v, want 4", v.Reconnects)
	}
	if got := []string{v.Ops[0].Name, v.Ops[1].Name}; !reflect.DeepEqual(got, []string{"read", "update"}) {
		t.Errorf("op order %v", got)
	}
}

// TestMergeRuns checks that runs holding parts of the same values equal
// one run holding them all, and that the period is the union of theirs.
func TestMergeRuns(t *testing.T) {
	all := synthetic(4)
	var a, b []interval
	for _, iv := range all {
		ia := interval{series: map[string][]int64{}, errors: map[string]int64{"read": iv.errors["read"]}}
		ib := interval{series: map[string][]int64{}, errors: map[string]int64{}}
		for name, vals := range iv.series {
			for j, v := range vals {
				if j%2 == 0 {
					ia.series[name] = append(ia.series[name], v)
				} else {
					ib.series[name] = append(ib.series[name], v)
				}
			}
		}
		a, b = append(a, ia), append(b, ib)
	}
	root := t.TempDir()
	one := writeRun(t, root, runSpec{id: "one", intervals: all})
	ra := writeRun(t, root, runSpec{id: "a", intervals: a})
	rb := writeRun(t, root, runSpec{id: "b", intervals: b})
	want, _ := recompute(t, []*runlog.Run{one}, results.Window{})
	got, _ := recompute(t, []*runlog.Run{ra, rb}, results.Window{})
	if !reflect.DeepEqual(got.Ops, want.Ops) || got.Total != want.Total || got.Seconds != want.Seconds {
		t.Errorf("merged runs differ from one run:\n got %+v\nwant %+v", got, want)
	}
	if !reflect.DeepEqual(got.Runs, []string{"a", "b"}) || got.Intervals != 8 {
		t.Errorf("runs %v, %d intervals", got.Runs, got.Intervals)
	}

	// Clients that started at different times: the period is the union.
	late := writeRun(t, root, runSpec{id: "late", start: t0.Add(2 * time.Second), intervals: all})
	v, _ := recompute(t, []*runlog.Run{one, late}, results.Window{})
	if v.Seconds != 6 || !v.From.Equal(t0) {
		t.Errorf("union period %s + %gs, want %s + 6s", v.From, v.Seconds, t0)
	}
	if v.Total.Count != 2*want.Total.Count {
		t.Errorf("total count %d, want %d", v.Total.Count, 2*want.Total.Count)
	}
}

// TestTruncated checks that a damaged interval log is reported up to its
// last complete interval, with a warning saying where it stops.
func TestTruncated(t *testing.T) {
	ivs := synthetic(4)
	for _, tc := range []struct {
		name     string
		damage   func(t *testing.T, dir string)
		complete int
		file     string
	}{
		{"half hlog line", func(t *testing.T, dir string) {
			appendTo(t, filepath.Join(dir, runlog.HlogFile), "Tag=read,4.000000,1.000,0.3,HISTFAAAA")
		}, 4, runlog.HlogFile},
		{"half ndjson line", func(t *testing.T, dir string) {
			appendTo(t, filepath.Join(dir, runlog.IntervalsFile), `{"start":"2026-11-22T10:35:16Z","end":"2026`)
		}, 4, runlog.IntervalsFile},
		{"last commit cut", func(t *testing.T, dir string) {
			p := filepath.Join(dir, runlog.IntervalsFile)
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(p, fi.Size()-20); err != nil {
				t.Fatal(err)
			}
		}, 3, runlog.IntervalsFile},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			run := writeRun(t, root, runSpec{id: "killed", intervals: ivs, killed: true})
			tc.damage(t, run.Dir)
			v, warns := recompute(t, []*runlog.Run{run}, results.Window{})
			ops, total := expected(t, ivs, 0, tc.complete, time.Duration(tc.complete)*time.Second)
			if !reflect.DeepEqual(opMap(v), ops) || v.Total != total {
				t.Errorf("figures differ from the first %d intervals:\n got %+v\nwant %+v", tc.complete, v, ops)
			}
			var trunc *runlog.TruncatedError
			if len(warns) != 1 || !errors.As(warns[0], &trunc) || trunc.File != tc.file || trunc.Complete != tc.complete {
				t.Fatalf("warnings %v", warns)
			}
			if len(v.Warnings) != 1 || !strings.Contains(v.Warnings[0], "run killed: "+tc.file+" is truncated") {
				t.Errorf("View.Warnings %q", v.Warnings)
			}
		})
	}
}

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestWindow checks which intervals --from/--to select and the period.
func TestWindow(t *testing.T) {
	ivs := synthetic(10)
	run := writeRun(t, t.TempDir(), runSpec{id: "w", intervals: ivs})
	for _, tc := range []struct {
		name    string
		from    string
		to      string
		lo, hi  int     // intervals expected
		seconds float64 // period expected
	}{
		{"all", "", "", 0, 10, 10},
		{"from", "3s", "", 3, 10, 7},
		{"to", "", "4s", 0, 4, 4},
		{"from to", "2s", "5s", 2, 5, 3},
		{"an interval counts when it starts in [from, to)", "2500ms", "4500ms", 3, 5, 2},
		{"just past a start", "2000000001ns", "4000000001ns", 3, 5, 2},
		{"one interval", "1s", "2s", 1, 2, 1},
		{"absolute", "2026-11-22T10:35:18Z", "2026-11-22T10:35:20Z", 6, 8, 2},
		{"to beyond the end", "8s", "1h", 8, 10, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			from, err := results.ParseBound(tc.from)
			if err != nil {
				t.Fatal(err)
			}
			to, err := results.ParseBound(tc.to)
			if err != nil {
				t.Fatal(err)
			}
			v, _ := recompute(t, []*runlog.Run{run}, results.Window{From: from, To: to})
			period := time.Duration(tc.seconds * float64(time.Second))
			ops, total := expected(t, ivs, tc.lo, tc.hi, period)
			if v.Intervals != tc.hi-tc.lo || v.Seconds != tc.seconds {
				t.Errorf("%d intervals over %gs, want %d over %gs", v.Intervals, v.Seconds, tc.hi-tc.lo, tc.seconds)
			}
			if !reflect.DeepEqual(opMap(v), ops) || v.Total != total {
				t.Errorf("figures differ from intervals [%d, %d)", tc.lo, tc.hi)
			}
		})
	}
	for _, tc := range []struct{ name, from, to, want string }{
		{"empty", "5s", "5s", "the window is empty: --from 5s is not before --to 5s"},
		{"after the end", "20s", "", "run w: the window --from 20s lies after the run: its intervals span +0s to +10s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			from, _ := results.ParseBound(tc.from)
			to, _ := results.ParseBound(tc.to)
			_, _, err := results.Recompute([]*runlog.Run{run}, results.Window{From: from, To: to})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestRamp checks that the ramp-up is excluded by default, from run.json
// for a finished run and from events.ndjson for a killed one.
func TestRamp(t *testing.T) {
	ivs := synthetic(6)
	for _, killed := range []bool{false, true} {
		name := map[bool]string{false: "finished", true: "killed"}[killed]
		t.Run(name, func(t *testing.T) {
			// The ramp ends 1.5s in, inside the second interval (the
			// engine ends one there, but runs of older versions may
			// not): that interval started in the ramp-up and is left
			// out, with its time.
			run := writeRun(t, t.TempDir(), runSpec{id: "ramp", intervals: ivs, rampEnd: 1500 * time.Millisecond, killed: killed})
			if killed && run.Info.RampEnd != nil {
				t.Fatal("killed run has ramp_end in run.json")
			}
			v, _ := recompute(t, []*runlog.Run{run}, results.Window{})
			ops, total := expected(t, ivs, 2, 6, 4*time.Second)
			if v.Intervals != 4 || v.Seconds != 4 || !reflect.DeepEqual(opMap(v), ops) || v.Total != total {
				t.Errorf("after the ramp: %d intervals over %gs", v.Intervals, v.Seconds)
			}
			v, _ = recompute(t, []*runlog.Run{run}, results.Window{IncludeRamp: true})
			ops, total = expected(t, ivs, 0, 6, 6*time.Second)
			if v.Intervals != 6 || v.Seconds != 6 || !reflect.DeepEqual(opMap(v), ops) || v.Total != total {
				t.Errorf("with the ramp: %d intervals over %gs", v.Intervals, v.Seconds)
			}
		})
	}
}

// TestSeriesKinds checks the total of a workload with a transaction series
// and that .service/.lag series are reported apart.
func TestSeriesKinds(t *testing.T) {
	series := []string{"transaction", "point_select", "transaction.service", "transaction.lag"}
	ivs := []interval{{series: map[string][]int64{
		"transaction":         {5_000_000, 6_000_000},
		"point_select":        {100_000, 200_000, 300_000},
		"transaction.service": {4_000_000, 4_500_000},
		"transaction.lag":     {},
	}}}
	run := writeRun(t, t.TempDir(), runSpec{id: "tx", series: series, intervals: ivs})
	v, _ := recompute(t, []*runlog.Run{run}, results.Window{})
	if v.Total.Count != 2 || len(v.Ops) != 2 || v.Ops[0].Name != "transaction" {
		t.Errorf("total %d, ops %+v", v.Total.Count, v.Ops)
	}
	if len(v.Series) != 1 || v.Series[0].Name != "transaction.service" || v.Series[0].Count != 2 {
		t.Errorf("series %+v", v.Series)
	}
}

func TestParseBound(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{"", "", ""},
		{"30s", "+30s", ""},
		{"2m", "+2m0s", ""},
		{"0s", "+0s", ""},
		{"2026-11-22T10:36:00Z", "2026-11-22T10:36:00Z", ""},
		{"2026-11-22T11:36:00+01:00", "2026-11-22T10:36:00Z", ""},
		{"-5s", "", "negative"},
		{"10", "", `malformed time "10"`},
		{"yesterday", "", `malformed time "yesterday"`},
	} {
		b, err := results.ParseBound(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseBound(%q) error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || b.String() != tc.want || b.IsSet() != (tc.in != "") {
			t.Errorf("ParseBound(%q) = %q, %v; want %q", tc.in, b, err, tc.want)
		}
	}
}

// TestRecomputeWarnsOfMixedWorkloads checks that merging runs of
// different workloads says so in one warning, and runs of one workload
// merge without it.
func TestRecomputeWarnsOfMixedWorkloads(t *testing.T) {
	root := t.TempDir()
	a := writeRun(t, root, runSpec{id: "20261122-103512-ycsb-aaaa", intervals: synthetic(3)})
	b := writeRun(t, root, runSpec{id: "20261122-103513-ycsb-bbbb", intervals: synthetic(3)})
	c := writeRun(t, root, runSpec{id: "20261122-103514-tpcc-cccc", intervals: synthetic(3), workload: "tpcc"})
	if _, warnings, err := results.Recompute([]*runlog.Run{a, b}, results.Window{}); err != nil || len(warnings) != 0 {
		t.Errorf("one workload: warnings %v, error %v", warnings, err)
	}
	_, warnings, err := results.Recompute([]*runlog.Run{a, b, c}, results.Window{})
	want := "runs 20261122-103512-ycsb-aaaa (ycsb) and 20261122-103514-tpcc-cccc (tpcc) are of different workloads"
	if err != nil || len(warnings) != 1 || !strings.HasPrefix(warnings[0].Error(), want) {
		t.Errorf("mixed: warnings %v, error %v; want one starting %q", warnings, err, want)
	}
}

// TestRecomputeRefusesMixedLatencies checks that Recompute does not merge
// a closed-loop run (service times) with a rated one (latencies from the
// intended start), and names the runs of each kind.
func TestRecomputeRefusesMixedLatencies(t *testing.T) {
	root := t.TempDir()
	closed := writeRun(t, root, runSpec{id: "20261122-103512-ycsb-aaaa", intervals: synthetic(3)})
	ivs := synthetic(3)
	for i := range ivs {
		ivs[i].series["read.service"] = ivs[i].series["read"]
		ivs[i].series["read.lag"] = []int64{1000}
	}
	rated := writeRun(t, root, runSpec{id: "20261122-103513-ycsb-bbbb", start: t0.Add(time.Second),
		series: []string{"read", "update", "read.service", "read.lag"}, intervals: ivs})
	if results.Rated(closed) || !results.Rated(rated) {
		t.Fatalf("Rated: closed %v, rated %v", results.Rated(closed), results.Rated(rated))
	}
	_, _, err := results.Recompute([]*runlog.Run{closed, rated}, results.Window{})
	var mix *results.LatencyMixError
	if !errors.As(err, &mix) || !reflect.DeepEqual(mix.Closed, []string{closed.Info.ID}) || !reflect.DeepEqual(mix.Rated, []string{rated.Info.ID}) {
		t.Fatalf("Recompute of a closed-loop and a rated run: %v, want a LatencyMixError naming each", err)
	}
	for _, runs := range [][]*runlog.Run{{closed}, {rated}} {
		if _, _, err := results.Recompute(runs, results.Window{}); err != nil {
			t.Errorf("Recompute of %s alone: %v", runs[0].Info.ID, err)
		}
	}
}
