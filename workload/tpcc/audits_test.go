package tpcc

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/workload"
)

// auditsByName indexes audits by the start of their names.
func auditByPrefix(t *testing.T, audits []workload.Audit, prefix string) workload.Audit {
	t.Helper()
	for _, a := range audits {
		if strings.HasPrefix(a.Name, prefix) {
			return a
		}
	}
	t.Fatalf("no audit %q in %+v", prefix, audits)
	return workload.Audit{}
}

func TestJudgeAudits(t *testing.T) {
	fixed := func(d time.Duration) func(string, float64) time.Duration {
		return func(op string, q float64) time.Duration {
			if q != 0.9 {
				t.Errorf("latency asked for quantile %v", q)
			}
			if op == "newOrder" {
				return d
			}
			return 10 * time.Millisecond
		}
	}
	// A big, well-behaved run on 10 warehouses.
	var big auditTotals
	big.done = [numTxs]int64{200000, 200000, 20000, 20000, 20000}
	big.rollbacks = 2000
	big.lineCounts[5], big.lineCounts[15] = 99000, 99000 // average 10
	big.remoteLines = 19800                              // 1% of 1,980,000
	big.remotePayments = 30000
	big.paymentsByName = 120000
	big.osByName = 12000
	big.skippedDeliveries = 10
	g := newGen(t, "--warehouses", "10")
	audits := g.judge(big, fixed(20*time.Millisecond))
	if len(audits) != 12 {
		t.Fatalf("%d audits: %+v", len(audits), audits)
	}
	for _, a := range audits {
		if a.Result != workload.AuditPass {
			t.Errorf("%s: %s %s", a.Name, a.Result, a.Detail)
		}
	}
	if a := auditByPrefix(t, audits, "New-Order rollbacks"); a.Detail != "1.00% of 200,000 New-Orders" {
		t.Errorf("rollbacks detail %q", a.Detail)
	}
	if a := auditByPrefix(t, audits, "newOrder p90"); a.Detail != "p90 20.0ms over 200,000 transactions" {
		t.Errorf("p90 detail %q", a.Detail)
	}

	// Each figure off its tolerance FAILs.
	bad := big
	bad.rollbacks = 2600
	bad.lineCounts[16] = 1
	bad.remotePayments = 20000
	bad.osByName = 10000
	bad.skippedDeliveries = 5000
	audits = g.judge(bad, fixed(6*time.Second))
	for _, prefix := range []string{"newOrder p90", "New-Order rollbacks", "order lines", "remote payments", "order-status by",
		"skipped deliveries"} {
		if a := auditByPrefix(t, audits, prefix); a.Result != workload.AuditFail {
			t.Errorf("%s: %s %s, want FAIL", a.Name, a.Result, a.Detail)
		}
	}
	if a := auditByPrefix(t, audits, "stockLevel p90"); a.Result != workload.AuditPass || !strings.Contains(a.Name, "20s") {
		t.Errorf("Stock-Level's limit is 20s: %+v", a)
	}

	// A short run: too few to judge, and says how many.
	var short auditTotals
	short.done = [numTxs]int64{500, 480, 40, 45, 38}
	short.rollbacks = 6
	short.lineCounts[10] = 494
	short.paymentsByName = 290
	one := newGen(t)
	audits = one.judge(short, fixed(time.Millisecond))
	for _, tc := range []struct{ prefix, result, detail string }{
		{"newOrder p90", "PASS", "p90 1.0ms over 500 transactions"},
		{"orderStatus p90", "SKIP", "40 transactions; 100 needed to judge"},
		{"New-Order rollbacks", "SKIP", "1.20% of 500 New-Orders; 89,100 needed to judge"},
		{"order lines", "SKIP", "avg 10.00, 10..10 over 494 orders; 9,000 needed to judge 9.9-10.1"},
		{"remote order lines", "SKIP", "1 warehouse: no line can be remote"},
		{"remote payments", "SKIP", "1 warehouse: no payment can be remote"},
		{"payments by last name", "SKIP", "60.42% of 480 Payments; 2,400 needed to judge"},
		{"skipped deliveries", "PASS", "0 of 450 districts skipped (0.00%)"},
	} {
		a := auditByPrefix(t, audits, tc.prefix)
		if a.Result != tc.result || a.Detail != tc.detail {
			t.Errorf("%s: %s %q, want %s %q", a.Name, a.Result, a.Detail, tc.result, tc.detail)
		}
	}

	// Transactions left out of the mix are not judged.
	mix := newGen(t, "--mix", "newOrder=1")
	audits = mix.judge(auditTotals{}, nil)
	for _, prefix := range []string{"payment p90", "remote payments", "order-status by", "skipped deliveries"} {
		if a := auditByPrefix(t, audits, prefix); a.Result != workload.AuditSkip || a.Detail != "not in --mix" {
			t.Errorf("%s: %s %q", a.Name, a.Result, a.Detail)
		}
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 89100: "89,100", 1234567: "1,234,567", -4200: "-4,200"} {
		if got := count(n); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestAuditsNull runs the workers on the null driver: Audits sums every
// worker's counters.
func TestAuditsNull(t *testing.T) {
	ctx := context.Background()
	g := newGen(t, "--warehouses", "4", "--wait=false")
	if a := g.Audits(time.Second, nil); a != nil {
		t.Errorf("Audits before Ops: %+v", a)
	}
	ql, err := g.Ops(ctx, nullDB(t), workload.OpsConfig{Concurrency: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer ql.Close(ctx)
	var done [numTxs]int64
	for i := range 23 * 30 {
		res := ql.Workers[i%3](ctx)
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		done[res.Op]++
	}
	tot := sumAudits(g.workers)
	if tot.done != done {
		t.Errorf("audit counts %v, worker results %v", tot.done, done)
	}
	var orders int64
	for _, n := range tot.lineCounts {
		orders += n
	}
	if orders != done[opNewOrder] || tot.rollbacks != 0 {
		t.Errorf("null driver: %d orders of %d New-Orders, %d rollbacks", orders, done[opNewOrder], tot.rollbacks)
	}
	if tot.paymentsByName == 0 || tot.remotePayments == 0 {
		t.Errorf("payments: %d by name, %d remote", tot.paymentsByName, tot.remotePayments)
	}
	if got := len(g.Audits(time.Second, func(string, float64) time.Duration { return time.Millisecond })); got != 12 {
		t.Errorf("%d audits", got)
	}
}
