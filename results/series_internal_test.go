package results

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
)

// TestTimeSeriesSameAsReference checks the streamed time series (one
// interval at a time, a second read for the short intervals merged into
// their neighbours) against the former computation over every interval's
// histograms held at once, kept here: runs of random latencies with short
// first and last intervals, series missing from some intervals, parts by
// endpoint merged by locality, and a run cut short.
func TestTimeSeriesSameAsReference(t *testing.T) {
	r := rand.New(rand.NewPCG(30, 31))
	start := time.Date(2026, 11, 22, 10, 35, 12, 0, time.UTC)
	series := []string{"read", "update", "read@a:1", "read@b:1", "read@c:1"}
	for round := range 12 {
		info := runlog.RunInfo{FormatVersion: runlog.FormatVersion, ID: fmt.Sprintf("20261122-103512-ts-%04d", round), Workload: "ts",
			Series: series, Start: start, StampedeVersion: "test"}
		w, err := runlog.Create(t.TempDir(), info)
		if err != nil {
			t.Fatal(err)
		}
		w.Event(runlog.Event{Time: start, Kind: EndpointEvent, Code: EndpointAdded, Op: "a:1", Message: "east"})
		w.Event(runlog.Event{Time: start, Kind: EndpointEvent, Code: EndpointAdded, Op: "b:1", Message: "east"})
		n := 3 + r.IntN(10)
		at := start
		for i := range n {
			length := time.Second
			if (i == 0 && r.IntN(2) == 0) || (i == n-1 && r.IntN(3) > 0) || r.IntN(8) == 0 {
				length = time.Duration(1+r.IntN(300)) * time.Millisecond // short
			}
			var ss []runlog.IntervalSeries
			for _, name := range series {
				if r.IntN(5) == 0 {
					continue
				}
				h := stats.NewHistogram()
				for range r.IntN(400) {
					_ = h.RecordValue(stats.Clamp(time.Duration(r.ExpFloat64() * float64(time.Millisecond) * float64(1+r.IntN(20)))))
				}
				ss = append(ss, runlog.IntervalSeries{Name: name, Hist: h, Count: h.TotalCount(), Errors: r.Int64N(3)})
			}
			if err := w.WriteInterval(at, at.Add(length), ss, nil); err != nil {
				t.Fatal(err)
			}
			at = at.Add(length)
		}
		if err := w.Finish(at, runlog.StatusCompleted, "", nil); err != nil {
			t.Fatal(err)
		}
		run, err := runlog.Open(w.Dir())
		if err != nil {
			t.Fatal(err)
		}
		for _, by := range []string{"", "locality"} {
			got, err := TimeSeriesBy(run, by)
			if err != nil {
				t.Fatal(err)
			}
			rename := (func(string) (string, bool))(nil)
			if by == "locality" {
				locs := Localities(run)
				rename = func(name string) (string, bool) {
					op, ep, ok := SplitName(name)
					if !ok {
						return name, true
					}
					return op + SplitSep + locs[ep], locs[ep] != ""
				}
			}
			want, err := timeSeriesReference(run, rename)
			if err != nil {
				t.Fatal(err)
			}
			got.Telemetry = nil
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("round %d, by %q:\n got %+v\nwant %+v", round, by, got, want)
			}
			if by == "locality" && !slices.ContainsFunc(got.Endpoints, func(op OpSeries) bool { return op.Name == "read@east" }) {
				t.Fatalf("round %d: no read@east among %+v", round, got.Endpoints)
			}
		}
	}
}

// timeSeriesReference is timeSeries as it was before it streamed the
// intervals (without telemetry).
func timeSeriesReference(run *runlog.Run, rename func(string) (string, bool)) (Series, error) {
	start := run.Info.Start
	s := Series{ID: run.Info.ID, Workload: run.Info.Workload, Start: start, Tags: run.Info.Tags}
	warn := func(err error) { s.Warnings = append(s.Warnings, fmt.Sprintf("run %s: %v", run.Info.ID, err)) }
	if t, ok := RampEnd(run, warn); ok {
		s.RampEnd = t.Sub(start).Seconds()
	}
	ivs, err := run.Intervals()
	var trunc *runlog.TruncatedError
	if errors.As(err, &trunc) {
		warn(trunc)
	} else if err != nil {
		return Series{}, err
	}

	var names []string
	index := map[string]int{}
	sources := map[string][]string{} // the run's series of each output series
	addName := func(src string) {
		n, keep := src, true
		if rename != nil {
			n, keep = rename(src)
		}
		if !keep || slices.Contains(sources[n], src) {
			return
		}
		if _, ok := index[n]; !ok {
			index[n] = len(names)
			names = append(names, n)
		}
		sources[n] = append(sources[n], src)
	}
	for _, n := range run.Info.Series {
		addName(n)
	}
	for i := range ivs {
		for _, n := range sortedKeys(ivs[i].Series) {
			addName(n)
		}
	}
	lens := make([]time.Duration, len(ivs))
	for k, iv := range ivs {
		lens[k] = iv.End.Sub(iv.Start)
	}
	groups := mergeShort(lens)
	ops := make([]OpSeries, len(names))
	used := make([]bool, len(names))
	for i, n := range names {
		ops[i] = OpSeries{Name: n, Points: make([]OpPoint, len(groups))}
	}
	for k, g := range groups {
		first, last := &ivs[g[0]], &ivs[g[len(g)-1]]
		span := Span{From: first.Start.Sub(start).Seconds(), To: last.End.Sub(start).Seconds()}
		for i, n := range names {
			var ds []*runlog.IntervalData
			for _, j := range g {
				for _, src := range sources[n] {
					if d := ivs[j].Series[src]; d != nil {
						ds = append(ds, d)
					}
				}
			}
			p := opPoint(span, last.End.Sub(first.Start).Seconds(), ds)
			if p.Count > 0 || p.Errors > 0 {
				used[i] = true
			}
			ops[i].Points[k] = p
		}
	}
	for i, op := range ops {
		switch {
		case !used[i]:
		case IsSplit(op.Name):
			s.Endpoints = append(s.Endpoints, op)
		case IsOp(op.Name):
			s.Ops = append(s.Ops, op)
		}
	}

	return s, nil
}
