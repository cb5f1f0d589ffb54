package output

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/stampede-bench/stampede/datadiff"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/runlog"
)

// ErrDiffMixed is DiffRuns' error for runs it cannot report together, or
// with options that do not apply to a diff run.
var ErrDiffMixed = errors.New("cannot report these diff runs")

// DiffRuns prints saved diff runs, which have no intervals to recompute,
// as diff printed them (JSON with asJSON), their header lines on log;
// done is false when no run is a diff. windowed says the report was
// given a window or a chart, which a diff run has not.
func DiffRuns(w, log io.Writer, runs []*runlog.Run, asJSON, windowed bool) (done bool, err error) {
	diffs := 0
	for _, r := range runs {
		if r.Info.Workload == run.DiffWorkload {
			diffs++
		}
	}
	if diffs == 0 {
		return false, nil
	}
	if diffs < len(runs) {
		return true, fmt.Errorf("%w: diff runs cannot be merged with workload runs: report them separately", ErrDiffMixed)
	}
	if windowed {
		return true, fmt.Errorf("%w: a diff run has no intervals: --chart, --from, --to and --include-ramp do not apply to it", ErrDiffMixed)
	}
	for i, r := range runs {
		if i > 0 && !asJSON {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(log, "run %s: diff, started %s, %s\n", r.Info.ID, r.Info.Start.Format(time.RFC3339), r.Info.Status)
		var res datadiff.Result
		if r.Summary == nil || json.Unmarshal(r.Summary, &res) != nil {
			msg := "it saved no result"
			if r.Info.Error != "" {
				msg = "it ended with: " + r.Info.Error
			}
			if len(runs) == 1 {
				return true, fmt.Errorf("diff run %s has nothing to report: %s", r.Info.ID, msg)
			}
			fmt.Fprintf(w, "run %s: nothing to report: %s\n", r.Info.ID, msg)
			continue
		}
		if asJSON {
			err = datadiff.WriteJSON(w, &res)
		} else {
			err = datadiff.WriteText(w, &res)
		}
		if err != nil {
			return true, err
		}
	}
	return true, nil
}
