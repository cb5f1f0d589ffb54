package tpcc

import (
	"math/rand/v2"
	"time"

	"github.com/stampede-bench/stampede/randgen"
	"github.com/stampede-bench/stampede/workload"
)

// Random streams of the initial data: table tag<<32 | batch index, so that
// every batch has its own stream of the seed (and workers, whose streams
// have bit 63 set, never share one with the data).
const (
	streamConstants = iota << 32
	streamWarehouse
	streamDistrict
	streamCustomer
	streamHistory
	streamOrder
	streamOLCnt // O_OL_CNT of a district's orders, shared by order and order_line
	streamOrderLine
	streamStock
	streamItem
)

// Batch sizes.
const (
	stockPerBatch = 10000
	itemsPerBatch = 10000
)

// loadTime is the "current date and time" of the initial rows (C_SINCE,
// H_DATE, O_ENTRY_D, OL_DELIVERY_D; clause 4.3.3.1): fixed, so that the
// data depends on the seed alone.
var loadTime = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// Tables implements the Generator interface. The tables are created in an
// order in which every foreign key of --fks references an earlier table,
// so that dropping them in reverse order works.
//
// In tenant column mode the schemas are the same but tpcc_meta's, which
// gets a leading tenant_id; the rows are tenant id's warehouses: the rows
// of a load of --warehouses W, W_IDs shifted by (id-1)*W, every batch
// drawn from the stream of the same batch of that load (deterministic from
// the seed and the warehouse's number within the tenant, so every tenant
// holds the same data). ITEM, not per warehouse, is loaded by tenant 1
// only (no batch for the others).
func (g *tpcc) Tables() []workload.Table {
	w := g.warehouses
	districts := w * districtsPerWH
	batches := func(n int, rows int64, fill func(int, [][]any) [][]any) workload.BatchedTuples {
		return workload.BatchedTuples{NumBatches: n, NumRows: rows, FillBatch: fill}
	}
	meta := workload.Table{Name: metaTable, Schema: metaSchema, Columns: metaColumns}
	items := batches(numItems/itemsPerBatch, numItems, g.fillItem)
	if g.tenant > 0 {
		meta.Schema, meta.Columns = metaTenantSchema, metaTenantColumns
		if g.tenant > 1 {
			items = workload.BatchedTuples{}
		}
	}
	tables := []workload.Table{
		// tpcc_meta's row is written by postLoad, once the rest is loaded.
		meta,
		{Name: warehouseTable, Schema: g.withFamilies(warehouseSchema, warehouseFamilies), Columns: warehouseColumns,
			InitialRows: batches(w, int64(w), g.fillWarehouse)},
		{Name: itemTable, Schema: itemSchema, Columns: itemColumns, InitialRows: items},
		{Name: districtTable, Schema: g.withFamilies(districtSchema, districtFamilies), Columns: districtColumns,
			InitialRows: batches(w, int64(districts), g.fillDistrict)},
		{Name: customerTable, Schema: g.withFamilies(customerSchema, customerFamilies), Columns: customerColumns, Indexes: []string{customerIndex},
			InitialRows: batches(districts, int64(districts)*customersPerDistrict, g.fillCustomer)},
		{Name: historyTable, Schema: historySchema, Columns: historyColumns,
			InitialRows: batches(districts, int64(districts)*customersPerDistrict, g.fillHistory)},
		{Name: orderName, Schema: orderSchema, Columns: orderColumns, Indexes: []string{orderIndex},
			InitialRows: batches(districts, int64(districts)*ordersPerDistrict, g.fillOrder)},
		{Name: newOrderTable, Schema: newOrderSchema, Columns: newOrderColumns,
			InitialRows: batches(districts, int64(districts)*newOrdersPerDistrict, g.fillNewOrder)},
		{Name: stockTable, Schema: stockSchema, Columns: stockColumns,
			InitialRows: batches(w*stockPerWH/stockPerBatch, int64(w)*stockPerWH, g.fillStock)},
		{Name: orderLineTable, Schema: orderLineSchema, Columns: orderLineColumns,
			InitialRows: batches(districts, int64(districts)*ordersPerDistrict*(minOLCnt+maxOLCnt)/2, g.fillOrderLine)},
	}
	if g.hammerdb() {
		g.hammerTables(tables)
	}
	g.shareTables(tables)
	return tables
}

