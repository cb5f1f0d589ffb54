package tpcc

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/workload"
)

// tenantGen returns a generator of tenant id configured by args.
func tenantGen(t testing.TB, id int, seed uint64, args ...string) *tpcc {
	t.Helper()
	g := newGen(t, args...)
	g.SetSeed(seed)
	g.SetTenant(id)
	return g
}

// wColumn is the index of the W_ID column of each warehouse-keyed table's
// rows (and ORDER_LINE's OL_SUPPLY_W_ID at 5).
var wColumn = map[string]int{
	warehouseTable: 0, districtTable: 1, customerTable: 2, historyTable: 2, orderName: 2, newOrderTable: 2,
	stockTable: 1, orderLineTable: 2,
}

// TestTenantTables checks the data of tenant 3 of 2 warehouses: the same
// rows as a database of 2 warehouses with W_IDs 5 and 6 for 1 and 2, no
// items (tenant 1 has them), and tpcc_meta led by tenant_id.
func TestTenantTables(t *testing.T) {
	plain := newGen(t, "--warehouses", "2")
	plain.SetSeed(4)
	g := tenantGen(t, 3, 4, "--warehouses", "2")
	if first, last := g.whRange(); first != 5 || last != 6 {
		t.Fatalf("tenant 3's warehouses: %d..%d, want 5..6", first, last)
	}
	pt, gt := plain.Tables(), g.Tables()
	if len(pt) != len(gt) {
		t.Fatalf("%d tables, %d without a tenant", len(gt), len(pt))
	}
	for i, tab := range gt {
		p := pt[i]
		if tab.Name != p.Name {
			t.Fatalf("table %d: %s, want %s", i, tab.Name, p.Name)
		}
		switch tab.Name {
		case metaTable:
			if tab.Schema != metaTenantSchema || !reflect.DeepEqual(tab.Columns, append([]string{"tenant_id"}, metaColumns...)) {
				t.Errorf("tpcc_meta: %s %q", tab.Schema, tab.Columns)
			}
			continue
		case itemTable:
			if tab.InitialRows.NumBatches != 0 || tab.InitialRows.NumRows != 0 {
				t.Errorf("tenant 3 loads %d items", tab.InitialRows.NumRows)
			}
			continue
		}
		if tab.Schema != p.Schema || !reflect.DeepEqual(tab.Columns, p.Columns) || !reflect.DeepEqual(tab.Indexes, p.Indexes) {
			t.Errorf("%s: schema, columns or indexes differ from a database without tenants", tab.Name)
		}
		if tab.InitialRows.NumBatches != p.InitialRows.NumBatches || tab.InitialRows.NumRows != p.InitialRows.NumRows {
			t.Errorf("%s: %d batches of %d rows, want %d of %d", tab.Name, tab.InitialRows.NumBatches, tab.InitialRows.NumRows,
				p.InitialRows.NumBatches, p.InitialRows.NumRows)
		}
		col := wColumn[tab.Name]
		// The first and the last batch: the rows of the same batch
		// without a tenant, W_IDs shifted by 4.
		for _, b := range []int{0, tab.InitialRows.NumBatches - 1} {
			got, want := tab.InitialRows.FillBatch(b, nil), p.InitialRows.FillBatch(b, nil)
			if len(got) != len(want) {
				t.Fatalf("%s batch %d: %d rows, want %d", tab.Name, b, len(got), len(want))
			}
			for r := range want {
				shifted := append([]any(nil), want[r]...)
				shifted[col] = want[r][col].(int64) + 4
				if tab.Name == orderLineTable {
					shifted[5] = want[r][5].(int64) + 4 // OL_SUPPLY_W_ID, the home warehouse
				}
				if tab.Name == historyTable {
					shifted[4] = want[r][4].(int64) + 4 // H_W_ID
				}
				if !reflect.DeepEqual(got[r], shifted) {
					t.Fatalf("%s batch %d row %d: %v, want %v", tab.Name, b, r, got[r], shifted)
				}
				if w := got[r][col].(int64); w < 5 || w > 6 {
					t.Fatalf("%s batch %d row %d: warehouse %d", tab.Name, b, r, w)
				}
			}
		}
	}
	if row := g.metaRow(); !reflect.DeepEqual(row, append([]any{int64(3)}, plain.metaRow()...)) {
		t.Errorf("tpcc_meta row %v", row)
	}

	// Tenant 1 loads the items, and nothing changes without a tenant.
	g1 := tenantGen(t, 1, 4, "--warehouses", "2")
	for i, tab := range g1.Tables() {
		if tab.Name == itemTable && tab.InitialRows.NumRows != numItems {
			t.Errorf("tenant 1 loads %d items", tab.InitialRows.NumRows)
		}
		if tab.Name == warehouseTable && !reflect.DeepEqual(tab.InitialRows.FillBatch(1, nil), pt[i].InitialRows.FillBatch(1, nil)) {
			t.Error("tenant 1's warehouse 2 differs from warehouse 2 without a tenant")
		}
	}
}

