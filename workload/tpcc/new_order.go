package tpcc

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/stampede-bench/stampede/randgen"
	"github.com/stampede-bench/stampede/sqlx"
)

// unusedItem is the item number of a New-Order that rolls back (clause
// 2.4.1.4: "an unused value").
const unusedItem = numItems + 1

// orderLine is one line of a New-Order.
type orderLine struct {
	iID, supplyWID, quantity int64
	remote                   int64 // 1 when supplied by another warehouse
}

// newOrder is the New-Order transaction (clause 2.4).
type newOrder struct {
	w *worker

	// Inputs (clause 2.4.1).
	dID, cID int64
	lines    []orderLine
	allLocal int64
	entryD   time.Time

	// rolledBack says whether the last run rolled back on the unused item.
	rolledBack bool

	// orderStmt[d] is newOrderStmt for district d.
	orderStmt [districtsPerWH + 1]string
	// itemIDs, prices and the line arrays are scratch space of run.
	itemIDs                 []int64
	prices                  map[int64]itemInfo
	lNumber, lItem, lSupply []int64
	lQuantity, lRemote      []int64
	lAmount                 []float64
}

// itemInfo is an item's price (in cents) and data.
type itemInfo struct {
	cents int64
	name  string
	data  string
}

func newNewOrder(w *worker) tpccTx {
	t := &newOrder{w: w, prices: map[int64]itemInfo{}}
	for d := 1; d <= districtsPerWH; d++ {
		t.orderStmt[d] = fmt.Sprintf(newOrderStmt, districtTable, stockTable, orderTable, newOrderTable, orderLineTable, d)
	}
	return t
}

// newOrderRead is New-Order's first statement: the items of the lines
// (parameter 4, an array), each with the customer's and the warehouse's
// data (parameters 1 to 3: warehouse, district, customer). An item
// missing from the result is the unused item of a rollback (clause
// 2.4.2.3).
var newOrderRead = "SELECT i_id, i_price, i_name, i_data, c_discount, c_last, c_credit, w_tax" +
	" FROM " + itemTable + ", " + customerTable + ", " + warehouseTable +
	" WHERE i_id = ANY($4) AND w_id = $1 AND c_w_id = $1 AND c_d_id = $2 AND c_id = $3"

// newOrderStmt is New-Order's writes in one statement, for fmt.Sprintf
// with the district, stock, order, new-order and order-line tables and
// the district number (for S_DIST_xx). Its parameters: the warehouse,
// district, customer, entry date, line count and all-local flag, then
// one array per line attribute (number, item, supply warehouse, quantity,
// remote flag, amount). It takes the district's next order id, updates
// the stock of every line (clause 2.4.2.2: the quantity drops by the
// ordered one, or goes up by 91 when it would fall under 10), inserts
// the ORDER and NEW-ORDER rows and the lines with their S_DIST_xx, and
// returns the order id and D_TAX with each line's S_DATA (for the
// brand-generic flag). The nested loop over the lines, which are sorted
// by stock key, locks stock rows in the same order in every New-Order.
// An item without a stock row makes the one-time filter divide by zero
// (a boolean cast to 0: integer division differs between PostgreSQL and
// CockroachDB, a division by zero fails in both): the statement fails,
// and with it the transaction, whose COMMIT is already on its way
// (sqlx.QueryCommit).
//
// The district row, which every New-Order and Payment of the district
// updates, is locked by this statement, sent last with COMMIT: it is
// held for one round trip, not for the whole transaction.
const newOrderStmt = `WITH d AS (UPDATE %[1]s SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = $1 AND d_id = $2
    RETURNING d_tax, d_next_o_id - 1 AS o_id),
  l AS (SELECT * FROM unnest($7::int[], $8::int[], $9::int[], $10::int[], $11::int[], $12::numeric[])
    AS l(n, i, w, q, r, a)),
  s AS (UPDATE %[2]s SET s_quantity = CASE WHEN s_quantity >= l.q + 10 THEN s_quantity - l.q ELSE s_quantity - l.q + 91 END,
      s_ytd = s_ytd + l.q, s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + l.r
    FROM l WHERE s_i_id = l.i AND s_w_id = l.w
    RETURNING s_i_id, s_w_id, s_dist_%02[6]d AS dist, s_data),
  o AS (INSERT INTO %[3]s (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local)
    SELECT o_id, $2, $1, $3, $4, $5, $6 FROM d),
  no AS (INSERT INTO %[4]s (no_o_id, no_d_id, no_w_id) SELECT o_id, $2, $1 FROM d),
  ol AS (INSERT INTO %[5]s (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info)
    SELECT d.o_id, $2, $1, l.n, l.i, l.w, l.q, l.a, s.dist FROM d, l JOIN s ON s.s_i_id = l.i AND s.s_w_id = l.w)
SELECT o_id, d_tax, s_i_id, s_w_id, s_data FROM d, s WHERE (SELECT 1 / (count(*) = $5::bigint)::int FROM s) = 1`

