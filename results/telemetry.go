package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/telemetry"
)

// TelemetrySummary recomputes the averages and peaks of a run's telemetry samples
// whose intervals lie within [from, to] (a zero bound is open). It returns
// nil when the run has no telemetry. A torn last line (a killed run) is
// returned as the error alongside the summary of the samples before it.
func TelemetrySummary(run *runlog.Run, from, to time.Time) (*telemetry.Summary, error) {
	var samples []telemetry.Sample
	err := run.Telemetry(func(line []byte) error {
		var s telemetry.Sample
		if err := json.Unmarshal(line, &s); err != nil {
			return fmt.Errorf("invalid JSON: %v", err)
		}
		if s.Start.Equal(s.End) || (!from.IsZero() && s.Start.Before(from.Add(-time.Millisecond))) || (!to.IsZero() && s.End.After(to.Add(time.Millisecond))) {
			return nil // a baseline, or outside the window
		}
		samples = append(samples, s)
		return nil
	})
	var trunc *runlog.TruncatedError
	if err != nil && !errors.As(err, &trunc) {
		return nil, err
	}
	if len(samples) == 0 {
		return nil, err
	}
	sum := telemetry.Summarize(samples)
	return &sum, err
}
