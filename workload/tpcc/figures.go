package tpcc

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/stats"
	"github.com/stampede-bench/stampede/workload"
)

var (
	_ workload.Figurer         = (*tpcc)(nil)
	_ workload.AfterRunChecker = (*tpcc)(nil)
)

// CheckAfterRun implements workload.AfterRunChecker: the consistency
// conditions are checked after every run (--skip-checks skips them); of
// several clients (--clients), by client 0 only, once for the benchmark
// (they hold in any snapshot, the other clients' transactions running or
// not).
func (g *tpcc) CheckAfterRun() bool { return g.part[1] == 0 || g.part[0] == 0 }

// maxTpmCPerWarehouse is the highest tpmC one warehouse can produce with
// the specification's keying and think times: 12.86 New-Orders per minute
// (as `cockroach workload` uses for its efficiency).
const maxTpmCPerWarehouse = 12.86

// terminals returns the number of workers of the last Ops.
func (g *tpcc) terminals() int {
	if len(g.workers) == 0 {
		return g.figureWorkers // a run's, rebuilt by report
	}
	return len(g.workers)
}

var _ workload.WorkerFigurer = (*tpcc)(nil)

// SetFigureWorkers implements workload.WorkerFigurer.
func (g *tpcc) SetFigureWorkers(n int) { g.figureWorkers = n }

// efficient reports whether efficiency means something for the run the
// last Ops prepared: with the specification's keying and think times (not
// a --wait factor of them) and 10 terminals per warehouse, all running,
// the population whose New-Orders 12.86 per minute and warehouse bounds
// (clauses 4.2.2 and 5.4).
func (g *tpcc) efficient() bool { return g.efficientWith(g.terminals()) }

// efficientWith is efficient for a run of the given number of workers.
func (g *tpcc) efficientWith(workers int) bool {
	return !g.hammerdb() && g.wait && g.waitFactor == 1 && workers == terminalsPerWarehouse*g.homeCount() &&
		(g.activeWorkers == 0 || g.activeWorkers >= workers)
}

// Figures implements workload.Figurer: tpmC, the New-Orders completed per
// minute (rolled-back ones included, as clause 5.4.1 counts them);
// efficiency, tpmC as a share of the most the warehouses' terminals can
// produce (as `cockroach workload` prints it), only with keying and think
// times and 10 terminals per warehouse; TPM, the transactions of every
// type per minute; and HammerDB's NOPM, read from the server (the growth
// of sum(D_NEXT_O_ID) over the measurement interval: committed New-Orders
// only) when the runner measured one.
func (g *tpcc) Figures(counts map[string]int64, elapsed time.Duration) []workload.Figure {
	minutes := elapsed.Minutes()
	if minutes <= 0 {
		return nil
	}
	var all int64
	for _, n := range counts {
		all += n
	}
	tpmC := float64(counts[txs[opNewOrder].name]) / minutes
	by := "counted by the client"
	if m := g.merged; m != nil {
		// Over the clients' common measurement interval when report said
		// it (SetMergeInterval); never named so over another time.
		within := "the time their intervals cover together"
		if m.common.to.After(m.common.from) {
			within = "their common measurement interval"
		}
		by = fmt.Sprintf("counted by the clients, %s New-Orders in the %s of %s", count(counts[txs[opNewOrder].name]), elapsed.Round(time.Millisecond), within)
	}
	figs := []workload.Figure{{Name: "tpmC", Value: tpmC,
		Text: fmt.Sprintf("%.1f (New-Orders completed per minute, rolled-back ones included; %s)", tpmC, by)}}
	if g.efficient() {
		n := counts[txs[opNewOrder].name]
		eff := efficiencyOf(float64(n), minutes, g.homeCount())
		figs = append(figs, workload.Figure{Name: "efficiency", Value: eff,
			Text: g.efficiencyText(n, minutes)})
	}
	tpm := float64(all) / minutes
	counter := "the client"
	if g.merged != nil {
		counter = "the clients"
	}
	var noNOPM string
	if m := g.merged; m != nil && m.noNOPM != "" {
		noNOPM = "; " + m.noNOPM
	}
	figs = append(figs, workload.Figure{Name: "TPM", Value: tpm,
		Text: fmt.Sprintf("%.0f (transactions of every type per minute; counted by %s%s)", tpm, counter, noNOPM)})
	if m := g.merged; m != nil && m.nopmOK && m.perClient {
		on := "their database"
		if m.targets > 1 {
			on = fmt.Sprintf("their %d databases", m.targets)
		}
		figs = append(figs, workload.Figure{Name: "NOPM", Value: m.nopm, Observed: true,
			Text: fmt.Sprintf("%.0f (from the server, as HammerDB: sum(d_next_o_id) over each client's own warehouses, on %s, grew by %d in all, the committed New-Orders of the %s reported; each client's growth per minute of its measurement interval, added up%s)",
				m.nopm, on, m.newOrders, nWarehouses(int64(m.warehouses)), g.nopmNote()+g.noOrdersNote(counts[txs[opNewOrder].name], m.newOrders))})
	} else if m := g.merged; m != nil && m.nopmOK {
		d := m.to.Sub(m.at)
		figs = append(figs, workload.Figure{Name: "NOPM", Value: m.nopm, Observed: true,
			Text: fmt.Sprintf("%.0f (from the server, as HammerDB: sum(d_next_o_id) over every warehouse grew by %d, the committed New-Orders, in the %s between the clients' latest start read and earliest end read%s)",
				m.nopm, m.newOrders, d.Round(time.Millisecond), g.nopmNote()+g.noOrdersNote(counts[txs[opNewOrder].name], m.newOrders))})
	} else if n, d, ok := g.run.meas.newOrders(); ok && g.merged == nil {
		nopm := float64(n) / d.Minutes()
		what := "sum(d_next_o_id)"
		if g.split() {
			first, last := g.home()
			what = "sum(d_next_o_id) over this client's " + warehouseSpan(first, last)
		}
		figs = append(figs, workload.Figure{Name: "NOPM", Value: nopm, Observed: true,
			Text: fmt.Sprintf("%.0f (from the server, as HammerDB: %s grew by %d, the committed New-Orders, in %s%s)",
				nopm, what, n, d.Round(time.Millisecond), g.nopmNote()+g.noOrdersNote(counts[txs[opNewOrder].name], n))})
	}
	figs = append(figs, g.hammerFigures()...)
	return figs
}

