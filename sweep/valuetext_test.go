package sweep

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/limit"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/stats"
)

// TestParamText: a step's value prints as the user writes it: a limit
// flag's none for 0, a size with its unit (and the text reads back as the
// same bytes), any other flag's number as it is.
func TestParamText(t *testing.T) {
	for _, tc := range []struct {
		p    Param
		v    float64
		want string
	}{
		{"memory", 5 << 20, "5M"},
		{"memory", 1 << 30, "1G"},
		{"memory", 1536 << 20, "1.5G"},
		{"memory", 0, "none"},
		{"io-write-bps", 1000, "1000"},
		{"io-read-bps", 1536, "1.5K"},
		{"io-read-bps", 5<<20 + 1, "5242881"},
		{"cpus", 0, "none"},
		{"cpus", 0.5, "0.5"},
		{"io-write-iops", 0, "none"},
		{"io-write-iops", 300, "300"},
		{"conns", 8, "8"},
		{MaxRate, 1500.5, "1500.5"},
	} {
		got := tc.p.Text(tc.v)
		if got != tc.want {
			t.Errorf("--%s %v: %q, want %q", tc.p, tc.v, got, tc.want)
		}
		if tc.p.Size() && tc.v > 0 {
			if back, err := limit.ParseSize(got); err != nil || float64(back) != tc.v {
				t.Errorf("--%s %q reads back as %d, %v; want %v", tc.p, got, back, err, tc.v)
			}
		}
	}
}

// TestNoneRecorded: a limit's step without the limit records none as the
// flag's value in its run (compare's "flags that differ" said --cpus
// (A 0.25, B 0)), the limited steps their numbers.
func TestNoneRecorded(t *testing.T) {
	var got []string
	spec := Spec{ID: "S", Param: "cpus", Values: Values{List: []float64{0.25, NoneValue}, Lo: 0, Hi: 0.25},
		Build: func(v, w float64) (run.Spec, error) { return run.Spec{}, nil },
		Exec: func(ctx context.Context, s run.Spec) (*run.Result, error) {
			got = append(got, s.Flags["cpus"])
			r := &run.Result{}
			r.Summary.Status = "completed"
			r.Summary.Total = stats.Summary{Count: 1, Rate: 1}
			return r, nil
		}}
	if _, err := Run(context.Background(), spec); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{"0.25", "none"}) {
		t.Errorf("the steps recorded --cpus %q, want 0.25 and none", got)
	}
}

