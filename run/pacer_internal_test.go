package run

import (
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/stats"
)

// TestLatePacerNote checks when a run warns that its own pacer, not the
// server, made its operations late: a pacer lag p99 of 1 ms or more that
// is at least half the highest intended-latency p99.
func TestLatePacerNote(t *testing.T) {
	series := func(readP99, serviceP99, pacerP99 float64) []NamedSummary {
		return []NamedSummary{
			{"read", stats.Summary{Count: 10, P99: readP99}},
			{"read.service", stats.Summary{Count: 10, P99: serviceP99}},
			{"read.lag", stats.Summary{Count: 10, P99: readP99 - serviceP99}},
			{"pacer.lag", stats.Summary{Count: 10, P99: pacerP99}},
		}
	}
	for _, tc := range []struct {
		name   string
		series []NamedSummary
		warn   bool
	}{
		{"punctual", series(0.2, 0.15, 0.02), false},
		{"late client", series(2.5, 0.1, 2.3), true},
		// The server queues: a late pacer is a small part of it.
		{"slow server", series(40, 30, 1.5), false},
		{"under 1 ms", series(0.9, 0.1, 0.8), false},
		{"no pacer series", series(2.5, 0.1, 2.3)[:3], false},
	} {
		note := latePacerNote(tc.series, 1)
		if (note != "") != tc.warn || (tc.warn && !strings.Contains(note, "pacer lag p99 2.3ms, intended latency p99 2.5ms")) {
			t.Errorf("%s: note %q", tc.name, note)
		}
	}
}

// TestShortRateNote: a rated run that did under 95% of its --max-rate
// over its measured period says so, with what it did; a run that kept
// its rate (skipped operations count: their turn was taken), an
// unrated run and a run too short to tell say nothing (chk29 nit 7:
// run sql --max-rate 100000 did 20,435 a second without a word).
func TestShortRateNote(t *testing.T) {
	total := func(count int64, secs float64) stats.Summary { return stats.Summary{Count: count, Seconds: secs} }
	for _, tc := range []struct {
		name    string
		rate    float64
		total   stats.Summary
		skipped int64
		want    string
	}{
		{"short", 100000, total(204350, 10), 0, "note: the run did 20435.0 operations a second, 20% of --max-rate 100000: its schedule fell behind"},
		{"kept", 1000, total(9950, 10), 0, ""},
		{"kept with skips", 1000, total(9000, 10), 900, ""},
		{"just short", 1000, total(9400, 10), 0, "94% of --max-rate 1000"},
		{"unrated", 0, total(10, 10), 0, ""},
		{"under a second", 1000, total(500, 0.9), 0, ""},
		{"few operations", 1000, total(50, 10), 0, ""},
	} {
		got := shortRateNote(tc.rate, tc.total, tc.skipped)
		if (got == "") != (tc.want == "") || !strings.Contains(got, tc.want) || strings.Contains(got, "\n") {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