// noOrdersNote explains a NOPM of 0 beside New-Orders the client saw
// complete (counted, of which the server committed committed): the
// New-Order in use placed no order, which with --profile hammerdb means
// a NEWORD routine that is not stampede's (a user's that returns early,
// or one that rolls back). It is empty otherwise.
func (g *tpcc) noOrdersNote(counted, committed int64) string {
	if committed != 0 || counted == 0 {
		return ""
	}
	why := "the New-Order in use placed no order"
	if g.hammerdb() {
		why = "the NEWORD routine in use placed no order (one that is not stampede's may return or roll back before inserting it)"
	}
	return fmt.Sprintf("; the client saw %s New-Orders complete, yet sum(d_next_o_id) did not grow: %s, so tpmC counts calls, not orders", count(counted), why)
}

// SweepFigures implements workload.SweepFigurer: a sweep's table shows
// each step's tpmC and efficiency (the latter "-" where the run has
// none: without waits or 10 terminals per warehouse).
func (*tpcc) SweepFigures() []string { return []string{"tpmC", "efficiency(%)"} }

// efficiencyOf is the efficiency, in percent, of newOrders New-Orders
// in minutes over the given warehouses: tpmC / (12.86 x warehouses).
func efficiencyOf(newOrders, minutes float64, warehouses int) float64 {
	return 100 * newOrders / minutes / (maxTpmCPerWarehouse * float64(warehouses))
}

// confidence is the confidence level of efficiency's interval.
const confidence = 0.95

// countInterval returns the exact (Garwood) two-sided confidence
// interval, at level confidence, of the mean of a Poisson count observed
// as n: [χ²(α/2; 2n)/2, χ²(1-α/2; 2n+2)/2] with α = 1-confidence, its
// low end 0 for n = 0. The New-Orders a run counts are such a count: the
// terminals' transactions arrive independently of one another, and the
// New-Orders in a measurement interval estimate their mean rate. For
// TPC-C's terminals the interval is conservative: their fixed keying
// times and the deck of cards make the count vary less than a Poisson
// count of the same mean (simulated in TestEfficiencyIntervalCoverage).
func countInterval(n int64) (lo, hi float64) {
	return stats.PoissonInterval(n, confidence)
}

// maxEfficiency is the highest efficiency, in percent, that terminals
// with the keying and think times of clause 5.2.5.7 reach with the mix of
// weights and transactions that take no time: 10 terminals per warehouse,
// each completing (New-Order's share of the deck) New-Orders per mean
// cycle (keying time plus the mean of the think time, negative
// exponential truncated at 10 times its mean: mean x (1 - e^-10)).
// Measured efficiency stays below it but for sampling noise. The default
// deck's is 98.0%.
func maxEfficiency(weights []int) float64 {
	total, cycle := 0, 0.0
	for op, k := range weights {
		total += k
		cycle += float64(k) * (txs[op].keying.Seconds() + txs[op].think.Seconds()*(1-math.Exp(-10)))
	}
	if total == 0 || cycle == 0 {
		return 0
	}
	// per terminal: weights[NO] New-Orders per deck of cycle seconds
	tpmC := terminalsPerWarehouse * float64(weights[opNewOrder]) / cycle * 60
	return 100 * tpmC / maxTpmCPerWarehouse
}

