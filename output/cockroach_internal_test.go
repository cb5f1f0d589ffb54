package output

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/stampede-bench/stampede/internal/golden"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/workload"
)

// readCrdbGolden reads a golden file of cockroach's own lines (never
// rewritten: they come from cockroach's sources and documentation).
func readCrdbGolden(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "cockroach", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCockroachLinesMatchCockroach feeds the figures of cockroach's own
// examples to the line writers and compares with cockroach's lines byte
// for byte.
func TestCockroachLinesMatchCockroach(t *testing.T) {
	zero := time.Time{}
	read1 := crdbTick{Elapsed: 500 * time.Millisecond, Inst: 2, Cum: 2, P50: 503.3, P95: 503.3, P99: 503.3, Max: 503.3, Name: "read",
		Now: zero.Add(500 * time.Millisecond)}
	read2 := crdbTick{Elapsed: 1500 * time.Millisecond, Inst: 0.666, Cum: 1.333, P50: 335.5, P95: 335.5, P99: 335.5, Max: 335.5, Name: "read",
		Now: zero.Add(1500 * time.Millisecond)}
	t.Run("simple", func(t *testing.T) {
		var b bytes.Buffer
		b.WriteString(crdbTickHeader + "\n")
		writeCrdbTick(&b, read1)
		writeCrdbTick(&b, read2)
		writeCrdbTotal(&b, "__total", crdbFinal{Elapsed: 2 * time.Second, Count: 2, Rate: 1, Avg: 411.0, P50: 335.5, P95: 503.3, P99: 503.3, Max: 503.3, Name: "read"})
		writeCrdbTotal(&b, "__result", crdbFinal{Elapsed: 4 * time.Second, Count: 2, Rate: 0.5, Avg: 411.0, P50: 335.5, P95: 503.3, P99: 503.3, Max: 503.3, Name: "woo"})
		if got, want := b.String(), readCrdbGolden(t, "format_simple.golden"); got != want {
			t.Errorf("got\n%s\nwant (cockroach's Example_text_formatter)\n%s", got, want)
		}
	})
	t.Run("incremental-json", func(t *testing.T) {
		var b bytes.Buffer
		writeCrdbJSON(&b, read1)
		writeCrdbJSON(&b, read2)
		if got, want := b.String(), readCrdbGolden(t, "format_json.golden"); got != want {
			t.Errorf("got\n%s\nwant (cockroach's Example_json_formatter)\n%s", got, want)
		}
	})
	t.Run("tpcc", func(t *testing.T) {
		var b bytes.Buffer
		writeCrdbTotal(&b, "__result", crdbFinal{Elapsed: 300 * time.Second, Count: 141, Rate: 0.47, Avg: 26.8, P50: 26.2, P95: 52.4, P99: 104.9, Max: 130.0})
		writeCrdbAudits(&b, []workload.Audit{
			{Name: "9.2.1.7", Result: "SKIP", Detail: "not enough delivery transactions to be statistically significant"},
			{Name: "9.2.2.5.1", Result: "SKIP", Detail: "not enough orders to be statistically significant"},
			{Name: "9.2.2.5.2", Result: "SKIP", Detail: "not enough orders to be statistically significant"},
			{Name: "9.2.2.5.3", Result: "PASS"},
			{Name: "9.2.2.5.4", Result: "PASS"},
			{Name: "9.2.2.5.5", Result: "SKIP", Detail: "not enough payments to be statistically significant"},
			{Name: "9.2.2.5.6", Result: "SKIP", Detail: "not enough order status transactions to be statistically significant"},
		})
		b.WriteString("\n" + crdbTPCCHeader + "\n")
		// 63 New-Orders in 300s on 1 warehouse: 12.6 tpmC, 98.0%.
		b.WriteString(crdbTPCCRow(300*time.Second, 63, 1, latencies{31.4, 31.5, 39.8, 39.8, 44.0, 71.3}))
		got := strings.TrimPrefix(b.String(), "\n")
		if want := readCrdbGolden(t, "tpcc_docs.golden"); got != want {
			t.Errorf("got\n%s\nwant (cockroach's documentation)\n%s", got, want)
		}
	})
	t.Run("ycsb", func(t *testing.T) {
		var b bytes.Buffer
		writeCrdbTotal(&b, "__total", crdbFinal{Elapsed: 300 * time.Second, Count: 14470912, Rate: 48235.7, Avg: 3.9, P50: 1.0, P95: 15.2, P99: 60.8, Max: 738.2, Name: "read"})
		writeCrdbTotal(&b, "__total", crdbFinal{Elapsed: 300 * time.Second, Count: 759249, Rate: 2530.8, Avg: 13.7, P50: 8.9, P95: 39.8, P99: 92.3, Max: 1275.1, Name: "update"})
		writeCrdbTotal(&b, "__result", crdbFinal{Elapsed: 300 * time.Second, Count: 15230161, Rate: 50766.5, Avg: 4.4, P50: 1.1, P95: 16.8, P99: 65.0, Max: 1275.1})
		got := strings.TrimPrefix(b.String(), "\n")
		if want := readCrdbGolden(t, "ycsb_docs.golden"); got != want {
			t.Errorf("got\n%s\nwant (cockroach's documentation)\n%s", got, want)
		}
	})
}

// fakeRun drives a Cockroach printer through a run of ops "update" and
// "read" (registered in that order, so that rows must be sorted), n
// intervals of 1s, each with one read of 2ms and one update of 4ms, and
// an error on the update of interval 3; figures are the run's own
// (summary.json's).
func fakeRun(t *testing.T, o *Cockroach, n int, ramp time.Duration, figures map[string]float64) {
	t.Helper()
	start := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	ops := []string{"update", "read"}
	info := run.Info{Workload: "ycsb", Start: start, Ops: ops,
		Display: run.Display{Series: []int{0, 1}, Names: ops, Counted: []bool{true, true}, Ops: 2}}
	o.Start(info)
	cum := [2]*hdrhistogram.Histogram{stats.NewHistogram(), stats.NewHistogram()}
	var cumErr [2]int64
	cumStart := start
	var last stats.Tick
	for i := 1; i <= n+1; i++ {
		end := start.Add(time.Duration(i) * time.Second)
		final := i == n+1
		if final {
			end = start.Add(time.Duration(n)*time.Second + 500*time.Millisecond)
		}
		tick := stats.Tick{Start: end.Add(-time.Second), End: end, CumStart: cumStart}
		if final {
			tick.Start = start.Add(time.Duration(n) * time.Second)
		}
		for k, d := range []time.Duration{4 * time.Millisecond, 2 * time.Millisecond} {
			h := stats.NewHistogram()
			_ = h.RecordValue(d.Nanoseconds())
			cum[k].Merge(h)
			var errs int64
			if k == 0 && i == 3 {
				errs = 1
			}
			cumErr[k] += errs
			tick.Series = append(tick.Series, stats.Series{Name: ops[k], Interval: stats.HistOf(h), Cumulative: stats.HistOf(cum[k]), Errors: errs, CumErrors: cumErr[k]})
		}
		o.Interval(run.Interval{Tick: tick, Final: final})
		last = tick
		if ramp > 0 && end.Sub(start) == ramp {
			cum = [2]*hdrhistogram.Histogram{stats.NewHistogram(), stats.NewHistogram()}
			cumErr = [2]int64{}
			cumStart = end
		}
	}
	o.Final(&run.Result{Info: info, Final: last, Summary: run.Summary{Figures: figures}})
}

// TestCockroachPrinter checks the printer's whole output against golden
// files: rows sorted by name, the header every 20 rows and again after
// the ramp, errors counted over the run, the __total and __result blocks.
func TestCockroachPrinter(t *testing.T) {
	// TPC-C's newOrder is the fake run's update: 3 in 2.5s, 72 tpmC,
	// 559.9% of one warehouse's 12.86 (a run without waits).
	newOrder := map[string]string{"update": "newOrder"}
	for _, tc := range []struct {
		name    string
		o       *Cockroach
		n       int
		ramp    time.Duration
		figures map[string]float64
	}{
		{"simple", &Cockroach{}, 12, 0, nil},
		{"ramp", &Cockroach{Ramp: 2 * time.Second}, 4, 2 * time.Second, nil},
		{"json", &Cockroach{JSON: true}, 3, 0, nil},
		{"result", &Cockroach{Result: "read"}, 2, 0, nil},
		// With the efficiency figure the workload gives where it means
		// something, efc is cockroach's; without it, n/a.
		{"tpcc", &Cockroach{TPCC: true, ActiveWarehouses: 1, Names: newOrder, Result: "newOrder"}, 2, 0,
			map[string]float64{"tpmC": 72, "efficiency": 559.9}},
		{"tpcc_nowait", &Cockroach{TPCC: true, ActiveWarehouses: 1, Names: newOrder}, 2, 0,
			map[string]float64{"tpmC": 72}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, log bytes.Buffer
			tc.o.W, tc.o.Log = &out, &log
			fakeRun(t, tc.o, tc.n, tc.ramp, tc.figures)
			golden.Check(t, filepath.Join("testdata", "cockroach", "printer_"+tc.name+".golden"), out.Bytes())
			if log.Len() != 0 {
				t.Errorf("stampede's blocks without extras: %q", log.String())
			}
		})
	}
}

