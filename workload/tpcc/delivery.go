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

// count implements tpccTx: whether it skipped a district, and how many.
func (t *delivery) count(a *auditCounts) {
	if t.skipped > 0 {
		a.skippingDeliveries.Add(1)
		a.skippedDistricts.Add(t.skipped)
	}
}

// deliveryStmt is Delivery in one statement, for fmt.Sprintf with the
// new-order, order, order-line and customer tables. Its parameters: the
// warehouse, the carrier and the delivery date. In each of the
// warehouse's districts it deletes the oldest NEW-ORDER row (the oldest
// not being delivered by a concurrent Delivery, which would otherwise
// leave this one nothing to deliver there under READ COMMITTED: the
// outcome is that of one Delivery after the other), sets its
// order's carrier and its lines' delivery date, and adds the lines'
// amounts to the customer's balance and one to C_DELIVERY_CNT; it
// returns the district and order of each delivery (a district without
// a new order has no row).
const deliveryStmt = `WITH no AS (DELETE FROM %[1]s USING (SELECT y.no_d_id AS d, y.no_o_id AS oldest
      FROM generate_series(1, %[5]d) AS g(d),
      LATERAL (SELECT no_d_id, no_o_id FROM %[1]s WHERE no_w_id = $1 AND no_d_id = g.d
        ORDER BY no_o_id LIMIT 1 FOR UPDATE SKIP LOCKED) y) x
    WHERE no_w_id = $1 AND no_d_id = x.d AND no_o_id = x.oldest
    RETURNING no_d_id, no_o_id),
  o AS (UPDATE %[2]s SET o_carrier_id = $2 FROM no WHERE o_w_id = $1 AND o_d_id = no.no_d_id AND o_id = no.no_o_id
    RETURNING o_d_id, o_id, o_c_id),
  ol AS (UPDATE %[3]s SET ol_delivery_d = $3 FROM no WHERE ol_w_id = $1 AND ol_d_id = no.no_d_id AND ol_o_id = no.no_o_id
    RETURNING ol_d_id, ol_o_id, ol_amount),
  c AS (UPDATE %[4]s SET c_balance = c_balance + t.amount, c_delivery_cnt = c_delivery_cnt + 1
    FROM (SELECT o.o_d_id, o.o_c_id, coalesce(sum(ol.ol_amount), 0) AS amount
        FROM o LEFT JOIN ol ON ol.ol_d_id = o.o_d_id AND ol.ol_o_id = o.o_id GROUP BY o.o_d_id, o.o_c_id) t
    WHERE c_w_id = $1 AND c_d_id = t.o_d_id AND c_id = t.o_c_id)
SELECT no_d_id, no_o_id FROM no`

// deliveryQuery is deliveryStmt with the table names.
var deliveryQuery = fmt.Sprintf(deliveryStmt, newOrderTable, orderTable, orderLineTable, customerTable, districtsPerWH)

// run implements tpccTx (clause 2.7.4.2) with deliveryQuery, sent with
// BEGIN and COMMIT in one round trip: for each
// district of the home warehouse, its oldest new order is delivered (a
// district without one is skipped).
func (t *delivery) run(ctx context.Context, tx sqlx.Tx) error {
	w := t.w
	rows, err := sqlx.QueryCommit(ctx, tx, deliveryQuery, w.wID, t.carrierID, t.deliveryD)
	if err != nil {
		return fmt.Errorf("delivering in warehouse %d: %w", w.wID, err)
	}
	var delivered int64
	for rows.Next() {
		delivered++
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("delivering in warehouse %d: %w", w.wID, err)
	}
	t.skipped = 0
	if !w.null {
		t.skipped = districtsPerWH - delivered // clause 2.7.4.2: no undelivered order there
	}
	return nil
}
