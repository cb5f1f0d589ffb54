package tpcc

import (
	"context"
	"fmt"

	"github.com/stampede-bench/stampede/sqlx"
)

// stockLevel is the Stock-Level transaction (clause 2.8), read-only.
type stockLevel struct {
	w *worker

	// Input (clause 2.8.1): the threshold; the district is the worker's.
	threshold int64
}

func newStockLevel(w *worker) tpccTx { return &stockLevel{w: w} }

// draw implements tpccTx (clause 2.8.1): a threshold in [10, 20].
func (t *stockLevel) draw() { t.threshold = int64(randInt(t.w.r, 10, 20)) }

// count implements tpccTx: Stock-Level has nothing to audit.
func (*stockLevel) count(*auditCounts) {}

// run implements tpccTx (clause 2.8.2.2): the number of distinct items of
// the district's last 20 orders whose stock in the home warehouse is
// below the threshold.
func (t *stockLevel) run(ctx context.Context, tx sqlx.Tx) error {
	w := t.w
	var lowStock int64
	if err := tx.QueryRow(ctx, "SELECT count(DISTINCT s_i_id) FROM "+districtTable+", "+orderLineTable+", "+stockTable+
		" WHERE d_w_id = $1 AND d_id = $2 AND ol_w_id = $1 AND ol_d_id = $2"+
		" AND ol_o_id >= d_next_o_id - 20 AND ol_o_id < d_next_o_id"+
		" AND s_w_id = $1 AND s_i_id = ol_i_id AND s_quantity < $3", w.wID, w.dID, t.threshold).
		Scan(&lowStock); err != nil {
		return fmt.Errorf("counting low stock: %w", err)
	}
	return nil
}
