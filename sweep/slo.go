package sweep

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stampede-bench/stampede/stats"
)

// SLO is a service-level objective: terms a step's figures must all
// meet, such as p99<=5ms,errors<=0.1%.
type SLO struct {
	Terms []Term
}

// Term is one bound of an SLO: a latency percentile's ceiling, the
// errors' ceiling, or the throughput's floor.
type Term struct {
	// Metric is p50, p90, p95, p99, p99.9, max, mean, errors, rate or
	// efficiency (a workload's figure, TPC-C's, in percent).
	Metric string
	// Op, when set, is the operation whose latency Metric is
	// (newOrder.p90<=5s): the run's per-operation figures.
	Op string
	// Cmp is <=, <, >= or >.
	Cmp string
	// Limit is in milliseconds for a latency, a fraction (0.001 for
	// 0.1%) when Percent, else a count of errors or operations per
	// second.
	Limit   float64
	Percent bool
	// Text is the term as given.
	Text string
	// Added says the sweep added the term to the user's (With,
	// WithRateFloor: TPC-C's response times, the rate floor): a step
	// with no operations it bounds is judged on the other terms. A
	// term the user wrote that cannot be judged leaves the step not
	// judged (Verdict).
	Added bool
}

// Measure is what an SLO is judged on: a step's final figures over the
// measured period, and the rate the step scheduled (0: closed loop).
type Measure struct {
	Total  stats.Summary
	Target float64
	// Ops are the operations' own figures, by name; Figures the
	// workload's (TPC-C's efficiency in percent).
	Ops     map[string]stats.Summary
	Figures map[string]float64
}

// latencies are the latency metrics and how to read them.
var latencies = map[string]func(stats.Summary) float64{
	"p50":   func(s stats.Summary) float64 { return s.P50 },
	"p90":   func(s stats.Summary) float64 { return s.P90 },
	"p95":   func(s stats.Summary) float64 { return s.P95 },
	"p99":   func(s stats.Summary) float64 { return s.P99 },
	"p99.9": func(s stats.Summary) float64 { return s.P999 },
	"max":   func(s stats.Summary) float64 { return s.Max },
	"mean":  func(s stats.Summary) float64 { return s.Mean },
}

const sloHelp = "write terms such as p99<=5ms, p99.9<20ms, newOrder.p90<=5s (an operation's), errors<=0.1%, rate>=95% (of --max-rate), rate>=5000 (ops/s) or efficiency>=85% (TPC-C's), separated by commas"

// ParseSLO parses terms separated by commas (p99<=5ms,errors<=1%).
// Errors say which term is wrong and how to write it.
func ParseSLO(s string) (SLO, error) {
	var slo SLO
	for _, text := range strings.Split(s, ",") {
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		t, err := parseTerm(text)
		if err != nil {
			return SLO{}, err
		}
		slo.Terms = append(slo.Terms, t)
	}
	if len(slo.Terms) == 0 {
		return SLO{}, fmt.Errorf("--slo %q has no terms: %s", s, sloHelp)
	}
	return slo, nil
}

func parseTerm(text string) (Term, error) {
	i := strings.IndexAny(text, "<>=")
	if i <= 0 {
		return Term{}, fmt.Errorf("--slo term %q has no bound: %s", text, sloHelp)
	}
	t := Term{Metric: strings.ToLower(strings.TrimSpace(text[:i])), Text: text}
	if name := strings.TrimSpace(text[:i]); strings.Contains(name, ".") {
		if op, m, _ := strings.Cut(name, "."); latencies[strings.ToLower(m)] != nil && latencies[strings.ToLower(name)] == nil {
			t.Op, t.Metric = op, strings.ToLower(m)
		}
	}
	rest := text[i:]
	for _, c := range []string{"<=", ">=", "<", ">"} {
		if strings.HasPrefix(rest, c) {
			t.Cmp, rest = c, strings.TrimSpace(rest[len(c):])
			break
		}
	}
	if t.Cmp == "" {
		return Term{}, fmt.Errorf("--slo term %q: compare with <=, <, >= or >", text)
	}
	upper := t.Cmp[0] == '<'
	switch _, lat := latencies[t.Metric]; {
	case lat:
		if !upper {
			return Term{}, fmt.Errorf("--slo term %q bounds latency from below: use %s<=DURATION", text, t.Metric)
		}
		d, err := time.ParseDuration(rest)
		if err != nil || d <= 0 {
			return Term{}, fmt.Errorf("--slo term %q: %q is not a positive duration with a unit (5ms, 500us, 1.5s)", text, rest)
		}
		t.Limit = float64(d) / 1e6
	case t.Metric == "efficiency":
		num, pct := strings.CutSuffix(rest, "%")
		v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if upper || !pct || err != nil || !(v > 0 && v <= 100) {
			return Term{}, fmt.Errorf("--slo term %q: give the least efficiency as a percentage, efficiency>=85%%", text)
		}
		t.Limit, t.Percent = v/100, true
	case t.Metric == "errors" || t.Metric == "rate":
		if upper != (t.Metric == "errors") {
			if upper {
				return Term{}, fmt.Errorf("--slo term %q caps the throughput: a sweep looks for the most a server sustains; use rate>=N or rate>=N%%", text)
			}
			return Term{}, fmt.Errorf("--slo term %q bounds errors from below: use errors<=N or errors<=N%%", text)
		}
		num, pct := strings.CutSuffix(rest, "%")
		v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || (pct && v > 100) {
			return Term{}, fmt.Errorf("--slo term %q: %q is not a count or a percentage from 0%% to 100%%", text, rest)
		}
		t.Limit, t.Percent = v, pct
		if pct {
			t.Limit = v / 100
		}
	default:
		return Term{}, fmt.Errorf("--slo term %q: unknown figure %q; %s", text, t.Metric, sloHelp)
	}
	return t, nil
}

