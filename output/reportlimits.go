package output

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/stampede-bench/stampede/limit"
	"github.com/stampede-bench/stampede/run"
	"github.com/stampede-bench/stampede/runlog"
)

// writeLimits prints, for each run that applied limits to the system
// under test, what they were and on what (run.json's record), then how the
// CPU limit bore over the run's measured period, or that no process
// matched, from its summary: what `report` shows beside the telemetry.
//
//	limits: cpus 0.5, applied to pid 22321 (cgroup v1 /sys/fs/cgroup/{cpu,cpuacct}/stampede/run-X)
//	  over the run's measured period the limited processes used 0.49 of 0.5 CPU, throttled in 38 of 40 periods
func writeLimits(w io.Writer, runs []*runlog.Run) {
	for _, r := range runs {
		raw := r.Info.Limits
		if len(raw) == 0 || string(raw) == "null" {
			continue
		}
		who := ""
		if len(runs) > 1 {
			who = "run " + r.Info.ID + " "
		}
		var rec run.LimitsRecord
		if err := json.Unmarshal(raw, &rec); err != nil || len(rec.Items()) == 0 {
			fmt.Fprintf(w, "\n%slimits: %s\n", who, oneLineJSON(raw))
			continue
		}
		var parts []string
		where := ""
		for _, it := range rec.Items() {
			if it[0] == "cgroup" {
				where = " (cgroup " + it[1] + ")"
				continue
			}
			parts = append(parts, it[0]+" "+it[1])
		}
		fmt.Fprintf(w, "\n%slimits: %s%s\n", who, strings.Join(parts, ", "), where)
		var sum struct {
			CPULimit   *limit.CPUBound `json:"cpu_limit"`
			NotLimited string          `json:"not_limited"`
		}
		if len(r.Summary) == 0 || json.Unmarshal(r.Summary, &sum) != nil {
			continue
		}
		switch {
		case sum.NotLimited != "":
			fmt.Fprintf(w, "  %s\n", sum.NotLimited)
		case sum.CPULimit != nil:
			fmt.Fprintf(w, "  over the run's measured period the limited processes %s\n", sum.CPULimit.Used())
		}
	}
}