// TestCockroachHeaderEvery20Rows checks the header's repetition: every
// 20 rows, so every 10 intervals of 2 operations.
func TestCockroachHeaderEvery20Rows(t *testing.T) {
	var out bytes.Buffer
	fakeRun(t, &Cockroach{W: &out}, 25, 0, nil)
	lines := strings.Split(out.String(), "\n")
	var at []int
	for i, l := range lines {
		if l == crdbTickHeader {
			at = append(at, i)
		}
	}
	if len(at) != 3 || at[0] != 0 || at[1] != 21 || at[2] != 42 {
		t.Errorf("headers at lines %v, want [0 21 42]", at)
	}
	for _, l := range lines[1:21] {
		if len(l) < 8 || l[7] != 's' {
			t.Errorf("row %q: elapsed is not %%7.1fs", l)
		}
	}
}

// TestHistogramExport checks the JSON export's shape (cockroach's
// SnapshotTick: Name, Hist with its snapshot fields, Elapsed in ns, Now)
// and that the re-binned histogram has cockroach's range and keeps the
// counts.
func TestHistogramExport(t *testing.T) {
	var b bytes.Buffer
	e := NewHistogramExporter(&b, HistogramJSON, 0, nil)
	h := stats.NewHistogram()
	for _, v := range []time.Duration{50 * time.Microsecond, 2 * time.Millisecond, 3 * time.Millisecond, 200 * time.Second} {
		_ = h.RecordValue(stats.Clamp(v))
	}
	now := time.Date(2026, 11, 25, 12, 0, 1, 0, time.UTC)
	if err := e.Write("read", h, time.Second, now); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"Name", "Hist", "Elapsed", "Now"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("no %s in %s", k, b.String())
		}
	}
	var snap crdbSnapshot
	if err := json.Unmarshal(b.Bytes(), &snap); err != nil {
		t.Fatal(err)
	}
	if snap.Name != "read" || snap.Elapsed != time.Second || !snap.Now.Equal(now) {
		t.Errorf("snapshot %+v", snap)
	}
	got := snap.Hist.histogram()
	if got.LowestTrackableValue() != int64(100*time.Microsecond) || got.HighestTrackableValue() < int64(100*time.Second) || got.SignificantFigures() != 1 {
		t.Errorf("histogram range %d..%d, %d figures: want cockroach's 100µs..100s, 1", got.LowestTrackableValue(), got.HighestTrackableValue(), got.SignificantFigures())
	}
	if got.TotalCount() != 4 {
		t.Errorf("count %d, want 4", got.TotalCount())
	}
	if m := got.Min(); !got.ValuesAreEquivalent(m, int64(100*time.Microsecond)) {
		t.Errorf("min %d: 50µs is clamped to 100µs as cockroach records it", m)
	}
	if m := got.Max(); !got.ValuesAreEquivalent(m, int64(100*time.Second)) {
		t.Errorf("max %d: 200s is clamped to 100s", m)
	}
}