// metaRow is the one row of tpcc_meta (the tenant's, led by its id, in
// column mode), fresh (no run yet), with the load's --profile.
func (g *tpcc) metaRow() []any {
	row := []any{schemaVersion, int64(g.warehouses), loadCLast(g.seed), int64(g.seed), true, g.hdb.profile}
	if g.tenant > 0 {
		row = append([]any{int64(g.tenant)}, row...)
	}
	return row
}

// address returns street 1, street 2, city, state and zip (clause
// 4.3.3.1).
func address(r *rand.Rand, buf []byte) []any {
	return []any{aString(r, buf, 10, 20), aString(r, buf, 10, 20), aString(r, buf, 10, 20), letters(r, buf, 2), zip(r, buf)}
}

// fillWarehouse appends warehouse batch+1 of the generator's (clause
// 4.3.3.1).
func (g *tpcc) fillWarehouse(batch int, rows [][]any) [][]any {
	r := randgen.New(g.seed, streamWarehouse|uint64(batch))
	var buf [64]byte
	row := []any{g.whOffset() + int64(batch+1), aString(r, buf[:], 6, 10)}
	row = append(row, address(r, buf[:])...)
	row = append(row, decimal(r, 0, 2000, 4), 300000.0)
	return append(rows, row)
}

// fillDistrict appends the 10 districts of warehouse batch+1 of the
// generator's.
func (g *tpcc) fillDistrict(batch int, rows [][]any) [][]any {
	r := randgen.New(g.seed, streamDistrict|uint64(batch))
	var buf [64]byte
	w := g.whOffset() + int64(batch+1)
	for d := 1; d <= districtsPerWH; d++ {
		row := []any{int64(d), w, aString(r, buf[:], 6, 10)}
		row = append(row, address(r, buf[:])...)
		row = append(row, decimal(r, 0, 2000, 4), 30000.0, int64(ordersPerDistrict+1))
		rows = append(rows, row)
	}
	return rows
}

// district returns the warehouse and district of a per-district batch.
func (g *tpcc) district(batch int) (w, d int64) {
	return g.whOffset() + int64(batch/districtsPerWH+1), int64(batch%districtsPerWH + 1)
}

// fillCustomer appends the 3,000 customers of district batch (clause
// 4.3.3.1): C_LAST from the customer's number for the first 1,000 and
// from NURand(255, 0, 999) with the load-time C for the others.
func (g *tpcc) fillCustomer(batch int, rows [][]any) [][]any {
	r := randgen.New(g.seed, streamCustomer|uint64(batch))
	cLoad := loadCLast(g.seed)
	w, d := g.district(batch)
	var buf [512]byte
	for c := int64(1); c <= customersPerDistrict; c++ {
		var last string
		if c <= 1000 {
			last = lastName(c - 1)
		} else {
			last = lastName(randgen.NURand(r, nurandCLast, cLoad, 0, 999))
		}
		credit := "GC"
		if r.IntN(10) == 0 {
			credit = "BC"
		}
		row := make([]any, 0, len(customerColumns))
		row = append(row, c, d, w, aString(r, buf[:], 8, 16), "OE", last)
		row = append(row, address(r, buf[:])...)
		row = append(row, nString(r, buf[:], 16), loadTime, credit, 50000.0, decimal(r, 0, 5000, 4),
			-10.0, 10.0, int64(1), int64(0), aString(r, buf[:], 300, 500))
		rows = append(rows, row)
	}
	return rows
}

// fillHistory appends one history row per customer of district batch.
func (g *tpcc) fillHistory(batch int, rows [][]any) [][]any {
	r := randgen.New(g.seed, streamHistory|uint64(batch))
	w, d := g.district(batch)
	var buf [32]byte
	for c := int64(1); c <= customersPerDistrict; c++ {
		rows = append(rows, []any{c, d, w, d, w, loadTime, 10.0, aString(r, buf[:], 12, 24)})
	}
	return rows
}

