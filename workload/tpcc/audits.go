package tpcc

import (
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/stampede-bench/stampede/workload"
)

var _ workload.Auditor = (*tpcc)(nil)

// auditCounts are one worker's counts of what its completed transactions
// did, for the run-time audits. Each worker writes its own (so there is
// no contention and no lock); the fields are atomic only so that Audits
// may read them while a worker the engine abandoned at the end is still
// finishing a transaction.
type auditCounts struct {
	// done counts the completed transactions of each type.
	done [numTxs]atomic.Int64
	// rollbacks counts the New-Orders rolled back on the unused item.
	rollbacks atomic.Int64
	// lineCounts[n] counts the committed New-Orders of n order lines.
	lineCounts [maxOLCnt + 2]atomic.Int64
	// remoteLines counts the committed order lines supplied by another
	// warehouse.
	remoteLines atomic.Int64
	// remotePayments and paymentsByName count Payments of a customer of
	// another warehouse and Payments selecting the customer by last name.
	remotePayments, paymentsByName atomic.Int64
	// orderStatusByName counts Order-Status selecting by last name.
	orderStatusByName atomic.Int64
	// skippingDeliveries counts the Deliveries that skipped a district
	// (having no undelivered order), skippedDistricts the districts.
	skippingDeliveries, skippedDistricts atomic.Int64
}

// auditTotals are the counts of every worker, summed.
type auditTotals struct {
	done                                                  [numTxs]int64
	rollbacks                                             int64
	lineCounts                                            [maxOLCnt + 2]int64
	remoteLines, remotePayments, paymentsByName, osByName int64
	skippingDeliveries, skippedDistricts                  int64
}

// sub returns t minus u, counter by counter.
func (t auditTotals) sub(u auditTotals) auditTotals {
	for i := range t.done {
		t.done[i] -= u.done[i]
	}
	for i := range t.lineCounts {
		t.lineCounts[i] -= u.lineCounts[i]
	}
	t.rollbacks -= u.rollbacks
	t.remoteLines -= u.remoteLines
	t.remotePayments -= u.remotePayments
	t.paymentsByName -= u.paymentsByName
	t.osByName -= u.osByName
	t.skippingDeliveries -= u.skippingDeliveries
	t.skippedDistricts -= u.skippedDistricts
	return t
}

// sumAudits adds up the workers' counters.
func sumAudits(workers []*worker) auditTotals {
	var t auditTotals
	for _, w := range workers {
		a := &w.audit
		for i := range t.done {
			t.done[i] += a.done[i].Load()
		}
		for i := range t.lineCounts {
			t.lineCounts[i] += a.lineCounts[i].Load()
		}
		t.rollbacks += a.rollbacks.Load()
		t.remoteLines += a.remoteLines.Load()
		t.remotePayments += a.remotePayments.Load()
		t.paymentsByName += a.paymentsByName.Load()
		t.osByName += a.orderStatusByName.Load()
		t.skippingDeliveries += a.skippingDeliveries.Load()
		t.skippedDistricts += a.skippedDistricts.Load()
	}
	return t
}

// Response-time limits of clause 5.2.5.3: the 90th percentile of each
// transaction type.
const (
	p90Limit           = 5 * time.Second
	p90LimitStockLevel = 20 * time.Second
	// minForP90 is the fewest transactions of a type whose p90 is judged.
	minForP90 = 100
)

// auditZ is how many standard deviations of the sampling error a
// tolerance must span before a share is judged: with fewer samples a
// correct implementation could miss the tolerance by chance, so the
// audit says SKIP. At 3, a correct run FAILs about 0.3% of the time.
const auditZ = 3

// Audits implements workload.Auditor: the run-time audits of clause 9.2
// over the transactions the workers of the last Ops completed in the
// measurement interval (all of them when none was measured: see
// StartMeasurement), the mix of clause 5.2.3, and the response-time
// criteria of clause 5.2.5.3 from the run's latencies.
func (g *tpcc) Audits(elapsed time.Duration, latency func(op string, quantile float64) time.Duration) []workload.Audit {
	if m := g.merged; m != nil && elapsed > 0 {
		if !m.auditsMerged || m.auditsPartial {
			return nil
		}
		if len(m.noAudits) == 0 {
			return g.judge(m.audits, latency)
		}
		// Clients without their counters (killed before their end, when
		// a client records them): the audits of the others, after a line
		// that names them; none if no client recorded its counters.
		left := workload.Audit{Name: "clients audited", Result: workload.AuditSkip,
			Detail: fmt.Sprintf("%d of %d: %s", m.clients-len(m.noAudits), m.clients, unrecorded(m.noAudits, "audit counters"))}
		if len(m.noAudits) == m.clients {
			left.Detail += "; no audits"
			return []workload.Audit{left}
		}
		left.Detail += fmt.Sprintf("; the audits below count the transactions of the %s that recorded them (the p90s: every client's)", plural(m.clients-len(m.noAudits), "client"))
		return append([]workload.Audit{left}, g.judge(m.audits, latency)...)
	}
	if g.workers == nil || elapsed <= 0 {
		return nil
	}
	t := sumAudits(g.workers)
	if m := g.run.meas; m.started {
		t = t.sub(m.base)
	}
	return g.judge(t, latency)
}

