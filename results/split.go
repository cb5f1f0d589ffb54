package results

import (
	"strings"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
)

// SplitSep separates an operation from its endpoint in the name of the
// series of the operations one endpoint served (a part of the operation's
// series, which counts them too): read@10.0.0.5:26257. A run records such
// series when its figures are split by endpoint or locality (--by-endpoint,
// --by-locality); the operation's own series holds every operation once,
// so parts never count in totals.
const SplitSep = "@"

// SplitName returns the operation and the endpoint of a part series
// (read@10.0.0.5:26257); ok is false for other series.
func SplitName(series string) (op, endpoint string, ok bool) {
	op, endpoint, ok = strings.Cut(series, SplitSep)
	return op, endpoint, ok && op != "" && endpoint != ""
}

// IsSplit reports whether a series is the part of an operation's series
// that one endpoint served (see SplitSep).
func IsSplit(series string) bool {
	_, _, ok := SplitName(series)
	return ok
}

// Events of the run log that describe a run's endpoints: kind EndpointEvent,
// Op the endpoint's name (as in part series), Message its locality, Code
// one of the EndpointAdded, EndpointRemoved and EndpointDown codes.
const (
	EndpointEvent   = "endpoint"
	EndpointAdded   = "added"
	EndpointRemoved = "removed"
	EndpointDown    = "down"
)

// Localities returns the locality of each endpoint of run that has one,
// from the endpoint events of its events log; nil when none has.
func Localities(run *runlog.Run) map[string]string {
	events, _ := run.Events()
	var m map[string]string
	for _, e := range events {
		if e.Kind != EndpointEvent || e.Code != EndpointAdded || e.Message == "" {
			continue
		}
		if m == nil {
			m = map[string]string{}
		}
		m[e.Op] = e.Message
	}
	return m
}

// splitViews computes the figures of part series by endpoint and by
// locality (endpoints without a locality count under "" and are left out
// of the localities), in order of first appearance.
func splitViews(order []string, series map[string]*acc, localities map[string]string, d time.Duration) (byEndpoint, byLocality []OpView) {
	type group struct {
		name string
		hist *hdrhistogram.Histogram
		errs int64
	}
	var locs []*group
	index := map[string]*group{}
	for _, name := range order {
		op, ep, ok := SplitName(name)
		if !ok {
			continue
		}
		a := series[name]
		if a.hist.TotalCount() == 0 && a.errors == 0 {
			continue
		}
		byEndpoint = append(byEndpoint, OpView{Name: name, Summary: stats.Summarize(a.hist, a.errors, d)})
		loc := localities[ep]
		if loc == "" {
			continue
		}
		key := op + SplitSep + loc
		g := index[key]
		if g == nil {
			g = &group{name: key, hist: stats.NewHistogram()}
			index[key] = g
			locs = append(locs, g)
		}
		stats.Merge(g.hist, a.hist)
		g.errs += a.errors
	}
	for _, g := range locs {
		byLocality = append(byLocality, OpView{Name: g.name, Summary: stats.Summarize(g.hist, g.errs, d)})
	}
	return byEndpoint, byLocality
}
