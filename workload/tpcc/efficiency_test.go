package tpcc

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/stampede-bench/stampede/randgen"
)

// poissonCDF is P(X <= n) for X Poisson of mean mu, summed term by term
// from the probability mass function (independently of the chi-square
// quantiles countInterval uses).
func poissonCDF(n int64, mu float64) float64 {
	sum := 0.0
	for k := int64(0); k <= n; k++ {
		lg, _ := math.Lgamma(float64(k + 1))
		sum += math.Exp(float64(k)*math.Log(mu) - mu - lg)
	}
	return sum
}

// TestCountInterval checks countInterval against the definition of the
// exact Poisson interval: at its low end a count of n or more has
// probability 2.5%, at its high end a count of n or less has 2.5%.
func TestCountInterval(t *testing.T) {
	for _, n := range []int64{0, 1, 5, 94, 1000} {
		lo, hi := countInterval(n)
		if got := poissonCDF(n, hi); math.Abs(got-0.025) > 1e-9 {
			t.Errorf("n=%d: P(X <= n | %g) = %g, want 0.025", n, hi, got)
		}
		if n == 0 {
			if lo != 0 {
				t.Errorf("n=0: low end %g, want 0", lo)
			}
			continue
		}
		if got := 1 - poissonCDF(n-1, lo); math.Abs(got-0.025) > 1e-9 {
			t.Errorf("n=%d: P(X >= n | %g) = %g, want 0.025", n, lo, got)
		}
	}
	// The interval of no event: -ln(0.025).
	if _, hi := countInterval(0); math.Abs(hi+math.Log(0.025)) > 1e-9 {
		t.Errorf("n=0: high end %g, want %g", hi, -math.Log(0.025))
	}
}

// TestPoissonIntervalCoverage is the property countInterval promises:
// over Poisson counts of a known mean, its interval holds the mean 95% of
// the time or more (the exact interval is conservative), and not much
// more for counts of the size runs have.
func TestPoissonIntervalCoverage(t *testing.T) {
	const runs = 20000
	for _, mu := range []float64{8, 75.6, 400} {
		p := distuv.Poisson{Lambda: mu, Src: rand.NewPCG(1, uint64(mu))}
		held := 0
		for range runs {
			lo, hi := countInterval(int64(p.Rand()))
			if lo <= mu && mu <= hi {
				held++
			}
		}
		cov := float64(held) / runs
		// 3 standard errors of a 95% proportion over the runs.
		se := math.Sqrt(0.95 * 0.05 / runs)
		if cov < 0.95-3*se || cov > 0.985 {
			t.Errorf("mean %g: coverage %.4f, want 95%% to 98.5%%", mu, cov)
		}
		t.Logf("Poisson mean %g: coverage %.4f", mu, cov)
	}
}

// simulateNewOrders runs the terminals of warehouses warehouses as the
// engine's ramp starts them (evenly over it), and Ops and worker.run
// drive them with --wait (firstWait, then advance after each
// transaction), with transactions that take no time, and returns the
// New-Orders completed between ramp and ramp+duration.
func simulateNewOrders(seed uint64, weights []int, warehouses int, ramp, duration time.Duration) int64 {
	cycle := meanCycle(weights)
	terminals := terminalsPerWarehouse * warehouses
	var n int64
	for i := range terminals {
		w := &worker{r: randgen.New(seed, workerStream(i)), waitFactor: 1, deck: newDeck(weights)}
		w.r.Shuffle(len(w.deck), func(a, b int) { w.deck[a], w.deck[b] = w.deck[b], w.deck[a] })
		for at := ramp*time.Duration(i)/time.Duration(terminals) + w.firstWait(cycle); at < ramp+duration; {
			op := w.next
			if op == opNewOrder && at >= ramp {
				n++
			}
			at += w.advance(op)
		}
	}
	return n
}