// NeedsRate reports whether a term is a share of the scheduled rate
// (rate>=95%), which only a step under a rate can be judged on.
func (s SLO) NeedsRate() bool {
	for _, t := range s.Terms {
		if t.Metric == "rate" && t.Percent {
			return true
		}
	}
	return false
}

// HasRate reports whether a term bounds the throughput.
func (s SLO) HasRate() bool {
	for _, t := range s.Terms {
		if t.Metric == "rate" {
			return true
		}
	}
	return false
}

// Latencies returns the ceilings of s's terms on the whole run's latency
// (p99<=5ms, max<=1s), in milliseconds by metric, that a chart of the
// run's percentiles draws as lines; nil for none. Terms on an
// operation's latency (newOrder.p90<=5s), the throughput, the errors or
// a workload's figure (efficiency>=85%) are not the total's latency and
// are left to the SLO's text.
func (s SLO) Latencies() map[string]float64 {
	var out map[string]float64
	for _, t := range s.Terms {
		if _, lat := latencies[t.Metric]; !lat || t.Op != "" {
			continue
		}
		if out == nil {
			out = map[string]float64{}
		}
		out[t.Metric] = t.Limit
	}
	return out
}

// DefaultRateFloor is the term WithRateFloor adds.
const DefaultRateFloor = "rate>=95%"

// WithRateFloor returns s with the term rate>=95% added when s has terms
// but none bounds the throughput: under a rate, a step that fell behind
// its schedule did not sustain that rate, whatever its latency.
func (s SLO) WithRateFloor() SLO {
	if len(s.Terms) == 0 || s.HasRate() {
		return s
	}
	t, _ := parseTerm(DefaultRateFloor)
	t.Added = true
	return SLO{Terms: append(append([]Term(nil), s.Terms...), t)}
}

// String returns the terms as given, separated by commas.
func (s SLO) String() string {
	texts := make([]string, len(s.Terms))
	for i, t := range s.Terms {
		texts[i] = t.Text
	}
	return strings.Join(texts, ",")
}

// Check judges m as Verdict does: met, or why not; a step not judged
// is not met.
func (s SLO) Check(m Measure) (met bool, why string) {
	_, met, why = s.Verdict(m)
	return met, why
}

