package results_test

import (
	"bytes"
	"errors"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/output"
	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
)

// secs returns the offsets from a run's start of intervals of the given
// lengths in seconds, one after the other from 0.
func secs(lens ...float64) []time.Duration {
	bounds := []time.Duration{0}
	var at float64
	for _, l := range lens {
		at += l
		bounds = append(bounds, time.Duration(math.Round(at*1e9)))
	}
	return bounds
}

// ones returns the bounds of n intervals of one second.
func ones(n int) []time.Duration {
	lens := make([]float64, n)
	for i := range lens {
		lens[i] = 1
	}
	return secs(lens...)
}

// TestCompareThroughputVerdicts compares synthetic runs whose per-interval
// throughput is known, one "read" series each, and checks the verdict of
// the total (and of read, the same series).
func TestCompareThroughputVerdicts(t *testing.T) {
	for _, tc := range []struct {
		name            string
		boundsA         []time.Duration
		countsA         []int64
		boundsB         []time.Duration
		countsB         []int64
		verdict         string
		nA, nB          int     // the intervals tested, short ones merged
		ratio           float64 // ops/s B/A of the runs' own figures, 0: unchecked
		df, tQuantile   float64 // 0: unchecked
		wantThreshold   bool    // Threshold = tQuantile * SE
		wantSignificant bool
	}{
		{name: "equal runs are noise", boundsA: ones(6), countsA: []int64{1000, 1010, 990, 1005, 995, 1000},
			boundsB: ones(6), countsB: []int64{1002, 998, 1007, 993, 1001, 999}, verdict: "noise", nA: 6, nB: 6},
		{name: "1.6x with low variance", boundsA: ones(6), countsA: []int64{1000, 1010, 990, 1005, 995, 1000},
			boundsB: ones(6), countsB: []int64{1600, 1615, 1585, 1610, 1590, 1600}, verdict: "*", nA: 6, nB: 6, ratio: 1.6,
			wantSignificant: true},
		{name: "high variance, small shift", boundsA: ones(6), countsA: []int64{600, 1400, 800, 1200, 1000, 900},
			boundsB: ones(6), countsB: []int64{1450, 700, 1250, 850, 1000, 1050}, verdict: "noise", nA: 6, nB: 6},
		{name: "too few intervals", boundsA: ones(2), countsA: []int64{1000, 1000},
			boundsB: ones(2), countsB: []int64{2000, 2000}, verdict: "?", nA: 2, nB: 2},
		// A new user's runs (fresh29): three full intervals and a last one
		// of a few milliseconds each, B 1.6x faster. The stubs' rates
		// (575 and 308 ops/s) made the variance, and the verdict noise.
		{name: "1.6x with a partial last interval", boundsA: secs(1.002, 1.002, 0.997, 0.0087), countsA: []int64{1111, 1045, 988, 5},
			boundsB: secs(1.004, 0.997, 1.0005, 0.00975), countsB: []int64{1558, 1674, 1800, 3}, verdict: "*", nA: 3, nB: 3,
			wantSignificant: true},
		// Three intervals each, both with sd 10: df = 4 (Welch's formula,
		// hand-worked), and Student's t 0.975 quantile for 4 degrees of
		// freedom is 2.776445 (any t table). A difference of 30 is beyond
		// 2.776 * 8.165 = 22.67; one of 20 is not, though it is beyond
		// twice the standard error (16.3), the old rule.
		{name: "t quantile, beyond", boundsA: ones(3), countsA: []int64{10, 20, 30}, boundsB: ones(3), countsB: []int64{40, 50, 60},
			verdict: "*", nA: 3, nB: 3, df: 4, tQuantile: 2.776445, wantThreshold: true, wantSignificant: true},
		{name: "t quantile, within", boundsA: ones(3), countsA: []int64{10, 20, 30}, boundsB: ones(3), countsB: []int64{30, 40, 50},
			verdict: "noise", nA: 3, nB: 3, df: 4, tQuantile: 2.776445, wantThreshold: true},
		// A steady rise in B (a cache warming) is variance, but not
		// enough to hide a consistent 1.6x.
		{name: "1.6x rising", boundsA: ones(5), countsA: []int64{1000, 1000, 1000, 1000, 1000},
			boundsB: ones(5), countsB: []int64{1400, 1500, 1600, 1700, 1800}, verdict: "*", nA: 5, nB: 5, ratio: 1.6,
			wantSignificant: true},
		// Every interval at its rate, as under --max-rate on an idle
		// server: the standard error is 0.
		{name: "exact rates", boundsA: ones(4), countsA: []int64{200, 200, 200, 200},
			boundsB: ones(4), countsB: []int64{400, 400, 400, 400}, verdict: "*", nA: 4, nB: 4, ratio: 2, wantSignificant: true},
		{name: "exact equal rates", boundsA: ones(4), countsA: []int64{200, 200, 200, 200},
			boundsB: ones(4), countsB: []int64{200, 200, 200, 200}, verdict: "noise", nA: 4, nB: 4, ratio: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			a := writeTimedRun(t, root, "20261122-103512-ycsb-aaaa", t0, tc.boundsA, tc.countsA, 0)
			b := writeTimedRun(t, root, "20261122-113512-ycsb-bbbb", t0.Add(time.Hour), tc.boundsB, tc.countsB, 0)
			c, _, err := results.Compare(a.run, b.run)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Ops) != 1 || c.Ops[0].Name != "read" {
				t.Fatalf("ops %+v", c.Ops)
			}
			for _, row := range []results.CompareRow{c.Ops[0], c.Total} {
				th := row.Throughput
				if th.Verdict != tc.verdict || th.Significant != tc.wantSignificant || th.NA != tc.nA || th.NB != tc.nB {
					t.Errorf("%s: verdict %q significant %v n %d/%d; want %q %v %d/%d (%+v)", row.Name,
						th.Verdict, th.Significant, th.NA, th.NB, tc.verdict, tc.wantSignificant, tc.nA, tc.nB, th)
				}
				// The means are of the merged intervals' exact rates.
				if wantA := meanRate(tc.boundsA, tc.countsA, tc.nA); math.Abs(th.MeanA-wantA) > 1e-9*wantA {
					t.Errorf("%s: mean A %v, want %v", row.Name, th.MeanA, wantA)
				}
				if tc.df != 0 && math.Abs(th.DF-tc.df) > 1e-9 {
					t.Errorf("%s: df %v, want %v", row.Name, th.DF, tc.df)
				}
				if tc.wantThreshold && math.Abs(th.Threshold-tc.tQuantile*th.SE) > 1e-5*th.SE {
					t.Errorf("%s: threshold %v, want %v * SE %v = %v", row.Name, th.Threshold, tc.tQuantile, th.SE, tc.tQuantile*th.SE)
				}
			}
			if r := c.Total.Ratio.OpsPerSec; tc.ratio != 0 && (r == nil || math.Abs(*r-tc.ratio) > 0.01) {
				t.Errorf("ops/s ratio %v, want %v", r, tc.ratio)
			}
		})
	}
}

