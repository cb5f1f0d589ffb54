package tpcc

import (
	"context"
	"fmt"
	"time"

	"github.com/stampede-bench/stampede/sqlx"
)

// delivery is the Delivery transaction (clause 2.7), run directly rather
// than queued (deferred execution, clause 2.7.2, is not modelled).
type delivery struct {
	w *worker

	// Inputs (clause 2.7.1).
	carrierID int64
	deliveryD time.Time

	// skipped is the number of districts the last run skipped.
	skipped int64
}

func newDelivery(w *worker) tpccTx { return &delivery{w: w} }

// draw implements tpccTx (clause 2.7.1): a carrier in [1, 10].
func (t *delivery) draw() {
	t.carrierID = int64(randInt(t.w.r, 1, 10))
	t.deliveryD = time.Now().UTC()
}

// count implements tpccTx: the districts skipped.
func (t *delivery) count(a *auditCounts) {
	if t.skipped > 0 {
		a.skippedDeliveries.Add(t.skipped)
	}
}

// run implements tpccTx (clause 2.7.4.2): for each district of the home
// warehouse, its oldest new order is delivered (a district without one
// is skipped).
func (t *delivery) run(ctx context.Context, tx sqlx.Tx) error {
	w := t.w
	t.skipped = 0
	for d := int64(1); d <= districtsPerWH; d++ {
		rows, err := tx.Query(ctx, "DELETE FROM "+newOrderTable+" WHERE no_w_id = $1 AND no_d_id = $2 AND no_o_id ="+
			" (SELECT min(no_o_id) FROM "+newOrderTable+" WHERE no_w_id = $1 AND no_d_id = $2) RETURNING no_o_id", w.wID, d)
		if err != nil {
			return fmt.Errorf("deleting the oldest new order of district %d: %w", d, err)
		}
		var oID int64
		found := rows.Next()
		if found {
			err = rows.Scan(&oID)
		}
		rows.Close()
		if err == nil {
			err = rows.Err()
		}
		if err != nil {
			return fmt.Errorf("deleting the oldest new order of district %d: %w", d, err)
		}
		if !found && !w.null {
			t.skipped++
			continue // clause 2.7.4.2: no undelivered order in this district
		}
		var cID int64
		if err := tx.QueryRow(ctx, "UPDATE "+orderTable+" SET o_carrier_id = $4 WHERE o_w_id = $1 AND o_d_id = $2 AND o_id = $3"+
			" RETURNING o_c_id", w.wID, d, oID, t.carrierID).Scan(&cID); err != nil {
			return fmt.Errorf("updating order %d of district %d: %w", oID, d, err)
		}
		if _, err := tx.Exec(ctx, "UPDATE "+orderLineTable+" SET ol_delivery_d = $4"+
			" WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3", w.wID, d, oID, t.deliveryD); err != nil {
			return fmt.Errorf("updating the lines of order %d of district %d: %w", oID, d, err)
		}
		if _, err := tx.Exec(ctx, "UPDATE "+customerTable+" SET c_balance = c_balance + (SELECT coalesce(sum(ol_amount), 0) FROM "+
			orderLineTable+" WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3), c_delivery_cnt = c_delivery_cnt + 1"+
			" WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $4", w.wID, d, oID, cID); err != nil {
			return fmt.Errorf("updating customer %d of district %d: %w", cID, d, err)
		}
	}
	return nil
}
