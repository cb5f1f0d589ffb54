package report_test

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/internal/golden"
	"github.com/stampede-bench/stampede/report"
)

func TestJavaDouble(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{0, "0.0"}, {1000, "1000.0"}, {997.70573, "997.70573"}, {0.5, "0.5"},
		{0.001, "0.001"}, {0.0001, "1.0E-4"}, {1.25e-5, "1.25E-5"}, {1e7, "1.0E7"}, {12345678.9, "1.23456789E7"},
		{9999999.5, "9999999.5"}, {-2.5, "-2.5"},
	} {
		if got := report.JavaDouble(tc.f); got != tc.want {
			t.Errorf("report.JavaDouble(%v) = %s, want %s", tc.f, got, tc.want)
		}
	}
}

func TestOrdinal(t *testing.T) {
	for p, want := range map[float64]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th",
		21: "21st", 50: "50th", 95: "95th", 99: "99th", 99.9: "99.9", 100: "100th", 101: "101st", 111: "111th"} {
		if got := report.Ordinal(p); got != want {
			t.Errorf("report.Ordinal(%v) = %s, want %s", p, got, want)
		}
	}
}

// TestYCSBLayout checks the final report and a status line against
// YCSB's documented layout (TextMeasurementsExporter's
// "[METRIC], MEASUREMENT, VALUE" lines; StatusThread's line).
func TestYCSBLayout(t *testing.T) {
	pct := func(vs ...int64) []report.YCSBPercentile {
		var ps []report.YCSBPercentile
		for i, p := range []float64{50, 95, 99} {
			ps = append(ps, report.YCSBPercentile{p, vs[i]})
		}
		return ps
	}
	ms := []report.YCSBMeasurement{
		{Name: "READ", Count: 4985, Mean: 394.25, Min: 123, Max: 9876, Percentiles: pct(300, 700, 1200),
			Returns: []report.YCSBReturn{{"OK", 4985}, {"NOT_FOUND", 15}}},
		{Name: "READ-FAILED", Count: 15, Mean: 200, Min: 150, Max: 350, Percentiles: pct(190, 340, 350)},
		{Name: "Intended-READ", Count: 4985, Mean: 1000.5, Min: 130, Max: 20000, Percentiles: pct(800, 3000, 9000)},
	}
	var b bytes.Buffer
	y := &report.YCSB{W: &b}
	if err := y.Final(10023*time.Millisecond, 5000, ms); err != nil {
		t.Fatal(err)
	}
	status := []report.YCSBMeasurement{{Name: "READ", Count: 498, Mean: 394.256, Min: 123, Max: 9876, Percentiles: []report.YCSBPercentile{
		{90, 600}, {99, 1200}, {99.9, 5000}, {99.99, 9876}}}}
	if err := y.Status(time.Date(2026, 11, 25, 10, 0, 10, 123e6, time.UTC), 10*time.Second+5e8, 5000, 0, 498.25, status); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "ycsb.golden"), b.Bytes())
}

// TestYCSBStatusEstimate checks the status line's estimate of the time
// left against YCSB's StatusThread and RemainingFormatter: the operations
// to do over the throughput since the start, rounded up, cast to a long
// (NaN to 0, infinity to Long.MAX_VALUE), written in days and hours, or
// hours and minutes, or seconds alone, with "second" for one digit.
func TestYCSBStatusEstimate(t *testing.T) {
	at := time.Date(2026, 11, 25, 10, 0, 10, 123e6, time.UTC)
	for _, tc := range []struct {
		elapsed   time.Duration
		ops, todo int64
		want      string
	}{
		{0, 0, 1000, "0 sec: 0 operations; est completion in 0 second "},
		{time.Millisecond, 0, 1000, "0 sec: 0 operations; est completion in 106751991167300 days 15 hours "},
		{10 * time.Second, 5000, 0, "10 sec: 5000 operations; 500 current ops/sec; "},
		{10 * time.Second, 5000, 2500, "10 sec: 5000 operations; 500 current ops/sec; est completion in 5 second "},
		{10 * time.Second, 5000, 5000, "10 sec: 5000 operations; 500 current ops/sec; est completion in 10 seconds "},
		{10 * time.Second, 1000, 59001, "10 sec: 1000 operations; 500 current ops/sec; est completion in 9 minutes "},
		{10 * time.Second, 10, 3661, "10 sec: 10 operations; 500 current ops/sec; est completion in 1 hour 1 minute "},
		{10 * time.Second, 10, 90061, "10 sec: 10 operations; 500 current ops/sec; est completion in 1 day 1 hour "},
		{10 * time.Second, 10, 2*86400 + 7300, "10 sec: 10 operations; 500 current ops/sec; est completion in 2 days 2 hours "},
	} {
		var b bytes.Buffer
		y := &report.YCSB{W: &b}
		if err := y.Status(at, tc.elapsed, tc.ops, tc.todo, 500, nil); err != nil {
			t.Fatal(err)
		}
		if want := "2026-11-25 10:00:10:123 " + tc.want + "\n"; b.String() != want {
			t.Errorf("elapsed %v, %d done, %d to do:\n got %q\nwant %q", tc.elapsed, tc.ops, tc.todo, b.String(), want)
		}
	}
}
