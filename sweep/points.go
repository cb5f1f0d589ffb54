package sweep

import (
	"fmt"
	"slices"

	"github.com/stampede-bench/stampede/stats"
)

// Point is one value of a sweep with its runs (Spec.Repeat): the medians
// it is judged on and the spread of its throughput and p99.
type Point struct {
	Value float64
	// Value2 is the second setting's value in a grid (0: none).
	Value2 float64
	// Spread is Value's runs and the spread of their figures.
	Spread
	// Median is a step of Value's medians: each figure of Total, Target
	// and Figures the median over the completed runs (the only run's own
	// when there is one), judged on them. Over several runs it names
	// them all (Step.Of, Step.RunIDs) and no one run: its N, RunID, Dir
	// and Telemetry are unset.
	Median Step
	// Judged and Met: the median's verdict (Median.Judged, Median.Met).
	Judged, Met bool
	// done are the steps of Runs that completed: the runs counted.
	done []int
}

// Spread is a value's runs and the spread of their throughput and p99,
// under the JSON names that `stampede sweep --format json` (its
// sweep_result's points) and the dashboard's sweep page both give them.
type Spread struct {
	// Runs are the steps (Step.N) run at the value, in order, whether
	// they completed or not.
	Runs []int `json:"runs"`
	// Completed counts the runs that completed, MetRuns those that met
	// the SLO on their own: a value's figures, verdict and counts are
	// over its completed runs only.
	Completed int `json:"completed"`
	MetRuns   int `json:"met_runs"`
	// Interrupted are the steps of Runs that were interrupted (Ctrl-C):
	// not counted, but the value is marked as one of them was.
	Interrupted []int `json:"interrupted,omitempty"`
	// RateMin, RateMax, P99Min and P99Max are the spread over the
	// completed runs.
	RateMin float64 `json:"ops_per_sec_min"`
	RateMax float64 `json:"ops_per_sec_max"`
	P99Min  float64 `json:"p99_ms_min"`
	P99Max  float64 `json:"p99_ms_max"`
}

// step returns p's median as a step (a copy): Result's Best, Miss, Peak.
func (p *Point) step() *Step {
	st := p.Median
	return &st
}

// Which names the runs st's figures are from: "step 4", or for a
// value's medians over several runs "median of 3 runs (steps 2, 4, 6)".
func (st *Step) Which() string {
	if len(st.Of) == 0 {
		return fmt.Sprintf("step %d", st.N)
	}
	return fmt.Sprintf("median of %d runs (%s)", len(st.Of), stepList(st.Of))
}

// runs says how many runs the point's verdict is over (" (median of 3
// runs)"), "" for one.
func (p *Point) runs() string {
	if p.Completed < 2 {
		return ""
	}
	return fmt.Sprintf(" (median of %d runs)", p.Completed)
}