// efficiencyText is the efficiency figure's text for n New-Orders in
// minutes: the figure, its 95% interval from the count (countInterval,
// through tpmC), what it divides, and, when the figure is above the
// deck's maximum (maxEfficiency), whether sampling noise explains it.
func (g *tpcc) efficiencyText(n int64, minutes float64) string {
	w := g.homeCount()
	eff := efficiencyOf(float64(n), minutes, w)
	lo, hi := countInterval(n)
	text := fmt.Sprintf("%.1f%% (95%% interval %.1f%%-%.1f%% from the count; tpmC / (12.86 x %d warehouses), from %s New-Orders)",
		eff, efficiencyOf(lo, minutes, w), efficiencyOf(hi, minutes, w), w, count(n))
	weights := g.weights
	if weights == nil { // a generator that validate has not seen
		weights, _ = parseMix(g.mix)
	}
	top := maxEfficiency(weights)
	switch {
	case top == 0 || eff <= top:
	case efficiencyOf(lo, minutes, w) <= top:
		text += fmt.Sprintf("; above the mix's maximum of %.1f%% by sampling noise only: the interval holds it (count more New-Orders for a closer figure: more warehouses or a longer --duration)", top)
	default:
		text += fmt.Sprintf("; above the mix's maximum of %.1f%% beyond sampling noise (the interval's low end is above it): more New-Orders than terminals that keep clause 5.2.5.7's keying and think times complete", top)
	}
	return text
}

// runWarnings returns the warnings about a run of oc: a mix under the
// minimums of clause 5.2.3, terminals other than 10 per warehouse with
// keying and think times, a ramp longer than the measurement interval.
func (g *tpcc) runWarnings(oc workload.OpsConfig) []string {
	var out []string
	total := 0
	for _, n := range g.weights {
		total += n
	}
	var under []string
	for op, m := range minShare {
		if m > 0 && total > 0 && float64(g.weights[op]) < m*float64(total) {
			under = append(under, fmt.Sprintf("%s %.1f%% (minimum %.0f%%)", txs[op].name, 100*float64(g.weights[op])/float64(total), 100*m))
		}
	}
	if len(under) > 0 {
		out = append(out, fmt.Sprintf("--mix gives %s of the transactions, under the minimums of clause 5.2.3: the run is not TPC-C conformant",
			strings.Join(under, ", ")))
	}
	if want := terminalsPerWarehouse * g.homeCount(); g.wait && oc.Concurrency != want {
		out = append(out, fmt.Sprintf("--concurrency %d with --wait: TPC-C has 10 terminals per warehouse (%d for %d warehouses), and efficiency is TPC-C's only with them: it is not printed",
			oc.Concurrency, want, g.homeCount()))
	}
	if g.waitFactor != 0 && g.waitFactor != 1 {
		out = append(out, fmt.Sprintf("--wait %g scales the keying and think times of clause 5.2.5.7: the run is not TPC-C conformant", g.waitFactor))
	}
	if g.wait && oc.Duration > 0 && oc.Ramp == 0 {
		what := "--wait without --ramp"
		if !g.flags.Changed("wait") {
			// The user gave neither: say that the waits are TPC-C's
			// default rather than name a flag they never typed.
			what = "TPC-C's waits are on by default and there is no ramp"
		}
		out = append(out, what+": the terminals start idle and reach their steady rate after a minute or so, which the figures count: give --ramp 1m or more")
	}
	if oc.Duration > 0 && oc.Ramp > oc.Duration {
		out = append(out, fmt.Sprintf("--ramp %s is longer than --duration %s: the figures cover only the %s after the ramp",
			oc.Ramp, oc.Duration, oc.Duration))
	}
	return out
}

// header returns the lines that say how the run goes: its terminals and
// their waits, and its isolation level.
func (g *tpcc) header(iso sqlx.Isolation, workers int) []string {
	label := g.label()
	var how string
	switch {
	case !g.wait:
		what := "workers"
		if workers == 1 {
			what = "worker"
		}
		how = fmt.Sprintf("%s: %d %s without keying or think times (--wait=false): a throughput test, without efficiency", label, workers, what)
	case g.efficientWith(workers):
		how = fmt.Sprintf("%s: %d terminals (10 per warehouse) with keying and think times; each keys in its first transaction too", label, workers)
	default:
		how = fmt.Sprintf("%s: %d terminals with keying and think times; each keys in its first transaction too", label, workers)
	}
	var isoLine string
	switch iso {
	case sqlx.ReadCommitted:
		isoLine = label + ": isolation read committed (as HammerDB and go-tpc): Order-Status's three statements see separate snapshots; --isolation repeatable-read gives TPC-C's level 3"
	case sqlx.RepeatableRead:
		isoLine = label + ": isolation repeatable read (snapshot isolation: TPC-C's level 3 for every transaction; a conflict on a row is retried)"
	default:
		isoLine = label + ": isolation serializable (conflicts are retried)"
	}
	if g.adopted {
		return []string{how, fmt.Sprintf("%s: the %s that init loaded (tpcc_meta), as --warehouses was not given", label, nWarehouses(int64(g.warehouses))), isoLine}
	}
	return []string{how, isoLine}
}

// nopmNote tells, in --profile hammerdb, stampede's NOPM (per minute of
// the time measured) from HammerDB's (per minute of --duration), both on
// one screen.
func (g *tpcc) nopmNote() string {
	if !g.hammerdb() {
		return ""
	}
	return "; stampede's, per minute of the time measured: HammerDB's, per minute of --duration, is hammerdb_nopm's TEST RESULT"
}
