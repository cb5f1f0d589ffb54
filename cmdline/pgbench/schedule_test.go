package pgbench_test

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
)

// rateFigures are the figures of a pgbench report under -R with -L.
type rateFigures struct {
	processed, skipped int
	lag                float64 // the mean schedule lag, ms
}

var (
	processedLine = regexp.MustCompile(`(?m)^number of transactions actually processed: (\d+)`)
	skippedLine   = regexp.MustCompile(`(?m)^number of transactions skipped: (\d+) \(`)
	lagLine       = regexp.MustCompile(`(?m)^rate limit schedule lag: avg ([0-9.]+) \(max`)
)

// parseRateFigures reads a report's transactions processed and skipped and
// its mean schedule lag.
func parseRateFigures(t *testing.T, report string) rateFigures {
	t.Helper()
	var f rateFigures
	for _, m := range []struct {
		re  *regexp.Regexp
		set func(string) error
	}{
		{processedLine, func(s string) (err error) { f.processed, err = strconv.Atoi(s); return }},
		{skippedLine, func(s string) (err error) { f.skipped, err = strconv.Atoi(s); return }},
		{lagLine, func(s string) (err error) { f.lag, err = strconv.ParseFloat(s, 64); return }},
	} {
		sub := m.re.FindStringSubmatch(report)
		if sub == nil {
			t.Fatalf("no %q in the report:\n%s", m.re, report)
		}
		if err := m.set(sub[1]); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// TestRateScheduleAsPgbench runs -c 4 -R 200 -L 5 -T 5 through both tools,
// alternating, on one database: tpcb-like with -j 1, and a script of
// which one transaction in 20 takes 30 ms (the others well under 1 ms)
// with -j 1 and -j 2. pgbench schedules per thread, its clients taking
// the thread's next start whichever is free, and stampede's schedule
// groups do the same, so their skipped fractions and mean lags must be
// alike. Before them, stampede gave each client its own schedule, and a
// client behind on a slow transaction skipped its own starts while the
// others idled: a user measured 3.6-10.6% skipped where pgbench skipped
// 0.2-1.2%; with the script here, 17-18% where pgbench skipped 1.4-3.3%
// (and stampede now 2.5-3.2%).
//
// The tolerances are wide because this machine's 2 CPUs are shared with
// other test runs, whose load moves both tools' lateness by several times
// between identical runs: over three alternating rounds, the median of
// stampede's skipped fractions must be at most 3 times pgbench's or 8%
// (pgbench's fraction can be near 0), and the median of its mean lags at
// most 3 times pgbench's or 1 ms more.
//
// Each run's starts (processed plus skipped) are a Poisson process's
// count over 5 s at 200/s: 1,000, standard deviation 32. stampede's must
// be within 4 standard deviations of it. pgbench's may fall short on a
// loaded machine (when -T ends, pgbench stops counting the starts of a
// client still behind, as pgbench.c says of its skipping), so only its
// upper bound is the same, its lower one 60%.
func TestRateScheduleAsPgbench(t *testing.T) {
	dir := t.TempDir()
	db := freshDB(t)
	srv := server(t)
	const rate, secs, rounds = 200, 5, 3
	expected := float64(rate * secs)
	noise := 4 * math.Sqrt(expected)
	if err := os.WriteFile(filepath.Join(dir, "slow.sql"), []byte("\\set r random(1, 20)\nSELECT pg_sleep(CASE WHEN :r = 1 THEN 0.03 ELSE 0 END);\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		script []string
		jobs   string
	}{{nil, "1"}, {[]string{"-f", "slow.sql"}, "1"}, {[]string{"-f", "slow.sql"}, "2"}} {
		name := "tpcb-like"
		if tc.script != nil {
			name = "slow"
		}
		jobs := tc.jobs
		t.Run(name+"/j="+jobs, func(t *testing.T) {
			args := append(append(append([]string{}, srv...), tc.script...), "-n", "-c", "4", "-j", jobs, "-R", strconv.Itoa(rate), "-L", "5", "-T", strconv.Itoa(secs), db)
			// Each tool's skipped fraction and mean lag per round.
			var skips, lags [2][]float64
			for round := range rounds {
				for _, real := range []bool{round%2 == 0, round%2 != 0} { // alternate which goes first
					out, _ := tool(t, real, dir, args...)
					f := parseRateFigures(t, out)
					who := map[bool]string{true: "pgbench", false: "stampede"}[real]
					t.Logf("round %d, %s: processed %d, skipped %d, lag %.3f ms", round, who, f.processed, f.skipped, f.lag)
					starts := float64(f.processed + f.skipped)
					low := expected - noise
					if real {
						low = 0.6 * expected
					}
					if starts < low || starts > expected+noise {
						t.Errorf("%s: %v starts (%d processed, %d skipped) in %d s at %d/s: want %v within %.0f", who, starts, f.processed, f.skipped, secs, rate, expected, noise)
					}
					k := 1
					if real {
						k = 0
					}
					skips[k] = append(skips[k], float64(f.skipped)/starts)
					lags[k] = append(lags[k], f.lag)
				}
			}
			// Medians over the rounds: one round of either tool caught
			// by a burst of the machine's load (CI: stampede skipped
			// 18% in one round, 3.4% in the next, pgbench 2.6% and
			// 0.7%) does not decide.
			median := func(v []float64) float64 { v = slices.Clone(v); slices.Sort(v); return v[len(v)/2] }
			pgSkip, stSkip := median(skips[0]), median(skips[1])
			// The floor, 8%, is half the per-client schedule's 17-18%
			// on the slow script: a CI at load 12 (a benchmark and a
			// checker beside it) had stampede at 5.6%, 5.1% and 1.0%
			// where pgbench skipped 3.6%, 1.1% and 1.2%.
			if stSkip > max(3*pgSkip, 0.08) {
				t.Errorf("-j %s: stampede skipped %.1f%% of its transactions, pgbench %.1f%%: want at most max(3 times pgbench's, 8%%)", jobs, 100*stSkip, 100*pgSkip)
			}
			pgLag, stLag := median(lags[0]), median(lags[1])
			if stLag > max(3*pgLag, pgLag+1) {
				t.Errorf("-j %s: stampede's mean schedule lag %.3f ms, pgbench's %.3f ms: want at most max(3 times pgbench's, pgbench's + 1 ms)", jobs, stLag, pgLag)
			}
			t.Logf("-j %s: skipped stampede %.2f%%, pgbench %.2f%%; mean lag stampede %.3f ms, pgbench %.3f ms", jobs, 100*stSkip, 100*pgSkip, stLag, pgLag)
		})
	}
}