// draw implements tpccTx (clause 2.4.1): a random district, a customer
// by NURand(1023, 1, 3000), 5 to 15 distinct items by NURand(8191, 1,
// 100000) of which, in 1% of the transactions, the last is unused (a
// rollback), each supplied by the home warehouse except 1% by another
// one (when there is another), in quantities of 1 to 10. The lines are
// sorted by stock row so that concurrent New-Orders lock stock in the
// same order.
func (t *newOrder) draw() {
	w := t.w
	t.dID = int64(randInt(w.r, 1, districtsPerWH))
	t.cID = randgen.NURand(w.r, nurandCID, w.c.cID, 1, customersPerDistrict)
	n := randInt(w.r, minOLCnt, maxOLCnt)
	rollback := randInt(w.r, 1, 100) == 1
	t.lines = t.lines[:0]
	t.allLocal = 1
	for len(t.lines) < n {
		l := orderLine{supplyWID: w.wID, quantity: int64(randInt(w.r, 1, 10))}
		if rollback && len(t.lines) == n-1 {
			l.iID = unusedItem
		} else {
			l.iID = randgen.NURand(w.r, nurandOLIID, w.c.olIID, 1, numItems)
			if slices.ContainsFunc(t.lines, func(o orderLine) bool { return o.iID == l.iID }) {
				continue
			}
		}
		if w.warehouses > 1 && randInt(w.r, 1, 100) == 1 {
			l.supplyWID = w.otherWarehouse()
			l.remote = 1
			t.allLocal = 0
		}
		t.lines = append(t.lines, l)
	}
	slices.SortFunc(t.lines, func(a, b orderLine) int {
		if a.supplyWID != b.supplyWID {
			return int(a.supplyWID - b.supplyWID)
		}
		return int(a.iID - b.iID)
	})
	t.entryD = time.Now().UTC()
}

// count implements tpccTx: a rollback, or an order of len(lines) lines
// of which some are remote.
func (t *newOrder) count(a *auditCounts) {
	if t.rolledBack {
		a.rollbacks.Add(1)
		return
	}
	a.lineCounts[len(t.lines)].Add(1)
	var remote int64
	for _, l := range t.lines {
		remote += l.remote
	}
	if remote > 0 {
		a.remoteLines.Add(remote)
	}
}

// newOrderError describes a failure of newOrderStmt.
func newOrderError(w, d int64, err error) error {
	if sqlx.SQLState(err) == "22012" { // division_by_zero: see newOrderStmt
		return fmt.Errorf("new order in warehouse %d district %d: an item has no stock row", w, d)
	}
	return fmt.Errorf("new order in warehouse %d district %d: %w", w, d, err)
}

