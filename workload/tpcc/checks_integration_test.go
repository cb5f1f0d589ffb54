package tpcc

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// TestPostgresChecks loads 1 warehouse and runs all twelve consistency
// conditions: every one PASSes right after loading (3.3.2.11 included),
// a corrupted row FAILs exactly its condition with the right count, the
// costly ones SKIP without --expensive-checks, 3.3.2.11 SKIPs after a
// run, and the audits of that run are PASS or SKIP with plausible
// figures.
func TestPostgresChecks(t *testing.T) {
	db := freshDB(t, 8)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	g := newGen(t, "--expensive-checks")
	g.SetSeed(11)
	if err := workload.Setup(ctx, db, g, workload.LoadOptions{Concurrency: 8}); err != nil {
		t.Fatal(err)
	}
	run := func(g *tpcc) ([]string, error) {
		var out lines
		err := g.Hooks().CheckConsistency(ctx, db, &out)
		return out, err
	}
	out, err := run(g)
	if err != nil || len(out) != 12 {
		t.Fatalf("checks after loading: %v\n%s", err, strings.Join(out, "\n"))
	}
	for i, l := range out {
		if want := fmt.Sprintf("tpcc: %s ", checks[i].clause); !strings.HasPrefix(l, want) || !strings.HasSuffix(l, ": PASS") {
			t.Errorf("line %d: %q, want %s...: PASS", i, l, want)
		}
	}

	// Without --expensive-checks the costly ones SKIP.
	out, err = run(newGen(t))
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range out {
		skip := strings.HasSuffix(l, ": SKIP (costly: --expensive-checks runs it)")
		if want := slices.Contains([]string{"3.3.2.6", "3.3.2.10", "3.3.2.12"}, checks[i].clause); skip != want {
			t.Errorf("without --expensive-checks: %q", l)
		}
	}

	// One corrupted row FAILs exactly its condition, with 1 offending row.
	for _, tc := range []struct {
		clause, corrupt, repair string
		rows                    int
	}{
		// The balance moves but not the balance plus the payments: 3.3.2.12 holds.
		{"3.3.2.10", "UPDATE customer SET c_balance = c_balance + 7, c_ytd_payment = c_ytd_payment - 7 WHERE c_w_id = 1 AND c_d_id = 4 AND c_id = 17",
			"UPDATE customer SET c_balance = c_balance - 7, c_ytd_payment = c_ytd_payment + 7 WHERE c_w_id = 1 AND c_d_id = 4 AND c_id = 17", 1},
		// C_YTD_PAYMENT is not part of 3.3.2.10.
		{"3.3.2.12", "UPDATE customer SET c_ytd_payment = c_ytd_payment + 1 WHERE c_w_id = 1 AND c_d_id = 9 AND c_id = 2999",
			"UPDATE customer SET c_ytd_payment = c_ytd_payment - 1 WHERE c_w_id = 1 AND c_d_id = 9 AND c_id = 2999", 1},
		// One more line in one order, one fewer in another of the district:
		// the sum of 3.3.2.4 holds.
		{"3.3.2.6", "UPDATE \"order\" SET o_ol_cnt = o_ol_cnt + CASE o_id WHEN 5 THEN 1 ELSE -1 END WHERE o_w_id = 1 AND o_d_id = 2 AND o_id IN (5, 6)",
			"UPDATE \"order\" SET o_ol_cnt = o_ol_cnt - CASE o_id WHEN 5 THEN 1 ELSE -1 END WHERE o_w_id = 1 AND o_d_id = 2 AND o_id IN (5, 6)", 2},
	} {
		if _, err := db.Exec(ctx, tc.corrupt); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		out, err := run(g)
		t.Logf("checks with --expensive-checks in %v", time.Since(start).Round(time.Millisecond))
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("failed: %s (%d rows)", tc.clause, tc.rows)) {
			t.Errorf("corrupt for %s: error %v", tc.clause, err)
		}
		for i, l := range out {
			fail := strings.HasSuffix(l, fmt.Sprintf(": FAIL (%d offending rows)", tc.rows))
			if want := checks[i].clause == tc.clause; fail != want || !fail && !strings.HasSuffix(l, ": PASS") {
				t.Errorf("corrupt for %s: %q", tc.clause, l)
			}
		}
		if _, err := db.Exec(ctx, tc.repair); err != nil {
			t.Fatal(err)
		}
	}

	// A run: 3.3.2.11 no longer applies.
	const workers = 4
	rg := newGen(t, "--wait=false")
	ql, err := rg.Ops(ctx, db, workload.OpsConfig{Concurrency: workers, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	lat := timedRun(t, ctx, ql, 300)
	elapsed := time.Since(start)
	out, err = run(g)
	if err != nil {
		t.Fatalf("checks after the run: %v\n%s", err, strings.Join(out, "\n"))
	}
	if l := out[10]; l != "tpcc: 3.3.2.11 count(order) - count(new_order) = 2100 per district: SKIP (holds only right after loading, and a run has happened since)" {
		t.Errorf("3.3.2.11 after a run: %q", l)
	}

	// The audits of the run.
	audits := rg.Audits(elapsed, lat.quantile)
	var report []string
	for _, a := range audits {
		report = append(report, a.Result+" "+a.Name+": "+a.Detail)
		if a.Result != workload.AuditPass && a.Result != workload.AuditSkip {
			t.Errorf("audit %s: %s %s", a.Name, a.Result, a.Detail)
		}
	}
	t.Logf("audits over %v:\n%s", elapsed.Round(time.Millisecond), strings.Join(report, "\n"))
	tot := sumAudits(rg.workers)
	var done int64
	for _, n := range tot.done {
		done += n
	}
	if done != workers*300 {
		t.Errorf("audits counted %d transactions, ran %d", done, workers*300)
	}
	// The shares are within 4.5 standard deviations of the spec's.
	plausible := func(what string, hits, n int64, p float64) {
		t.Helper()
		got := float64(hits) / float64(n)
		if sd := math.Sqrt(p * (1 - p) / float64(n)); n == 0 || math.Abs(got-p) > 4.5*sd {
			t.Errorf("%s: %d of %d (%.2f%%), want about %.0f%%", what, hits, n, 100*got, 100*p)
		}
	}
	plausible("New-Order rollbacks", tot.rollbacks, tot.done[opNewOrder], 0.01)
	plausible("payments by last name", tot.paymentsByName, tot.done[opPayment], 0.6)
	plausible("order-status by last name", tot.osByName, tot.done[opOrderStatus], 0.6)
	if tot.remotePayments != 0 || tot.remoteLines != 0 {
		t.Errorf("1 warehouse: %d remote payments, %d remote lines", tot.remotePayments, tot.remoteLines)
	}
	var committed int64
	for _, n := range tot.lineCounts {
		committed += n
	}
	if committed+tot.rollbacks != tot.done[opNewOrder] {
		t.Errorf("%d orders + %d rollbacks != %d New-Orders", committed, tot.rollbacks, tot.done[opNewOrder])
	}
	var orders int64
	if err := db.QueryRow(ctx, `SELECT count(*) - 30000 FROM "order"`).Scan(&orders); err != nil || orders != committed {
		t.Errorf("%d orders in the database, %d counted (%v)", orders, committed, err)
	}
}

// latencies are the latencies of each op of a run, for Audits.
type latencies struct {
	mu  sync.Mutex
	ops map[string][]time.Duration
}

// quantile returns op's latency at quantile q.
func (l *latencies) quantile(op string, q float64) time.Duration {
	d := slices.Clone(l.ops[op])
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[min(len(d)-1, int(math.Ceil(q*float64(len(d))))-1)]
}

// timedRun runs perWorker transactions on each worker of ql, timing them,
// and closes ql.
func timedRun(t *testing.T, ctx context.Context, ql workload.QueryLoad, perWorker int) *latencies {
	t.Helper()
	l := &latencies{ops: map[string][]time.Duration{}}
	runWorkers(t, ctx, ql, perWorker, &countingRecorder{}, func(res workload.Result, d time.Duration) {
		l.mu.Lock()
		l.ops[ql.Ops[res.Op]] = append(l.ops[ql.Ops[res.Op]], d)
		l.mu.Unlock()
	})
	return l
}

// TestPostgresSharedSnapshot checks that the connections of the checks
// share the first one's snapshot: a change committed after the export is
// seen by none of them, although several connections ran the queries.
func TestPostgresSharedSnapshot(t *testing.T) {
	db := freshDB(t, 0)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := db.Exec(ctx, "CREATE TABLE snap (w INT PRIMARY KEY, v INT NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, "INSERT INTO snap SELECT g, 0 FROM generate_series(1, 8) g"); err != nil {
		t.Fatal(err)
	}
	// Each query sleeps, so that the tasks spread over the connections.
	var cs []check
	for i := range 8 {
		cs = append(cs, check{clause: fmt.Sprint(i), desc: "v = 0",
			query: "SELECT count(*) FROM snap, pg_sleep(0.2) WHERE w BETWEEN $1 AND $2 AND v <> 0"})
	}
	var notes []string
	sr := snapshotRunner{db: db, conns: 4, note: func(s string) { notes = append(notes, s) },
		afterExport: func() {
			if _, err := db.Exec(ctx, "UPDATE snap SET v = 1"); err != nil {
				t.Error(err)
			}
		}}
	var final []int64
	start := time.Now()
	results, err := sr.run(ctx, cs, make([]string, len(cs)), 1, 8, func(bad []int64, done []bool) { final = slices.Clone(bad) })
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("64 tasks of 0.2s in %v", time.Since(start).Round(time.Millisecond))
	conns := map[int]bool{}
	for _, r := range results {
		conns[r.conn] = true
	}
	if len(results) != 8*8 || len(conns) < 2 || len(notes) > 0 {
		t.Errorf("%d tasks on connections %v (notes %q)", len(results), conns, notes)
	}
	for i, n := range final {
		if n != 0 {
			t.Errorf("check %d saw %d rows changed after the snapshot was taken", i, n)
		}
	}
	var changed int64
	if err := db.QueryRow(ctx, "SELECT count(*) FROM snap WHERE v <> 0").Scan(&changed); err != nil || changed != 8 {
		t.Errorf("outside the snapshot %d rows changed (%v)", changed, err)
	}
}

// TestPostgresChecksEachFails breaks each of the twelve consistency
// conditions of clause 3.3.2 on a freshly loaded warehouse and runs every
// condition's query in the same transaction, rolled back afterwards: the
// broken condition counts the offending rows, and every other one passes
// unless it follows from the same data (W_YTD = sum(D_YTD) follows from
// the two conditions on the history; a district's sum of O_OL_CNT from
// its orders'). Each break is the smallest change that keeps the others.
func TestPostgresChecksEachFails(t *testing.T) {
	t.Parallel()
	db := freshDB(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	g := newGen(t)
	g.SetSeed(12)
	if err := workload.Setup(ctx, db, g, workload.LoadOptions{Concurrency: 4}); err != nil {
		t.Fatal(err)
	}
	// Order 2101 of district 5, undelivered, and the customer who placed it.
	const order2101 = `o_w_id = 1 AND o_d_id = 5 AND o_id = 2101`
	const customer2101 = `(c_w_id, c_d_id, c_id) = (SELECT o_w_id, o_d_id, o_c_id FROM "order" WHERE ` + order2101 + `)`
	const amount2101 = `(SELECT sum(ol_amount) FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 5 AND ol_o_id = 2101)`
	for _, tc := range []struct {
		clause string
		break_ []string
		rows   int64
		// also are the other conditions the break cannot help failing,
		// with their offending rows.
		also map[string]int64
	}{
		// A payment of 1 to district 11, which does not exist: W_YTD and
		// sum(H_AMOUNT) agree, sum(D_YTD) lags.
		{"3.3.2.1", []string{
			"UPDATE warehouse SET w_ytd = w_ytd + 1 WHERE w_id = 1",
			"INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (1, 11, 1, 11, 1, now(), 1, 'x')",
		}, 1, nil},
		{"3.3.2.2", []string{"UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = 1 AND d_id = 3"}, 1, nil},
		// Order 2101 delivered (its customer's balance with it) and order
		// 2100 (whose lines' amounts are 0) back among the new orders: as
		// many new orders, no longer consecutive.
		{"3.3.2.3", []string{
			`UPDATE "order" SET o_carrier_id = 1 WHERE ` + order2101,
			"UPDATE order_line SET ol_delivery_d = now() WHERE ol_w_id = 1 AND ol_d_id = 5 AND ol_o_id = 2101",
			"UPDATE customer SET c_balance = c_balance + " + amount2101 + " WHERE " + customer2101,
			"DELETE FROM new_order WHERE no_w_id = 1 AND no_d_id = 5 AND no_o_id = 2101",
			`UPDATE "order" SET o_carrier_id = NULL WHERE o_w_id = 1 AND o_d_id = 5 AND o_id = 2100`,
			"UPDATE order_line SET ol_delivery_d = NULL WHERE ol_w_id = 1 AND ol_d_id = 5 AND ol_o_id = 2100",
			"INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (2100, 5, 1)",
		}, 1, nil},
		// One line more than the order has: its district's sum, and the order.
		{"3.3.2.4", []string{`UPDATE "order" SET o_ol_cnt = o_ol_cnt + 1 WHERE o_w_id = 1 AND o_d_id = 3 AND o_id = 5`}, 1,
			map[string]int64{"3.3.2.6": 1}},
		// A delivered order (its lines' amounts are 0) undelivered, but
		// not in NEW-ORDER.
		{"3.3.2.5", []string{
			`UPDATE "order" SET o_carrier_id = NULL WHERE o_w_id = 1 AND o_d_id = 8 AND o_id = 77`,
			"UPDATE order_line SET ol_delivery_d = NULL WHERE ol_w_id = 1 AND ol_d_id = 8 AND ol_o_id = 77",
		}, 1, nil},
		// A line moved from one order to the next: the district's sum holds.
		{"3.3.2.6", []string{`UPDATE "order" SET o_ol_cnt = o_ol_cnt + CASE o_id WHEN 5 THEN 1 ELSE -1 END
			WHERE o_w_id = 1 AND o_d_id = 2 AND o_id IN (5, 6)`}, 2, nil},
		// One line of a delivered order (amount 0) undelivered.
		{"3.3.2.7", []string{"UPDATE order_line SET ol_delivery_d = NULL WHERE ol_w_id = 1 AND ol_d_id = 4 AND ol_o_id = 9 AND ol_number = 1"}, 1, nil},
		// A payment of 1 to district 11, which does not exist, with no
		// W_YTD.
		{"3.3.2.8", []string{
			"INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data) VALUES (1, 11, 1, 11, 1, now(), 1, 'x')",
		}, 1, nil},
		// 1 of D_YTD moved between two districts: W_YTD's sum holds.
		{"3.3.2.9", []string{"UPDATE district SET d_ytd = d_ytd + CASE d_id WHEN 1 THEN 1 ELSE -1 END WHERE d_w_id = 1 AND d_id IN (1, 2)"}, 2, nil},
		// The balance moves but not the balance plus the payments.
		{"3.3.2.10", []string{"UPDATE customer SET c_balance = c_balance + 7, c_ytd_payment = c_ytd_payment - 7 WHERE c_w_id = 1 AND c_d_id = 4 AND c_id = 17"}, 1, nil},
		// A delivered order (its lines' amounts are 0) gone with its lines.
		{"3.3.2.11", []string{
			"DELETE FROM order_line WHERE ol_w_id = 1 AND ol_d_id = 7 AND ol_o_id = 1",
			`DELETE FROM "order" WHERE o_w_id = 1 AND o_d_id = 7 AND o_id = 1`,
		}, 1, nil},
		{"3.3.2.12", []string{"UPDATE customer SET c_ytd_payment = c_ytd_payment + 1 WHERE c_w_id = 1 AND c_d_id = 9 AND c_id = 2999"}, 1, nil},
	} {
		t.Run(tc.clause, func(t *testing.T) {
			tx, err := db.Begin(ctx, sqlx.TxOptions{Isolation: sqlx.RepeatableRead})
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(context.WithoutCancel(ctx))
			for _, q := range tc.break_ {
				if _, err := tx.Exec(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			for _, c := range checks {
				want := tc.also[c.clause]
				if c.clause == tc.clause {
					want = tc.rows
				}
				var n int64
				if err := tx.QueryRow(ctx, c.query, 1, 1).Scan(&n); err != nil {
					t.Fatalf("%s: %v", c.clause, err)
				}
				if n != want {
					t.Errorf("%s %s: %d offending rows, want %d", c.clause, c.desc, n, want)
				}
			}
		})
	}
	// Every break was rolled back: all twelve pass.
	mustPass(t, ctx, newGen(t, "--expensive-checks"), db, "after the breaks")
}
