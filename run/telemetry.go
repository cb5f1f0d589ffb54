package run

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/telemetry"
)

// telemetryInfo is run.json's description of what the samples cover.
type telemetryInfo struct {
	WatchProcess []string `json:"watch_process,omitempty"`
	WatchCmdline []string `json:"watch_cmdline,omitempty"`
	WatchPIDs    []int    `json:"watch_pids,omitempty"`
	Interval     string   `json:"interval"`
}

// runTelemetry samples telemetry at every tick of a run, appends each
// sample to the run log and keeps them for the summary. It is used by the
// engine's tick hook only (one goroutine).
type runTelemetry struct {
	sampler *telemetry.Sampler
	samples []telemetry.Sample
	err     error // the first sampling or writing error, reported once
	// extra, when set, adds figures of its own to each sample's record
	// (the cgroup counters of a run with limits).
	extra func() any
	// rebaseErr is why the baseline could not be taken again (rebase).
	rebaseErr error
}

// telemetryRecord is one line of telemetry.ndjson: a sample, plus the
// cgroup counters when the run applied limits.
type telemetryRecord struct {
	telemetry.Sample
	Cgroup any `json:"cgroup,omitempty"`
}

// watching reports whether t names processes to watch.
func (t Telemetry) watching() bool {
	return len(t.WatchProcess) > 0 || len(t.WatchCmdline) > 0 || len(t.WatchPIDs) > 0
}

// startTelemetry creates the sampler and takes the baseline sample; it
// returns nil when telemetry is off.
func startTelemetry(t Telemetry) (*runTelemetry, error) {
	if t.Off {
		if t.watching() {
			return nil, inputf("--watch-process, --watch-cmdline and --watch-pid need --telemetry=true")
		}
		return nil, nil
	}
	s, err := telemetry.New(telemetry.Config{WatchProcess: t.WatchProcess, WatchCmdline: t.WatchCmdline, WatchPIDs: t.WatchPIDs})
	if err != nil {
		if t.watching() {
			return nil, inputf("%v", err)
		}
		return nil, fmt.Errorf("cannot sample telemetry: %w; pass --telemetry=false to run without it", err)
	}
	if _, err := s.Sample(time.Now()); err != nil {
		return nil, fmt.Errorf("cannot sample telemetry: %w; pass --telemetry=false to run without it", err)
	}
	return &runTelemetry{sampler: s}, nil
}

// info describes the telemetry for run.json.
func (t Telemetry) info(every time.Duration) json.RawMessage {
	if t.Off {
		return nil
	}
	b, _ := json.Marshal(telemetryInfo{WatchProcess: t.WatchProcess, WatchCmdline: t.WatchCmdline, WatchPIDs: t.WatchPIDs, Interval: every.String()})
	return b
}

// rebase takes the baseline again, just before the engine starts: the
// first sample then covers the first interval, not the run's setup too.
func (rt *runTelemetry) rebase() {
	if _, err := rt.sampler.Sample(time.Now()); err != nil {
		rt.rebaseErr = err
	}
}

// tick takes a sample at now, the end of the interval that started at
// start, and appends it to the run log. The first sample is labelled from
// the first interval's start (its baseline was read a moment before, see
// rebase), so that report's windows, made of intervals, take it as the
// run's summary does. It returns false when no sample could be taken.
func (rt *runTelemetry) tick(start, now time.Time, rw *runlog.Writer, warnf func(string, ...any)) (telemetry.Sample, bool) {
	s, err := rt.sampler.Sample(now)
	if err == nil && len(rt.samples) == 0 && s.Start.Before(start) && rt.rebaseErr == nil {
		s.Start = start
	}
	if err == nil {
		rec := telemetryRecord{Sample: s}
		if rt.extra != nil {
			rec.Cgroup = rt.extra()
		}
		err = rw.WriteTelemetry(rec)
		rt.samples = append(rt.samples, s)
	}
	if err != nil {
		if rt.err == nil {
			rt.err = err
			warnf("telemetry: %v (the run goes on)", err)
		}
		return s, false
	}
	return s, true
}

// summary returns the averages and peaks of the samples taken from from
// (the ramp's end), as results.TelemetrySummary takes them for report's
// default window: the run's final figures leave out the ramp, and so do
// its telemetry's.
func (rt *runTelemetry) summary(from time.Time) *telemetry.Summary {
	if rt == nil {
		return nil
	}
	var samples []telemetry.Sample
	for _, s := range rt.samples {
		if !s.Start.Before(from.Add(-time.Millisecond)) {
			samples = append(samples, s)
		}
	}
	if len(samples) == 0 {
		return nil
	}
	sum := telemetry.Summarize(samples)
	return &sum
}
