package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/report"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/telemetry"
)

// telemetryFlags control the system telemetry of a run.
type telemetryFlags struct {
	on           bool
	display      bool
	watchProcess []string
	watchCmdline []string
	watchPID     []int
}

func (f *telemetryFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.on, "telemetry", true, "sample host CPU, memory, disks (as iostat -x), network and watched processes every interval into the run's results")
	fs.BoolVar(&f.display, "display-telemetry", false, "print a compact telemetry line after each interval")
	fs.StringArrayVar(&f.watchProcess, "watch-process", nil, "regular expression matched against process names (as pidstat -C and pgrep): processes of the system under test whose CPU, RSS and disk IO are summed and recorded, such as postgres (repeatable)")
	fs.StringArrayVar(&f.watchCmdline, "watch-cmdline", nil, "regular expression matched against full command lines (as pgrep -f), such as 'postgres: .*walwriter': processes to record as --watch-process does (repeatable)")
	fs.IntSliceVar(&f.watchPID, "watch-pid", nil, "PID of a process of the system under test to record with its descendants, such as PostgreSQL's postmaster (repeatable)")
}

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
}

// telemetryRecord is one line of telemetry.ndjson: a sample, plus the
// cgroup counters when the run applied limits.
type telemetryRecord struct {
	telemetry.Sample
	Cgroup any `json:"cgroup,omitempty"`
}

// startTelemetry creates the sampler and takes the baseline sample; it
// returns nil when telemetry is off.
func startTelemetry(f *telemetryFlags) (*runTelemetry, error) {
	watching := len(f.watchProcess) > 0 || len(f.watchCmdline) > 0 || len(f.watchPID) > 0
	if !f.on {
		if watching || f.display {
			return nil, usagef("--watch-process, --watch-cmdline, --watch-pid and --display-telemetry need --telemetry=true")
		}
		return nil, nil
	}
	s, err := telemetry.New(telemetry.Config{WatchProcess: f.watchProcess, WatchCmdline: f.watchCmdline, WatchPIDs: f.watchPID})
	if err != nil {
		if watching {
			return nil, usagef("%v", err)
		}
		return nil, fmt.Errorf("cannot sample telemetry: %w; pass --telemetry=false to run without it", err)
	}
	if _, err := s.Sample(time.Now()); err != nil {
		return nil, fmt.Errorf("cannot sample telemetry: %w; pass --telemetry=false to run without it", err)
	}
	return &runTelemetry{sampler: s}, nil
}

// info describes the telemetry for run.json.
func (f *telemetryFlags) info(every time.Duration) json.RawMessage {
	if !f.on {
		return nil
	}
	b, _ := json.Marshal(telemetryInfo{WatchProcess: f.watchProcess, WatchCmdline: f.watchCmdline, WatchPIDs: f.watchPID, Interval: every.String()})
	return b
}

// tick takes a sample at now and appends it to the run log. It returns
// false when no sample could be taken.
func (rt *runTelemetry) tick(now time.Time, rw *runlog.Writer, warn io.Writer) (telemetry.Sample, bool) {
	s, err := rt.sampler.Sample(now)
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
			fmt.Fprintf(warn, "warning: telemetry: %v (the run goes on)\n", err)
		}
		return s, false
	}
	return s, true
}

// summary returns the averages and peaks of the samples taken.
func (rt *runTelemetry) summary() *telemetry.Summary {
	if rt == nil || len(rt.samples) == 0 {
		return nil
	}
	sum := telemetry.Summarize(rt.samples)
	return &sum
}

// printTelemetrySummary writes the telemetry table under the final
// summary (text output only).
func printTelemetrySummary(w io.Writer, sum *telemetry.Summary) {
	if sum == nil || sum.Intervals == 0 {
		return
	}
	fmt.Fprintln(w)
	_ = report.TelemetrySummary(w, *sum)
}
