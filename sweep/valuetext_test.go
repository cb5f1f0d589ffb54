package sweep

import (
	"context"
	"slices"
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
