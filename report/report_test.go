package report_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/internal/golden"
	"github.com/stampede-bench/stampede/report"
	"github.com/stampede-bench/stampede/stats"
)

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
	golden.Check(t, filepath.Join("testdata", "text.golden"), b.Bytes())
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
	golden.Check(t, filepath.Join("testdata", "json.golden"), b.Bytes())
}

func TestSysbench(t *testing.T) {
	var b bytes.Buffer
	s := &report.Sysbench{W: &b}
	if err := s.Header(report.SysbenchHeader{Engine: "stampede 0.1.0", Threads: 8, ReportEvery: 1, Seed: 42}); err != nil {
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
	golden.Check(t, filepath.Join("testdata", "sysbench.golden"), b.Bytes())
}

// numbers, bars and blanks mask what varies between two runs' reports.
var (
	numbers = regexp.MustCompile(`\d+(\.\d+)?`)
	bars    = regexp.MustCompile(`\*+`)
	blanks  = regexp.MustCompile(` +`)
)

// shape masks every number of out with N, narrows histogram bars to one
// star and runs of spaces to one, leaving the layout.
func shape(out []byte) string {
	return blanks.ReplaceAllString(bars.ReplaceAllString(numbers.ReplaceAllString(string(out), "N"), "*"), " ")
}

// TestSysbenchLayouts writes reports like sysbench 1.0.20's, against
// transcripts of sysbench 1.0.20 itself (testdata/sysbench-1.0.20, each
// the output of `sysbench oltp_read_write ... run` against PostgreSQL
// with the options named): the same lines, with their numbers masked.
func TestSysbenchLayouts(t *testing.T) {
	final := func(pct float64, hist bool) report.SysbenchFinal {
		f := report.SysbenchFinal{Read: 1372, Write: 387, Other: 199, Transactions: 97, IgnoredErrors: 1, Seconds: 2.0505,
			Percentile: pct, LatMin: 1.03, LatAvg: 4, LatMax: 31.6, LatPct: 8.13, LatSum: 387.8,
			EventsAvg: 48.5, EventsStddev: 1.5, ExecAvg: 0.1939, ExecStddev: 0.01}
		if hist {
			f.Histogram = []stats.Bucket{{Value: 0.665, Count: 1}, {Value: 0.677, Count: 2}, {Value: 0.702, Count: 2}}
		}
		return f
	}
	iv := func(secs float64, pct float64, queue bool) report.SysbenchInterval {
		i := report.SysbenchInterval{Elapsed: secs, Threads: 2, TPS: 58.9, QPS: 1178.04, Read: 824.63, Write: 232.61, Other: 120.8,
			Percentile: pct, Latency: 8.13}
		if queue {
			i.Queue = &report.SysbenchQueue{}
		}
		return i
	}
	for _, tc := range []struct {
		transcript string
		header     report.SysbenchHeader
		intervals  []report.SysbenchInterval
		final      report.SysbenchFinal
	}{
		// --threads=2 --rate=50 --time=2 --report-interval=1 --rand-seed=3
		{"rate.txt", report.SysbenchHeader{Threads: 2, Rate: 50, ReportEvery: 1, Seed: 3},
			[]report.SysbenchInterval{iv(1, 95, true), iv(2, 95, true)}, final(95, false)},
		// --time=2 --percentile=0 --report-interval=1 --rand-seed=5
		{"nopercentile.txt", report.SysbenchHeader{Threads: 1, ReportEvery: 1, Seed: 5},
			[]report.SysbenchInterval{iv(1, 0, false), iv(2, 0, false)}, final(0, false)},
		// --time=1 --threads=2 --percentile=99 --forced-shutdown=1 --rand-seed=2
		{"forced_shutdown.txt", report.SysbenchHeader{Threads: 2, Seed: 2, ForcedShutdown: 2}, nil, final(99, false)},
		// --time=2 --forced-shutdown=1 --histogram --report-interval=1
		// --rand-seed=7, its table locked from the first second on: one
		// event unfinished, no histogram
		{"forced_shutdown_unfinished.txt", report.SysbenchHeader{Threads: 1, ReportEvery: 1, Seed: 7, ForcedShutdown: 3},
			[]report.SysbenchInterval{iv(1, 95, false), iv(2, 95, false), iv(3, 95, false)},
			func() report.SysbenchFinal { f := final(95, true); f.Unfinished = 1; return f }()},
		// --time=1 --histogram --rand-seed=1, the histogram cut to 3 lines
		{"histogram.txt", report.SysbenchHeader{Threads: 1, Seed: 1}, nil, final(95, true)},
	} {
		t.Run(tc.transcript, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", "sysbench-1.0.20", tc.transcript))
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			s := &report.Sysbench{W: &b}
			tc.header.Engine = "system LuaJIT 2.1.0-beta3" // as sysbench names its engine
			if err := s.Header(tc.header); err != nil {
				t.Fatal(err)
			}
			for _, i := range tc.intervals {
				if err := s.Interval(i); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Final(tc.final); err != nil {
				t.Fatal(err)
			}
			if got, want := shape(b.Bytes()), shape(want); got != want {
				t.Errorf("layout differs from sysbench's:\n--- got\n%s\n--- want\n%s", got, want)
			}
		})
	}
}

// TestCappedFigures records values above the histograms' highest (100 s:
// a 112 s lock stall, a device silent for 3 minutes), which are recorded
// as 100 s: the printed figures at the cap say ">=100000" (100 s or
// more), never 100059.3 as if it were the value, and a warning line
// counts the capped values by series; a value under the cap (99 s) prints
// as itself, and a run without capped values has no warning (chk32 F2).
func TestCappedFigures(t *testing.T) {
	for _, tc := range []struct {
		name        string
		values      []time.Duration
		capped      int64
		wantMax     string
		wantWarning string
	}{
		{"stall", []time.Duration{10 * time.Millisecond, 112 * time.Second}, 1, ">=100000", "warning: 1 value reached the latency histograms' highest, 100 s (serve/staleness 1)"},
		{"silent", []time.Duration{3 * time.Minute, 3 * time.Minute, 5 * time.Minute}, 3, ">=100000", "warning: 3 values reached the latency histograms' highest, 100 s (serve/staleness 3)"},
		{"under", []time.Duration{99 * time.Second}, 0, "99000", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := stats.NewHistogram()
			for _, v := range tc.values {
				if err := h.RecordValue(stats.Clamp(v)); err != nil {
					t.Fatal(err)
				}
			}
			s := stats.Summarize(h, 0, time.Second)
			if s.Capped != tc.capped {
				t.Errorf("Capped %d, want %d", s.Capped, tc.capped)
			}
			got := report.FormatMs(s.Max)
			if v, err := strconv.ParseFloat(tc.wantMax, 64); err == nil {
				// Under the cap: the value, to the histograms' 3 digits.
				if g, err := strconv.ParseFloat(got, 64); err != nil || math.Abs(g-v)/v > 1e-3 {
					t.Errorf("max prints %q, want %s within 0.1%%", got, tc.wantMax)
				}
			} else if got != tc.wantMax {
				t.Errorf("max prints %q, want %q", got, tc.wantMax)
			}
			var b strings.Builder
			op := report.Op{Name: "serve/staleness", Cumulative: s}
			if err := (&report.Text{W: &b}).Final(time.Second, []report.Op{op}, report.Op{Cumulative: s}, nil); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if tc.wantWarning == "" {
				if strings.Contains(out, "warning") || strings.Contains(out, ">=") {
					t.Errorf("no value capped, yet:\n%s", out)
				}
				return
			}
			if !strings.Contains(out, tc.wantWarning) || strings.Count(out, "warning") != 1 || strings.Contains(out, "100059") {
				t.Errorf("want one warning %q and no 100059:\n%s", tc.wantWarning, out)
			}
			if p50 := report.FormatMs(s.P50); (tc.name == "silent") != (p50 == ">=100000") {
				t.Errorf("p50 prints %q", p50)
			}
		})
	}
}