// Verdict judges m: judged and met, or why not (every term missed, as
// "p99 6.1 ms > 5ms"). A term on a latency (p99<=5ms, newOrder.p90<=5s)
// with no operations of its kind, or an efficiency with no New-Orders
// (which then has no basis), cannot be judged: when the sweep added the
// term (Term.Added: TPC-C's response times, of which a short probe may
// draw no Order-Status), the step is judged on the others and why names
// it; when the user wrote it (or it is the efficiency of TPC-C's own
// SLO), the step is not judged, neither met nor missed, unless another
// term missed; so is a step no term could judge.
//
// An efficiency short of its bound by sampling noise alone (the 95%
// interval of its New-Order count reaches the bound: efficiencyHigh) is
// met, and why says so: a probe of a few New-Orders cannot tell such a
// figure from the bound, and a search must not end on one.
func (s SLO) Verdict(m Measure) (judged, met bool, why string) {
	var missed, noted, unjudged []string
	undecided, decided := false, 0
	skip := func(t Term, what string) {
		unjudged = append(unjudged, fmt.Sprintf("%s not judged: no %s", t.Text, what))
		undecided = undecided || !t.Added
	}
	for _, t := range s.Terms {
		var got float64
		var shown string
		switch f, lat := latencies[t.Metric]; {
		case lat && t.Op != "":
			if op, ok := m.Ops[t.Op]; !ok || op.Count == 0 {
				skip(t, t.Op+" operations")
				continue
			}
			got = f(m.Ops[t.Op])
			shown = fmt.Sprintf("%s.%s %s ms", t.Op, t.Metric, Sig3(got))
		case t.Metric == "efficiency":
			e, ok := m.Figures["efficiency"]
			if !ok {
				missed = append(missed, t.Text+": the workload reports no efficiency (TPC-C's, with --wait)")
				continue
			}
			if NoNewOrders(m) {
				// Efficiency is New-Orders per minute over the most:
				// with none it has no basis (a short probe at one
				// warehouse may draw none).
				skip(t, efficiencyOp+" operations")
				continue
			}
			got = e / 100
			shown = fmt.Sprintf("efficiency %s%%", Sig3(e))
			if hi, n, ok := efficiencyHigh(m, e); ok && (t.Cmp == ">=" || t.Cmp == ">") && got < t.Limit && hi/100 >= t.Limit {
				// Short of the bound by sampling noise alone: the
				// count of New-Orders cannot tell it from the bound.
				noted = append(noted, fmt.Sprintf("efficiency %s%% is below %s within chance: its 95%% interval from %d New-Orders reaches %s%%", Sig3(e), t.Text, n, Sig3(hi)))
				decided++
				continue
			}
		case lat:
			if m.Total.Count == 0 {
				skip(t, "operations")
				continue
			}
			got = f(m.Total)
			shown = fmt.Sprintf("%s %s ms", t.Metric, Sig3(got))
		case t.Metric == "errors":
			got = float64(m.Total.Errors)
			shown = fmt.Sprintf("errors %d", m.Total.Errors)
			if t.Percent {
				got = 0
				if n := m.Total.Count + m.Total.Errors; n > 0 {
					got = float64(m.Total.Errors) / float64(n)
				}
				shown = fmt.Sprintf("errors %s%%", Sig3(got*100))
			}
		default: // rate
			got = m.Total.Rate
			shown = fmt.Sprintf("rate %s ops/s", Sig3(got))
			if t.Percent {
				got = 0
				if m.Target > 0 {
					got = m.Total.Rate / m.Target
				}
				shown = fmt.Sprintf("rate %s%% of %s", Sig3(got*100), Format(m.Target))
			}
		}
		decided++
		ok := false
		switch t.Cmp {
		case "<=":
			ok = got <= t.Limit
		case "<":
			ok = got < t.Limit
		case ">=":
			ok = got >= t.Limit
		case ">":
			ok = got > t.Limit
		}
		if !ok {
			missed = append(missed, fmt.Sprintf("%s, want %s", shown, t.Text))
		}
	}
	switch {
	case len(missed) > 0:
		return true, false, strings.Join(append(missed, unjudged...), "; ")
	case undecided || decided == 0:
		return false, false, strings.Join(unjudged, "; ")
	}
	return true, true, strings.Join(append(noted, unjudged...), "; ")
}

// NoNewOrders reports whether m counted no New-Orders: its operations
// have none, or it has none at all, or its tpmC is 0. TPC-C's efficiency
// then has no basis.
func NoNewOrders(m Measure) bool {
	tpmC, ok := m.Figures["tpmC"]
	return m.Ops[efficiencyOp].Count == 0 && (len(m.Ops) > 0 || m.Total.Count == 0) || ok && tpmC == 0
}

// efficiencyOp is the operation whose count TPC-C's efficiency divides.
const efficiencyOp = "newOrder"

// efficiencyHigh is the high end of the 95% interval of efficiency e
// (percent) from the count n of New-Orders it was computed from
// (stats.PoissonInterval, as the run prints it): e scales with the count.
func efficiencyHigh(m Measure, e float64) (hi float64, n int64, ok bool) {
	op, found := m.Ops[efficiencyOp]
	if !found || op.Count <= 0 || e <= 0 {
		return 0, 0, false
	}
	_, h := stats.PoissonInterval(op.Count, 0.95)
	return e * h / float64(op.Count), op.Count, true
}

