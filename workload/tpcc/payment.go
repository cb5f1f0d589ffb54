package tpcc

import (
	"context"
	"fmt"
	"time"

	"github.com/stampede-bench/stampede/randgen"
	"github.com/stampede-bench/stampede/sqlx"
)

// payment is the Payment transaction (clause 2.5).
type payment struct {
	w *worker

	// Inputs (clause 2.5.1).
	dID, cWID, cDID, cID int64
	cLast                string // "" selects by cID
	amount               float64
	hDate                time.Time
}

func newPayment(w *worker) tpccTx { return &payment{w: w} }

// draw implements tpccTx (clause 2.5.1): a random district of the home
// warehouse; 85% a customer of that district, 15% of a random district
// of another warehouse (when there is one); 60% selected by last name
// (NURand(255, 0, 999) with the run-time C), 40% by NURand(1023, 1,
// 3000); an amount in [1.00, 5000.00].
func (t *payment) draw() {
	w := t.w
	t.dID = int64(randInt(w.r, 1, districtsPerWH))
	t.cWID, t.cDID = w.wID, t.dID
	if randInt(w.r, 1, 100) > 85 && w.warehouses > 1 {
		t.cWID = w.otherWarehouse()
		t.cDID = int64(randInt(w.r, 1, districtsPerWH))
	}
	t.cLast = ""
	if randInt(w.r, 1, 100) <= 60 {
		t.cLast = lastName(randgen.NURand(w.r, nurandCLast, w.c.cLast, 0, 999))
	} else {
		t.cID = randgen.NURand(w.r, nurandCID, w.c.cID, 1, customersPerDistrict)
	}
	t.amount = decimal(w.r, 100, 500000, 2)
	t.hDate = time.Now().UTC()
}

// count implements tpccTx: remote, and by last name.
func (t *payment) count(a *auditCounts) {
	if t.cWID != t.w.wID {
		a.remotePayments.Add(1)
	}
	if t.cLast != "" {
		a.paymentsByName.Add(1)
	}
}

// run implements tpccTx (clause 2.5.2.2).
func (t *payment) run(ctx context.Context, tx sqlx.Tx) error {
	w := t.w
	var wName, dName string
	var street1, street2, city, state, zip string
	if err := tx.QueryRow(ctx, "UPDATE "+warehouseTable+" SET w_ytd = w_ytd + $2 WHERE w_id = $1"+
		" RETURNING w_name, w_street_1, w_street_2, w_city, w_state, w_zip", w.wID, t.amount).
		Scan(&wName, &street1, &street2, &city, &state, &zip); err != nil {
		return fmt.Errorf("updating warehouse: %w", err)
	}
	if err := tx.QueryRow(ctx, "UPDATE "+districtTable+" SET d_ytd = d_ytd + $3 WHERE d_w_id = $1 AND d_id = $2"+
		" RETURNING d_name, d_street_1, d_street_2, d_city, d_state, d_zip", w.wID, t.dID, t.amount).
		Scan(&dName, &street1, &street2, &city, &state, &zip); err != nil {
		return fmt.Errorf("updating district: %w", err)
	}
	cID := t.cID
	if t.cLast != "" {
		var err error
		if cID, err = customerByName(ctx, tx, w.null, t.cWID, t.cDID, t.cLast); err != nil {
			return err
		}
	}
	// A bad-credit customer's C_DATA gets the payment's details in front,
	// truncated to 500 characters (clause 2.5.2.2).
	info := fmt.Sprintf("%d %d %d %d %d %.2f | ", cID, t.cDID, t.cWID, t.dID, w.wID, t.amount)
	var c struct {
		first, middle, last, phone, credit string
		since                              time.Time
		creditLim, discount, balance       float64
	}
	if err := tx.QueryRow(ctx, "UPDATE "+customerTable+" SET c_balance = c_balance - $4,"+
		" c_ytd_payment = c_ytd_payment + $4, c_payment_cnt = c_payment_cnt + 1,"+
		" c_data = CASE c_credit WHEN 'BC' THEN substr($5 || c_data, 1, 500) ELSE c_data END"+
		" WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3"+
		" RETURNING c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since,"+
		" c_credit, c_credit_lim, c_discount, c_balance", t.cWID, t.cDID, cID, t.amount, info).
		Scan(&c.first, &c.middle, &c.last, &street1, &street2, &city, &state, &zip, &c.phone, &c.since,
			&c.credit, &c.creditLim, &c.discount, &c.balance); err != nil {
		return fmt.Errorf("updating customer %d of warehouse %d district %d: %w", cID, t.cWID, t.cDID, err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO "+historyTable+" (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)"+
		" VALUES ($1, $2, $3, $4, $5, $6, $7, $8)", cID, t.cDID, t.cWID, t.dID, w.wID, t.hDate, t.amount,
		wName+"    "+dName); err != nil {
		return fmt.Errorf("inserting history: %w", err)
	}
	return nil
}
