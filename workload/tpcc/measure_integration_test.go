package tpcc

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// sumNext reads sum(d_next_o_id), the test's own count of committed
// New-Orders.
func sumNext(t *testing.T, ctx context.Context, db *sqlx.DB) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRow(ctx, "SELECT sum(d_next_o_id) FROM district").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestPostgresMeasurement runs the workers before and inside a measured
// interval: NOPM is the growth of sum(d_next_o_id) the test reads itself
// over the interval (the committed New-Orders, fewer than the completed
// ones by the rollbacks), the audits count the interval only, and the
// mix audit FAILs a deck under a minimum and PASSes the default deck over
// enough transactions.
func TestPostgresMeasurement(t *testing.T) {
	t.Parallel()
	const workers = 2
	db := freshDB(t, workers)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	lg := newGen(t)
	lg.SetSeed(5)
	if err := workload.Setup(ctx, db, lg, workload.LoadOptions{Concurrency: 4}); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		mix       string
		before    int // transactions per worker before the interval (the ramp)
		perWorker int // and in it
		results   map[string]string
	}{
		// Order-Status 3%: after 1,164 transactions of 2 terminals no
		// partial deck can lift it to 4%.
		// Payment's 44% needs 9,856.
		{"newOrder=45,payment=44,orderStatus=3,delivery=4,stockLevel=4", 50, 700, map[string]string{
			"orderStatus share": workload.AuditFail, "payment share": workload.AuditSkip}},
		// The default deck: Payment can be judged after 4,728.
		{defaultMix, 50, 2400, map[string]string{
			"payment share": workload.AuditPass, "orderStatus share": workload.AuditPass,
			"delivery share": workload.AuditPass, "stockLevel share": workload.AuditPass}},
	} {
		g := newGen(t, "--wait=false", "--mix", tc.mix)
		ql, err := g.Ops(ctx, db, workload.OpsConfig{Concurrency: workers, Seed: 21})
		if err != nil {
			t.Fatal(err)
		}
		for i := range ql.Workers {
			ql.Attach(i, &countingRecorder{})
			for range tc.before {
				if res := ql.Workers[i](ctx); res.Err != nil {
					t.Fatal(res.Err)
				}
			}
		}
		before := sumAudits(g.workers)
		next0 := sumNext(t, ctx, db)
		end, err := g.StartMeasurement(ctx, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		counts := runOps(t, ctx, ql, tc.perWorker, &countingRecorder{})
		if err := end(ctx); err != nil {
			t.Fatal(err)
		}
		elapsed := time.Since(start)
		growth := sumNext(t, ctx, db) - next0

		// NOPM is the server's count, the client's committed New-Orders.
		tot := sumAudits(g.workers).sub(before)
		var committed int64
		for _, n := range tot.lineCounts {
			committed += n
		}
		n, d, ok := g.run.meas.newOrders()
		if !ok || n != growth || committed != growth || committed+tot.rollbacks != counts[opNewOrder] {
			t.Errorf("%s: measured %d New-Orders (ok %v); sum(d_next_o_id) grew by %d; the client committed %d and rolled back %d of %d",
				tc.mix, n, ok, growth, committed, tot.rollbacks, counts[opNewOrder])
		}
		var nopm workload.Figure
		for _, f := range g.Figures(map[string]int64{"newOrder": counts[opNewOrder]}, elapsed) {
			if f.Name == "NOPM" {
				nopm = f
			}
		}
		if want := float64(growth) / d.Minutes(); nopm.Value != want || !strings.Contains(nopm.Text, "from the server") {
			t.Errorf("%s: NOPM %+v, want %.1f", tc.mix, nopm, want)
		}

		// The audits count the interval only.
		var judged int64
		for op, c := range counts {
			judged += c
			if tot.done[op] != c {
				t.Errorf("%s: audits count %d %s in the interval, the workers ran %d", tc.mix, tot.done[op], txs[op].name, c)
			}
		}
		if judged != int64(workers*tc.perWorker) {
			t.Errorf("%s: %d transactions in the interval, want %d", tc.mix, judged, workers*tc.perWorker)
		}
		audits := g.Audits(elapsed, nil)
		for prefix, want := range tc.results {
			if a := auditByPrefix(t, audits, prefix); a.Result != want {
				t.Errorf("%s: %s: %s %s, want %s", tc.mix, a.Name, a.Result, a.Detail, want)
			}
		}
		a := auditByPrefix(t, audits, "New-Order rollbacks")
		t.Logf("%s: %d New-Orders of which %d rolled back, NOPM %s; %s", tc.mix, counts[opNewOrder], tot.rollbacks, nopm.Text, a.Detail)
		if !strings.Contains(a.Detail, " of "+count(counts[opNewOrder])+" New-Orders") {
			t.Errorf("rollback audit over %q, want the interval's %d New-Orders", a.Detail, counts[opNewOrder])
		}
	}
}