// Sig3 prints x with three significant digits, without an exponent (the
// sweep table's latencies and the SLO's verdicts).
func Sig3(x float64) string {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	digits := max(0, 2-int(math.Floor(math.Log10(math.Abs(x)))))
	return strconv.FormatFloat(x, 'f', digits, 64)
}

// TPCCSLO is the objective of TPC-C's search when no --slo is given: an
// efficiency of at least 85% (as cockroach's --find-best) and clause
// 5.2.5's response times, the 90th percentile of each transaction.
const TPCCSLO = TPCCEfficiency + "," + TPCCResponseTimes

// TPCCEfficiency is the efficiency TPC-C's search asks for when no --slo
// is given (TPCCSLO's first term): the term a step is judged on, to which
// the response times are added (With).
const TPCCEfficiency = "efficiency>=85%"

// TPCCResponseTimes are clause 5.2.5's bounds on the 90th percentiles of
// TPC-C's transactions, which a TPC-C search keeps whatever its --slo.
const TPCCResponseTimes = "newOrder.p90<=5s,payment.p90<=5s,orderStatus.p90<=5s,delivery.p90<=5s,stockLevel.p90<=20s"

// Given returns the terms of s the user gave (not Added): what a step's
// run records as its --slo, to which reading it back adds the rest as
// the sweep did (With, WithRateFloor).
func (s SLO) Given() SLO {
	var out SLO
	for _, t := range s.Terms {
		if !t.Added {
			out.Terms = append(out.Terms, t)
		}
	}
	return out
}

// With returns s with the terms of more whose figure (an operation's
// metric, or a metric) s does not bound already.
func (s SLO) With(more SLO) SLO {
	out := SLO{Terms: append([]Term(nil), s.Terms...)}
	for _, t := range more.Terms {
		if !slices.ContainsFunc(s.Terms, func(u Term) bool { return u.Op == t.Op && u.Metric == t.Metric }) {
			t.Added = true
			out.Terms = append(out.Terms, t)
		}
	}
	return out
}

// tpmCPerWarehouse is the most New-Orders a minute one warehouse's 10
// terminals complete with TPC-C's keying and think times: efficiency's
// 100% (workload/tpcc's).
const tpmCPerWarehouse = 12.86

// efficiencyResolution is how far short of an efficiency's bound, as a
// share of it, a figure must be told from it: NewOrdersNeeded's count.
const efficiencyResolution = 0.1

// NewOrdersNeeded says, for a step with no New-Orders (NoNewOrders)
// under an efficiency term the user gave (or TPC-C's own), that an answer
// from it would rest on no New-Orders, and the --duration at which its
// workers (10 terminals a warehouse) count enough: the count whose 95%
// interval (stats.PoissonInterval, as the efficiency's) no longer
// reaches the bound from a figure 10% short of it, at the New-Orders a
// minute of an efficiency at the bound (bound x 12.86 x warehouses).
// "" for any other step.
func (s SLO) NewOrdersNeeded(m Measure, workers int) string {
	i := slices.IndexFunc(s.Terms, func(t Term) bool { return t.Metric == "efficiency" && !t.Added && t.Cmp[0] == '>' })
	if _, ok := m.Figures["efficiency"]; i < 0 || !ok || !NoNewOrders(m) || workers < 10 {
		return ""
	}
	t := s.Terms[i]
	n := newOrdersToTell(efficiencyResolution)
	perMin := t.Limit * tpmCPerWarehouse * float64(workers/10)
	return fmt.Sprintf("its efficiency would rest on no New-Orders, so no answer rests on it: at %s (%d terminals) an efficiency of %s%% completes %s New-Orders a minute, so a --duration of at least %dm counts the %d from which an efficiency %s short of %s misses it (its 95%% interval from the count no longer reaches the bound)",
		plural(workers/10, "warehouse"), workers, strconv.FormatFloat(t.Limit*100, 'f', -1, 64), Sig3(perMin), int(math.Ceil(float64(n)/perMin)), n, pct(efficiencyResolution), t.Text)
}

// newOrdersToTell is the least count of New-Orders n whose 95% interval's
// high end is below n/(1-short): an efficiency short of its bound by
// that share of it misses it rather than being within chance.
func newOrdersToTell(short float64) int64 {
	tells := func(n int64) bool {
		_, hi := stats.PoissonInterval(n, 0.95)
		return hi*(1-short) < float64(n)
	}
	lo, hi := int64(1), int64(1)
	for !tells(hi) {
		lo, hi = hi, hi*2
	}
	for lo < hi { // the least n in (lo, hi] that tells
		mid := (lo + hi) / 2
		if tells(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return hi
}