// points groups steps by value, lowest first in the order of p (Value)
// and p2 (Value2; none, no limit, after every number), and judges each
// value on its medians under slo.
func points(steps []Step, slo SLO, p1, p2 Param) []Point {
	type key [2]float64 // Value, Value2
	byValue := map[key]*Point{}
	var order []key
	group := map[key][]Step{}
	for _, st := range steps {
		k := key{st.Value, st.Value2}
		if byValue[k] == nil {
			byValue[k] = &Point{Value: st.Value, Value2: st.Value2}
			order = append(order, k)
		}
		p := byValue[k]
		p.Runs = append(p.Runs, st.N)
		group[k] = append(group[k], st)
	}
	slices.SortFunc(order, func(a, b key) int {
		if c := p1.Compare(a[0], b[0]); c != 0 {
			return c
		}
		return p2.Compare(a[1], b[1])
	})
	out := make([]Point, 0, len(order))
	for _, v := range order {
		p := byValue[v]
		runs := group[v]
		var done []Step
		for _, st := range runs {
			switch st.Status {
			case "completed":
				done = append(done, st)
				p.done = append(p.done, st.N)
				if st.Judged && st.Met {
					p.MetRuns++
				}
			case "interrupted":
				p.Interrupted = append(p.Interrupted, st.N)
			}
		}
		p.Completed = len(done)
		switch {
		case len(done) == 1:
			p.Median = done[0] // the only completed run's own, as judged
		case len(runs) == 1:
			p.Median = runs[0]
		default:
			p.Median = medianStep(runs, done)
			if len(slo.Terms) > 0 && len(done) > 0 {
				p.Median.Judged, p.Median.Met, p.Median.Why = slo.Verdict(Measure{Total: p.Median.Total, Target: p.Median.Target, Figures: p.Median.Figures, Ops: p.Median.Ops})
				if p.Median.Judged && !p.Median.Met {
					p.Median.Why = fmt.Sprintf("median of %d runs: %s", len(done), p.Median.Why)
				}
			}
		}
		p.Judged, p.Met = p.Median.Judged, p.Median.Met
		for i, st := range done {
			if i == 0 || st.Total.Rate < p.RateMin {
				p.RateMin = st.Total.Rate
			}
			if i == 0 || st.Total.Rate > p.RateMax {
				p.RateMax = st.Total.Rate
			}
			if i == 0 || st.Total.P99 < p.P99Min {
				p.P99Min = st.Total.P99
			}
			if i == 0 || st.Total.P99 > p.P99Max {
				p.P99Max = st.Total.P99
			}
		}
		out = append(out, *p)
	}
	return out
}

// medianStep is the step of runs' medians over the completed ones (done);
// its status is "completed" when any run completed, else the first run's.
func medianStep(runs, done []Step) Step {
	st := runs[0]
	st.Rep, st.Judged, st.Met, st.Why = 0, false, false, ""
	if len(done) == 0 {
		return st
	}
	// No one run has these figures: the step names them all.
	st.N, st.RunID, st.Dir, st.Telemetry, st.Reloaded, st.Kept = 0, "", "", nil, false, ""
	for _, d := range done {
		st.Of, st.RunIDs = append(st.Of, d.N), append(st.RunIDs, d.RunID)
	}
	st.Status = "completed"
	med := func(f func(Step) float64) float64 {
		xs := make([]float64, len(done))
		for i, d := range done {
			xs[i] = f(d)
		}
		return Median(xs)
	}
	st.Total = stats.Summary{
		Count:   int64(med(func(s Step) float64 { return float64(s.Total.Count) })),
		Errors:  int64(med(func(s Step) float64 { return float64(s.Total.Errors) })),
		Seconds: med(func(s Step) float64 { return s.Total.Seconds }),
		Rate:    med(func(s Step) float64 { return s.Total.Rate }),
		Mean:    med(func(s Step) float64 { return s.Total.Mean }),
		Min:     med(func(s Step) float64 { return s.Total.Min }),
		P50:     med(func(s Step) float64 { return s.Total.P50 }),
		P90:     med(func(s Step) float64 { return s.Total.P90 }),
		P95:     med(func(s Step) float64 { return s.Total.P95 }),
		P99:     med(func(s Step) float64 { return s.Total.P99 }),
		P999:    med(func(s Step) float64 { return s.Total.P999 }),
		Max:     med(func(s Step) float64 { return s.Total.Max }),
		Stdev:   med(func(s Step) float64 { return s.Total.Stdev }),
	}
	st.Target = med(func(s Step) float64 { return s.Target })
	st.CPULimit = medianBound(done)
	for _, d := range done {
		if d.NotLimited != "" {
			st.NotLimited = d.NotLimited // a run that limited nothing says so on the value
			break
		}
	}
	st.Workers = int(med(func(s Step) float64 { return float64(s.Workers) }))
	// Every operation and figure any completed run has: a latency's median
	// is over the runs that did the operation (a run without it has no
	// latency, not one of 0), a count's over all (a run without it did 0).
	st.Ops = nil
	for _, d := range done {
		for k := range d.Ops {
			if _, ok := st.Ops[k]; ok {
				continue
			}
			if st.Ops == nil {
				st.Ops = map[string]stats.Summary{}
			}
			var with []Step
			for _, e := range done {
				if e.Ops[k].Count > 0 {
					with = append(with, e)
				}
			}
			if len(with) == 0 {
				with = done
			}
			lat := func(f func(stats.Summary) float64) float64 {
				xs := make([]float64, len(with))
				for i, e := range with {
					xs[i] = f(e.Ops[k])
				}
				return Median(xs)
			}
			st.Ops[k] = stats.Summary{Count: int64(med(func(s Step) float64 { return float64(s.Ops[k].Count) })),
				P50: lat(func(o stats.Summary) float64 { return o.P50 }), P90: lat(func(o stats.Summary) float64 { return o.P90 }),
				P95: lat(func(o stats.Summary) float64 { return o.P95 }), P99: lat(func(o stats.Summary) float64 { return o.P99 }),
				P999: lat(func(o stats.Summary) float64 { return o.P999 }), Max: lat(func(o stats.Summary) float64 { return o.Max }),
				Mean: lat(func(o stats.Summary) float64 { return o.Mean })}
		}
	}
	st.Figures = nil
	for _, d := range done {
		for k := range d.Figures {
			if _, ok := st.Figures[k]; ok {
				continue
			}
			if st.Figures == nil {
				st.Figures = map[string]float64{}
			}
			var xs []float64
			for _, e := range done {
				if v, ok := e.Figures[k]; ok {
					xs = append(xs, v)
				}
			}
			st.Figures[k] = Median(xs)
		}
	}
	return st
}

