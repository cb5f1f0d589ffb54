package tpcc

import (
	"context"
	"fmt"

	"github.com/stampede-bench/stampede/sqlx"
)

// serverTx is a transaction type that can run as one call of its
// server-side function (--server-side), with the inputs draw chose.
type serverTx interface {
	// runServer runs the transaction inside tx as one call, sent with
	// COMMIT (a read-only one waits for RunTx's).
	runServer(ctx context.Context, tx sqlx.Tx) error
}

var (
	_ serverTx = (*newOrder)(nil)
	_ serverTx = (*payment)(nil)
	_ serverTx = (*orderStatus)(nil)
	_ serverTx = (*delivery)(nil)
	_ serverTx = (*stockLevel)(nil)
)

// sqlStateRollback is the SQLSTATE stampede_neword raises for the unused
// item (clause 2.4.2.3), after the rest of the order's profile.
const sqlStateRollback = "TPCRB"

// The calls of the server-side functions.
const (
	callServerNewOrder = "SELECT " + serverPrefix + "neword($1, $2, $3, $4, $5, $6)"
	callServerPayment  = "SELECT " + serverPrefix + "payment($1, $2, $3, $4, $5, $6, $7, $8, '', 0)"
	callServerOStat    = "SELECT * FROM " + serverPrefix + "ostat($1, $2, $3, $4, $5) AS (ol_i_id INTEGER, ol_supply_w_id INTEGER, " +
		"ol_quantity SMALLINT, ol_amount NUMERIC, ol_delivery_d TIMESTAMP WITH TIME ZONE, out_os_c_id INTEGER, " +
		"out_os_c_last CHARACTER VARYING, os_c_first CHARACTER VARYING, os_c_middle CHARACTER VARYING, os_c_balance NUMERIC, " +
		"os_o_id INTEGER, os_entdate TIMESTAMP, os_o_carrier_id INTEGER)"
	callServerDelivery = "SELECT " + serverPrefix + "delivery($1, $2)"
	callServerSlev     = "SELECT " + serverPrefix + "slev($1, $2, $3)"
)

// runServer implements serverTx: the lines as three arrays; the unused
// item's SQLSTATE is the intended rollback.
func (t *newOrder) runServer(ctx context.Context, tx sqlx.Tx) error {
	w := t.w
	t.rolledBack = false
	items, supply, qty := make([]int32, len(t.lines)), make([]int32, len(t.lines)), make([]int32, len(t.lines))
	for i, l := range t.lines {
		items[i], supply[i], qty[i] = int32(l.iID), int32(l.supplyWID), int32(l.quantity)
	}
	var total *float64
	err := sqlx.QueryRowCommit(ctx, tx, callServerNewOrder, int32(w.wID), int32(t.dID), int32(t.cID), items, supply, qty).Scan(&total)
	if sqlx.SQLState(err) == sqlStateRollback {
		t.rolledBack = true
		return errRollback
	}
	if err != nil {
		return newOrderError(w.wID, t.dID, err)
	}
	return nil
}

// runServer implements serverTx.
func (t *payment) runServer(ctx context.Context, tx sqlx.Tx) error {
	w := t.w
	byName, cID := int32(0), int32(t.cID)
	if t.cLast != "" {
		byName, cID = 1, 0
	}
	var id *int32
	if err := sqlx.QueryRowCommit(ctx, tx, callServerPayment, int32(w.wID), int32(t.dID), int32(t.cWID), int32(t.cDID), cID, byName,
		t.amount, t.cLast).Scan(&id); err != nil {
		return fmt.Errorf("payment in warehouse %d district %d: %w", w.wID, t.dID, err)
	}
	return nil
}

// runServer implements serverTx: the order's lines, read to the end.
func (t *orderStatus) runServer(ctx context.Context, tx sqlx.Tx) error {
	w := t.w
	byName := int32(0)
	if t.cLast != "" {
		byName = 1
	}
	rows, err := tx.Query(ctx, callServerOStat, int32(w.wID), int32(t.dID), int32(t.cID), byName, t.cLast)
	if err != nil {
		return fmt.Errorf("order status in warehouse %d district %d: %w", w.wID, t.dID, err)
	}
	for rows.Next() {
		_ = rows.RawValues()
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("order status in warehouse %d district %d: %w", w.wID, t.dID, err)
	}
	return nil
}

// runServer implements serverTx: the function returns the districts it
// delivered, the others were skipped.
func (t *delivery) runServer(ctx context.Context, tx sqlx.Tx) error {
	w := t.w
	var delivered int64
	if err := sqlx.QueryRowCommit(ctx, tx, callServerDelivery, int32(w.wID), int32(t.carrierID)).Scan(&delivered); err != nil {
		return fmt.Errorf("delivering in warehouse %d: %w", w.wID, err)
	}
	t.skipped = 0
	if !w.null {
		t.skipped = districtsPerWH - delivered
	}
	return nil
}

// runServer implements serverTx.
func (t *stockLevel) runServer(ctx context.Context, tx sqlx.Tx) error {
	w := t.w
	var low int64
	if err := tx.QueryRow(ctx, callServerSlev, int32(w.wID), int32(w.dID), int32(t.threshold)).Scan(&low); err != nil {
		return fmt.Errorf("counting low stock: %w", err)
	}
	return nil
}
