package workload

import (
	"context"

	"github.com/stampede-bench/stampede/sqlx"
)

// RunTxOnce runs body once in a transaction with opts, rolled back when
// body fails, without RunTx's retries: a serialization failure or a
// lost connection is the caller's error (cockroach's --txn-retries=false).
func RunTxOnce(ctx context.Context, conn sqlx.Conn, opts sqlx.TxOptions, body func(tx sqlx.Tx) error) error {
	return wholeTx(ctx, conn, opts, body)
}
