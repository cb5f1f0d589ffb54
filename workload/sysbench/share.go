package sysbench

import (
	"context"
	"fmt"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

var _ workload.ShareLoader = (*generator)(nil)

// LoadShare implements the workload.ShareLoader interface. With at least
// as many tables as clients, share index of count is a contiguous range
// of whole tables (as TPC-C's clients get warehouses); with fewer, every
// table's rows are split into count ranges of ids and the share is one
// range of each.
func (g *generator) LoadShare(index, count int) error {
	if g.s.event == nil {
		return fmt.Errorf("%s has no tables to load (its run creates them): drop --clients", g.s.name)
	}
	if err := g.validate(); err != nil {
		return err
	}
	if count > g.cfg.tables && count > g.batches() {
		return fmt.Errorf("--clients %d with --tables %d of --table_size %d: each client loads rows of its own; use --clients %d or fewer",
			count, g.cfg.tables, g.cfg.tableSize, max(g.cfg.tables, g.batches()))
	}
	g.share = [2]int{index, count}
	return nil
}

// batches is the number of batches of a table's load.
func (g *generator) batches() int {
	return (g.cfg.tableSize + loadBatchSize - 1) / loadBatchSize
}

// shareRange returns share index of count's part of n things: [lo, hi).
func shareRange(index, count, n int) (lo, hi int) {
	return index * n / count, (index + 1) * n / count
}

// byTables says whether a split load shares out whole tables.
func (g *generator) byTables(count int) bool { return count <= g.cfg.tables }

// ShareOf implements the workload.ShareLoader interface: "tables
// sbtest3-sbtest4", or "ids 1-5000 of every table".
func (g *generator) ShareOf(index, count int) string {
	if g.byTables(count) {
		lo, hi := shareRange(index, count, g.cfg.tables)
		if hi-lo == 1 {
			return "table " + tableName(lo+1)
		}
		return fmt.Sprintf("tables %s-%s", tableName(lo+1), tableName(hi))
	}
	lo, hi := shareRange(index, count, g.batches())
	return fmt.Sprintf("ids %d-%d of every table", lo*loadBatchSize+1, min(hi*loadBatchSize, g.cfg.tableSize))
}

// shareTables keeps, in tabs, the rows of the generator's share only.
func (g *generator) shareTables(tabs []workload.Table) {
	index, count := g.share[0], g.share[1]
	if count == 0 {
		return
	}
	if g.byTables(count) {
		lo, hi := shareRange(index, count, len(tabs))
		for i := range tabs {
			if i < lo || i >= hi {
				tabs[i].InitialRows = workload.BatchedTuples{}
			}
		}
		return
	}
	for i := range tabs {
		bt := tabs[i].InitialRows
		lo, hi := shareRange(index, count, bt.NumBatches)
		tabs[i].InitialRows = workload.ShareBatches(bt, lo, hi, loadBatchSize)
	}
}

var _ workload.ShareProber = (*generator)(nil)

// ShareLoaded implements the workload.ShareProber interface: a row with
// an id of the share is in one of its tables (every id of a table share's
// tables; the share's ids of a row share). The tables get their primary
// key only when the last share is in, so a share loaded twice would
// otherwise go in silently. Without the key the probe scans, but it stops
// at the first row it finds.
func (g *generator) ShareLoaded(ctx context.Context, db *sqlx.DB) (bool, error) {
	for _, t := range g.Tables() {
		rows := t.InitialRows
		if rows.NumBatches == 0 {
			continue
		}
		lo, hi := 1, g.cfg.tableSize
		if !g.byTables(g.share[1]) {
			b0, b1 := shareRange(g.share[0], g.share[1], g.batches())
			lo, hi = b0*loadBatchSize+1, min(b1*loadBatchSize, g.cfg.tableSize)
		}
		where := fmt.Sprintf("id BETWEEN %d AND %d", lo, hi)
		if g.cfg.tenant != 0 {
			where = fmt.Sprintf("%s = %d AND %s", workload.TenantColumn, g.cfg.tenant, where)
		}
		var n int
		q := "SELECT count(*) FROM (SELECT 1 FROM " + t.Name + " WHERE " + where + " LIMIT 1) AS share"
		if err := db.QueryRow(ctx, q).Scan(&n); err != nil {
			return false, fmt.Errorf("looking for rows of the share in %s: %w", t.Name, err)
		}
		if n > 0 {
			return true, nil
		}
	}
	return false, nil
}