// TestHistogramExportOpenMetrics checks the OpenMetrics export's lines.
func TestHistogramExportOpenMetrics(t *testing.T) {
	var b bytes.Buffer
	labels, err := ParseOpenMetricsLabels("cloud=aws, run-id=7", "kv")
	if err != nil {
		t.Fatal(err)
	}
	e := NewHistogramExporter(&b, HistogramOpenMetrics, 0, labels)
	h := stats.NewHistogram()
	_ = h.RecordValue(int64(3 * time.Millisecond))
	now := time.Date(2024, 6, 24, 13, 38, 53, 446733522, time.UTC)
	if err := e.Write("write", h, 5031363856, now); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"# TYPE write summary\n",
		`write{cloud="aws",run_id="7",workload="kv",quantile="0.5"} 3.014655e+06 1.719236333446e+09` + "\n",
		`write_count{cloud="aws",run_id="7",workload="kv"} 1 1.719236333446e+09` + "\n",
		"# TYPE write_elapsed gauge\n",
		`write_elapsed{cloud="aws",run_id="7",workload="kv"} 5031.0 1.719236333446e+09` + "\n",
		`write_highest_trackable_value{cloud="aws",run_id="7",workload="kv"} `,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if !strings.HasSuffix(out, "# EOF\n") {
		t.Errorf("does not end with # EOF:\n%s", out)
	}
	for _, c := range []struct{ path, format string }{{"h.txt", "json"}, {"h.json", "openmetrics"}, {"h.json", "csv"}} {
		if CheckHistogramsPath(c.path, c.format) == nil {
			t.Errorf("CheckHistogramsPath(%s, %s) accepted", c.path, c.format)
		}
	}
}

