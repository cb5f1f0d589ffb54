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
