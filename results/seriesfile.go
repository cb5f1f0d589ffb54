package results

import (
	"bufio"
	"bytes"
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
// interval (short ones merged, see Series).
type seriesLine struct {
	Points []OpPoint `json:"points"`
}

// SaveSeries writes series.ndjson into the directory of run, a completed
// run: the operations' and endpoints' points of TimeSeries, so that
// TimeSeries of the run need not decode every interval. A run that is
// not completed, or whose intervals log warns (truncated), gets no file
// (nil error). The file is written atomically. SaveSeries is not safe
// for concurrent use on the same directory.
func SaveSeries(run *runlog.Run) error {
	if run.Info.Status != runlog.StatusCompleted {
		return nil
	}
	hlogBytes, ivlBytes, err := fileSizes(run.Dir)
	if err != nil {
		return err
	}
	s, err := streamSeries(run, nil)
	if err != nil {
		return err
	}
	if len(s.Warnings) > 0 {
		return nil
	}
	h := seriesHeader{Version: seriesVersion, HlogBytes: hlogBytes, IntervalsBytes: ivlBytes, RampEnd: s.RampEnd, Ops: []string{}, Endpoints: []string{}}
	all := append(append([]OpSeries{}, s.Ops...), s.Endpoints...)
	for _, op := range s.Ops {
		h.Ops = append(h.Ops, op.Name)
	}
	for _, op := range s.Endpoints {
		h.Endpoints = append(h.Endpoints, op.Name)
	}
	if len(all) > 0 {
		h.Points = len(all[0].Points)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	if err := enc.Encode(h); err != nil {
		return err
	}
	line := seriesLine{Points: make([]OpPoint, len(all))}
	for k := range h.Points {
		for i, op := range all {
			line.Points[i] = op.Points[k]
		}
		if err := enc.Encode(line); err != nil {
			return fmt.Errorf("run %s: encode %s: %w", run.Info.ID, runlog.SeriesFile, err)
		}
	}
	tmp := filepath.Join(run.Dir, runlog.SeriesFile+".new")
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(run.Dir, runlog.SeriesFile))
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
		if len(line.Points) != n {
			return bad("line %d: %d points, not %d", k+2, len(line.Points), n)
		}
		for i, p := range line.Points {
			if p.To <= p.From || p.From < prev || p.Count < 0 || p.Errors < 0 || p.Span != line.Points[0].Span {
				return bad("line %d: point %d out of shape", k+2, i)
			}
			all[i].Points = append(all[i].Points, p)
		}
		prev = line.Points[0].To
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
