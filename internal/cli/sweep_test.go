package cli_test

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/runlog"
	"github.com/stampede-bench/stampede/telemetry"
)

// sweepStep is a step's NDJSON object.
type sweepStep struct {
	Type    string  `json:"type"`
	Step    int     `json:"step"`
	Value   float64 `json:"value"`
	MaxRate float64 `json:"max_rate"`
	Workers int     `json:"workers"`
	Run     string  `json:"run"`
	Dir     string  `json:"dir"`
	Status  string  `json:"status"`
	Total   struct {
		Count  int64   `json:"count"`
		Errors int64   `json:"errors"`
		Rate   float64 `json:"ops_per_sec"`
		P99    float64 `json:"p99_ms"`
	} `json:"total"`
	Figures map[string]float64 `json:"figures"`
	Met     *bool              `json:"slo_met"`
	Missed  string             `json:"slo_missed"`
}

// sweepOut is a sweep's NDJSON output.
type sweepOut struct {
	ID     string
	Steps  []sweepStep
	Result struct {
		Steps      int
		Best, Miss *sweepStep
		Stopped    string
		Conclusion string
		// Data and Restore: after a --reload sweep.
		Data, Restore string
	}
}

func parseSweep(t *testing.T, out string) sweepOut {
	t.Helper()
	var s sweepOut
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var typ struct {
			Type string
			ID   string
		}
		if err := json.Unmarshal(sc.Bytes(), &typ); err != nil {
			t.Fatalf("not NDJSON: %q: %v", sc.Text(), err)
		}
		switch typ.Type {
		case "sweep":
			s.ID = typ.ID
		case "step":
			var st sweepStep
			if err := json.Unmarshal(sc.Bytes(), &st); err != nil {
				t.Fatal(err)
			}
			s.Steps = append(s.Steps, st)
		case "sweep_result":
			if err := json.Unmarshal(sc.Bytes(), &s.Result); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("unknown object %q", sc.Text())
		}
	}
	if s.ID == "" || s.Result.Steps != len(s.Steps) {
		t.Fatalf("sweep output without its header or result:\n%s", out)
	}
	return s
}