// label names an audit: what is audited, what is required and the
// clause; workload.Audit.Label joins them as the audit's line says it.
type label struct{ name, required, clause string }

// judge turns the totals into audits.
func (g *tpcc) judge(t auditTotals, latency func(op string, quantile float64) time.Duration) []workload.Audit {
	var out []workload.Audit
	add := func(name label, result, format string, args ...any) {
		out = append(out, workload.Audit{Name: name.name, Required: name.required, Clause: name.clause, Result: result, Detail: fmt.Sprintf(format, args...)})
	}
	inMix := func(op int) bool { return len(g.weights) == numTxs && g.weights[op] > 0 }

	// Clause 5.2.5.3: 90th percentile response times.
	for op, tx := range txs {
		limit := p90Limit
		if op == opStockLevel {
			limit = p90LimitStockLevel
		}
		name := label{tx.name + " p90", fmt.Sprintf("<= %ds", int(limit.Seconds())), "5.2.5.3"}
		n := t.done[op]
		switch {
		case n == 0 && !inMix(op):
			add(name, workload.AuditSkip, "not in --mix")
		case n < minForP90:
			add(name, workload.AuditSkip, "%s transactions; %d needed to judge", count(n), minForP90)
		case latency == nil:
			add(name, workload.AuditSkip, "no latencies")
		default:
			p90 := latency(tx.name, 0.9)
			result := workload.AuditPass
			if p90 > limit {
				result = workload.AuditFail
			}
			add(name, result, "p90 %s over %s transactions", fmtLatency(p90), count(n))
		}
	}

	newOrders := t.done[opNewOrder]
	var orders, lines int64
	lo, hi := int64(-1), int64(-1)
	for n, c := range t.lineCounts {
		if c == 0 {
			continue
		}
		orders += c
		lines += int64(n) * c
		if lo < 0 {
			lo = int64(n)
		}
		hi = int64(n)
	}

	// Clause 2.4.1.4: 1% of New-Orders roll back.
	name := label{"New-Order rollbacks", "0.9-1.1%", "2.4.1.4"}
	if newOrders == 0 && !inMix(opNewOrder) {
		add(name, workload.AuditSkip, "not in --mix")
	} else {
		share(add, name, t.rollbacks, newOrders, 0.01, 0.009, 0.011, "New-Orders")
	}

	// Clause 2.4.1.3: 5 to 15 lines, 10 on average.
	name = label{"order lines per order", "avg 10, 5..15", "2.4.1.3"}
	const variance = 10.0 // of the uniform distribution on 5..15: (11^2-1)/12
	switch {
	case orders == 0:
		add(name, workload.AuditSkip, "no committed New-Order")
	case lo < minOLCnt || hi > maxOLCnt:
		add(name, workload.AuditFail, "avg %.2f, %d..%d over %s orders", float64(lines)/float64(orders), lo, hi, count(orders))
	default:
		avg := float64(lines) / float64(orders)
		need := needed(variance, 0.1)
		switch {
		case orders < need:
			add(name, workload.AuditSkip, "avg %.2f, %d..%d over %s orders; %s needed to judge 9.9-10.1",
				avg, lo, hi, count(orders), count(need))
		case avg < 9.9 || avg > 10.1:
			add(name, workload.AuditFail, "avg %.2f (want 9.9-10.1), %d..%d over %s orders", avg, lo, hi, count(orders))
		default:
			add(name, workload.AuditPass, "avg %.2f, %d..%d over %s orders", avg, lo, hi, count(orders))
		}
	}

	// Clause 2.4.1.5: 1% of order lines from another warehouse.
	name = label{"remote order lines", "~1%", "2.4.1.5"}
	switch {
	case g.warehouses < 2:
		add(name, workload.AuditSkip, "1 warehouse: no line can be remote")
	case orders == 0:
		add(name, workload.AuditSkip, "no committed New-Order")
	default:
		share(add, name, t.remoteLines, lines, 0.01, 0.009, 0.011, "order lines")
	}

	// Clause 2.5.1.2: 15% of Payments for a customer of another warehouse.
	payments := t.done[opPayment]
	name = label{"remote payments", "~15%", "2.5.1.2"}
	switch {
	case payments == 0 && !inMix(opPayment):
		add(name, workload.AuditSkip, "not in --mix")
	case g.warehouses < 2:
		add(name, workload.AuditSkip, "1 warehouse: no payment can be remote")
	default:
		share(add, name, t.remotePayments, payments, 0.15, 0.14, 0.16, "Payments")
	}

	// Clauses 2.5.1.2 and 2.6.1.2: 60% of customers selected by last name.
	name = label{"payments by last name", "57-63%", "2.5.1.2"}
	if payments == 0 && !inMix(opPayment) {
		add(name, workload.AuditSkip, "not in --mix")
	} else {
		share(add, name, t.paymentsByName, payments, 0.6, 0.57, 0.63, "Payments")
	}
	name = label{"order-status by last name", "57-63%", "2.6.1.2"}
	if os := t.done[opOrderStatus]; os == 0 && !inMix(opOrderStatus) {
		add(name, workload.AuditSkip, "not in --mix")
	} else {
		share(add, name, t.osByName, os, 0.6, 0.57, 0.63, "Order-Statuses")
	}

	// Clause 2.7.4.2: a district without an undelivered order is
	// skipped; at most 1% of the Deliveries may skip one.
	deliveries := t.done[opDelivery]
	name = label{"deliveries skipping a district", "<= 1%", "2.7.4.2"}
	switch {
	case deliveries == 0 && !inMix(opDelivery):
		add(name, workload.AuditSkip, "not in --mix")
	case deliveries == 0:
		add(name, workload.AuditSkip, "no Delivery completed")
	default:
		result := workload.AuditPass
		if t.skippingDeliveries*100 > deliveries {
			result = workload.AuditFail
		}
		add(name, result, "%s of %s Deliveries (%s), %s districts skipped", count(t.skippingDeliveries), count(deliveries),
			pct(t.skippingDeliveries, deliveries), count(t.skippedDistricts))
	}

	// Clause 5.2.3: the minimum share of each type but New-Order.
	var all int64
	for _, n := range t.done {
		all += n
	}
	deck := 0
	for _, k := range g.weights {
		deck += k
	}
	for op, m := range minShare {
		if m == 0 {
			continue
		}
		name := label{txs[op].name + " share", fmt.Sprintf(">= %.0f%%", 100*m), "5.2.3"}
		n := t.done[op]
		if all == 0 || deck == 0 {
			add(name, workload.AuditSkip, "no transaction")
			continue
		}
		detail := fmt.Sprintf("%s of %s transactions", pct(n, all), count(all))
		if k := g.weights[op]; k > 0 && math.Abs(float64(k)/float64(deck)-m) < 1e-12 {
			detail += ", and --mix gives the minimum itself, with no margin"
		}
		need := mixNeeded(g.weights[op], deck, max(g.terminals(), 1), m)
		switch {
		case all < need:
			add(name, workload.AuditSkip, "%s; %s needed to judge", detail, count(need))
		case float64(n) < m*float64(all):
			add(name, workload.AuditFail, "%s", detail)
		default:
			add(name, workload.AuditPass, "%s", detail)
		}
	}
	return out
}