// olCounts returns the O_OL_CNT of the orders 1..3000 of district batch,
// uniform in [5, 15]; index 0 is order 1.
func (g *tpcc) olCounts(batch int) []int64 {
	r := randgen.New(g.seed, streamOLCnt|uint64(batch))
	cnt := make([]int64, ordersPerDistrict)
	for i := range cnt {
		cnt[i] = int64(randInt(r, minOLCnt, maxOLCnt))
	}
	return cnt
}

// fillOrder appends the 3,000 orders of district batch (clause 4.3.3.1):
// O_C_ID a random permutation of the customers, O_CARRIER_ID random in
// [1, 10] for the delivered orders (O_ID < 2101) and null for the others.
func (g *tpcc) fillOrder(batch int, rows [][]any) [][]any {
	r := randgen.New(g.seed, streamOrder|uint64(batch))
	w, d := g.district(batch)
	perm := r.Perm(customersPerDistrict)
	cnt := g.olCounts(batch)
	for o := int64(1); o <= ordersPerDistrict; o++ {
		var carrier any
		if o < firstNewOrder {
			carrier = int64(randInt(r, 1, 10))
		}
		rows = append(rows, []any{o, d, w, int64(perm[o-1] + 1), loadTime, carrier, cnt[o-1], int64(1)})
	}
	return rows
}

// fillNewOrder appends the 900 new orders of district batch: orders 2101
// to 3000.
func (g *tpcc) fillNewOrder(batch int, rows [][]any) [][]any {
	w, d := g.district(batch)
	for o := int64(firstNewOrder); o <= ordersPerDistrict; o++ {
		rows = append(rows, []any{o, d, w})
	}
	return rows
}

// fillOrderLine appends the order lines of the orders of district batch
// (clause 4.3.3.1): items uniform in [1, 100000] supplied by the home
// warehouse, delivered with amount 0 for O_ID < 2101, undelivered with an
// amount in [0.01, 9999.99] for the others.
func (g *tpcc) fillOrderLine(batch int, rows [][]any) [][]any {
	r := randgen.New(g.seed, streamOrderLine|uint64(batch))
	w, d := g.district(batch)
	cnt := g.olCounts(batch)
	var buf [24]byte
	for o := int64(1); o <= ordersPerDistrict; o++ {
		for n := int64(1); n <= cnt[o-1]; n++ {
			var delivery any = loadTime
			amount := 0.0
			if o >= firstNewOrder {
				delivery = nil
				amount = decimal(r, 1, 999999, 2)
			}
			rows = append(rows, []any{o, d, w, n, int64(randInt(r, 1, numItems)), w, delivery, int64(5), amount,
				aString(r, buf[:], 24, 24)})
		}
	}
	return rows
}

// fillStock appends stock rows batch*10000+1 .. +10000 (clause 4.3.3.1),
// warehouse by warehouse.
func (g *tpcc) fillStock(batch int, rows [][]any) [][]any {
	r := randgen.New(g.seed, streamStock|uint64(batch))
	perWH := stockPerWH / stockPerBatch
	w := g.whOffset() + int64(batch/perWH+1)
	first := int64(batch%perWH*stockPerBatch + 1)
	var buf [64]byte
	for i := first; i < first+stockPerBatch; i++ {
		row := make([]any, 0, len(stockColumns))
		row = append(row, i, w, int64(randInt(r, 10, 100)))
		for range districtsPerWH {
			row = append(row, aString(r, buf[:], 24, 24))
		}
		row = append(row, int64(0), int64(0), int64(0), dataString(r, buf[:]))
		rows = append(rows, row)
	}
	return rows
}

// fillItem appends items batch*10000+1 .. +10000 (clause 4.3.3.1).
func (g *tpcc) fillItem(batch int, rows [][]any) [][]any {
	r := randgen.New(g.seed, streamItem|uint64(batch))
	first := int64(batch*itemsPerBatch + 1)
	var buf [64]byte
	for i := first; i < first+itemsPerBatch; i++ {
		rows = append(rows, []any{i, int64(randInt(r, 1, 10000)), aString(r, buf[:], 14, 24),
			decimal(r, 100, 10000, 2), dataString(r, buf[:])})
	}
	return rows
}
