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
