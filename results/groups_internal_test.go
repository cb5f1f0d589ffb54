package results

import (
	"math"
	"slices"
	"testing"
)

// TestGroupUTestPValues holds the U test's two-sided p-values, as
// groupRow reports them, to exact values of the U distribution without
// ties: for n1 = n2 = 5 there are C(10,5) = 252 equally likely rank
// arrangements, of which 1, 1, 2, 3 have U = 0, 1, 2, 3 (partitions of U
// into at most 5 parts of at most 5), so p = 2 P(U <= u) is 2/252, 4/252,
// 8/252 and 14/252; the tables' critical U for 5 and 5 at 0.05 two-sided
// is 2 (so 3 is not rejected). For 4 and 4 it is 2/70 at best, for 3 and 3
// 2/20 and for 2 and 8 2/45: one side wholly below the other.
func TestGroupUTestPValues(t *testing.T) {
	for _, tc := range []struct {
		name    string
		a, b    []float64
		p       float64
		verdict string
	}{
		{"5 and 5, U=0", []float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}, 2.0 / 252, GroupHigher},
		{"5 and 5, U=1", []float64{1, 2, 3, 4, 6}, []float64{5, 7, 8, 9, 10}, 4.0 / 252, GroupHigher},
		{"5 and 5, U=2", []float64{1, 2, 3, 5, 6}, []float64{4, 7, 8, 9, 10}, 8.0 / 252, GroupHigher},
		{"5 and 5, U=3, not rejected", []float64{1, 2, 4, 5, 6}, []float64{3, 7, 8, 9, 10}, 14.0 / 252, GroupNoDifference},
		{"5 and 5, B lower", []float64{6, 7, 8, 9, 10}, []float64{1, 2, 3, 4, 5}, 2.0 / 252, GroupLower},
		{"4 and 4 apart", []float64{1, 2, 3, 4}, []float64{5, 6, 7, 8}, 2.0 / 70, GroupHigher},
		{"3 and 3 apart: cannot reject", []float64{1, 2, 3}, []float64{4, 5, 6}, 2.0 / 20, GroupNoDifference},
		{"2 and 8 apart", []float64{1, 2}, []float64{3, 4, 5, 6, 7, 8, 9, 10}, 2.0 / 45, GroupHigher},
		{"all equal", []float64{0, 0, 0}, []float64{0, 0, 0, 0}, 1, GroupNoDifference},
	} {
		t.Run(tc.name, func(t *testing.T) {
			canReject := minP(len(tc.a), len(tc.b)) < GroupAlpha
			r, err := groupRow("read", "p99_ms", tc.a, tc.b, canReject)
			if err != nil {
				t.Fatal(err)
			}
			if r.P == nil || math.Abs(*r.P-tc.p) > 1e-9 {
				t.Errorf("p = %v, want %v", r.P, tc.p)
			}
			if r.Verdict != tc.verdict {
				t.Errorf("verdict %q, want %q", r.Verdict, tc.verdict)
			}
		})
	}
}

// TestGroupMinRuns: the smallest p of the test with n and n runs, wholly
// apart, is 2/C(2n, n): 1/3, 1/10, 1/35 for 2, 3, 4 runs; 4 runs a side
// are the fewest that can reject at 0.05.
func TestGroupMinRuns(t *testing.T) {
	for n, want := range map[int]float64{2: 2.0 / 6, 3: 2.0 / 20, 4: 2.0 / 70, 5: 2.0 / 252} {
		if got := minP(n, n); math.Abs(got-want) > 1e-12 {
			t.Errorf("minP(%d, %d) = %v, want %v", n, n, got, want)
		}
	}
	if got := minRuns(); got != 4 {
		t.Errorf("minRuns() = %d, want 4", got)
	}
}

// TestGroupNeededRuns checks the power estimate against Cohen's tables
// (Statistical Power Analysis, 1988, table 2.4.1: a two-sample t-test at
// 0.05 two-sided, power 0.80) scaled by the U test's efficiency: an effect
// of one standard deviation needs 17 per group by the t-test's table
// (normal approximation 15.7, over 3/pi 16.4: 17); half a standard
// deviation 64 (normal 62.8, over 3/pi 65.8: 66); a huge effect is held at
// the 4 runs the test needs at all; no difference needs nothing.
func TestGroupNeededRuns(t *testing.T) {
	side := func(median, sd float64) *GroupStats { return &GroupStats{Median: median, SD: sd} }
	for _, tc := range []struct {
		name string
		a, b *GroupStats
		want int // 0: nil
	}{
		{"d = 1 sd", side(10, 2), side(12, 2), 17},
		{"d = 0.5 sd", side(10, 2), side(11, 2), 66},
		{"d = 10 sd", side(10, 0.1), side(11, 0.1), 4},
		{"no spread", side(10, 0), side(11, 0), 4},
		{"no difference", side(10, 2), side(10, 3), 0},
		// 4 runs of sd 2 against 5 of sd 4: pooled variance
		// (3*4 + 4*16)/7 = 10.857 (the unweighted mean would be 10);
		// d = 3: 2 * 7.849 * 10.857 / 9 / (3/pi) = 19.8, so 20 (the
		// unweighted mean gave 19).
		{"unequal sides", &GroupStats{Values: make([]float64, 4), Median: 10, SD: 2}, &GroupStats{Values: make([]float64, 5), Median: 13, SD: 4}, 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := neededRuns(tc.a, tc.b)
			switch {
			case tc.want == 0 && got != nil:
				t.Errorf("needed %d, want none", *got)
			case tc.want != 0 && (got == nil || *got != tc.want):
				t.Errorf("needed %v, want %d", got, tc.want)
			}
		})
	}
}

// TestCompareFlagValues orders a flag's values in flags_differ by value
// (issue 34, item 6): 2s before 20s, 9 before 10, text as text.
func TestCompareFlagValues(t *testing.T) {
	for _, tc := range []struct {
		in, want []string
	}{
		{[]string{"20s", "2s"}, []string{"2s", "20s"}},
		{[]string{"2m", "90s", "500ms"}, []string{"500ms", "90s", "2m"}},
		{[]string{"10", "9", "0.5"}, []string{"0.5", "9", "10"}},
		{[]string{"b", "a", "10", "9"}, []string{"9", "10", "a", "b"}},
	} {
		got := slices.Clone(tc.in)
		slices.SortFunc(got, compareFlagValues)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%v sorted: %v, want %v", tc.in, got, tc.want)
		}
	}
}
