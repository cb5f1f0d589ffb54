package tpcc

import (
	"context"
	"errors"
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

// paymentStmt is Payment in one statement, for fmt.Sprintf with the
// warehouse, district, customer and history tables and the customer's
// selection (by id or by last name). Its parameters: the warehouse,
// district and amount, the customer's warehouse and district, the
// customer's id or last name, the date, and the payment's details for a
// bad-credit customer's C_DATA after the customer's id. It adds the
// amount to W_YTD and D_YTD, takes it from the customer's balance (a
// bad-credit customer's C_DATA gets the details in front, truncated to
// 500 characters), inserts the HISTORY row (H_DATA is W_NAME and D_NAME
// separated by four spaces) and returns what clause 2.5.3.3 displays.
// Without such a customer the one-time filter divides by zero: the
// statement fails, and with it the transaction, whose COMMIT may already
// be on its way (sqlx.QueryCommit).
const paymentStmt = `WITH w AS (UPDATE %[1]s SET w_ytd = w_ytd + $3 WHERE w_id = $1
    RETURNING w_name, w_street_1, w_street_2, w_city, w_state, w_zip),
  d AS (UPDATE %[2]s SET d_ytd = d_ytd + $3 WHERE d_w_id = $1 AND d_id = $2
    RETURNING d_name, d_street_1, d_street_2, d_city, d_state, d_zip),
  c AS (UPDATE %[3]s SET c_balance = c_balance - $3, c_ytd_payment = c_ytd_payment + $3, c_payment_cnt = c_payment_cnt + 1,
      c_data = CASE c_credit WHEN 'BC' THEN substr(c_id || ' ' || $8 || c_data, 1, 500) ELSE c_data END
    WHERE c_w_id = $4 AND c_d_id = $5 AND c_id = %[5]s
    RETURNING c_id, c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone, c_since,
      c_credit, c_credit_lim, c_discount, c_balance),
  h AS (INSERT INTO %[4]s (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
    SELECT c.c_id, $5, $4, $2, $1, $7, $3, w.w_name || '    ' || d.d_name FROM w, d, c)
SELECT c.*, w.*, d.* FROM w, d, c WHERE (SELECT 1 / count(*) FROM c) = 1`

// The customer of a Payment: by id, or by last name the one at position
// n/2 rounded up of the n customers of that name sorted by first name
// (clause 2.5.2.2), which is the offset (n-1)/2.
const (
	customerByID   = "$6"
	customerByLast = "(SELECT c_id FROM %[1]s WHERE c_w_id = $4 AND c_d_id = $5 AND c_last = $6 ORDER BY c_first" +
		" OFFSET (SELECT (count(*) - 1) / 2 FROM %[1]s WHERE c_w_id = $4 AND c_d_id = $5 AND c_last = $6) LIMIT 1)"
)

// paymentStmts are paymentStmt selecting the customer by id (0) and by
// last name (1).
var paymentStmts = [2]string{
	fmt.Sprintf(paymentStmt, warehouseTable, districtTable, customerTable, historyTable, customerByID),
	fmt.Sprintf(paymentStmt, warehouseTable, districtTable, customerTable, historyTable,
		fmt.Sprintf(customerByLast, customerTable)),
}

// run implements tpccTx (clause 2.5.2.2) with paymentStmts, sent with
// BEGIN and COMMIT in one round trip.
func (t *payment) run(ctx context.Context, tx sqlx.Tx) error {
	w := t.w
	stmt, customer := paymentStmts[0], any(t.cID)
	if t.cLast != "" {
		stmt, customer = paymentStmts[1], t.cLast
	}
	// A bad-credit customer's C_DATA gets "C_ID C_D_ID C_W_ID D_ID W_ID
	// H_AMOUNT | " in front; the statement writes the C_ID.
	info := fmt.Sprintf("%d %d %d %d %.2f | ", t.cDID, t.cWID, t.dID, w.wID, t.amount)
	var c struct {
		id                                 int64
		first, middle, last, phone, credit string
		since                              time.Time
		creditLim, discount, balance       float64
	}
	var street1, street2, city, state, zip string
	var wName, dName string
	if err := sqlx.QueryRowCommit(ctx, tx, stmt, w.wID, t.dID, t.amount, t.cWID, t.cDID, customer, t.hDate, info).
		Scan(&c.id, &c.first, &c.middle, &c.last, &street1, &street2, &city, &state, &zip, &c.phone, &c.since,
			&c.credit, &c.creditLim, &c.discount, &c.balance,
			&wName, &street1, &street2, &city, &state, &zip,
			&dName, &street1, &street2, &city, &state, &zip); err != nil {
		if sqlx.SQLState(err) == "22012" || errors.Is(err, sqlx.ErrNoRows) { // division_by_zero: see paymentStmt
			return fmt.Errorf("payment in warehouse %d district %d: no customer %v in warehouse %d district %d",
				w.wID, t.dID, customer, t.cWID, t.cDID)
		}
		return fmt.Errorf("payment in warehouse %d district %d: %w", w.wID, t.dID, err)
	}
	return nil
}