// TestTenantHooks checks the hooks of column mode: PreLoad only with a
// tenant, refusing --fks; Validate refuses warehouses past INTEGER; the
// reports name the tenant.
func TestTenantHooks(t *testing.T) {
	if newGen(t).Hooks().PreLoad != nil {
		t.Error("PreLoad without a tenant")
	}
	g := tenantGen(t, 2, 1, "--fks")
	pre := g.Hooks().PreLoad
	if pre == nil {
		t.Fatal("no PreLoad in column mode")
	}
	if err := pre(context.Background(), nullDB(t)); err == nil || !strings.Contains(err.Error(), "--fks cannot be used with --tenant-mode column") {
		t.Errorf("PreLoad with --fks: %v", err)
	}
	if err := tenantGen(t, 2, 1).Hooks().PreLoad(context.Background(), nullDB(t)); err != nil {
		t.Errorf("PreLoad on the null driver: %v", err)
	}
	big := tenantGen(t, math.MaxInt32/1000+1, 1, "--warehouses", "1000")
	if err := big.validate(); err == nil || !strings.Contains(err.Error(), "largest value") {
		t.Errorf("validate of a tenant past INTEGER: %v", err)
	}
	if err := tenantGen(t, math.MaxInt32/1000, 1, "--warehouses", "1000").validate(); err != nil {
		t.Errorf("validate of the last tenant that fits: %v", err)
	}
	var out lines
	if err := tenantGen(t, 2, 1).Hooks().CheckConsistency(context.Background(), nullDB(t), &out); err != nil || len(out) != 1 || out[0] != "tpcc (tenant 2): skipped (null driver)" {
		t.Errorf("CheckConsistency on the null driver: %v %q", err, out)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("SetTenant(-1) did not panic")
			}
		}()
		newGen(t).SetTenant(-1)
	}()
}

// TestTenantWorkersNull checks that tenant 3 of 2 warehouses' workers
// have their home in warehouses 5 and 6 and pick remote supplying and
// paying warehouses there only.
func TestTenantWorkersNull(t *testing.T) {
	ctx := context.Background()
	g := tenantGen(t, 3, 1, "--warehouses", "2", "--wait=false")
	ql, err := g.Ops(ctx, nullDB(t), workload.OpsConfig{Concurrency: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer ql.Close(ctx)
	for i, w := range g.workers {
		if want := int64(5 + i%2); w.wID != want {
			t.Errorf("worker %d: home warehouse %d, want %d", i, w.wID, want)
		}
	}
	var remoteLines, remotePayments int
	for range 2000 {
		for _, w := range g.workers {
			no := w.txs[opNewOrder].(*newOrder)
			no.draw()
			for _, l := range no.lines {
				if l.supplyWID < 5 || l.supplyWID > 6 {
					t.Fatalf("worker of warehouse %d: order line supplied by warehouse %d", w.wID, l.supplyWID)
				}
				if l.supplyWID != w.wID {
					remoteLines++
				}
			}
			p := w.txs[opPayment].(*payment)
			p.draw()
			if p.cWID < 5 || p.cWID > 6 {
				t.Fatalf("worker of warehouse %d: payment for a customer of warehouse %d", w.wID, p.cWID)
			}
			if p.cWID != w.wID {
				remotePayments++
			}
		}
	}
	if remoteLines == 0 || remotePayments == 0 {
		t.Errorf("%d remote order lines, %d remote payments: want some", remoteLines, remotePayments)
	}
	for range 20 {
		if res := ql.Workers[0](ctx); res.Err != nil {
			t.Fatal(res.Err)
		}
	}
	if figs := g.Figures(map[string]int64{"newOrder": 1286}, 60e9); figs[1].Name == "efficiency" {
		t.Errorf("efficiency without keying and think times: %+v", figs[1])
	}
	// With them and 10 terminals per warehouse: over the tenant's 2.
	g = tenantGen(t, 3, 1, "--warehouses", "2")
	ql, err = g.Ops(ctx, nullDB(t), workload.OpsConfig{Concurrency: 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer ql.Close(ctx)
	figs := g.Figures(map[string]int64{"newOrder": 1286}, 60e9)
	if figs[1].Name != "efficiency" || math.Abs(figs[1].Value-5000) > 1e-6 {
		t.Errorf("efficiency of 1286 New-Orders a minute on the tenant's 2 warehouses: %+v", figs[1])
	}
}