// meanRate returns the mean rate of counts over bounds with the last
// intervals merged so that n remain (the merged intervals' rate is their
// operations over their time).
func meanRate(bounds []time.Duration, counts []int64, n int) float64 {
	var sum float64
	for i := range n {
		hi := i + 1
		if i == n-1 {
			hi = len(counts)
		}
		var ops int64
		for _, c := range counts[i:hi] {
			ops += c
		}
		sum += float64(ops) / (bounds[hi] - bounds[i]).Seconds()
	}
	return sum / float64(n)
}

// TestCompareOneSidedOps: an operation only one run did gets "only A" or
// "only B", never "*" (before, its rate was taken as 0 in the other run,
// and any operation at all was "significant").
func TestCompareOneSidedOps(t *testing.T) {
	root := t.TempDir()
	ivs := synthetic(6)
	a := writeRun(t, root, runSpec{id: "20261122-103512-ycsb-aaaa", series: []string{"read", "update"}, intervals: ivs})
	for i := range ivs {
		ivs[i].series["scan"] = ivs[i].series["update"]
	}
	b := writeRun(t, root, runSpec{id: "20261122-113512-ycsb-bbbb", start: t0.Add(time.Hour), series: []string{"read", "scan"}, intervals: ivs})
	c, _, err := results.Compare(a, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Flags) != 0 {
		t.Errorf("runs of the same flags: flags that differ %+v", c.Flags)
	}
	want := map[string]string{"read": "noise", "update": "only A", "scan": "only B"}
	if len(c.Ops) != len(want) {
		t.Fatalf("ops %+v", c.Ops)
	}
	for _, row := range c.Ops {
		th := row.Throughput
		if th.Verdict != want[row.Name] || th.Significant {
			t.Errorf("%s: verdict %q significant %v, want %q", row.Name, th.Verdict, th.Significant, want[row.Name])
		}
		if row.Name == "update" && (th.NA != 6 || th.NB != 0 || th.MeanA <= 0 || row.B != nil) {
			t.Errorf("update: %+v", th)
		}
		if row.Name == "scan" && (th.NB != 6 || th.NA != 0 || th.MeanB <= 0 || row.A != nil) {
			t.Errorf("scan: %+v", th)
		}
	}
}

