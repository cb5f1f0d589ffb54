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
		if strings.HasPrefix(a.Label(), prefix) {
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
	big.skippingDeliveries, big.skippedDistricts = 10, 12
	g := newGen(t, "--warehouses", "10")
	audits := g.judge(big, fixed(20*time.Millisecond))
	if len(audits) != 16 {
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
	bad.skippingDeliveries = 201 // of 20,000
	audits = g.judge(bad, fixed(6*time.Second))
	for _, prefix := range []string{"newOrder p90", "New-Order rollbacks", "order lines", "remote payments", "order-status by",
		"deliveries skipping"} {
		if a := auditByPrefix(t, audits, prefix); a.Result != workload.AuditFail {
			t.Errorf("%s: %s %s, want FAIL", a.Name, a.Result, a.Detail)
		}
	}
	if a := auditByPrefix(t, audits, "stockLevel p90"); a.Result != workload.AuditPass || a.Required != "<= 20s" || a.Label() != "stockLevel p90 <= 20s (5.2.5.3)" {
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
		{"deliveries skipping", "PASS", "0 of 45 Deliveries (0.00%), 0 districts skipped"},
		{"payment share", "SKIP", "43.52% of 1,103 transactions; 2,364 needed to judge"},
	} {
		a := auditByPrefix(t, audits, tc.prefix)
		if a.Result != tc.result || a.Detail != tc.detail {
			t.Errorf("%s: %s %q, want %s %q", a.Name, a.Result, a.Detail, tc.result, tc.detail)
		}
	}

	// Transactions left out of the mix are not judged.
	mix := newGen(t, "--mix", "newOrder=1")
	audits = mix.judge(auditTotals{}, nil)
	for _, prefix := range []string{"payment p90", "remote payments", "order-status by", "deliveries skipping"} {
		if a := auditByPrefix(t, audits, prefix); a.Result != workload.AuditSkip || a.Detail != "not in --mix" {
			t.Errorf("%s: %s %q", a.Name, a.Result, a.Detail)
		}
	}
}

// TestMixAudit judges the shares of clause 5.2.3: SKIP until a deck's
// share could not be on the other side of the minimum by chance, then
// PASS for the default deck and FAIL for one under a minimum.
func TestMixAudit(t *testing.T) {
	for _, tc := range []struct {
		name      string
		mix       string
		terminals int
		done      [numTxs]int64
		want      map[string]string // audit name prefix: result and detail
	}{
		{"default deck, judged", defaultMix, 2, [numTxs]int64{2100, 2101, 210, 209, 210}, map[string]string{
			"payment share >= 43%":    "PASS 43.50% of 4,830 transactions",
			"orderStatus share >= 4%": "PASS 4.35% of 4,830 transactions",
			"delivery share >= 4%":    "PASS 4.33% of 4,830 transactions",
			"stockLevel share >= 4%":  "PASS 4.35% of 4,830 transactions",
		}},
		{"default deck, too few", defaultMix, 10, [numTxs]int64{2000, 2001, 200, 199, 200}, map[string]string{
			"payment share":     "SKIP 43.50% of 4,600 transactions; 23,637 needed to judge",
			"orderStatus share": "SKIP 4.35% of 4,600 transactions; 5,501 needed to judge",
		}},
		{"Order-Status under its minimum", "newOrder=45,payment=44,orderStatus=3,delivery=4,stockLevel=4", 2,
			[numTxs]int64{900, 880, 60, 80, 80}, map[string]string{
				"orderStatus share": "FAIL 3.00% of 2,000 transactions",
				"payment share":     "SKIP 44.00% of 2,000 transactions; 9,856 needed to judge",
			}},
		{"Stock-Level left out", "newOrder=1,payment=1,orderStatus=1,delivery=1", 1,
			[numTxs]int64{1, 1, 1, 1, 0}, map[string]string{
				"stockLevel share": "FAIL 0.00% of 4 transactions",
				"payment share":    "SKIP 25.00% of 4 transactions; 9 needed to judge",
			}},
		{"no transaction", defaultMix, 1, [numTxs]int64{}, map[string]string{
			"payment share": "SKIP no transaction",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGen(t, "--mix", tc.mix)
			g.workers = make([]*worker, tc.terminals)
			audits := g.judge(auditTotals{done: tc.done}, nil)
			for prefix, want := range tc.want {
				a := auditByPrefix(t, audits, prefix)
				got := a.Result + " " + a.Detail
				if got != want {
					t.Errorf("%s: %q, want %q", a.Name, got, want)
				}
			}
		})
	}
	// A deck that gives a minimum exactly is judged as measured.
	g := newGen(t, "--mix", "newOrder=45,payment=43,orderStatus=4,delivery=4,stockLevel=4")
	g.workers = make([]*worker, 10)
	a := auditByPrefix(t, g.judge(auditTotals{done: [numTxs]int64{4501, 4300, 399, 400, 400}}, nil), "orderStatus share")
	if got := a.Result + " " + a.Detail; got != "FAIL 3.99% of 10,000 transactions, and --mix gives the minimum itself, with no margin" {
		t.Errorf("%s: %s", a.Name, got)
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
	if got := len(g.Audits(time.Second, func(string, float64) time.Duration { return time.Millisecond })); got != 16 {
		t.Errorf("%d audits", got)
	}
}
