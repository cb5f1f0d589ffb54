package tpcc

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// warehouseState is what any transaction of a warehouse changes: its
// districts' next order ids, its and their YTD, and its rows of the
// tables transactions insert into.
type warehouseState struct {
	nextOID, ytd, dYTD                     float64
	orders, newOrders, lines, history      int64
	stockYTD, balance, delivered, supplied float64
}

func readWarehouse(t *testing.T, ctx context.Context, db *sqlx.DB, w int64) warehouseState {
	t.Helper()
	var s warehouseState
	err := db.QueryRow(ctx, `SELECT
		(SELECT sum(d_next_o_id) FROM district WHERE d_w_id = $1)::float8,
		(SELECT w_ytd FROM warehouse WHERE w_id = $1)::float8,
		(SELECT sum(d_ytd) FROM district WHERE d_w_id = $1)::float8,
		(SELECT count(*) FROM "order" WHERE o_w_id = $1),
		(SELECT count(*) FROM new_order WHERE no_w_id = $1),
		(SELECT count(*) FROM order_line WHERE ol_w_id = $1),
		(SELECT count(*) FROM history WHERE h_w_id = $1 OR h_c_w_id = $1),
		(SELECT sum(s_ytd) FROM stock WHERE s_w_id = $1)::float8,
		(SELECT sum(c_balance) FROM customer WHERE c_w_id = $1)::float8,
		(SELECT count(*) FROM order_line WHERE ol_w_id = $1 AND ol_delivery_d IS NOT NULL)::float8,
		(SELECT count(*) FROM order_line WHERE ol_supply_w_id = $1)::float8`, w).
		Scan(&s.nextOID, &s.ytd, &s.dYTD, &s.orders, &s.newOrders, &s.lines, &s.history, &s.stockYTD, &s.balance, &s.delivered, &s.supplied)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// bothLoads runs the workers of several QueryLoads as one.
func bothLoads(loads ...workload.QueryLoad) workload.QueryLoad {
	out := workload.QueryLoad{Ops: loads[0].Ops, Classes: loads[0].Classes}
	var attach []func(int, workload.Recorder)
	var base []int
	for _, l := range loads {
		base = append(base, len(out.Workers))
		attach = append(attach, l.Attach)
		out.Workers = append(out.Workers, l.Workers...)
	}
	out.Attach = func(i int, rec workload.Recorder) {
		for k := len(base) - 1; k >= 0; k-- {
			if i >= base[k] {
				attach[k](i-base[k], rec)
				return
			}
		}
	}
	out.Close = func(ctx context.Context) error {
		for _, l := range loads {
			if err := l.Close(ctx); err != nil {
				return err
			}
		}
		return nil
	}
	return out
}

// TestPostgresTenantColumns loads tenants 1 and 2 of 1 warehouse each
// into shared tables (tenant 1 with Setup, tenant 2 with SkipCreate),
// checks what each holds, reloads tenant 2 as after an interrupted load,
// runs tenant 1 alone (tenant 2's warehouse must not change), then both
// at once, and checks every consistency condition per tenant.
func TestPostgresTenantColumns(t *testing.T) {
	const workers = 4
	db := freshDB(t, 2*workers)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	gen := func(id int, args ...string) *tpcc {
		return tenantGen(t, id, 21, append([]string{"--expensive-checks"}, args...)...)
	}

	g1, g2 := gen(1), gen(2)
	if err := workload.Setup(ctx, db, g1, workload.LoadOptions{Concurrency: 8}); err != nil {
		t.Fatal(err)
	}
	if err := g2.Hooks().PreRun(ctx, db); err == nil || !strings.Contains(err.Error(), "tpcc_meta has no row for tenant 2 (warehouses 2 to 2)") {
		t.Errorf("PreRun of tenant 2 before its load: %v", err)
	}
	if err := workload.Setup(ctx, db, g2, workload.LoadOptions{Concurrency: 8, SkipCreate: true}); err != nil {
		t.Fatal(err)
	}

	// Cardinalities per tenant; the items once.
	counts := func() map[string][2]int64 {
		out := map[string][2]int64{}
		for _, tt := range tenantTables {
			var c [2]int64
			if err := db.QueryRow(ctx, "SELECT count(*) FILTER (WHERE "+tt.column+" = 1), count(*) FILTER (WHERE "+tt.column+" = 2), count(*) FROM "+tt.table).
				Scan(&c[0], &c[1], new(int64)); err != nil {
				t.Fatal(err)
			}
			out[tt.table] = c
		}
		return out
	}
	want := map[string]int64{warehouseTable: 1, districtTable: 10, customerTable: 30000, historyTable: 30000, orderTable: 30000,
		newOrderTable: 9000, stockTable: 100000}
	checkCounts := func(when string) {
		t.Helper()
		for table, c := range counts() {
			if n, ok := want[table]; ok && (c[0] != n || c[1] != n) {
				t.Errorf("%s: %s holds %d rows of warehouse 1 and %d of warehouse 2, want %d each", when, table, c[0], c[1], n)
			}
			if table == orderLineTable && (c[0] != c[1] || c[0] < 30000*minOLCnt) {
				t.Errorf("%s: order_line holds %d rows of warehouse 1 and %d of warehouse 2", when, c[0], c[1])
			}
		}
		var items, metas, total int64
		if err := db.QueryRow(ctx, "SELECT (SELECT count(*) FROM item), (SELECT count(*) FROM tpcc_meta), (SELECT count(*) FROM warehouse)").
			Scan(&items, &metas, &total); err != nil {
			t.Fatal(err)
		}
		if items != numItems || metas != 2 || total != 2 {
			t.Errorf("%s: %d items, %d tpcc_meta rows, %d warehouses; want 100000, 2, 2", when, items, metas, total)
		}
	}
	checkCounts("after loading")

	// An interrupted load of tenant 2 (its rows there, its tpcc_meta row
	// not yet) is loaded again, without duplicates.
	if _, err := db.Exec(ctx, "DELETE FROM tpcc_meta WHERE tenant_id = 2"); err != nil {
		t.Fatal(err)
	}
	if err := workload.Setup(ctx, db, g2, workload.LoadOptions{Concurrency: 8, SkipCreate: true}); err != nil {
		t.Fatalf("reloading tenant 2: %v", err)
	}
	checkCounts("after reloading tenant 2")

	for _, g := range []*tpcc{g1, g2} {
		if err := g.Hooks().PreRun(ctx, db); err != nil {
			t.Errorf("PreRun of tenant %d: %v", g.tenant, err)
		}
		mustPass(t, ctx, g, db, "after loading")
	}
	if err := gen(2, "--warehouses", "2").Hooks().PreRun(ctx, db); err == nil || !strings.Contains(err.Error(), "tenant 2 in database "+db.Database()+" holds 1 warehouse, not --warehouses 2") {
		t.Errorf("PreRun of tenant 2 with --warehouses 2: %v", err)
	}
	if err := newGen(t).Hooks().PreRun(ctx, db); err == nil || !strings.Contains(err.Error(), "give --tenants N --tenant-mode column") {
		t.Errorf("PreRun without a tenant: %v", err)
	}

	// Tenant 1 alone: tenant 2's warehouse does not change.
	ops := func(id int, seed uint64) workload.QueryLoad {
		ql, err := gen(id, "--wait=false").Ops(ctx, db, workload.OpsConfig{Concurrency: workers, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return ql
	}
	before1, before2 := readWarehouse(t, ctx, db, 1), readWarehouse(t, ctx, db, 2)
	n := runOps(t, ctx, ops(1, 5), 60, &countingRecorder{})
	t.Logf("tenant 1 alone: %v", n)
	after1, after2 := readWarehouse(t, ctx, db, 1), readWarehouse(t, ctx, db, 2)
	if after2 != before2 {
		t.Errorf("a run of tenant 1 changed warehouse 2: %+v, was %+v", after2, before2)
	}
	if after1.nextOID <= before1.nextOID || after1.ytd <= before1.ytd {
		t.Errorf("a run of tenant 1 changed nothing in warehouse 1: %+v, was %+v", after1, before1)
	}
	var fresh1, fresh2 bool
	if err := db.QueryRow(ctx, "SELECT (SELECT fresh FROM tpcc_meta WHERE tenant_id = 1), (SELECT fresh FROM tpcc_meta WHERE tenant_id = 2)").
		Scan(&fresh1, &fresh2); err != nil || fresh1 || !fresh2 {
		t.Errorf("tpcc_meta fresh after a run of tenant 1: %v and %v (%v), want false and true", fresh1, fresh2, err)
	}
	mustPass(t, ctx, g1, db, "after tenant 1's run")
	mustPass(t, ctx, g2, db, "after tenant 1's run")

	// Both at once.
	n = runOps(t, ctx, bothLoads(ops(1, 6), ops(2, 7)), 60, &countingRecorder{})
	t.Logf("both tenants: %v", n)
	final2 := readWarehouse(t, ctx, db, 2)
	if final2.nextOID <= after2.nextOID || final2.ytd <= after2.ytd {
		t.Errorf("a run of tenant 2 changed nothing in warehouse 2: %+v, was %+v", final2, after2)
	}
	var cross int64
	if err := db.QueryRow(ctx, `SELECT (SELECT count(*) FROM history WHERE h_w_id <> h_c_w_id)
		+ (SELECT count(*) FROM order_line WHERE ol_w_id <> ol_supply_w_id)`).Scan(&cross); err != nil || cross != 0 {
		t.Errorf("%d payments or order lines crossed tenants (%v)", cross, err)
	}
	var out lines
	for _, g := range []*tpcc{g1, g2} {
		mustPass(t, ctx, g, db, "after both tenants' run")
	}
	// Corruption of tenant 2 fails tenant 2's checks only.
	if _, err := db.Exec(ctx, "UPDATE warehouse SET w_ytd = w_ytd + 1 WHERE w_id = 2"); err != nil {
		t.Fatal(err)
	}
	mustPass(t, ctx, g1, db, "after corrupting tenant 2")
	err := g2.Hooks().CheckConsistency(ctx, db, &out)
	if err == nil || !strings.Contains(err.Error(), "tpcc (tenant 2) consistency check failed: 3.3.2.1 (1 rows), 3.3.2.8 (1 rows)") {
		t.Errorf("checks of tenant 2 after corrupting it: %v", err)
	}
	if !strings.Contains(strings.Join(out, "\n"), "tpcc (tenant 2): 3.3.2.1 W_YTD = sum(D_YTD): FAIL (1 offending rows)") {
		t.Errorf("check output %q", out)
	}
}