// TestNoneOrder: a limit flag's none (no limit, the most resources a step
// can have; NoneValue, 0) orders after every number wherever a sweep's
// values are ordered: Compare and Less, a list's ascent, a chart's axis
// (none at its right end), the points and the answer (the highest value
// met below the lowest missed). Any other flag orders its numbers alone.
func TestNoneOrder(t *testing.T) {
	for _, tc := range []struct {
		p          Param
		vals       []float64 // a list, as given
		sorted     []float64 // ordered by Compare
		ascending  bool      // a heavier load step by step (Values.Ascending)
		noneAt     float64   // Axis's place of none (0: no none)
		met        map[float64]bool
		best, miss float64 // -1: nil
	}{
		{p: "cpus", vals: []float64{0.5, 1, NoneValue}, sorted: []float64{0.5, 1, NoneValue}, noneAt: 1.25,
			met: map[float64]bool{0.5: true, 1: true, NoneValue: true}, best: 0.5, miss: -1},
		{p: "cpus", vals: []float64{NoneValue, 1, 0.5}, sorted: []float64{0.5, 1, NoneValue}, ascending: true, noneAt: 1.25,
			met: map[float64]bool{NoneValue: true}, best: NoneValue, miss: 1},
		{p: "cpus", vals: []float64{NoneValue, 0.5, 1}, sorted: []float64{0.5, 1, NoneValue}, noneAt: 1.25,
			met: map[float64]bool{0.5: false, 1: true, NoneValue: true}, best: 1, miss: 0.5},
		{p: "io-write-bps", vals: []float64{NoneValue, 5 << 20, 20 << 20}, sorted: []float64{5 << 20, 20 << 20, NoneValue}, noneAt: 25 << 20,
			met: map[float64]bool{5 << 20: true, 20 << 20: false, NoneValue: false}, best: -1, miss: NoneValue},
		{p: "memory", vals: []float64{1 << 30, NoneValue}, sorted: []float64{1 << 30, NoneValue}, noneAt: 1.25 * (1 << 30),
			met: map[float64]bool{1 << 30: false, NoneValue: true}, best: NoneValue, miss: 1 << 30},
		{p: "io-read-iops", vals: []float64{NoneValue}, sorted: []float64{NoneValue}, ascending: true, noneAt: 1,
			met: map[float64]bool{NoneValue: true}, best: NoneValue, miss: -1},
		{p: "conns", vals: []float64{8, 2, 4}, sorted: []float64{2, 4, 8},
			met: map[float64]bool{2: true, 4: true, 8: false}, best: 4, miss: 8},
	} {
		var texts []string
		for _, v := range tc.vals {
			texts = append(texts, tc.p.Text(v))
		}
		t.Run(fmt.Sprintf("--%s %s", tc.p, strings.Join(texts, ",")), func(t *testing.T) {
			got := slices.Clone(tc.vals)
			slices.SortFunc(got, tc.p.Compare)
			if !slices.Equal(got, tc.sorted) {
				t.Errorf("sorted %v, want %v", got, tc.sorted)
			}
			for i := range tc.sorted {
				for j := range tc.sorted {
					if tc.p.Less(tc.sorted[i], tc.sorted[j]) != (i < j) {
						t.Errorf("Less(%v, %v) = %v", tc.sorted[i], tc.sorted[j], !(i < j))
					}
				}
			}
			if a := (Values{List: tc.vals}).Ascending(tc.p); a != tc.ascending {
				t.Errorf("Ascending: %v, want %v", a, tc.ascending)
			}
			x, at := tc.p.Axis(tc.vals)
			if at != tc.noneAt {
				t.Errorf("none at %v on the axis, want %v", at, tc.noneAt)
			}
			for _, v := range tc.vals {
				want := v
				if tc.p.None(v) {
					want = tc.noneAt
				}
				if x(v) != want {
					t.Errorf("%s drawn at %v, want %v", tc.p.Text(v), x(v), want)
				}
			}
			// The steps in the order given, each judged; the points come
			// in the order, the answer from it.
			slo, err := ParseSLO("p99<=5ms")
			if err != nil {
				t.Fatal(err)
			}
			res := &Result{Param: tc.p, SLO: slo}
			for i, v := range tc.vals {
				p99 := 1.0
				if !tc.met[v] {
					p99 = 10
				}
				res.Steps = append(res.Steps, Step{N: i + 1, Value: v, Rep: 1, Status: "completed", Total: stats.Summary{Count: 10, Rate: 10, P99: p99}})
			}
			res.Judge()
			var order []float64
			for _, p := range res.Points {
				order = append(order, p.Value)
			}
			if !slices.Equal(order, tc.sorted) {
				t.Errorf("points %v, want %v", order, tc.sorted)
			}
			value := func(st *Step) float64 {
				if st == nil {
					return -1
				}
				return st.Value
			}
			if value(res.Best) != tc.best || value(res.Miss) != tc.miss {
				t.Errorf("best %v miss %v, want %v %v; %s", value(res.Best), value(res.Miss), tc.best, tc.miss, res.Conclusion())
			}
			// An answer of none is the most there is: no higher limit.
			if c := res.Conclusion(); tc.best == NoneValue && tc.p.TakesNone() && (!strings.Contains(c, ": none (step") || strings.Contains(c, "the limit is higher")) {
				t.Errorf("the answer none concluded as %q", c)
			}
		})
	}
}

// TestNoneOrderGrid: a grid of two limit flags with none orders its
// points by the first flag's values, then the second's, none after the
// numbers of each, and its rows (the answer per value of the first) so.
func TestNoneOrderGrid(t *testing.T) {
	res := &Result{Param: "cpus", Param2: "io-write-bps"}
	n := 0
	for _, v := range []float64{NoneValue, 1} {
		for _, w := range []float64{NoneValue, 5 << 20} {
			n++
			res.Steps = append(res.Steps, Step{N: n, Value: v, Value2: w, Rep: 1, Status: "completed", Total: stats.Summary{Count: 10, Rate: float64(n)}})
		}
	}
	res.Judge()
	var got, rows []string
	for _, p := range res.Points {
		got = append(got, res.Param.Text(p.Value)+"/"+res.Param2.Text(p.Value2))
	}
	for _, r := range res.Rows {
		rows = append(rows, res.Param.Text(r.Value))
	}
	if want := []string{"1/5M", "1/none", "none/5M", "none/none"}; !slices.Equal(got, want) {
		t.Errorf("points %v, want %v", got, want)
	}
	if want := []string{"1", "none"}; !slices.Equal(rows, want) {
		t.Errorf("rows %v, want %v", rows, want)
	}
}
