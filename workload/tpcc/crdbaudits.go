package tpcc

import (
	"fmt"
	"math"

	"github.com/stampede-bench/stampede/workload"
)

// crdbMinSignificant is the fewest transactions of a type `cockroach
// workload tpcc` judges an audit on.
const crdbMinSignificant = 10000

// CockroachAudits returns the run-time audits of clause 9.2 as `cockroach
// workload tpcc` judges them after a run, with its numbers, thresholds and
// words ("Audit check 9.2.2.5.1: SKIP: not enough orders to be
// statistically significant"), over the measurement interval of the run
// the last Ops prepared. stampede's own audits (Audits) judge the same
// counts by their sampling error instead of a fixed 10,000 transactions.
// The distribution of remote warehouses, which cockroach checks when
// every warehouse should have been picked, is not counted per warehouse
// here: 9.2.2.5.3 and 9.2.2.5.4 judge the shares alone.
func (g *tpcc) CockroachAudits() []workload.Audit {
	if g.workers == nil {
		return nil
	}
	t := sumAudits(g.workers)
	if m := g.run.meas; m.started {
		t = t.sub(m.base)
	}
	return crdbJudge(t, g.homeCount())
}

// crdbJudge applies cockroach's audit checks to the totals.
func crdbJudge(t auditTotals, warehouses int) []workload.Audit {
	pass := func(name string) workload.Audit { return workload.Audit{Name: name, Result: workload.AuditPass} }
	fail := func(name, format string, args ...any) workload.Audit {
		return workload.Audit{Name: name, Result: workload.AuditFail, Detail: fmt.Sprintf(format, args...)}
	}
	skip := func(name, detail string) workload.Audit {
		return workload.Audit{Name: name, Result: workload.AuditSkip, Detail: detail}
	}
	var out []workload.Audit

	// 9.2.1.7: at most 1% (or 1) of the Deliveries skip a district.
	deliveries := t.done[opDelivery]
	switch threshold := max(deliveries/100, 1); {
	case deliveries < crdbMinSignificant:
		out = append(out, skip("9.2.1.7", "not enough delivery transactions to be statistically significant"))
	case t.skippedDistricts > threshold:
		out = append(out, fail("9.2.1.7", "expected no more than %d skipped deliveries, got %d", threshold, t.skippedDistricts))
	default:
		out = append(out, pass("9.2.1.7"))
	}

	// 9.2.2.5.1: 0.9% to 1.1% of the New-Orders roll back.
	orders := t.done[opNewOrder]
	if orders < crdbMinSignificant {
		out = append(out, skip("9.2.2.5.1", "not enough orders to be statistically significant"))
	} else if pct := 100 * float64(t.rollbacks) / float64(orders); pct < 0.9 || pct > 1.1 {
		out = append(out, fail("9.2.2.5.1", "new order rollback percent %.1f is not between allowed bounds [0.9, 1.1]", pct))
	} else {
		out = append(out, pass("9.2.2.5.1"))
	}

	// 9.2.2.5.2: 9.5 to 10.5 order lines on average, uniform over 5..15.
	var committed, lines int64
	for n, c := range t.lineCounts {
		committed += c
		lines += int64(n) * c
	}
	out = append(out, crdbLines(t, committed, lines))

	// 9.2.2.5.3: 0.95% to 1.05% of the order lines are remote.
	switch {
	case warehouses == 1:
		out = append(out, pass("9.2.2.5.3"))
	case orders < crdbMinSignificant || lines == 0:
		out = append(out, skip("9.2.2.5.3", "not enough orders to be statistically significant"))
	default:
		if pct := 100 * float64(t.remoteLines) / float64(lines); pct < 0.95 || pct > 1.05 {
			out = append(out, fail("9.2.2.5.3", "remote order-line percent %.1f is not between allowed bounds [0.95, 1.05]", pct))
		} else {
			out = append(out, pass("9.2.2.5.3"))
		}
	}

	// 9.2.2.5.4: 14% to 16% of the Payments are remote.
	payments := t.done[opPayment]
	switch {
	case warehouses == 1:
		out = append(out, pass("9.2.2.5.4"))
	case payments < crdbMinSignificant:
		out = append(out, skip("9.2.2.5.4", "not enough payments to be statistically significant"))
	default:
		if pct := 100 * float64(t.remotePayments) / float64(payments); pct < 14 || pct > 16 {
			out = append(out, fail("9.2.2.5.4", "remote payment percent %.1f is not between allowed bounds [14, 16]", pct))
		} else {
			out = append(out, pass("9.2.2.5.4"))
		}
	}

	// 9.2.2.5.5 and 9.2.2.5.6: 57% to 63% of customers chosen by last name.
	if payments < crdbMinSignificant {
		out = append(out, skip("9.2.2.5.5", "not enough payments to be statistically significant"))
	} else if pct := 100 * float64(t.paymentsByName) / float64(payments); pct < 57 || pct > 63 {
		out = append(out, fail("9.2.2.5.5", "percent of customer selections by last name in payment transactions %.1f is not between allowed bounds [57, 63]", pct))
	} else {
		out = append(out, pass("9.2.2.5.5"))
	}
	statuses := t.done[opOrderStatus]
	if statuses < crdbMinSignificant {
		out = append(out, skip("9.2.2.5.6", "not enough order status transactions to be statistically significant"))
	} else if pct := 100 * float64(t.osByName) / float64(statuses); pct < 57 || pct > 63 {
		out = append(out, fail("9.2.2.5.6", "percent of customer selections by last name in order status transactions %.1f is not between allowed bounds [57, 63]", pct))
	} else {
		out = append(out, pass("9.2.2.5.6"))
	}
	return out
}

// crdbLines is check 9.2.2.5.2 over the committed New-Orders.
func crdbLines(t auditTotals, committed, lines int64) workload.Audit {
	const name = "9.2.2.5.2"
	if t.done[opNewOrder] < crdbMinSignificant || committed == 0 {
		return workload.Audit{Name: name, Result: workload.AuditSkip, Detail: "not enough orders to be statistically significant"}
	}
	if avg := float64(lines) / float64(committed); avg < 9.5 || avg > 10.5 {
		return workload.Audit{Name: name, Result: workload.AuditFail,
			Detail: fmt.Sprintf("average order-lines count %.1f is not between allowed bounds [9.5, 10.5]", avg)}
	}
	expected := 100.0 / 11
	for n := 5; n <= 15; n++ {
		pct := 100 * float64(t.lineCounts[n]) / float64(committed)
		if math.Abs(expected-pct) > 1 {
			return workload.Audit{Name: name, Result: workload.AuditFail,
				Detail: fmt.Sprintf("order-lines count should be uniformly distributed from 5 to 15, but it was %d for %.1f percent of orders", n, pct)}
		}
	}
	return workload.Audit{Name: name, Result: workload.AuditPass}
}
