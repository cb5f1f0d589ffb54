package output

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/limit"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/sweep"
)

// TestSweepLimitNote prints a sweep of --cpus 0.5,2 run twice, whose 2
// step's limit never bound and whose 0.5 was throttled: the text table
// gets a note column, "-" for 0.5; NDJSON's steps a limit_note and
// cpu_limit; its points the median's note.
func TestSweepLimitNote(t *testing.T) {
	step := func(n int, v float64, b limit.CPUBound) sweep.Step {
		return sweep.Step{N: n, Value: v, Rep: 1 + (n-1)/2, RunID: "r", Status: "completed", Total: stats.Summary{Count: 10, Rate: 5, P99: 1}, CPULimit: &b}
	}
	throttled := limit.CPUBound{CPUs: 0.5, UsedCores: 0.5, Periods: 40, Throttled: 35}
	steps := []sweep.Step{step(1, 0.5, throttled), step(2, 2, limit.CPUBound{CPUs: 2, UsedCores: 0.3, Periods: 40}),
		step(3, 0.5, throttled), step(4, 2, limit.CPUBound{CPUs: 2, UsedCores: 0.2, Periods: 40})}
	res := &sweep.Result{ID: "S", Param: "cpus", Steps: steps}
	res.Judge()
	note := "limit never bound: server used 0.30 of 2 CPUs, not throttled"

	var text bytes.Buffer
	o := &Sweep{W: &text, Param: "cpus", Notes: true}
	o.Header("S", "oltp_read_only", "--cpus", "0.5,2", sweep.SLO{})
	for _, st := range steps {
		o.End(st)
	}
	lines := strings.Split(strings.TrimSpace(text.String()), "\n")
	if len(lines) != 6 || !strings.HasSuffix(lines[1], "  run  SLO  note") || !strings.HasSuffix(lines[2], "  -  -") || !strings.HasSuffix(lines[3], "  -  "+note) {
		t.Errorf("text table:\n%s", text.String())
	}

	var js bytes.Buffer
	o = &Sweep{W: &js, JSON: true, Param: "cpus", Notes: true}
	for _, st := range steps[:2] {
		o.End(st)
	}
	o.Done(res)
	type object struct {
		Type      string          `json:"type"`
		LimitNote string          `json:"limit_note"`
		CPULimit  *limit.CPUBound `json:"cpu_limit"`
		Points    []struct {
			Value     float64 `json:"value"`
			LimitNote string  `json:"limit_note"`
		} `json:"points"`
	}
	var objs []object
	for _, l := range strings.Split(strings.TrimSpace(js.String()), "\n") {
		var obj object
		if err := json.Unmarshal([]byte(l), &obj); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		objs = append(objs, obj)
	}
	if len(objs) != 3 || objs[0].LimitNote != "" || objs[0].CPULimit == nil || objs[0].CPULimit.Throttled != 35 || objs[1].LimitNote != note {
		t.Errorf("NDJSON:\n%s", js.String())
	}
	if p := objs[2].Points; len(p) != 2 || p[0].LimitNote != "" || p[1].LimitNote != "limit never bound: server used 0.25 of 2 CPUs, not throttled" {
		t.Errorf("points (2's median of 0.3 and 0.2 cores):\n%s", js.String())
	}
}
