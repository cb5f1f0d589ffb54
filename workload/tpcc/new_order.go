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

	// insertLines[n] inserts n order lines.
	insertLines [maxOLCnt + 1]string
	// updateStock[d] updates a stock row and returns S_DIST_d and S_DATA.
	updateStock [districtsPerWH + 1]string
	// itemIDs and prices are scratch space of run.
	itemIDs []int64
	prices  map[int64]itemInfo
}

// itemInfo is an item's price (in cents) and data.
type itemInfo struct {
	cents int64
	name  string
	data  string
}

func newNewOrder(w *worker) tpccTx {
	t := &newOrder{w: w, prices: map[int64]itemInfo{}}
	for n := minOLCnt; n <= maxOLCnt; n++ {
		var b strings.Builder
		b.WriteString("INSERT INTO " + orderLineTable + " (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id," +
			" ol_quantity, ol_amount, ol_dist_info) VALUES ")
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			p := 4 + 6*i
			fmt.Fprintf(&b, "($1, $2, $3, $%d, $%d, $%d, $%d, $%d, $%d)", p, p+1, p+2, p+3, p+4, p+5)
		}
		t.insertLines[n] = b.String()
	}
	for d := 1; d <= districtsPerWH; d++ {
		t.updateStock[d] = fmt.Sprintf("UPDATE %s SET s_quantity = CASE WHEN s_quantity >= $3 + 10 THEN s_quantity - $3"+
			" ELSE s_quantity - $3 + 91 END, s_ytd = s_ytd + $3, s_order_cnt = s_order_cnt + 1,"+
			" s_remote_cnt = s_remote_cnt + $4 WHERE s_i_id = $1 AND s_w_id = $2 RETURNING s_dist_%02d, s_data",
			stockTable, d)
	}
	return t
}

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

// run implements tpccTx (clause 2.4.2.2).
func (t *newOrder) run(ctx context.Context, tx sqlx.Tx) error {
	w := t.w
	t.rolledBack = false
	var wTax, dTax, cDiscount float64
	var cLast, cCredit string
	if err := tx.QueryRow(ctx, "SELECT c_discount, c_last, c_credit, w_tax FROM "+customerTable+", "+warehouseTable+
		" WHERE w_id = $1 AND c_w_id = $1 AND c_d_id = $2 AND c_id = $3", w.wID, t.dID, t.cID).
		Scan(&cDiscount, &cLast, &cCredit, &wTax); err != nil {
		return fmt.Errorf("selecting customer and warehouse: %w", err)
	}
	var oID int64
	if err := tx.QueryRow(ctx, "UPDATE "+districtTable+" SET d_next_o_id = d_next_o_id + 1"+
		" WHERE d_w_id = $1 AND d_id = $2 RETURNING d_tax, d_next_o_id - 1", w.wID, t.dID).Scan(&dTax, &oID); err != nil {
		return fmt.Errorf("updating district: %w", err)
	}

	// The items, all at once: a missing one is the unused item of a
	// rollback (clause 2.4.2.3).
	t.itemIDs = t.itemIDs[:0]
	for _, l := range t.lines {
		t.itemIDs = append(t.itemIDs, l.iID)
	}
	rows, err := tx.Query(ctx, "SELECT i_id, i_price, i_name, i_data FROM "+itemTable+" WHERE i_id = ANY($1)", t.itemIDs)
	if err != nil {
		return fmt.Errorf("selecting items: %w", err)
	}
	clear(t.prices)
	for rows.Next() {
		var id int64
		var price float64
		var it itemInfo
		if err := rows.Scan(&id, &price, &it.name, &it.data); err != nil {
			rows.Close()
			return fmt.Errorf("selecting items: %w", err)
		}
		it.cents = int64(math.Round(price * 100))
		t.prices[id] = it
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("selecting items: %w", err)
	}
	if len(t.prices) < len(t.lines) && !w.null {
		t.rolledBack = true
		return errRollback
	}

	if _, err := tx.Exec(ctx, "INSERT INTO "+orderTable+" (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local)"+
		" VALUES ($1, $2, $3, $4, $5, $6, $7)", oID, t.dID, w.wID, t.cID, t.entryD, int64(len(t.lines)), t.allLocal); err != nil {
		return fmt.Errorf("inserting order: %w", err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO "+newOrderTable+" (no_o_id, no_d_id, no_w_id) VALUES ($1, $2, $3)",
		oID, t.dID, w.wID); err != nil {
		return fmt.Errorf("inserting new order: %w", err)
	}

	args := make([]any, 0, 3+6*len(t.lines))
	args = append(args, oID, t.dID, w.wID)
	var total int64 // cents
	for n, l := range t.lines {
		var distInfo, sData string
		if err := tx.QueryRow(ctx, t.updateStock[t.dID], l.iID, l.supplyWID, l.quantity, l.remote).
			Scan(&distInfo, &sData); err != nil {
			return fmt.Errorf("updating stock of item %d in warehouse %d: %w", l.iID, l.supplyWID, err)
		}
		it := t.prices[l.iID]
		amount := l.quantity * it.cents
		total += amount
		// Brand-generic (clause 2.4.2.2) is only displayed.
		_ = strings.Contains(it.data, "ORIGINAL") && strings.Contains(sData, "ORIGINAL")
		args = append(args, int64(n+1), l.iID, l.supplyWID, l.quantity, float64(amount)/100, distInfo)
	}
	if _, err := tx.Exec(ctx, t.insertLines[len(t.lines)], args...); err != nil {
		return fmt.Errorf("inserting order lines: %w", err)
	}
	_ = float64(total) / 100 * (1 - cDiscount) * (1 + wTax + dTax) // the displayed total amount
	return nil
}
