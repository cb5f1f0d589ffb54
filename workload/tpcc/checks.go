package tpcc

import (
	"context"
	"fmt"
	"strings"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// tableExists reports whether table exists in db.
func tableExists(ctx context.Context, db *sqlx.DB, table string) (bool, error) {
	ok, err := workload.TableExists(ctx, db, table)
	if err != nil {
		return false, fmt.Errorf("checking table %s: %w", table, err)
	}
	return ok, nil
}

// checkMeta checks that what tpcc_meta records matches the flags.
func (g *tpcc) checkMeta(m meta, db *sqlx.DB) error {
	if m.version != schemaVersion {
		return fmt.Errorf("database %s holds tpcc data of version %s, not %s: reload it with `stampede init tpcc --drop`",
			db.Database(), m.version, schemaVersion)
	}
	if m.warehouses != int64(g.warehouses) {
		return fmt.Errorf("database %s holds %d warehouses, not --warehouses %d: give --warehouses %d, or reload with `stampede init tpcc --drop --warehouses %d`",
			db.Database(), m.warehouses, g.warehouses, m.warehouses, g.warehouses)
	}
	return nil
}

// preRun checks that the database was loaded by this version with the
// same --warehouses.
func (g *tpcc) preRun(ctx context.Context, db *sqlx.DB) error {
	if err := g.validate(); err != nil {
		return err
	}
	if db.Null() {
		return nil
	}
	m, err := readMeta(ctx, db)
	if err != nil {
		return err
	}
	return g.checkMeta(m, db)
}

// check is a consistency condition of clause 3.3.2: query counts the
// offending rows (districts, warehouses, orders...).
type check struct {
	clause, desc, query string
}

// checks are the consistency conditions of clause 3.3.2 that hold at any
// time (3.3.2.1 to 3.3.2.9).
var checks = []check{
	{"3.3.2.1", "W_YTD = sum(D_YTD)", `SELECT count(*) FROM ` + warehouseTable + ` LEFT JOIN
	(SELECT d_w_id, sum(d_ytd) AS s FROM ` + districtTable + ` GROUP BY d_w_id) d ON d_w_id = w_id
	WHERE d.s IS DISTINCT FROM w_ytd`},
	{"3.3.2.2", "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)", `SELECT count(*) FROM ` + districtTable + `
	LEFT JOIN (SELECT o_w_id, o_d_id, max(o_id) AS m FROM ` + orderTable + ` GROUP BY o_w_id, o_d_id) o
		ON o_w_id = d_w_id AND o_d_id = d_id
	LEFT JOIN (SELECT no_w_id, no_d_id, max(no_o_id) AS m FROM ` + newOrderTable + ` GROUP BY no_w_id, no_d_id) n
		ON no_w_id = d_w_id AND no_d_id = d_id
	WHERE o.m IS DISTINCT FROM d_next_o_id - 1 OR (n.m IS NOT NULL AND n.m <> d_next_o_id - 1)`},
	{"3.3.2.3", "max(NO_O_ID) - min(NO_O_ID) + 1 = count(new_order) per district", `SELECT count(*) FROM
	(SELECT max(no_o_id) - min(no_o_id) + 1 - count(*) AS diff FROM ` + newOrderTable + ` GROUP BY no_w_id, no_d_id) n
	WHERE diff <> 0`},
	{"3.3.2.4", "sum(O_OL_CNT) = count(order_line) per district", `SELECT count(*) FROM
	(SELECT o_w_id, o_d_id, sum(o_ol_cnt) AS s FROM ` + orderTable + ` GROUP BY o_w_id, o_d_id) o
	FULL JOIN (SELECT ol_w_id, ol_d_id, count(*) AS c FROM ` + orderLineTable + ` GROUP BY ol_w_id, ol_d_id) l
		ON ol_w_id = o_w_id AND ol_d_id = o_d_id
	WHERE o.s IS DISTINCT FROM l.c`},
	{"3.3.2.5", "O_CARRIER_ID is null exactly for the orders in new_order", `SELECT count(*) FROM ` + orderTable + `
	LEFT JOIN ` + newOrderTable + ` ON no_w_id = o_w_id AND no_d_id = o_d_id AND no_o_id = o_id
	WHERE (o_carrier_id IS NULL) <> (no_o_id IS NOT NULL)`},
	{"3.3.2.6", "O_OL_CNT = count(order_line) per order", `SELECT count(*) FROM ` + orderTable + `
	FULL JOIN (SELECT ol_w_id, ol_d_id, ol_o_id, count(*) AS c FROM ` + orderLineTable + ` GROUP BY ol_w_id, ol_d_id, ol_o_id) l
		ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id
	WHERE o_ol_cnt IS DISTINCT FROM l.c`},
	{"3.3.2.7", "OL_DELIVERY_D is null exactly for the lines of orders with null O_CARRIER_ID", `SELECT count(*) FROM ` + orderLineTable + `
	JOIN ` + orderTable + ` ON o_w_id = ol_w_id AND o_d_id = ol_d_id AND o_id = ol_o_id
	WHERE (ol_delivery_d IS NULL) <> (o_carrier_id IS NULL)`},
	{"3.3.2.8", "W_YTD = sum(H_AMOUNT)", `SELECT count(*) FROM ` + warehouseTable + ` LEFT JOIN
	(SELECT h_w_id, sum(h_amount) AS s FROM ` + historyTable + ` GROUP BY h_w_id) h ON h_w_id = w_id
	WHERE h.s IS DISTINCT FROM w_ytd`},
	{"3.3.2.9", "D_YTD = sum(H_AMOUNT) per district", `SELECT count(*) FROM ` + districtTable + ` LEFT JOIN
	(SELECT h_w_id, h_d_id, sum(h_amount) AS s FROM ` + historyTable + ` GROUP BY h_w_id, h_d_id) h
		ON h_w_id = d_w_id AND h_d_id = d_id
	WHERE h.s IS DISTINCT FROM d_ytd`},
}

// checkConsistency runs the checks in one REPEATABLE READ, read-only
// transaction, so that they see one snapshot, and prints a line per
// check: PASS, or FAIL with the number of offending rows.
func (g *tpcc) checkConsistency(ctx context.Context, db *sqlx.DB, rep workload.Reporter) error {
	if err := g.validate(); err != nil {
		return err
	}
	if db.Null() {
		rep.Printf("tpcc: skipped (null driver)")
		return nil
	}
	m, err := readMeta(ctx, db)
	if err != nil {
		return err
	}
	if m.version != schemaVersion {
		return g.checkMeta(m, db)
	}
	tx, err := db.Begin(ctx, sqlx.TxOptions{Isolation: sqlx.RepeatableRead, ReadOnly: true})
	if err != nil {
		return fmt.Errorf("checking consistency: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) // read-only: nothing to commit
	var failed []string
	for _, c := range checks {
		var bad int64
		if err := tx.QueryRow(ctx, c.query).Scan(&bad); err != nil {
			return fmt.Errorf("consistency condition %s (%s): %w", c.clause, c.desc, err)
		}
		if bad == 0 {
			rep.Printf("tpcc: %s %s: PASS", c.clause, c.desc)
			continue
		}
		rep.Printf("tpcc: %s %s: FAIL (%d offending rows)", c.clause, c.desc, bad)
		failed = append(failed, fmt.Sprintf("%s (%d rows)", c.clause, bad))
	}
	if len(failed) > 0 {
		return fmt.Errorf("tpcc consistency check failed: %s", strings.Join(failed, ", "))
	}
	return nil
}
