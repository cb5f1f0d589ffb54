package results

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/stampede-bench/stampede/runlog"
)

// seriesVersion is the version of series.ndjson's layout; a file of
// another version is ignored (the run is streamed).
const seriesVersion = 1

// seriesHeader is series.ndjson's first line: the sizes of the files the
// series were computed from (see totalsDoc), the ramp-up's end and the
// names of the series of each following line's points, Ops' then
// Endpoints'.
type seriesHeader struct {
	Version        int      `json:"version"`
	HlogBytes      int64    `json:"hlog_bytes"`
	IntervalsBytes int64    `json:"intervals_bytes"`
	RampEnd        float64  `json:"ramp_end_s"`
	Points         int      `json:"points"`
	Ops            []string `json:"ops"`
	Endpoints      []string `json:"endpoints"`
}

// seriesLine is one line after the header: each series' point over one
// interval (short ones merged, see Series), in columns: the span, then
// one element per series of each figure of OpPoint.
type seriesLine struct {
	From   float64   `json:"from_s"`
	To     float64   `json:"to_s"`
	Count  []int64   `json:"count"`
	Errors []int64   `json:"errors"`
	Rate   []float64 `json:"ops_per_sec"`
	P50    []float64 `json:"p50_ms"`
	P95    []float64 `json:"p95_ms"`
	P99    []float64 `json:"p99_ms"`
	Max    []float64 `json:"max_ms"`
}

// points returns l's points, or false if its columns are not all n long.
func (l *seriesLine) points(n int) ([]OpPoint, bool) {
	for _, c := range []int{len(l.Count), len(l.Errors), len(l.Rate), len(l.P50), len(l.P95), len(l.P99), len(l.Max)} {
		if c != n {
			return nil, false
		}
	}
	out := make([]OpPoint, n)
	for i := range out {
		out[i] = OpPoint{Span: Span{From: l.From, To: l.To}, Count: l.Count[i], Errors: l.Errors[i], Rate: l.Rate[i],
			P50: l.P50[i], P95: l.P95[i], P99: l.P99[i], Max: l.Max[i]}
	}
	return out, true
}

// errNoSeries means a run has no series.ndjson.
var errNoSeries = errors.New("no " + runlog.SeriesFile)

// loadSeries returns the Ops, Endpoints and RampEnd of run's TimeSeries
// from its series.ndjson. It fails if the run is not completed, has no
// file, or the file is damaged, of another version or disagrees with the
// run (its files' sizes, its ramp-up's end, a line of another shape, a
// span out of order): the caller streams the run instead.
func loadSeries(run *runlog.Run) (Series, error) {
	if run.Info.Status != runlog.StatusCompleted {
		return Series{}, errNoSeries
	}
	f, err := os.Open(filepath.Join(run.Dir, runlog.SeriesFile))
	if err != nil {
		return Series{}, errNoSeries
	}
	defer f.Close()
	bad := func(format string, args ...any) (Series, error) {
		return Series{}, fmt.Errorf("%s: "+format, append([]any{runlog.SeriesFile}, args...)...)
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	if !sc.Scan() {
		return bad("empty")
	}
	var h seriesHeader
	if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
		return bad("line 1: %v", err)
	}
	if h.Version != seriesVersion {
		return bad("version %d, not %d", h.Version, seriesVersion)
	}
	hlogBytes, ivlBytes, err := fileSizes(run.Dir)
	if err != nil {
		return Series{}, err
	}
	if hlogBytes != h.HlogBytes || ivlBytes != h.IntervalsBytes {
		return bad("made from other files (%d/%d bytes, not %d/%d)", h.HlogBytes, h.IntervalsBytes, hlogBytes, ivlBytes)
	}
	s := Series{ID: run.Info.ID, Workload: run.Info.Workload, Start: run.Info.Start, Tags: run.Info.Tags}
	if t, ok := RampEnd(run, nil); ok {
		s.RampEnd = t.Sub(run.Info.Start).Seconds()
	}
	if s.RampEnd != h.RampEnd {
		return bad("ramp-up end %gs, the run's is %gs", h.RampEnd, s.RampEnd)
	}
	n := len(h.Ops) + len(h.Endpoints)
	if h.Points < 0 || (n == 0) != (h.Points == 0) {
		return bad("%d points of %d series", h.Points, n)
	}
	all := make([]OpSeries, n)
	for i, name := range append(append([]string{}, h.Ops...), h.Endpoints...) {
		all[i] = OpSeries{Name: name, Points: make([]OpPoint, 0, h.Points)}
	}
	var prev float64
	for k := range h.Points {
		if !sc.Scan() {
			return bad("%d points, %d announced", k, h.Points)
		}
		var line seriesLine
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			return bad("line %d: %v", k+2, err)
		}
		pts, ok := line.points(n)
		if !ok {
			return bad("line %d: not %d points", k+2, n)
		}
		if line.To <= line.From || line.From < prev {
			return bad("line %d: span %g-%gs out of order", k+2, line.From, line.To)
		}
		for i, p := range pts {
			if p.Count < 0 || p.Errors < 0 {
				return bad("line %d: point %d negative", k+2, i)
			}
			all[i].Points = append(all[i].Points, p)
		}
		prev = line.To
	}
	if sc.Scan() || sc.Err() != nil {
		return bad("more than %d points", h.Points)
	}
	s.Ops, s.Endpoints = all[:len(h.Ops)], all[len(h.Ops):]
	for _, op := range s.Ops {
		if !IsOp(op.Name) || IsSplit(op.Name) {
			return bad("%s is not an operation", op.Name)
		}
	}
	for _, op := range s.Endpoints {
		if !IsSplit(op.Name) {
			return bad("%s is not an endpoint's part", op.Name)
		}
	}
	if len(s.Endpoints) == 0 {
		s.Endpoints = nil
	}
	if len(s.Ops) == 0 {
		s.Ops = nil
	}
	return s, nil
}
