package output

import (
	"sort"

	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/workload"
)

// WorkloadSeries is one of a workload's series over a run, made of the
// records its run log keeps (run.RecordEvent events, described by
// workload.SeriesRecorder: churn's database size and live tables every
// 5 s). At is each point's time in seconds since the run's start, as the
// telemetry's; a running total's rate (SeriesSpec.Rate) has its first
// point at the second reading.
type WorkloadSeries struct {
	Run    string    `json:"run"`
	Name   string    `json:"name"`
	Unit   string    `json:"unit"`
	At     []float64 `json:"at_s"`
	Values []float64 `json:"values"`
}

// WorkloadSeriesOf returns the workload series of each of runs, in the
// order its workload gives them; none for a workload that has none (not
// a workload.SeriesRecorder, or not one of this stampede's). They cover
// the whole run whatever the report's window: the readings are few.
func WorkloadSeriesOf(runs []*runlog.Run) []WorkloadSeries {
	var out []WorkloadSeries
	for _, r := range runs {
		meta, ok := workload.Get(r.Info.Workload)
		if !ok {
			continue
		}
		sr, ok := meta.New().(workload.SeriesRecorder)
		if !ok {
			continue
		}
		specs := sr.RecordSeries()
		type point struct{ at, v float64 }
		byName := map[string][]point{}
		for _, s := range specs {
			byName[s.Record] = nil
		}
		events, _ := r.Events() // a truncated log's complete lines still count
		for _, e := range events {
			if _, ok := byName[e.Op]; ok && e.Kind == run.RecordEvent {
				byName[e.Op] = append(byName[e.Op], point{e.Time.Sub(r.Info.Start).Seconds(), e.Value})
			}
		}
		for _, s := range specs {
			ps := byName[s.Record]
			if len(ps) == 0 {
				continue
			}
			sort.SliceStable(ps, func(i, j int) bool { return ps[i].at < ps[j].at })
			ws := WorkloadSeries{Run: r.Info.ID, Name: s.Name, Unit: s.Unit, At: []float64{}, Values: []float64{}}
			for i, p := range ps {
				if !s.Rate {
					ws.At, ws.Values = append(ws.At, p.at), append(ws.Values, p.v)
					continue
				}
				if i == 0 || p.at <= ps[i-1].at {
					continue // a rate needs the reading before, some time earlier
				}
				ws.At = append(ws.At, p.at)
				ws.Values = append(ws.Values, (p.v-ps[i-1].v)/(p.at-ps[i-1].at))
			}
			if len(ws.At) > 0 {
				out = append(out, ws)
			}
		}
	}
	return out
}
