package tpcc

import (
	"context"
	"fmt"
	"time"

	"github.com/stampede-bench/stampede/randgen"
	"github.com/stampede-bench/stampede/sqlx"
)

// orderStatus is the Order-Status transaction (clause 2.6), read-only.
type orderStatus struct {
	w *worker

	// Inputs (clause 2.6.1).
	dID, cID int64
	cLast    string // "" selects by cID
}

func newOrderStatus(w *worker) tpccTx { return &orderStatus{w: w} }

// draw implements tpccTx (clause 2.6.1): a random district of the home
// warehouse, 60% a customer by last name, 40% by number.
func (t *orderStatus) draw() {
	w := t.w
	t.dID = int64(randInt(w.r, 1, districtsPerWH))
	t.cLast = ""
	if randInt(w.r, 1, 100) <= 60 {
		t.cLast = lastName(randgen.NURand(w.r, nurandCLast, w.c.cLast, 0, 999))
	} else {
		t.cID = randgen.NURand(w.r, nurandCID, w.c.cID, 1, customersPerDistrict)
	}
}

// count implements tpccTx: by last name.
func (t *orderStatus) count(a *auditCounts) {
	if t.cLast != "" {
		a.orderStatusByName.Add(1)
	}
}

// run implements tpccTx (clause 2.6.2.2): the customer, its latest order
// and that order's lines.
func (t *orderStatus) run(ctx context.Context, tx sqlx.Tx) error {
	w := t.w
	cID := t.cID
	if t.cLast != "" {
		var err error
		if cID, err = customerByName(ctx, tx, w.null, w.wID, t.dID, t.cLast); err != nil {
			return err
		}
	}
	var balance float64
	var first, middle, last string
	if err := tx.QueryRow(ctx, "SELECT c_balance, c_first, c_middle, c_last FROM "+customerTable+
		" WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3", w.wID, t.dID, cID).
		Scan(&balance, &first, &middle, &last); err != nil {
		return fmt.Errorf("selecting customer %d: %w", cID, err)
	}
	rows, err := tx.Query(ctx, "SELECT o_id, o_entry_d, o_carrier_id FROM "+orderTable+
		" WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = $3 ORDER BY o_id DESC LIMIT 1", w.wID, t.dID, cID)
	if err != nil {
		return fmt.Errorf("selecting the latest order: %w", err)
	}
	var oID int64
	var entry time.Time
	var carrier *int64
	found := rows.Next()
	if found {
		err = rows.Scan(&oID, &entry, &carrier)
	}
	rows.Close()
	if err == nil {
		err = rows.Err()
	}
	if err != nil {
		return fmt.Errorf("selecting the latest order: %w", err)
	}
	if !found {
		return nil // a customer without orders (none in the initial data)
	}
	rows, err = tx.Query(ctx, "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM "+
		orderLineTable+" WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3", w.wID, t.dID, oID)
	if err != nil {
		return fmt.Errorf("selecting order lines: %w", err)
	}
	for rows.Next() {
		_ = rows.RawValues() // displayed only: no need to decode
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("selecting order lines: %w", err)
	}
	return nil
}