// TestCockroachMergeParts checks that an operation's merged parts count
// as the operation (ycsb's read/not_found as a read, as cockroach's ycsb
// records it) and are not rows of their own.
func TestCockroachMergeParts(t *testing.T) {
	start := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	ops := []string{"read", "read/not_found"}
	info := run.Info{Start: start, Ops: ops, Display: run.Display{Series: []int{0, 1}, Names: ops, Counted: []bool{true, false}, Ops: 2}}
	var out bytes.Buffer
	o := &Cockroach{W: &out, Merge: []string{"not_found"}}
	o.Start(info)
	h1, h2 := stats.NewHistogram(), stats.NewHistogram()
	_ = h1.RecordValue(int64(time.Millisecond))
	_ = h2.RecordValue(int64(3 * time.Millisecond))
	tick := stats.Tick{Start: start, End: start.Add(time.Second), CumStart: start,
		Series: []stats.Series{{Name: "read", Interval: stats.HistOf(h1), Cumulative: stats.HistOf(h1)}, {Name: "read/not_found", Interval: stats.HistOf(h2), Cumulative: stats.HistOf(h2)}}}
	o.Interval(run.Interval{Tick: tick})
	o.Final(&run.Result{Info: info, Final: tick})
	got := out.String()
	if !strings.Contains(got, "    1.0s        0            2.0            2.0      1.0      3.0      3.0      3.0 read\n") {
		t.Errorf("read row should hold the not-found read:\n%s", got)
	}
	if strings.Contains(got, "not_found") {
		t.Errorf("a merged part has rows of its own:\n%s", got)
	}
}
