package cli_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
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

// TestSweepTPCCFigureColumns: a TPC-C sweep's table shows each step's
// tpmC and efficiency, as its run's summary.json holds them ("-" for a
// run without an efficiency, no waits, or whose efficiency rests on no
// New-Orders), and its step lines name the
// terminals each step ran (10 a warehouse), not --concurrency 0.
func TestSweepTPCCFigureColumns(t *testing.T) {
	root := t.TempDir()
	for _, c := range []struct {
		name    string
		args    []string
		workers []string
		eff     bool
	}{
		{"waits", []string{"--active-warehouses", "1,2", "--ramp", "1s"}, []string{"--concurrency 10", "--concurrency 20"}, true},
		{"no waits", []string{"--wait=false", "--concurrency", "2", "--max-rate", "200,400"}, []string{"--concurrency 2", "--concurrency 2"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, format := range []string{"text", "csv"} {
				args := append([]string{"sweep", "tpcc", "--driver", "null", "--warehouses", "2", "--duration", "2s",
					"--results-dir", root, "--format", format, "--telemetry=false"}, c.args...)
				r := stampede(t, args...)
				if r.code != 0 {
					t.Fatalf("exit %d: %s", r.code, r.stderr)
				}
				var head []string
				var rows [][]string
				for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
					f := strings.Fields(line)
					if format == "csv" {
						f = strings.Split(line, ",")
					}
					switch {
					case len(f) > 0 && f[0] == "step":
						head = f
					case head != nil && len(f) == len(head):
						rows = append(rows, f)
					}
				}
				col := func(name string) int { return slices.Index(head, name) }
				if col("tpmC") < 0 || col("efficiency(%)") < 0 || len(rows) != 2 {
					t.Fatalf("%s: no tpmC or efficiency column, or not 2 rows:\n%s", format, r.stdout)
				}
				for i, row := range rows {
					run, err := runlog.Open(filepath.Join(root, row[col("run")]))
					if err != nil {
						t.Fatal(err)
					}
					var sum struct{ Figures map[string]float64 }
					if err := json.Unmarshal(run.Summary, &sum); err != nil {
						t.Fatal(err)
					}
					num := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
					if format == "csv" {
						num = func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
					}
					eff, ok := sum.Figures["efficiency"]
					wantEff := "-" // none, or from no New-Orders (tpmC 0): no basis
					if ok && sum.Figures["tpmC"] > 0 {
						wantEff = num(eff)
					}
					if row[col("tpmC")] != num(sum.Figures["tpmC"]) || row[col("efficiency(%)")] != wantEff || ok != c.eff {
						t.Errorf("%s step %d: tpmC %s efficiency %s; summary.json %v", format, i+1, row[col("tpmC")], row[col("efficiency(%)")], sum.Figures)
					}
					if c.name == "no waits" && sum.Figures["tpmC"] <= 0 {
						t.Errorf("step %d: tpmC %v: the no-waits steps ran no New-Orders", i+1, sum.Figures["tpmC"])
					}
					if want := fmt.Sprintf("step %d: ", i+1); !strings.Contains(r.stderr, want) ||
						!strings.Contains(strings.SplitN(r.stderr[strings.Index(r.stderr, want):], "\n", 2)[0], c.workers[i]) {
						t.Errorf("step %d's line does not say %s:\n%s", i+1, c.workers[i], r.stderr)
					}
				}
			}
		})
	}
}

// TestSweepTPCCSearchSetUp: TPC-C's search, whose SLO holds efficiency,
// refuses set-ups whose probes have none (no waits, or other than 10
// terminals a warehouse) in one line before any probe; with an SLO
// without efficiency they run.
func TestSweepTPCCSearchSetUp(t *testing.T) {
	base := []string{"sweep", "tpcc", "--driver", "null", "--warehouses", "8", "--active-warehouses", "1:8", "--search", "--duration", "1s",
		"--results-dir", t.TempDir()}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no waits", []string{"--wait=false"}, "--wait=false: TPC-C's search judges efficiency, which needs the keying and think times"},
		{"workers", []string{"--concurrency", "4"}, "--concurrency: TPC-C's search judges efficiency, which needs 10 terminals per active warehouse"},
		{"threads", []string{"--threads", "4"}, "--threads: TPC-C's search judges efficiency"},
		{"slo with efficiency", []string{"--wait=false", "--slo", "efficiency>=50%"}, "--wait=false: TPC-C's search judges efficiency"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := stampede(t, append(slices.Clone(base), c.args...)...)
			checkOneLineError(t, r, 2, c.want)
			if strings.Contains(r.stderr, "step 1") || r.stdout != "" {
				t.Errorf("a probe ran before the refusal:\n%s%s", r.stdout, r.stderr)
			}
		})
	}
}
