package dashboard

import (
	"strconv"

	"github.com/stampede-bench/stampede/results"
	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/sweep"
)

// recomputeStep fills st, a step whose run has no summary.json (killed,
// or ended before writing it), with the figures `stampede report` gives
// the run: recomputed from its run log up to its last complete interval,
// its workers and rate from its flags, its telemetry from its samples.
// A run without a complete interval keeps no figures.
func recomputeStep(run *runlog.Run, st *sweep.Step) {
	view, _, err := results.Recompute([]*runlog.Run{run}, results.Window{})
	if err != nil {
		return
	}
	st.Total = view.Total
	for _, op := range view.Ops {
		if st.Ops == nil {
			st.Ops = map[string]stats.Summary{}
		}
		st.Ops[op.Name] = op.Summary
	}
	for _, name := range []string{"concurrency", "threads"} {
		if n, err := strconv.Atoi(run.Info.Flags[name]); err == nil && n > 0 {
			st.Workers = n
			break
		}
	}
	st.Target, _ = strconv.ParseFloat(run.Info.Flags["max-rate"], 64)
	st.Telemetry, _ = results.TelemetrySummary(run, view.From, view.To)
}