// run implements tpccTx (clause 2.4.2.2) in two round trips: BEGIN and
// newOrderRead (items, customer, warehouse); newOrderStmt (district,
// stock, order, new order, lines) and COMMIT. A New-Order with the unused
// item sends newOrderStmt without that item's line, then ROLLBACK.
func (t *newOrder) run(ctx context.Context, tx sqlx.Tx) error {
	w := t.w
	t.rolledBack = false
	t.itemIDs = t.itemIDs[:0]
	for _, l := range t.lines {
		t.itemIDs = append(t.itemIDs, l.iID)
	}
	rows, err := tx.Query(ctx, newOrderRead, w.wID, t.dID, t.cID, t.itemIDs)
	if err != nil {
		return fmt.Errorf("selecting items, customer and warehouse: %w", err)
	}
	var wTax, cDiscount float64
	var cLast, cCredit string
	clear(t.prices)
	for rows.Next() {
		var id int64
		var price float64
		var it itemInfo
		if err := rows.Scan(&id, &price, &it.name, &it.data, &cDiscount, &cLast, &cCredit, &wTax); err != nil {
			rows.Close()
			return fmt.Errorf("selecting items, customer and warehouse: %w", err)
		}
		it.cents = int64(math.Round(price * 100))
		t.prices[id] = it
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("selecting items, customer and warehouse: %w", err)
	}
	// An item missing from the result is the unused item: the
	// transaction runs its whole profile without it (the district, the
	// order, the other lines and their stock) and then rolls back
	// (clause 2.4.2.3).
	rollback := len(t.prices) < len(t.lines) && !w.null
	if rollback && len(t.prices) == 0 {
		return fmt.Errorf("selecting items, customer and warehouse: no customer %d in warehouse %d district %d",
			t.cID, w.wID, t.dID)
	}

	t.lNumber, t.lItem, t.lSupply = t.lNumber[:0], t.lItem[:0], t.lSupply[:0]
	t.lQuantity, t.lRemote, t.lAmount = t.lQuantity[:0], t.lRemote[:0], t.lAmount[:0]
	var total int64 // cents
	for n, l := range t.lines {
		it, ok := t.prices[l.iID]
		if !ok && !w.null {
			continue // the unused item
		}
		amount := l.quantity * it.cents
		total += amount
		t.lNumber = append(t.lNumber, int64(n+1))
		t.lItem = append(t.lItem, l.iID)
		t.lSupply = append(t.lSupply, l.supplyWID)
		t.lQuantity = append(t.lQuantity, l.quantity)
		t.lRemote = append(t.lRemote, l.remote)
		t.lAmount = append(t.lAmount, float64(amount)/100)
	}
	args := []any{w.wID, t.dID, t.cID, t.entryD, int64(len(t.lNumber)), t.allLocal,
		t.lNumber, t.lItem, t.lSupply, t.lQuantity, t.lRemote, t.lAmount}
	if rollback {
		rows, err = tx.Query(ctx, t.orderStmt[t.dID], args...)
	} else {
		rows, err = sqlx.QueryCommit(ctx, tx, t.orderStmt[t.dID], args...)
	}
	if err != nil {
		return newOrderError(w.wID, t.dID, err)
	}
	var oID int64
	var dTax float64
	for rows.Next() {
		var iID, supplyWID int64
		var sData string
		if err := rows.Scan(&oID, &dTax, &iID, &supplyWID, &sData); err != nil {
			rows.Close()
			return newOrderError(w.wID, t.dID, err)
		}
		// Brand-generic (clause 2.4.2.2) is only displayed.
		_ = strings.Contains(t.prices[iID].data, "ORIGINAL") && strings.Contains(sData, "ORIGINAL")
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return newOrderError(w.wID, t.dID, err)
	}
	_ = float64(total) / 100 * (1 - cDiscount) * (1 + wTax + dTax) // the displayed total amount
	if rollback {
		t.rolledBack = true
		return errRollback
	}
	return nil
}
