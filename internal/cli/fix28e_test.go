package cli_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReportLatencyKinds: report and compare decide what latency a run
// showed from the latency it recorded, not from its series (the checker
// of issue 28, F10.1): a YCSB -target run is rated but shows service
// times, so it merges with a closed-loop run (every operation of both
// counted, each as its service time) and is refused beside a --max-rate
// run, whose latencies count from each operation's intended start.
func TestReportLatencyKinds(t *testing.T) {
	dir := t.TempDir()
	var ids []string
	for _, extra := range [][]string{nil, {"--max-rate", "200"}, {"-target", "200", "-threads", "2"}} {
		mustRun(t, append([]string{"run", "ycsb", "--driver", "null", "--duration", "500ms", "--telemetry=false", "--results-dir", dir}, extra...)...)
		entries, _ := filepath.Glob(filepath.Join(dir, "*-ycsb-*"))
		for _, e := range entries {
			if !slices.Contains(ids, filepath.Base(e)) {
				ids = append(ids, filepath.Base(e))
			}
		}
	}
	if len(ids) != 3 {
		t.Fatalf("runs %v", ids)
	}
	closed, rated, target := ids[0], ids[1], ids[2]
	total := func(args ...string) (count int64, maxMS float64) {
		t.Helper()
		r := mustRun(t, append([]string{"report", "--results-dir", dir, "--format", "json"}, args...)...)
		var v struct {
			Total struct {
				Count int64   `json:"count"`
				Max   float64 `json:"max_ms"`
			} `json:"total"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
			t.Fatalf("report %v: %v\n%s", args, err, r.stdout)
		}
		return v.Total.Count, v.Total.Max
	}
	nClosed, maxClosed := total(closed)
	nTarget, maxTarget := total(target)
	n, maxBoth := total(closed, target)
	if n != nClosed+nTarget || maxBoth != max(maxClosed, maxTarget) {
		t.Errorf("report of the closed-loop and the -target run: %d operations, max %g ms; want %d+%d, max of %g and %g (each run's service times)",
			n, maxBoth, nClosed, nTarget, maxClosed, maxTarget)
	}
	r := stampede(t, "report", "--results-dir", dir, target, rated)
	if !strings.Contains(r.stderr, "the runs measured different latencies, which one figure cannot merge: "+target+" showed each operation's service time (closed loop, or --latency service), "+rated+" showed latency from each operation's intended start (under a rate)") || r.code != 2 {
		t.Errorf("report of the -target and the --max-rate run: exit %d: %s", r.code, r.stderr)
	}
	r = stampede(t, "compare", "--results-dir", dir, target, rated)
	checkOneLineError(t, r, 2, "cannot be set side by side: "+target+" showed each operation's service time")
	if r := stampede(t, "compare", "--results-dir", dir, closed, target); r.code != 0 {
		t.Errorf("compare of the closed-loop and the -target run: exit %d: %s", r.code, r.stderr)
	}
}
