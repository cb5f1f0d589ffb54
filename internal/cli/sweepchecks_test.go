package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/runlog"
)

// TestSweepTPCCChecksOnce sweeps TPC-C, whose runs check the data after
// they end (seconds each, between a search's probes): the sweep's steps
// skip them and the checks run once, after the last step; --skip-checks
// skips those too.
func TestSweepTPCCChecksOnce(t *testing.T) {
	srv := testServer(t)
	db := freshDB(t, "sweepchecks")
	if r := stampede(t, "init", "tpcc", "--warehouses", "1", "--db", db, srv); r.code != 0 {
		t.Fatalf("init: exit %d: %s", r.code, r.stderr)
	}
	root := t.TempDir()
	for _, c := range []struct {
		name  string
		extra []string
		once  bool
	}{
		{"checked once", nil, true},
		{"--skip-checks", []string{"--skip-checks"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"sweep", "tpcc", "--warehouses", "1", "--wait=false", "--concurrency", "2", "--max-rate", "20,40",
				"--duration", "1s", "--db", db, "--results-dir", root, "--format", "json", srv}, c.extra...)
			r := stampede(t, args...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			out := parseSweep(t, r.stdout)
			if len(out.Steps) != 2 {
				t.Fatalf("%d steps:\n%s", len(out.Steps), r.stdout)
			}
			for i, st := range out.Steps {
				run, err := runlog.Open(st.Dir)
				if err != nil {
					t.Fatal(err)
				}
				var sum map[string]json.RawMessage
				if err := json.Unmarshal(run.Summary, &sum); err != nil {
					t.Fatal(err)
				}
				if _, ok := sum["checks"]; ok {
					t.Errorf("step %d's run ran the checks: %s", i+1, sum["checks"])
				}
			}
			n := strings.Count(r.stderr, "consistency checks")
			last := strings.Index(r.stderr, "step 2: ")
			first := strings.Index(r.stderr, "3.3.2.1 W_YTD = sum(D_YTD): PASS")
			switch {
			case c.once && (n != 1 || first < last || strings.Count(r.stderr, "3.3.2.1 ") != 1):
				t.Errorf("want the checks once, passed, after step 2; %d headers:\n%s", n, r.stderr)
			case !c.once && (n != 0 || first >= 0):
				t.Errorf("--skip-checks: the checks ran:\n%s", r.stderr)
			}
		})
	}
}
