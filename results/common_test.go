package results_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
)

// TestCommonInterval: the operations of clients counted over strictly
// their common measurement interval, [latest first start, earliest last
// end): clients that each do a steady 100 operations per second count
// 100 x clients x its length, whatever their skew, while the time their
// intervals cover together is longer by the skew (and a rate over it
// lower); intervals straddling a bound count for their share within it.
func TestCommonInterval(t *testing.T) {
	base := time.Date(2026, 11, 29, 7, 0, 0, 0, time.UTC)
	steady := func(n int) ([]time.Duration, []int64) {
		var b []time.Duration
		var c []int64
		for i := range n + 1 {
			b = append(b, time.Duration(i)*time.Second)
			if i < n {
				c = append(c, 100)
			}
		}
		return b, c
	}
	for _, tc := range []struct {
		name   string
		starts []time.Duration // each client's start after base
		n      []int           // its one-second intervals
		// want: the common interval's bounds after base and its count.
		from, to time.Duration
		count    int64
		ok       bool
	}{
		{"aligned", []time.Duration{0, 0}, []int{10, 10}, 0, 10 * time.Second, 2000, true},
		{"skew 100ms", []time.Duration{0, 100 * time.Millisecond}, []int{10, 10}, 100 * time.Millisecond, 10 * time.Second, 2 * 990, true},
		{"skew 250ms, 3 clients", []time.Duration{0, 250 * time.Millisecond, 100 * time.Millisecond}, []int{10, 10, 10}, 250 * time.Millisecond, 10 * time.Second, 3 * 975, true},
		{"one ends early", []time.Duration{0, 0}, []int{10, 6}, 0, 6 * time.Second, 1200, true},
		{"disjoint", []time.Duration{0, 20 * time.Second}, []int{10, 10}, 0, 0, 0, false},
		{"one client", []time.Duration{0}, []int{10}, 0, 0, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			var runs []*runlog.Run
			for i, s := range tc.starts {
				b, c := steady(tc.n[i])
				runs = append(runs, writeTimedRun(t, root, fmt.Sprintf("20261129-070000-ycsb-c%d", i), base.Add(s), b, c, 0).run)
			}
			v, _, err := results.Recompute(runs, results.Window{})
			if err != nil {
				t.Fatal(err)
			}
			c, ok, err := results.CommonInterval(runs, v)
			if err != nil || ok != tc.ok {
				t.Fatalf("CommonInterval: ok %v, %v; want ok %v", ok, err, tc.ok)
			}
			if !ok {
				return
			}
			if !c.From.Equal(base.Add(tc.from)) || !c.To.Equal(base.Add(tc.to)) {
				t.Errorf("common interval %s to %s, want +%s to +%s", c.From, c.To, tc.from, tc.to)
			}
			if c.Counts["read"] != tc.count {
				t.Errorf("%d operations in the common interval, want %d", c.Counts["read"], tc.count)
			}
			// The clients' steady rate, over the common interval, is
			// their rate added up: 100/s each.
			if rate := float64(c.Counts["read"]) / c.To.Sub(c.From).Seconds(); rate < 100*float64(len(runs))-0.5 || rate > 100*float64(len(runs))+0.5 {
				t.Errorf("rate over the common interval %.2f/s, want %d/s", rate, 100*len(runs))
			}
		})
	}
}
