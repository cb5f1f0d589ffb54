package report_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/report"
	"github.com/stampede-bench/stampede/stats"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func sum(count, errs int64, secs, p50, p95, p99, max float64) stats.Summary {
	return stats.Summary{Count: count, Errors: errs, Seconds: secs, Rate: float64(count) / secs,
		Mean: (p50 + p95) / 2, Min: p50 / 2, P50: p50, P90: p95 * 0.9, P95: p95, P99: p99, P999: max * 0.9, Max: max, Stdev: 0.5}
}

func sample() (intervals [][]report.Op, final []report.Op, total report.Op, extra []report.Extra) {
	intervals = [][]report.Op{
		{
			{Name: "read", Interval: sum(2841, 0, 1, 0.16, 1.1, 3.0, 12.1), Cumulative: sum(2841, 0, 1, 0.16, 1.1, 3.0, 12.1)},
			{Name: "update", Interval: sum(2829, 0, 1, 1.5, 7.3, 11.5, 25.2), Cumulative: sum(2829, 0, 1, 1.5, 7.3, 11.5, 25.2)},
		},
		{
			{Name: "read", Interval: sum(3001, 0, 1, 0.012, 0.095, 2.5, 30.4), Cumulative: sum(5842, 0, 2, 0.15, 1.0, 2.9, 30.4)},
			{Name: "update", Interval: sum(2990, 2, 1, 1.4, 7.0, 11.0, 0), Cumulative: sum(5819, 2, 2, 1.45, 7.1, 11.2, 25.2)},
		},
	}
	final = []report.Op{
		{Name: "read", Cumulative: sum(5842, 0, 2, 0.15, 1.0, 2.9, 30.4)},
		{Name: "update", Cumulative: sum(5819, 2, 2, 1.45, 7.1, 11.2, 25.2)},
	}
	total = report.Op{Cumulative: sum(11661, 2, 2, 0.61, 6.1, 11.1, 30.4)}
	extra = []report.Extra{{Name: "reconnects", Value: 1, Text: "1"}, {Name: "errors_40001", Value: 2, Text: "2 (error code 40001)"}}
	return
}

func TestText(t *testing.T) {
	intervals, final, total, extra := sample()
	var b bytes.Buffer
	f := &report.Text{W: &b, HeaderEvery: 2}
	for i, ops := range append(intervals, intervals[1]) {
		if err := f.Interval(time.Duration(i+1)*time.Second, ops); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Final(2*time.Second, final, total, extra); err != nil {
		t.Fatal(err)
	}
	golden(t, "text.golden", b.Bytes())
}

func TestJSON(t *testing.T) {
	intervals, final, total, extra := sample()
	var b bytes.Buffer
	f := &report.JSON{W: &b}
	for i, ops := range intervals {
		if err := f.Interval(time.Duration(i+1)*time.Second, ops); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Final(2*time.Second, final, total, extra); err != nil {
		t.Fatal(err)
	}
	golden(t, "json.golden", b.Bytes())
}

func TestSysbench(t *testing.T) {
	var b bytes.Buffer
	s := &report.Sysbench{W: &b}
	if err := s.Header("0.1.0", 8, 1, 42); err != nil {
		t.Fatal(err)
	}
	for i, tps := range []float64{731.54, 262.07} {
		_ = s.Interval(report.SysbenchInterval{Elapsed: float64(i + 1), Threads: 8, TPS: tps, QPS: tps * 20,
			Read: tps * 14, Write: tps * 4, Other: tps * 2, Percentile: 95, Latency: 4.91, ErrPS: 7.98})
	}
	err := s.Final(report.SysbenchFinal{
		Read: 10864, Write: 3053, Other: 1570, Transactions: 760, IgnoredErrors: 16, Seconds: 2.0117,
		Percentile: 95, LatMin: 0.91, LatAvg: 5.27, LatMax: 1009.01, LatPct: 4.65, LatSum: 4005.09,
		EventsAvg: 380, EventsStddev: 2, ExecAvg: 2.0025, ExecStddev: 0,
		Histogram: []stats.Bucket{{Value: 0.608, Count: 1}, {Value: 2.433, Count: 44}, {Value: 2.477, Count: 31}},
	})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "sysbench.golden", b.Bytes())
}
