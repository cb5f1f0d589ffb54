package cli_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/runlog"
)

// figureLine returns the value of the figure line "  name: value ..." of
// a run's output, and the line; it fails the test when there is none.
func figureLine(t *testing.T, out, name string) (float64, string) {
	t.Helper()
	m := regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(name) + `: ([0-9.]+)%?(.*)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no %s line in:\n%s", name, out)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatal(err)
	}
	return v, m[0]
}

// poissonCDF is P(X <= n) for X Poisson of mean mu, summed from the
// probability mass function.
func poissonCDF(n int, mu float64) float64 {
	sum := 0.0
	for k := 0; k <= n; k++ {
		lg, _ := math.Lgamma(float64(k + 1))
		sum += math.Exp(float64(k)*math.Log(mu) - mu - lg)
	}
	return sum
}

// checkEfficiencyInterval checks an efficiency line's 95% interval
// against the exact Poisson interval of its New-Order count n, found here
// by bisection on the Poisson distribution: the mean at which a count of
// n or more has probability 2.5% (low end) and the one at which n or
// less has 2.5% (high end). The interval's ends are the efficiency
// scaled by those means over n (the measured minutes and 12.86 per
// warehouse cancel out), within the rounding of the printed figures.
func checkEfficiencyInterval(t *testing.T, line string) {
	t.Helper()
	m := regexp.MustCompile(`: ([0-9.]+)% \(95% interval ([0-9.]+)%-([0-9.]+)% from the count; tpmC / \(12\.86 x \d+ warehouses?\), from ([0-9,]+) New-Orders\)`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("efficiency line without its interval: %q", line)
	}
	n, _ := strconv.Atoi(strings.ReplaceAll(m[4], ",", ""))
	var got [3]float64
	for i := range got {
		got[i], _ = strconv.ParseFloat(m[i+1], 64)
	}
	// solve finds the mean where f, monotone in it, crosses 0.025.
	solve := func(f func(mu float64) float64, rising bool) float64 {
		lo, hi := 0.0, float64(n)*3+10
		for range 200 {
			mid := (lo + hi) / 2
			if (f(mid) < 0.025) == rising {
				lo = mid
			} else {
				hi = mid
			}
		}
		return lo
	}
	if n == 0 {
		if got[0] != 0 || got[1] != 0 {
			t.Errorf("%q: no New-Order, but efficiency %.1f%%, low end %.1f%%", line, got[0], got[1])
		}
		return
	}
	wantLo := solve(func(mu float64) float64 { return 1 - poissonCDF(n-1, mu) }, true)
	wantHi := solve(func(mu float64) float64 { return poissonCDF(n, mu) }, false)
	for i, mu := range []float64{wantLo, wantHi} {
		want := got[0] * mu / float64(n)
		if tol := 0.051 + 0.05*mu/float64(n); math.Abs(got[i+1]-want) > tol {
			t.Errorf("%q: interval end %d is %.1f%%, want %.2f%% (%.3g/%d of the efficiency)", line, i, got[i+1], want, mu, n)
		}
	}
	if above := strings.Contains(line, "above the mix's maximum of 98.0%"); above != (got[0] > 98.0) {
		t.Errorf("%q: says it is above the maximum: %v", line, above)
	}
}

// TestTPCCWaitsFigures runs TPC-C on 1 warehouse as the spec drives it:
// 10 terminals by default, keying and think times, a 1-minute ramp and 20
// seconds measured. Efficiency is printed and at most 100% (the start-up
// burst of first transactions is gone: seed 1 measured 3 New-Orders, 70%),
// every New-Order was keyed in for at least its 18 seconds after the run
// started, NOPM comes from the server, and the header says how the run
// goes.
func TestTPCCWaitsFigures(t *testing.T) {
	t.Parallel()
	srv := testServer(t)
	db := freshDB(t, "stampede_tpcc_waits")
	if r := stampede(t, "init", "tpcc", "--db", db, srv); r.code != 0 {
		t.Fatalf("init: %d %s", r.code, r.stderr)
	}
	root := t.TempDir()
	r := stampede(t, "run", "tpcc", "--ramp", "60s", "--duration", "20s", "--seed", "1", "--report-interval", "0",
		"--db", db, "--results-dir", root, srv)
	if r.code != 0 {
		t.Fatalf("run: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	eff, line := figureLine(t, r.stdout, "efficiency")
	if eff > 100 || !strings.Contains(line, "; tpmC / (12.86 x 1 warehouses), from ") {
		t.Errorf("efficiency over 100%% or unlabelled: %q", line)
	}
	checkEfficiencyInterval(t, line)
	if _, line := figureLine(t, r.stdout, "NOPM"); !strings.Contains(line, "from the server") {
		t.Errorf("NOPM %q", line)
	}
	for _, want := range []string{
		", 10 workers, seed 1\n",
		"tpcc: 10 terminals (10 per warehouse) with keying and think times; each keys in its first transaction too\n",
		"tpcc: isolation read committed (as HammerDB and go-tpc): Order-Status's three statements see separate snapshots; --isolation repeatable-read gives TPC-C's level 3\n",
		"warning: --ramp 1m0s is longer than --duration 20s: the figures cover only the 20s after the ramp\n",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	runs, err := runlog.List(root)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %v: %v", runs, err)
	}
	// report prints the same block, efficiency included: it needs the
	// run's 10 workers (the workload's default), which run.json records.
	dir := filepath.Join(root, runs[0].ID)
	if rep := stampede(t, "report", dir); rep.code != 0 || finalBlock(rep.stdout) != finalBlock(r.stdout) {
		t.Errorf("report's final block (exit %d)\n%s\nthe run's\n%s%s", rep.code, finalBlock(rep.stdout), finalBlock(r.stdout), rep.stderr)
	}
	// o_entry_d is the time a New-Order was drawn, after its keying time.
	first := queryInt(t, db, `SELECT (extract(epoch FROM min(o_entry_d)) * 1000)::bigint FROM "order" WHERE o_id > 3000`)
	if d := time.UnixMilli(first).Sub(runs[0].Start); d < 18*time.Second {
		t.Errorf("the first New-Order came %v after the run started, before its 18 s keying time", d)
	}
}

// TestTPCCThroughputFigures runs TPC-C without keying and think times:
// no efficiency, printed or saved, and NOPM is the growth of
// sum(d_next_o_id) that the test reads itself around the run, which
// report prints again from the run log.
func TestTPCCThroughputFigures(t *testing.T) {
	t.Parallel()
	srv := testServer(t)
	db := freshDB(t, "stampede_tpcc_nopm")
	if r := stampede(t, "init", "tpcc", "--db", db, srv); r.code != 0 {
		t.Fatalf("init: %d %s", r.code, r.stderr)
	}
	root := t.TempDir()
	before := queryInt(t, db, "SELECT sum(d_next_o_id) FROM district")
	r := stampede(t, "run", "tpcc", "--wait=false", "--concurrency", "4", "--duration", "3s", "--skip-checks", "--db", db,
		"--results-dir", root, srv)
	if r.code != 0 {
		t.Fatalf("run: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	growth := queryInt(t, db, "SELECT sum(d_next_o_id) FROM district") - before
	_, line := figureLine(t, r.stdout, "NOPM")
	if want := "sum(d_next_o_id) grew by " + strconv.FormatInt(growth, 10) + ", the committed New-Orders"; growth == 0 || !strings.Contains(line, want) {
		t.Errorf("NOPM %q, want %q", line, want)
	}
	if strings.Contains(r.stdout, "efficiency") {
		t.Errorf("efficiency without keying and think times:\n%s", r.stdout)
	}
	var sum struct {
		Figures map[string]float64 `json:"figures"`
	}
	b, err := os.ReadFile(filepath.Join(lastRun(t, root), "summary.json"))
	if err == nil {
		err = json.Unmarshal(b, &sum)
	}
	if _, eff := sum.Figures["efficiency"]; err != nil || eff || sum.Figures["NOPM"] <= 0 || sum.Figures["tpmC"] <= 0 {
		t.Errorf("summary.json figures %v (%v)", sum.Figures, err)
	}
	if !strings.Contains(r.stderr, "tpcc: 4 workers without keying or think times (--wait=false): a throughput test, without efficiency\n") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	// report prints the run's final block, NOPM included: the run log
	// keeps what the run read from the server.
	dir := lastRun(t, root)
	rep := stampede(t, "report", dir)
	if got, want := finalBlock(rep.stdout), finalBlock(r.stdout); rep.code != 0 || got != want || !strings.Contains(want, "\n  NOPM: ") {
		t.Errorf("report's final block (exit %d)\n%s\nthe run's\n%s%s", rep.code, got, want, rep.stderr)
	}
	// In JSON too, by name, as summary.json has them.
	var js struct {
		Figures map[string]float64 `json:"figures"`
	}
	if jr := stampede(t, "report", "--format", "json", dir); jr.code != 0 || json.Unmarshal([]byte(jr.stdout), &js) != nil ||
		js.Figures["NOPM"] != sum.Figures["NOPM"] || js.Figures["tpmC"] != sum.Figures["tpmC"] {
		t.Errorf("report --format json figures %v, summary.json's %v (exit %d: %s)", js.Figures, sum.Figures, jr.code, jr.stderr)
	}
	// A window is not the measurement interval NOPM covers.
	if win := stampede(t, "report", "--from", "0s", dir); win.code != 0 || strings.Contains(win.stdout, "NOPM") ||
		!strings.Contains(win.stdout, "\n  tpmC: ") {
		t.Errorf("report --from 0s: exit %d\n%s%s", win.code, win.stdout, win.stderr)
	}
}

// TestTPCCConformanceWarnings checks the one-line warnings of runs that
// are not TPC-C's (on the null driver): each is printed once and the run
// goes on.
func TestTPCCConformanceWarnings(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"mix under a minimum", []string{"--wait=false", "--mix", "newOrder=45,payment=44,orderStatus=3,delivery=4,stockLevel=4"},
			"warning: --mix gives orderStatus 3.0% (minimum 4%) of the transactions, under the minimums of clause 5.2.3: the run is not TPC-C conformant"},
		{"terminals", []string{"--concurrency", "4", "--ramp", "1s"},
			"warning: --concurrency 4 with --wait: TPC-C has 10 terminals per warehouse (10 for 1 warehouses), and efficiency is TPC-C's only with them: it is not printed"},
		{"ramp longer than duration", []string{"--wait=false", "--ramp", "2s"},
			"warning: --ramp 2s is longer than --duration 1s: the figures cover only the 1s after the ramp"},
		{"waits without ramp", []string{"--wait"},
			"warning: --wait without --ramp: the terminals start idle and reach their steady rate after a minute or so, which the figures count: give --ramp 1m or more"},
		{"defaults", nil,
			"warning: TPC-C's waits are on by default and there is no ramp: the terminals start idle and reach their steady rate after a minute or so, which the figures count: give --ramp 1m or more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			r := stampede(t, append([]string{"run", "tpcc", "--driver", "null", "--duration", "1s", "--results-dir", t.TempDir()}, tc.args...)...)
			if r.code != 0 || strings.Count(r.stderr, tc.want+"\n") != 1 || strings.Count(r.stderr, "warning: ") != 1 {
				t.Errorf("exit %d, stderr:\n%s\nwant once: %s", r.code, r.stderr, tc.want)
			}
			// Terminals in their first keying time stop with the run.
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("a 1s run took %v", d)
			}
		})
	}
}
