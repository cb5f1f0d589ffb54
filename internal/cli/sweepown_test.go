package cli_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/sweep"
)

// TestSweepWorkloadOwnFlag sweeps a workload's own numeric flags, as a
// flag and as YCSB's -p key=v1,v2 (each refused as "not an integer" once):
// each step's run records its value (run.json), and where the value
// changes what the run does (the share of reads), the run's operations
// follow it.
func TestSweepWorkloadOwnFlag(t *testing.T) {
	root := t.TempDir()
	for _, c := range []struct {
		name   string
		args   []string
		values []float64
		// recorded is what run.json records for a step's value v.
		flag     string
		recorded func(v string) string
		// reads is the share of reads a step at v must run (-1: not
		// judged).
		reads func(v float64) float64
	}{
		{"--field-length", []string{"--field-length", "10,100"}, []float64{10, 100}, "field-length",
			func(v string) string { return v }, nil},
		{"-p fieldlength", []string{"-p", "fieldlength=10,100"}, []float64{10, 100}, "property",
			func(v string) string { return "[fieldlength=" + v + "]" }, nil},
		{"--record-count", []string{"--record-count", "100:200:100"}, []float64{100, 200}, "record-count",
			func(v string) string { return v }, nil},
		// workload a's update proportion is 0.5: reads are r/(r+0.5).
		{"--read-proportion", []string{"--read-proportion", "0.25,1"}, []float64{0.25, 1}, "read-proportion",
			func(v string) string { return v }, func(v float64) float64 { return v / (v + 0.5) }},
		{"-p readproportion", []string{"-p", "readproportion=0.25,1"}, []float64{0.25, 1}, "property",
			func(v string) string { return "[readproportion=" + v + "]" }, func(v float64) float64 { return v / (v + 0.5) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"sweep", "ycsb", "--driver", "null", "--max-ops", "4000", "--concurrency", "2",
				"--results-dir", root, "--format", "json"}, c.args...)
			r := stampede(t, args...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			out := parseSweep(t, r.stdout)
			if len(out.Steps) != len(c.values) {
				t.Fatalf("%d steps, want %d:\n%s", len(out.Steps), len(c.values), r.stdout)
			}
			for i, st := range out.Steps {
				if st.Value != c.values[i] {
					t.Errorf("step %d: value %g, want %g", i+1, st.Value, c.values[i])
				}
				run, err := runlog.Open(st.Dir)
				if err != nil {
					t.Fatal(err)
				}
				v := sweep.Format(c.values[i])
				if got := run.Info.Flags[c.flag]; got != c.recorded(v) {
					t.Errorf("step %d's run.json: %s %q, want %q", i+1, c.flag, got, c.recorded(v))
				}
				if c.reads == nil {
					continue
				}
				var sum struct {
					Ops []struct {
						Name  string
						Count float64
					}
				}
				if err := json.Unmarshal(run.Summary, &sum); err != nil {
					t.Fatal(err)
				}
				var reads, all float64
				for _, op := range sum.Ops {
					all += op.Count
					if op.Name == "read" {
						reads += op.Count
					}
				}
				// 4000 operations: the share's standard deviation is
				// under 0.008; 0.04 is five of them.
				if want := c.reads(c.values[i]); all != 4000 || math.Abs(reads/all-want) > 0.04 {
					t.Errorf("step %d (%s %s): %g reads of %g operations, want a share of %.3f", i+1, c.name, v, reads, all, want)
				}
			}
			if !strings.Contains(r.stderr, "step 2: "+c.name+" "+sweep.Format(c.values[1])) {
				t.Errorf("the step lines do not name %s:\n%s", c.name, r.stderr)
			}
		})
	}
}