// TestCompareGroupsBadInput: groups CompareGroups cannot judge are
// refused as a GroupError, one line naming what to do.
func TestCompareGroupsBadInput(t *testing.T) {
	root := t.TempDir()
	ivs := synthetic(3)
	run := func(id, workload string, h int) *runlog.Run {
		return writeRun(t, root, runSpec{id: id, workload: workload, start: t0.Add(time.Duration(h) * time.Hour), intervals: ivs})
	}
	a1, a2 := run("20261122-010000-ycsb-a1a1", "ycsb", 1), run("20261122-020000-ycsb-a2a2", "ycsb", 2)
	b1, b2 := run("20261122-030000-ycsb-b1b1", "ycsb", 3), run("20261122-040000-ycsb-b2b2", "ycsb", 4)
	k := run("20261122-050000-kv-k1k1", "kv", 5)
	for _, tc := range []struct {
		name string
		a, b []*runlog.Run
		want string
	}{
		{"no run on a side", nil, []*runlog.Run{b1, b2}, "side A has no run"},
		{"one run against a group", []*runlog.Run{a1}, []*runlog.Run{b1, b2}, "side A has 1 run and side B 2 runs"},
		{"two workloads", []*runlog.Run{a1, a2}, []*runlog.Run{b1, k}, "compare groups of runs of one workload"},
		{"a run on both sides", []*runlog.Run{a1, a2}, []*runlog.Run{b1, a2}, "is given twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := results.CompareGroups(tc.a, tc.b)
			var ge *results.GroupError
			if !errors.As(err, &ge) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err = %v, want a one-line GroupError with %q", err, tc.want)
			}
		})
	}
	// Two equal groups: every figure "no difference", p = 1, nothing
	// needed, medians equal to each run's own figures.
	c, err := results.CompareGroups([]*runlog.Run{a1, a2}, []*runlog.Run{b1, b2})
	if err != nil {
		t.Fatal(err)
	}
	if c.CanReject || c.Note == "" {
		t.Errorf("2 and 2 runs: CanReject %v, note %q: want false and a note", c.CanReject, c.Note)
	}
	view, _, err := results.Recompute([]*runlog.Run{a1}, results.Window{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 3*5 {
		t.Fatalf("%d rows, want 15 (read, update, total x 5 figures)", len(c.Rows))
	}
	for _, r := range c.Rows {
		if r.Verdict != results.GroupNoDifference || r.P == nil || *r.P != 1 || r.Needed != nil {
			t.Errorf("%s %s: verdict %q p %v needed %v", r.Op, r.Figure, r.Verdict, r.P, r.Needed)
		}
		if r.Op == results.CompareTotal && r.Figure == "p99_ms" && r.A.Median != view.Total.P99 {
			t.Errorf("total p99 median %v, want the run's %v", r.A.Median, view.Total.P99)
		}
	}
}

// TestCompareNamesFlagsThatDiffer: compare says which flags the runs
// recorded differently (which run was --server-side), by name, and the
// text says it in one line; values stampede picked itself (gc-percent)
// are not flags.
func TestCompareNamesFlagsThatDiffer(t *testing.T) {
	root := t.TempDir()
	ivs := synthetic(4)
	common := map[string]string{"warehouses": "1", "concurrency": "2"}
	fa, fb := maps.Clone(common), maps.Clone(common)
	fa["server-side"], fb["server-side"] = "false", "true"
	fb["stored-procs"] = "true"
	// The GOGC a run got is stampede's pick, not a flag of the user's:
	// not listed (N6: "--gc-percent (A 813, B 814)").
	fa["gc-percent"], fb["gc-percent"] = "813", "814"
	// Secrets stay in the run directories: a password flag is masked
	// (both xxxxx: not a difference), a URL loses its password.
	fa["password"], fb["password"] = "Pl4nted-S3cret", "0ther-S3cret"
	fa["dsn"] = "postgres://bob:Pl4nted-S3cret@db.example:5432/tpcc"
	// A --seed of 0 is the seed the run picked (chk29 nit 6: "--seed (A
	// 0, B 5)" for a run that printed seed 3031567154997277168).
	fa["seed"], fb["seed"] = "0", "5"
	a := writeRun(t, root, runSpec{id: "20261122-103512-tpcc-aaaa", workload: "tpcc", series: []string{"read"}, intervals: ivs, flags: fa, seed: 3031567154997277168})
	b := writeRun(t, root, runSpec{id: "20261122-113512-tpcc-bbbb", workload: "tpcc", start: t0.Add(time.Hour), series: []string{"read"}, intervals: ivs, flags: fb, seed: 5})
	c, _, err := results.Compare(a, b)
	if err != nil {
		t.Fatal(err)
	}
	want := []results.FlagDiff{{Name: "dsn", A: "postgres://bob:xxxxx@db.example:5432/tpcc"}, {Name: "seed", A: "picked 3031567154997277168", B: "5"},
		{Name: "server-side", A: "false", B: "true"}, {Name: "stored-procs", B: "true"}}
	if !slices.Equal(c.Flags, want) {
		t.Errorf("flags that differ %+v, want %+v", c.Flags, want)
	}
	var out bytes.Buffer
	if err := output.Comparison(&out, c); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "S3cret") {
		t.Errorf("compare's text holds a password:\n%s", out.String())
	}
	if line := "--seed (A picked 3031567154997277168, B 5), --server-side (A false, B true), --stored-procs (A not given, B true)\n"; !strings.Contains(out.String(), line) {
		t.Errorf("compare's text does not say %q:\n%s", line, out.String())
	}
}