// Median is the median of xs (the mean of the middle two for an even
// count); 0 for none. xs is not changed.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// undecided are the values, lightest load first, whose completed runs
// the SLO could not judge (SLO.Verdict: no operations a term the user
// wrote bounds, no New-Orders for an efficiency): neither met nor
// missed, so that no answer rests on them.
func (res *Result) undecided() []*Point {
	var out []*Point
	for i := range res.Points {
		if p := &res.Points[i]; len(res.SLO.Terms) > 0 && p.Median.Status == "completed" && !p.Judged {
			out = append(out, p)
		}
	}
	return out
}

// notJudged says why value p was not judged and what would judge it:
// for an efficiency without New-Orders, the --duration that counts
// enough of them (SLO.NewOrdersNeeded).
func (res *Result) notJudged(p *Point) string {
	st := &p.Median
	s := fmt.Sprintf("%s %s (%s) was not judged: %s", res.Param.Flag(), res.Param.Text(p.Value), res.cite(st), st.Why)
	if need := res.SLO.NewOrdersNeeded(Measure{Total: st.Total, Ops: st.Ops, Figures: st.Figures}, st.Workers); need != "" {
		return s + "; " + need
	}
	return s + "; no answer rests on it: a longer --duration draws operations of each kind its SLO bounds"
}

// Figure is the workload's figure name of st (Figures) when it has a
// basis: TPC-C's efficiency from no New-Orders has none (0 would read as
// a measured 0%), as a run without waits has no efficiency.
func (st *Step) Figure(name string) (float64, bool) {
	v, ok := st.Figures[name]
	if name == "efficiency" && NoNewOrders(Measure{Total: st.Total, Ops: st.Ops, Figures: st.Figures}) {
		return 0, false
	}
	return v, ok
}

// everyMet says that every value met the SLO: "every step met it", or,
// when some of their runs missed (--repeat), that each value met it on
// the median of its runs and how many runs missed, so that a reader who
// sees a missed run in the table is not told none did.
func (res *Result) everyMet() string {
	missed, runs := 0, 0
	for _, st := range res.Steps {
		if st.Status == "completed" {
			runs++
			if st.Judged && !st.Met {
				missed++
			}
		}
	}
	if missed == 0 {
		return "every step met it"
	}
	return fmt.Sprintf("every value met it on the median of its repetitions (%d of %d repetitions missed)", missed, runs)
}

// BasedFigures are st's figures that have a basis (Figure): a copy of
// Figures without an efficiency from no New-Orders; nil for none.
func (st *Step) BasedFigures() map[string]float64 {
	var out map[string]float64
	for k := range st.Figures {
		if v, ok := st.Figure(k); ok {
			if out == nil {
				out = map[string]float64{}
			}
			out[k] = v
		}
	}
	return out
}