// mixNeeded returns how many transactions a run needs before its share of
// a type can be judged against the minimum m: with fewer, a run whose
// terminals deal it k cards of every deck of size cards could land on
// either side of m by chance. It is the smaller of two bounds: the number
// for which the sampling error of independent draws spans auditZ standard
// deviations of the distance from the deck's share p to m (the bound the
// other audits use), and the number beyond which the partial decks of the
// terminals cannot move the share across m at all (a run of draws from
// shuffled decks holds p times its length of the type, give or take at
// most k(1-p) cards for each of its at most two partial decks: 2k(1-p)
// per terminal). It is 0 when p is under m for certain (k = 0), and when
// p is m itself: no run is then long enough to be on m's side by more
// than chance, and each is judged as measured (the deck 45/43/4/4/4
// measured Order-Status at 3.997%, which is not TPC-C's mix).
func mixNeeded(k, cards, terminals int, m float64) int64 {
	p := float64(k) / float64(cards)
	gap := math.Abs(p - m)
	if k == 0 || gap < 1e-12 {
		return 0
	}
	sampling := needed(p*(1-p), gap)
	decks := int64(math.Floor(2*float64(k)*(1-p)*float64(terminals)/gap)) + 1
	return min(sampling, decks)
}

// share judges hits out of n against [lo, hi], for a share whose expected
// value is p: SKIP while n is too small for the tolerance to span auditZ
// standard deviations.
func share(add func(name label, result, format string, args ...any), name label, hits, n int64, p, lo, hi float64, of string) {
	if n == 0 {
		add(name, workload.AuditSkip, "no %s", of)
		return
	}
	got := float64(hits) / float64(n)
	need := needed(p*(1-p), math.Min(p-lo, hi-p))
	switch {
	case n < need:
		add(name, workload.AuditSkip, "%s of %s %s; %s needed to judge", pct(hits, n), count(n), of, count(need))
	case got < lo || got > hi:
		add(name, workload.AuditFail, "%s of %s %s", pct(hits, n), count(n), of)
	default:
		add(name, workload.AuditPass, "%s of %s %s", pct(hits, n), count(n), of)
	}
}

// needed returns the number of samples of a variable of the given
// variance whose mean's sampling error is at most tol/auditZ (rounded up,
// after forgiving the float error of tolerances such as 0.011-0.01).
func needed(variance, tol float64) int64 {
	return int64(math.Ceil(auditZ*auditZ*variance/(tol*tol) - 1e-6))
}

// pct renders hits/n as a percentage.
func pct(hits, n int64) string {
	return fmt.Sprintf("%.2f%%", 100*float64(hits)/float64(n))
}

// count renders n with thousands separators: 12,345.
func count(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + count(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// fmtLatency renders a response time in milliseconds, or seconds above
// 10s.
func fmtLatency(d time.Duration) string {
	if d >= 10*time.Second {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
}
