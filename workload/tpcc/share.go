package tpcc

import (
	"fmt"

	"github.com/stampede-bench/stampede/workload"
)

var _ workload.ShareLoader = (*tpcc)(nil)

// LoadShare implements the workload.ShareLoader interface: share index of
// count is the rows of a contiguous range of warehouses, the range run
// --clients gives that client's terminals (partRange), every table's
// batches of those warehouses; ITEM, not per warehouse, is share 0's.
// The last share in writes tpcc_meta's row (postLoad).
func (g *tpcc) LoadShare(index, count int) error {
	if g.tenant > 0 {
		return fmt.Errorf("--clients with a tenant: a fleet's load is not split between clients; load it from one client")
	}
	if count > g.warehouses {
		return fmt.Errorf("--clients %d with %s: each client loads warehouses of its own; use --clients %d or fewer",
			count, nWarehouses(int64(g.warehouses)), g.warehouses)
	}
	g.share = [2]int{index, count}
	return nil
}

// ShareOf implements the workload.ShareLoader interface: "warehouses
// A-B" (with the items, for share 0).
func (g *tpcc) ShareOf(index, count int) string {
	first, last := partRange(index, count, g.warehouses)
	s := warehouseSpan(first, last)
	if index == 0 {
		s += " and the items"
	}
	return s
}

// shareTables keeps, in tables, the rows of the generator's share only:
// every per-warehouse table's batches of its warehouses (each such table
// has a whole number of batches per warehouse), and ITEM's for share 0.
func (g *tpcc) shareTables(tables []workload.Table) {
	index, count := g.share[0], g.share[1]
	if count == 0 {
		return
	}
	first, last := partRange(index, count, g.warehouses)
	for i, t := range tables {
		bt := t.InitialRows
		switch {
		case bt.NumBatches == 0:
		case t.Name == itemTable:
			if index != 0 {
				tables[i].InitialRows = workload.BatchedTuples{}
			}
		default:
			per := bt.NumBatches / g.warehouses
			rows := bt.NumRows / int64(bt.NumBatches)
			tables[i].InitialRows = workload.ShareBatches(bt, int(first-1)*per, int(last)*per, rows)
		}
	}
}

// warehouseSpan names warehouses first to last: "warehouses 1-2", or
// "warehouse 1" for one.
func warehouseSpan(first, last int64) string {
	if first == last {
		return fmt.Sprintf("warehouse %d", first)
	}
	return fmt.Sprintf("warehouses %d-%d", first, last)
}