// TestPostgresRollbackProfile checks that a New-Order that rolls back on
// its unused item has run the whole profile first (clause 2.4.2.3): it
// updated its district and the stock of its other lines. Sequences count
// the trigger's calls, as they do not roll back.
func TestPostgresRollbackProfile(t *testing.T) {
	t.Parallel()
	db := freshDB(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	lg := newGen(t)
	lg.SetSeed(6)
	if err := workload.Setup(ctx, db, lg, workload.LoadOptions{Concurrency: 4}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE SEQUENCE district_updates",
		"CREATE SEQUENCE stock_updates",
		`CREATE FUNCTION count_update() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN PERFORM nextval(TG_ARGV[0]); RETURN NEW; END $$`,
		"CREATE TRIGGER d_upd AFTER UPDATE ON district FOR EACH ROW EXECUTE FUNCTION count_update('district_updates')",
		"CREATE TRIGGER s_upd AFTER UPDATE ON stock FOR EACH ROW EXECUTE FUNCTION count_update('stock_updates')",
	} {
		if _, err := db.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	updates := func() (district, stock int64) {
		t.Helper()
		// A sequence's last_value is 1 before its first nextval.
		if err := db.QueryRow(ctx, `SELECT (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM district_updates),
			(SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM stock_updates)`).Scan(&district, &stock); err != nil {
			t.Fatal(err)
		}
		return district, stock
	}

	g := newGen(t, "--wait=false", "--mix", "newOrder=1")
	ql, err := g.Ops(ctx, db, workload.OpsConfig{Concurrency: 1, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer ql.Close(ctx)
	ql.Attach(0, &countingRecorder{})
	no := g.workers[0].txs[opNewOrder].(*newOrder)
	var rollbacks int
	for i := 0; rollbacks < 3 && i < 2000; i++ {
		d0, s0 := updates()
		next0 := sumNext(t, ctx, db)
		if res := ql.Workers[0](ctx); res.Err != nil {
			t.Fatal(res.Err)
		}
		d1, s1 := updates()
		lines := int64(len(no.lines))
		if !no.rolledBack {
			if d1-d0 != 1 || s1-s0 != lines {
				t.Fatalf("a committed New-Order of %d lines updated %d district and %d stock rows", lines, d1-d0, s1-s0)
			}
			continue
		}
		rollbacks++
		if d1-d0 != 1 || s1-s0 != lines-1 {
			t.Errorf("a rolled-back New-Order of %d lines (one unused) updated %d district and %d stock rows before its rollback, want 1 and %d",
				lines, d1-d0, s1-s0, lines-1)
		}
		if next := sumNext(t, ctx, db); next != next0 {
			t.Errorf("the rollback left sum(d_next_o_id) %d -> %d", next0, next)
		}
	}
	if rollbacks < 3 {
		t.Fatalf("%d rollbacks", rollbacks)
	}
	mustPass(t, ctx, lg, db, "after the rollbacks")
}