// TestEfficiencyIntervalCoverage simulates the terminals of the issue's
// run (2 warehouses, a 1-minute ramp, 3 measured minutes) over many
// seeds: the efficiency's interval holds the mix's true efficiency
// (maxEfficiency, transactions taking no time) in 95% of the runs or
// more, and the long-run efficiency of the simulation is maxEfficiency.
func TestEfficiencyIntervalCoverage(t *testing.T) {
	weights, err := parseMix(defaultMix)
	if err != nil {
		t.Fatal(err)
	}
	truth := maxEfficiency(weights)
	if math.Abs(truth-98.0) > 0.05 {
		t.Errorf("maxEfficiency of the default deck = %.3f%%, want 98.0%%", truth)
	}
	// The long run: 2 warehouses for 100 hours.
	long := simulateNewOrders(1, weights, 2, time.Minute, 100*time.Hour)
	if got := efficiencyOf(float64(long), 6000, 2); math.Abs(got-truth) > 0.3 {
		t.Errorf("simulated long-run efficiency %.2f%%, maxEfficiency %.2f%%", got, truth)
	}

	const seeds = 4000
	const minutes = 3.0
	held, asMany := 0, 0
	var effs []float64
	for s := range uint64(seeds) {
		n := simulateNewOrders(s+100, weights, 2, time.Minute, 3*time.Minute)
		if n >= issueNewOrders {
			asMany++
		}
		lo, hi := countInterval(n)
		if efficiencyOf(lo, minutes, 2) <= truth && truth <= efficiencyOf(hi, minutes, 2) {
			held++
		}
		effs = append(effs, efficiencyOf(float64(n), minutes, 2))
	}
	cov := float64(held) / seeds
	slices.Sort(effs)
	mean := 0.0
	for _, e := range effs {
		mean += e / seeds
	}
	t.Logf("terminals, 2 warehouses, 3 minutes: coverage %.4f; efficiency mean %.1f%% p5 %.1f%% p50 %.1f%% p95 %.1f%% max %.1f%%",
		cov, mean, effs[seeds*5/100], effs[seeds/2], effs[seeds*95/100], effs[seeds-1])
	if cov < 0.95 {
		t.Errorf("the interval held the true efficiency in %.4f of the simulated runs, want 95%% or more", cov)
	}
	// The issue's run (94 New-Orders, 121.8%) against the simulation, the
	// independent truth of what terminals that keep the keying and think
	// times count: so many is rarer than the interval's 2.5% tail, so
	// "beyond sampling noise" (which efficiencyText prints for it, the
	// exact interval's low end being 98.4%) is what the simulation says too.
	t.Logf("simulated runs counting %d New-Orders or more: %d of %d", issueNewOrders, asMany, seeds)
	if float64(asMany) >= 0.025*seeds {
		t.Errorf("%d of %d simulated runs count %d New-Orders or more: then the issue's 121.8%% is sampling noise, and efficiencyText must say so", asMany, seeds, issueNewOrders)
	}
}

// issueNewOrders is the count of issue 28's run (2 warehouses with waits,
// a 1-minute ramp, 3 measured minutes: efficiency 121.8%).
const issueNewOrders = 94

// TestEfficiencyText checks the figure's text: the figure, its interval
// (countInterval's, through tpmC), and what it says of a figure above the
// mix's maximum.
func TestEfficiencyText(t *testing.T) {
	g := newGen(t, "--warehouses", "2")
	for _, tc := range []struct {
		n       int64
		minutes float64
		eff     string
		above   string // "", "by sampling noise only" or "beyond sampling noise"
	}{
		// The issue's run: the issue took it for noise, but the exact
		// interval's low end (98.4%) is above 98.0%, and none of 4,000
		// simulated runs of terminals that keep the waits counts 94
		// (TestEfficiencyIntervalCoverage): beyond noise.
		{94, 3, "121.8%", "beyond sampling noise"},
		{76, 3, "98.5%", "by sampling noise only"}, // just above: the interval reaches far below
		{80, 3, "103.7%", "by sampling noise only"},
		{8000, 300, "103.7%", "beyond sampling noise"},
		{70, 3, "90.7%", ""},
	} {
		text := g.efficiencyText(tc.n, tc.minutes)
		lo, hi := countInterval(tc.n)
		want := []string{tc.eff + fmt.Sprintf(" (95%% interval %.1f%%-%.1f%% from the count; tpmC / (12.86 x 2 warehouses), from %s New-Orders)",
			efficiencyOf(lo, tc.minutes, 2), efficiencyOf(hi, tc.minutes, 2), count(tc.n))}
		if tc.above != "" {
			want = append(want, "above the mix's maximum of 98.0% "+tc.above)
		}
		for _, w := range want {
			if !strings.HasPrefix(text, tc.eff) || !strings.Contains(text, w) {
				t.Errorf("n=%d: %q lacks %q", tc.n, text, w)
			}
		}
		if tc.above == "" && strings.Contains(text, "maximum") {
			t.Errorf("n=%d: %q speaks of the maximum", tc.n, text)
		}
	}
}
