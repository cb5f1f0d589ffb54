package cli_test

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/runlog"
)

// runTotal is a run's total as its summary.json has it.
type runTotal struct {
	Count int64   `json:"count"`
	Rate  float64 `json:"ops_per_sec"`
	P99   float64 `json:"p99_ms"`
}

// runTotals reads the total of every run under root, by run ID and by
// sweep step.
func runTotals(t *testing.T, root string) (byID map[string]runTotal, byStep map[int]runTotal) {
	t.Helper()
	runs, err := runlog.List(root)
	if err != nil {
		t.Fatal(err)
	}
	byID, byStep = map[string]runTotal{}, map[int]runTotal{}
	for _, r := range runs {
		b, err := os.ReadFile(filepath.Join(root, r.ID, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		var sum struct {
			Total runTotal `json:"total"`
		}
		if err := json.Unmarshal(b, &sum); err != nil {
			t.Fatal(err)
		}
		n, _ := strconv.Atoi(r.Tags["sweep_step"])
		byID[r.ID], byStep[n] = sum.Total, sum.Total
	}
	return byID, byStep
}

// medianOf is the median of f over the steps' totals.
func medianOf(t *testing.T, byStep map[int]runTotal, steps []int, f func(runTotal) float64) float64 {
	t.Helper()
	var xs []float64
	for _, n := range steps {
		tot, ok := byStep[n]
		if !ok {
			t.Fatalf("no run of step %d", n)
		}
		xs = append(xs, f(tot))
	}
	slices.Sort(xs)
	if len(xs)%2 == 1 {
		return xs[len(xs)/2]
	}
	return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
}

// TestSweepRepeatFiguresAreTheirRuns (issue 34 F1): a sweep judged on
// medians (--repeat 3) printed the medians as one step's (best, miss and
// peak named the value's first run, whose summary.json says otherwise;
// the text's peak line cited one step). Every object of the JSON that
// names a run carries that run's own figures (its summary.json); a
// median names all its steps and runs and no single run, and its figures
// are the medians of those runs'; the text's peak line says "median of 3
// runs (steps a, b, c)" with those runs' median throughput.
func TestSweepRepeatFiguresAreTheirRuns(t *testing.T) {
	t.Parallel()
	srv := testServer(t)
	db := freshDB(t, "stampede_sweepmedian")
	if r := stampede(t, "init", "ycsb", "-p", "recordcount=1000", "--db", db, srv); r.code != 0 {
		t.Fatalf("init: %s", r.stderr)
	}
	args := []string{"sweep", "ycsb", "-p", "recordcount=1000", "--workload", "c", "--concurrency", "1,2", "--repeat", "3", "--duration", "400ms", "--db", db}

	root := t.TempDir()
	r := stampede(t, append(args, "--slo", "p99<=1000ms", "--format", "json", "--results-dir", root, srv)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	byID, byStep := runTotals(t, root)
	if len(byID) != 6 {
		t.Fatalf("%d runs, want 6", len(byID))
	}
	type object struct {
		Type  string   `json:"type"`
		Step  int      `json:"step"`
		Run   string   `json:"run"`
		Steps []int    `json:"steps"`
		Runs  []string `json:"runs"`
		Total runTotal `json:"total"`
	}
	// check compares o, a step or the result's best, miss or peak, with
	// the run it names, or with the medians of the runs it is over.
	check := func(what string, o *object) {
		switch {
		case o == nil:
		case o.Run != "":
			if got, want := o.Total, byID[o.Run]; got != want {
				t.Errorf("%s names run %s with %+v; its summary.json has %+v", what, o.Run, got, want)
			}
		default:
			if o.Type != "median" || len(o.Steps) != 3 || len(o.Runs) != 3 || o.Step != 0 {
				t.Errorf("%s: %+v, want a median naming 3 steps and their runs, and no one step", what, o)
				return
			}
			for i, n := range o.Steps {
				if byStep[n] != byID[o.Runs[i]] {
					t.Errorf("%s: step %d is not run %s", what, n, o.Runs[i])
				}
			}
			if want := medianOf(t, byStep, o.Steps, func(x runTotal) float64 { return x.Rate }); o.Total.Rate != want {
				t.Errorf("%s: %.2f ops/s, want the median of its runs' %.2f", what, o.Total.Rate, want)
			}
			if want := medianOf(t, byStep, o.Steps, func(x runTotal) float64 { return x.P99 }); o.Total.P99 != want {
				t.Errorf("%s: p99 %.2f, want the median of its runs' %.2f", what, o.Total.P99, want)
			}
		}
	}
	medians := 0
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	for sc.Scan() {
		var o struct {
			Type             string
			Best, Miss, Peak *object
		}
		if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		switch o.Type {
		case "step":
			var st object
			if err := json.Unmarshal(sc.Bytes(), &st); err != nil {
				t.Fatalf("%q: %v", sc.Text(), err)
			}
			check("step "+strconv.Itoa(st.Step), &st)
		case "sweep_result":
			if o.Best == nil || o.Peak == nil {
				t.Fatalf("no best or peak: %s", sc.Text())
			}
			for _, x := range []struct {
				name string
				o    *object
			}{{"best", o.Best}, {"miss", o.Miss}, {"peak", o.Peak}} {
				check(x.name, x.o)
				if x.o != nil && x.o.Type == "median" {
					medians++
				}
			}
		}
	}
	if medians < 2 {
		t.Errorf("%d medians among best, miss and peak, want best and peak:\n%s", medians, r.stdout)
	}

	// The text: without an SLO, the peak line.
	root = t.TempDir()
	r = stampede(t, append(args, "--results-dir", root, srv)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	_, byStep = runTotals(t, root)
	m := regexp.MustCompile(`peak throughput: ([0-9.]+) ops/s at --concurrency [12] \(median of 3 runs \(steps (\d+), (\d+), (\d+)\)\)`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no peak line naming the median of 3 runs in:\n%s", r.stdout)
	}
	var steps []int
	for _, s := range m[2:] {
		n, _ := strconv.Atoi(s)
		steps = append(steps, n)
	}
	got, _ := strconv.ParseFloat(m[1], 64)
	if want := medianOf(t, byStep, steps, func(x runTotal) float64 { return x.Rate }); math.Abs(got-want) > 0.05 {
		t.Errorf("peak %.1f ops/s, want the median of steps %v: %.2f\n%s", got, steps, want, r.stdout)
	}
}