// checkSweepRuns checks each step against its run directory: tagged with
// the sweep and the step, the swept flag recorded as the step's value, and
// the figures those of the run's summary.json, which `stampede report`
// recomputes from the run log.
func checkSweepRuns(t *testing.T, root string, s sweepOut, param string) {
	t.Helper()
	runs, err := runlog.List(root)
	if err != nil {
		t.Fatal(err)
	}
	tagged := 0
	for _, r := range runs {
		if r.Tags["sweep"] == s.ID {
			tagged++
		}
	}
	if tagged != len(s.Steps) {
		t.Errorf("%d runs tagged sweep=%s, want the %d steps", tagged, s.ID, len(s.Steps))
	}
	for _, st := range s.Steps {
		dir := filepath.Join(root, st.Run)
		if st.Dir != dir {
			t.Errorf("step %d: dir %q, want %q", st.Step, st.Dir, dir)
		}
		run, err := runlog.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		info := run.Info
		if info.Tags["sweep"] != s.ID || info.Tags["sweep_step"] != strconv.Itoa(st.Step) {
			t.Errorf("step %d: tags %v", st.Step, info.Tags)
		}
		if got, _ := strconv.ParseFloat(info.Flags[param], 64); got != st.Value {
			t.Errorf("step %d: run.json records --%s %q, want %g", st.Step, param, info.Flags[param], st.Value)
		}
		b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
		if err != nil {
			t.Fatal(err)
		}
		var sum struct {
			MaxRate     float64 `json:"max_rate"`
			Concurrency int     `json:"concurrency"`
			Total       struct {
				Count int64   `json:"count"`
				Rate  float64 `json:"ops_per_sec"`
				P99   float64 `json:"p99_ms"`
			} `json:"total"`
			Figures map[string]float64 `json:"figures"`
		}
		if err := json.Unmarshal(b, &sum); err != nil {
			t.Fatal(err)
		}
		if sum.Total.Count != st.Total.Count || sum.Total.P99 != st.Total.P99 || sum.Total.Rate != st.Total.Rate {
			t.Errorf("step %d: %+v, summary.json %+v", st.Step, st.Total, sum.Total)
		}
		if !reflect.DeepEqual(sum.Figures, st.Figures) {
			t.Errorf("step %d: figures %v, summary.json %v", st.Step, st.Figures, sum.Figures)
		}
		if param == "max-rate" && sum.MaxRate != st.Value || param == "concurrency" && sum.Concurrency != int(st.Value) {
			t.Errorf("step %d at %g: the run had max-rate %g, %d workers", st.Step, st.Value, sum.MaxRate, sum.Concurrency)
		}
		r := stampede(t, "report", "--results-dir", root, "--format", "json", st.Run)
		if r.code != 0 {
			t.Fatalf("report %s: %s", st.Run, r.stderr)
		}
		var rep struct {
			Total struct {
				Count int64   `json:"count"`
				P99   float64 `json:"p99_ms"`
			} `json:"total"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatal(err)
		}
		if rep.Total.Count != st.Total.Count || rep.Total.P99 != st.Total.P99 {
			t.Errorf("step %d: report recomputes %+v from the run log, the sweep printed %+v", st.Step, rep.Total, st.Total)
		}
	}
}

// TestSweepSteps steps the null driver through three rates with an SLO
// every step meets, then through a list whose middle step cannot.
func TestSweepSteps(t *testing.T) {
	root := t.TempDir()
	// --keep-going: on a loaded machine a step may keep less than 95% of
	// its rate (CI: 92.7% of 2000/s), which would stop the sweep there;
	// each step's verdict is judged again below from its own figures.
	r := stampede(t, "sweep", "ycsb", "--driver", "null", "--max-rate", "1000:3000:1000", "--concurrency", "2", "--duration", "400ms",
		"--slo", "p99<=100ms", "--keep-going", "--results-dir", root, "--format", "json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	s := parseSweep(t, r.stdout)
	if len(s.Steps) != 3 {
		t.Fatalf("%d steps, want 3:\n%s", len(s.Steps), r.stdout)
	}
	for i, st := range s.Steps {
		want := float64(1000 * (i + 1))
		// The SLO, judged again from the step's figures: p99 within
		// 100 ms, and the rate within 95% of the schedule (the term a
		// rate sweep adds).
		met := st.Total.P99 <= 100 && st.Total.Rate >= 0.95*want
		if st.Value != want || st.MaxRate != want || st.Workers != 2 || st.Status != "completed" || st.Met == nil || *st.Met != met {
			t.Errorf("step %d: %+v, want --max-rate %g, 2 workers, met %v", i+1, st, want, met)
		}
	}
	checkSweepRuns(t, root, s, "max-rate")
	if !strings.Contains(r.stderr, "step 2: --max-rate 2000, --concurrency 2, 400ms each") {
		t.Errorf("no status line for step 2 in:\n%s", r.stderr)
	}

	// A rate the null driver cannot reach on 1 worker in 300 ms misses
	// rate>=95%, and the sweep stops there.
	r = stampede(t, "sweep", "ycsb", "--driver", "null", "--max-rate", "1000,900000000,950000000", "--concurrency", "1", "--duration", "300ms",
		"--slo", "p99.9<=1s", "--results-dir", root)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"SLO p99.9<=1s,rate>=95%\n", "  met\n", "missed: rate ", "of 900000000, want rate>=95%",
		"highest --max-rate meeting the SLO p99.9<=1s,rate>=95%: 1000 (step 1)",
		"stopped after --max-rate 900000000 missed the SLO (1 step left; --keep-going runs them)",
		"the steps' runs: stampede runs --tag sweep="} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("no %q in:\n%s", want, r.stdout)
		}
	}
	if n := strings.Count(r.stdout, "-ycsb-"); n != 3 { // two rows and the report hint
		t.Errorf("%d run ids, want 2 steps and the hint:\n%s", n, r.stdout)
	}
}

// TestSweepSearch searches the null driver's highest rate on one worker:
// the answer met the SLO, the lowest rate above it that was probed missed,
// within 5%; every probe is a run of its own.
func TestSweepSearch(t *testing.T) {
	root := t.TempDir()
	r := stampede(t, "sweep", "ycsb", "--driver", "null", "--max-rate", "1000:100000000", "--search", "--slo", "rate>=90%",
		"--concurrency", "1", "--duration", "200ms", "--results-dir", root, "--format", "json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	s := parseSweep(t, r.stdout)
	best, miss := s.Result.Best, s.Result.Miss
	if best == nil || miss == nil || !*best.Met || *miss.Met {
		t.Fatalf("best %+v miss %+v:\n%s", best, miss, r.stdout)
	}
	if miss.Value <= best.Value || miss.Value > best.Value*1.05 {
		t.Errorf("best %g, miss %g: not within 5%%", best.Value, miss.Value)
	}
	for _, st := range s.Steps {
		if st.Value < 1000 || st.Value > 1e8 {
			t.Errorf("probe %g outside the range", st.Value)
		}
		met := st.Total.Rate >= 0.9*st.Value
		if *st.Met != met {
			t.Errorf("step %d at %g: %.0f ops/s judged met=%v", st.Step, st.Value, st.Total.Rate, *st.Met)
		}
		if st.Value < miss.Value && st.Value > best.Value { // a run above that met once: noise the medians judged
			t.Errorf("step %d at %g lies between best %g and miss %g", st.Step, st.Value, best.Value, miss.Value)
		}
	}
	// A plain --search bisects to 5% over 5 decades in about 10 values,
	// then confirms its boundary on 3 runs of each (--repeat's default
	// with --search). The null driver's capacity is the client's CPU, so
	// on a loaded machine a confirmation can turn a verdict over and the
	// bisection go on from there (CI: 25 runs of 13 values, then 37 of
	// 22): bounded, not exact; the search's own budget (64 runs a
	// repetition) must not have run out.
	values := map[float64]bool{}
	for _, st := range s.Steps {
		values[st.Value] = true
	}
	if len(values) > 32 || len(s.Steps) >= 64*3 {
		t.Errorf("%d probes of %d values for a 5%% answer over 5 decades", len(s.Steps), len(values))
	}
	for _, b := range []*sweepStep{best, miss} {
		n := 0
		for _, st := range s.Steps {
			if st.Value == b.Value {
				n++
			}
		}
		if n < 3 || n%2 == 0 {
			t.Errorf("%g ran %d times: a plain --search confirms its boundary on 3 runs", b.Value, n)
		}
	}
	if !strings.Contains(s.Result.Conclusion, fmt.Sprintf("highest --max-rate meeting the SLO rate>=90%%: %s", strconv.FormatFloat(best.Value, 'f', -1, 64))) {
		t.Errorf("conclusion %q", s.Result.Conclusion)
	}
	checkSweepRuns(t, root, s, "max-rate")
}

// TestSweepPostgres sweeps workers against PostgreSQL, closed loop, and
// interrupts a second sweep: the steps done are kept, each in its run.
func TestSweepPostgres(t *testing.T) {
	t.Parallel()
	srv := testServer(t)
	db := freshDB(t, "stampede_sweep")
	if r := stampede(t, "init", "ycsb", "-p", "recordcount=1000", "--db", db, srv); r.code != 0 {
		t.Fatalf("init: %s", r.stderr)
	}
	root := t.TempDir()
	r := stampede(t, "sweep", "ycsb", "-p", "recordcount=1000", "--workload", "b", "--concurrency", "1:4:x2", "--duration", "500ms",
		"--slo", "errors<=0", "--db", db, "--results-dir", root, "--format", "json", srv)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	s := parseSweep(t, r.stdout)
	if len(s.Steps) != 3 || s.Result.Best == nil || s.Result.Best.Value != 4 {
		t.Fatalf("steps %+v, best %+v", s.Steps, s.Result.Best)
	}
	for i, st := range s.Steps {
		if want := math.Pow(2, float64(i)); st.Workers != int(want) || st.MaxRate != 0 || st.Total.Count == 0 {
			t.Errorf("step %d: %+v, want %g workers, closed loop", i+1, st, want)
		}
	}
	checkSweepRuns(t, root, s, "concurrency")

	root = t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	go func() { // Ctrl-C once the second step's run has started
		defer cancel()
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if runs, _ := runlog.List(root); len(runs) == 2 {
				time.Sleep(200 * time.Millisecond)
				return
			}
		}
	}()
	r = stampedeCtx(t, ctx, "sweep", "ycsb", "-p", "recordcount=1000", "--max-rate", "100,200,300", "--duration", "2s",
		"--db", db, "--results-dir", root, srv)
	if r.code != 130 {
		t.Fatalf("interrupted sweep: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	runs, err := runlog.List(root)
	if err != nil || len(runs) != 2 || runs[0].Status != "completed" || runs[1].Status != "interrupted" {
		t.Fatalf("saved runs %+v %v", runs, err)
	}
	if !strings.Contains(r.stdout, runs[0].ID) || !strings.Contains(r.stdout, runs[1].ID+"  interrupted") {
		t.Errorf("the interrupted sweep's table lacks its steps:\n%s", r.stdout)
	}
}

// TestSweepBadInput gives each bad sweep a one-line error, exit 2, before
// any run.
func TestSweepBadInput(t *testing.T) {
	root := t.TempDir()
	null := []string{"--driver", "null", "--duration", "100ms", "--results-dir", root}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"nothing swept", nil, "give the values to sweep: --max-rate 1000:16000:x2, --concurrency 1,2,4,8 or any flag with a number"},
		{"flag that cannot be swept", []string{"--max-rate", "1000,2000", "--ramp", "1s,2s"}, "a sweep cannot vary --ramp (it takes one value); it varies a flag with a number: --active, --concurrency, --conns, --conns-per-tenant, --cpus,"},
		{"values not numbers", []string{"--cpus", "0.5,half"}, "--cpus \"0.5,half\": \"half\" is not a number"},
		{"size not a size", []string{"--memory", "100M,1Q"}, "--memory \"100M,1Q\": malformed size \"1Q\""},
		{"repeat 0", []string{"--max-rate", "1000,2000", "--repeat", "0"}, "--repeat 0: give the runs per value, 1 or more"},
		{"repeat with keep-going", []string{"--max-rate", "1000,2000", "--repeat", "3", "--slo", "p99<=5ms", "--keep-going"}, "--keep-going: with --repeat 3 every round runs every step"},
		{"search a limit", []string{"--cpus", "0.5:2", "--search", "--slo", "p99<=5ms"}, "--search over --cpus: the search assumes a higher value is a heavier load"},
		{"three flags", []string{"--cpus", "0.5,1", "--max-rate", "1000,2000", "--conns", "1,2"}, "--cpus, --max-rate and --conns all hold several values: a sweep varies one flag, or two as a grid; give the others one value"},
		{"search a grid", []string{"--max-rate", "1000:2000", "--concurrency", "1,2", "--search", "--slo", "p99<=5ms"}, "--search varies one flag, and --max-rate and --concurrency both hold several values"},
		{"grid range without step", []string{"--cpus", "0.5,1", "--conns", "1:4"}, "--conns 1:4 has no step: give a list (4,8) or a step (4:16:x2)"},
		{"active above tenants", []string{"--tenants", "500", "--active", "500,750,1000"}, "--active 1000 is more than --tenants 500: at most every tenant can be active"},
		{"active without tenants", []string{"--active", "1,2"}, "--active needs --tenants N (N >= 1)"},
		{"active above tenants, one value", []string{"--tenants", "10", "--active", "20"}, "--active 20 is more than --tenants 10: at most every tenant can be active"},
		{"checkpoint without a server", []string{"--max-rate", "1000,2000", "--checkpoint"}, "--checkpoint: the null driver has no server to checkpoint"},
		{"chart html", []string{"--max-rate", "1000,2000", "--chart", "x.html"}, "--chart x.html: a sweep's chart is .svg or .png; its interactive page is the dashboard's"},
		{"none in a range", []string{"--cpus", "none:2"}, "--cpus none:2: none (no limit) goes in a list of values, as none,1, not in a range"},
		{"none beside a bad value", []string{"--cpus", "none,0"}, "--cpus none,0: 0 is not positive: give none for a step without the limit"},
		{"chart format", []string{"--max-rate", "1000,2000", "--chart", "x.gif"}, "--chart x.gif: use .svg or .png"},
		{"chart empty", []string{"--max-rate", "1000,2000", "--chart", ""}, "give the chart's file (.svg or .png)"},
		{"search workers at a rate", []string{"--concurrency", "1:32", "--max-rate", "100", "--search", "--slo", "p99<=5ms"}, "--search over --concurrency with --max-rate 100: the search assumes a higher value is a heavier load, and at a fixed rate more workers are not: drop --max-rate (a closed loop), or search --max-rate"},
		{"search a proportion", []string{"--read-proportion", "0.5:1", "--search", "--slo", "p99<=5ms"}, "sweep a list (--read-proportion 0.5,0.9,0.95)"},
		{"force without chart", []string{"--max-rate", "1000,2000", "--force"}, "--force replaces the --chart file: give --chart, or drop --force"},
		{"format", []string{"--max-rate", "1000,2000", "--format", "xml"}, "unknown --format \"xml\": use text, json or csv"},
		{"bad value of a flag", []string{"--max-ops", "1,1.5"}, "--max-ops \"1,1.5\": 1.5 is not a whole number"},
		{"range without step", []string{"--max-rate", "1000:64000"}, "--max-rate 1000:64000 has no step: add one (1000:64000:x2) or search it with --search"},
		{"search without slo", []string{"--max-rate", "1000:64000", "--search"}, "--search looks for the highest --max-rate meeting an SLO"},
		{"search a list", []string{"--max-rate", "1000,2000", "--search", "--slo", "p99<=5ms"}, "--search takes a range, as --max-rate 1000:64000"},
		{"zero rate", []string{"--max-rate", "0,1000"}, "--max-rate \"0,1000\": 0 is not positive"},
		{"fractional workers", []string{"--concurrency", "1.5,2"}, "--concurrency \"1.5,2\": 1.5 is not a whole number"},
		{"threads list", []string{"--threads", "1,x"}, "--threads \"1,x\": \"x\" is not a number"},
		{"too many steps", []string{"--max-rate", "1:1000000:1"}, "makes more than 1000 steps"},
		{"huge rate", []string{"--max-rate", "1000:1e20:x10"}, "--max-rate 1e+20 is more than any client reaches"},
		{"huge workers", []string{"--concurrency", "1:100000000:x10"}, "--concurrency 100000000"},
		{"bad slo", []string{"--max-rate", "1000,2000", "--slo", "p99<=5"}, "--slo term \"p99<=5\": \"5\" is not a positive duration with a unit"},
		{"unknown figure", []string{"--max-rate", "1000,2000", "--slo", "p42<=5ms"}, "unknown figure \"p42\""},
		{"rate share closed loop", []string{"--concurrency", "1,2", "--slo", "rate>=90%"}, "--slo rate>=N% is a share of --max-rate"},
		{"precision", []string{"--max-rate", "1000:2000", "--search", "--slo", "p99<=5ms", "--precision", "2"}, "--precision 2: use a fraction above 0 and below 1"},
		{"output style", []string{"--max-rate", "1000,2000", "--output-style", "sysbench"}, "--output-style: a sweep prints its own table"},
		{"no end", []string{"--max-rate", "1000,2000", "--duration", "0"}, "each step of a sweep needs an end: give --duration (such as 60s) or --max-ops"},
		{"precision without search", []string{"--max-rate", "1000,2000", "--precision", "0.1"}, "--precision is the precision of --search"},
		{"precision NaN", []string{"--max-rate", "1000:2000", "--search", "--slo", "p99<=5ms", "--precision", "NaN"}, "--precision NaN: use a fraction above 0 and below 1"},
		{"precision zero", []string{"--max-rate", "1000:2000", "--search", "--slo", "p99<=5ms", "--precision", "0"}, "--precision 0: use a fraction"},
		{"keep going without slo", []string{"--max-rate", "1000,2000", "--keep-going"}, "--keep-going runs the steps after one misses --slo: give --slo (without it"},
		{"keep going with search", []string{"--max-rate", "1000:2000", "--search", "--slo", "p99<=5ms", "--keep-going"}, "--keep-going runs the steps after one misses --slo, in a list: give a list, not --search"},
		{"repeat beyond the steps' cap", []string{"--concurrency", "1,2", "--repeat", "100000"}, "--repeat 100000 makes 200000 runs: a sweep takes at most 1000"},
		{"repeat beyond the cap in a search", []string{"--max-rate", "1000:2000", "--search", "--slo", "p99<=5ms", "--repeat", "1001"}, "--repeat 1001 makes 1001 runs: a sweep takes at most 1000"},
		{"negative pause", []string{"--max-rate", "1000,2000", "--pause", "-1s"}, "--pause -1s is negative"},
		{"histogram", []string{"--max-rate", "1000,2000", "--histogram"}, "--histogram: a sweep prints a row per step"},
		{"sweep tag", []string{"--max-rate", "1000,2000", "--tag", "sweep=mine"}, "--tag sweep=mine: the sweep tags its runs sweep itself"},
		{"overflowing workers", []string{"--concurrency", "1,1e19"}, "1e19 is more workers than a client runs"},
		{"overflowing connections", []string{"--conns", "1,3000000000"}, "--conns \"1,3000000000\": 3000000000 is more connections than a client runs; give at most 2147483647"},
		{"operations beyond their range", []string{"--max-ops", "10,1e19"}, "--max-ops \"10,1e19\": 1e19 is more than --max-ops takes; give at most 9223372036854775807"},
		{"latency closed loop", []string{"--concurrency", "1,2", "--latency", "service"}, "--latency only applies with --max-rate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := stampede(t, append(append([]string{"sweep", "ycsb"}, null...), tc.args...)...)
			checkOneLineError(t, r, 2, tc.want)
			if entries, _ := os.ReadDir(root); len(entries) != 0 {
				t.Errorf("a run was saved: %v", entries)
			}
		})
	}
}

// TestSweepAnyFlag sweeps a flag besides --max-rate and --concurrency
// (--max-ops) three times over in rounds: each step's run records its
// value and repetition, ran exactly that many operations, and the
// sweep's medians per value are the medians of its steps' figures.
func TestSweepAnyFlag(t *testing.T) {
	root := t.TempDir()
	r := stampede(t, "sweep", "ycsb", "--driver", "null", "--max-ops", "100,300", "--repeat", "3", "--concurrency", "2",
		"--results-dir", root, "--format", "json")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var steps []sweepStep
	var result struct {
		Points []struct {
			Value  float64
			Runs   []int
			Median struct {
				Count int64   `json:"count"`
				Rate  float64 `json:"ops_per_sec"`
				P99   float64 `json:"p99_ms"`
			}
			RateMin float64 `json:"ops_per_sec_min"`
			RateMax float64 `json:"ops_per_sec_max"`
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var typ struct {
			Type string
			Rep  int
		}
		if err := json.Unmarshal([]byte(line), &typ); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		switch typ.Type {
		case "step":
			var st sweepStep
			_ = json.Unmarshal([]byte(line), &st)
			steps = append(steps, st)
		case "sweep_result":
			_ = json.Unmarshal([]byte(line), &result)
		}
	}
	wantValues := []float64{100, 300, 100, 300, 100, 300} // rounds, not back to back
	if len(steps) != len(wantValues) {
		t.Fatalf("%d steps, want %d:\n%s", len(steps), len(wantValues), r.stdout)
	}
	byValue := map[float64][]sweepStep{}
	for i, st := range steps {
		if st.Value != wantValues[i] || st.Total.Count != int64(st.Value) || st.Status != "completed" {
			t.Errorf("step %d: value %g, %d operations, %s; want %g", i+1, st.Value, st.Total.Count, st.Status, wantValues[i])
		}
		run, err := runlog.Open(st.Dir)
		if err != nil {
			t.Fatal(err)
		}
		info := run.Info
		rep := len(byValue[st.Value]) + 1
		if info.Flags["max-ops"] != strconv.Itoa(int(st.Value)) || info.Tags["sweep_rep"] != strconv.Itoa(rep) || info.Tags["sweep_step"] != strconv.Itoa(i+1) {
			t.Errorf("step %d's run.json: max-ops %q, tags %v", i+1, info.Flags["max-ops"], info.Tags)
		}
		byValue[st.Value] = append(byValue[st.Value], st)
	}
	if len(result.Points) != 2 {
		t.Fatalf("points %+v", result.Points)
	}
	for _, p := range result.Points {
		var rates []float64
		for _, st := range byValue[p.Value] {
			rates = append(rates, st.Total.Rate)
		}
		slices.Sort(rates)
		if len(p.Runs) != 3 || p.Median.Rate != rates[1] || p.RateMin != rates[0] || p.RateMax != rates[2] || p.Median.Count != int64(p.Value) {
			t.Errorf("point %+v, its steps' rates %v", p, rates)
		}
	}
	text := stampede(t, "sweep", "ycsb", "--driver", "null", "--max-ops", "100,300", "--repeat", "3", "--concurrency", "2", "--results-dir", root)
	if text.code != 0 || !strings.Contains(text.stdout, "medians over each value's runs") || !regexp.MustCompile(`(?m)^\s+3\s+100\s`).MatchString(text.stdout) {
		t.Errorf("the text table lacks the medians or the flag's column:\n%s", text.stdout)
	}
}

// TestSweepCPUs sweeps the server's CPU limit under a load that keeps it
// busy, --cpus 0.25,0.5,none, its table as CSV. Each row's watched cores
// is the step's run's own (its summary.json's telemetry, read here), and
// moves with the limit: never above a step's --cpus by more than 10%;
// within 10% of it and the 0.5 step at least 1.5 times the 0.25 one when
// the machine had the cores to give (other processes on a shared machine
// can starve the server below its limit: then only the ceiling is
// checked, and said); the step without a limit (none, so shown) above
// 0.55 cores when the machine had cores idle beside it.
func TestSweepCPUs(t *testing.T) {
	requireLimitV1(t)
	srv := ownServer(t)
	url := srv.URL("sbtest")
	if r := stampede(t, "init", "oltp_read_only", "--tables", "1", "--table_size", "10000", url); r.code != 0 {
		t.Fatalf("init: %s", r.stderr)
	}
	pid := postmasterPID(t, srv)
	root := t.TempDir()
	r := stampede(t, "sweep", "oltp_read_only", "--tables", "1", "--table_size", "10000", "--range_size", "1000", "--cpus", "0.25,0.5,none",
		"--watch-pid", strconv.Itoa(pid), "--concurrency", "8", "--duration", "4s", "--results-dir", root, "--format", "csv", url)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil || len(rows) != 4 {
		t.Fatalf("%d rows, %v, want a header and 3 steps:\n%s", len(rows), err, r.stdout)
	}
	col := func(name string) int {
		i := slices.IndexFunc(rows[0], func(h string) bool {
			return h == name || strings.HasPrefix(name, "watched ") && strings.HasPrefix(h, name)
		})
		if i < 0 {
			t.Fatalf("no column %q in %v", name, rows[0])
		}
		return i
	}
	cpus, text, watched, runID := col("cpus"), col("cpus_text"), col("watched "), col("run")
	type step struct{ limit, cores, idle float64 }
	var steps []step
	for k, row := range rows[1:] {
		limit, _ := strconv.ParseFloat(row[cpus], 64)
		want := []string{"0.25", "0.5", "none"}[k]
		if row[text] != want || limit != []float64{0.25, 0.5, 0}[k] {
			t.Errorf("step %d: cpus %s %q, want %s", k+1, row[cpus], row[text], want)
		}
		got, err := strconv.ParseFloat(row[watched], 64)
		if err != nil {
			t.Fatalf("step %d: watched cores %q: %v", k+1, row[watched], err)
		}
		run, err := runlog.Open(filepath.Join(root, row[runID]))
		if err != nil {
			t.Fatal(err)
		}
		var sum struct{ Telemetry *telemetry.Summary }
		if err := json.Unmarshal(run.Summary, &sum); err != nil || sum.Telemetry == nil || len(sum.Telemetry.Procs) != 1 {
			t.Fatalf("step %d: run %s's telemetry %+v, %v", k+1, row[runID], sum.Telemetry, err)
		}
		tel := sum.Telemetry
		if own := tel.Procs[0].CPUCores.Avg; got != own {
			t.Errorf("step %d: the table says %g cores, the run's summary %g", k+1, got, own)
		}
		steps = append(steps, step{limit, got, tel.CPU.Idle.Avg / 100 * float64(tel.Cores)})
	}
	starved := false
	for _, st := range steps[:2] {
		if st.cores > 1.1*st.limit {
			t.Errorf("--cpus %g: the server used %.3f cores on average, above the limit", st.limit, st.cores)
		}
		switch {
		case st.cores >= 0.9*st.limit:
		case st.idle >= 0.1*st.limit+0.1:
			t.Errorf("--cpus %g: the server used %.3f cores on average with %.2f cores idle: not within 10%% of the limit", st.limit, st.cores, st.idle)
		default:
			starved = true
			t.Logf("--cpus %g: the server used %.3f cores, the machine %.2f cores idle: starved by other processes, only the ceiling checked", st.limit, st.cores, st.idle)
		}
	}
	if !starved && steps[1].cores < 1.5*steps[0].cores {
		t.Errorf("the server used %.3f cores at --cpus 0.5, %.3f at 0.25: want the limit's doubling to show", steps[1].cores, steps[0].cores)
	}
	if none := steps[2]; none.cores <= 0.55 && none.idle >= 0.3 {
		t.Errorf("--cpus none: the server used %.3f cores with %.2f cores idle: held to a limit", none.cores, none.idle)
	} else {
		t.Logf("--cpus none: the server used %.3f cores, the machine %.2f idle", none.cores, none.idle)
	}
}

// TestSweepNoneLimitPID: a limit sweep with a none step under
// --limit-pid runs that step without a limit and without putting the
// process anywhere (it was refused: --limit-pid needs a limit).
func TestSweepNoneLimitPID(t *testing.T) {
	requireLimitV1(t)
	sleep := exec.Command("sleep", "60")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sleep.Process.Kill(); _ = sleep.Wait() })
	r := stampede(t, "sweep", "ycsb", "--workload", "c", "--driver", "null", "--cpus", "0.5,none", "--limit-pid", strconv.Itoa(sleep.Process.Pid),
		"--duration", "1s", "--results-dir", t.TempDir(), "--format", "csv")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil || len(rows) != 3 || rows[1][slices.Index(rows[0], "cpus_text")] != "0.5" || rows[2][slices.Index(rows[0], "cpus_text")] != "none" {
		t.Fatalf("rows %v, %v: want the 0.5 step and the none step", rows, err)
	}
}
