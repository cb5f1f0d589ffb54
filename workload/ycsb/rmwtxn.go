package ycsb

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// registerTxnFlags defines cockroach's --read-modify-write-in-txn and
// --select-for-update.
func (g *ycsb) registerTxnFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&g.rmwInTxn, "read-modify-write-in-txn", false,
		"run each read-modify-write in one explicit transaction, as cockroach's ycsb can (YCSB's runs the read and the update as two statements)")
	fs.BoolVar(&g.selectForUpdate, "select-for-update", true,
		"with --read-modify-write-in-txn, read with SELECT ... FOR UPDATE, locking the row until the update")
	g.flags.Meta["read-modify-write-in-txn"] = workload.FlagMeta{RuntimeOnly: true}
	g.flags.Meta["select-for-update"] = workload.FlagMeta{RuntimeOnly: true}
}

// rmwTxn is the statements of read-modify-writes in a transaction: the
// reads, locking with FOR UPDATE when asked.
type rmwTxn struct {
	readAll   string
	readField []string
}

// rmwTxn returns the transaction's statements, nil without
// --read-modify-write-in-txn.
func (g *ycsb) rmwTxn(s *statements) *rmwTxn {
	if !g.rmwInTxn {
		return nil
	}
	suffix := ""
	if g.selectForUpdate {
		suffix = " FOR UPDATE"
	}
	t := &rmwTxn{readAll: s.readAll + suffix}
	for _, f := range s.readField {
		t.readField = append(t.readField, f+suffix)
	}
	return t
}

// readModifyWriteTx is readModifyWrite in one transaction: BEGIN, the
// read (FOR UPDATE with --select-for-update), the update, COMMIT. Its
// parts are recorded as readModifyWrite's; a failed BEGIN or COMMIT (a
// serialization failure, say) counts as a failed update.
func (w *worker) readModifyWriteTx(ctx context.Context) workload.Result {
	key := w.nextKey()
	start := time.Now()
	tx, err := w.conn.Begin(ctx, sqlx.TxOptions{})
	if err != nil {
		return w.rmwFailed(ctx, nil, err, start)
	}
	w.readArgs[w.t] = key
	sql := w.inTxn.readAll
	if !w.c.readAllFields {
		sql = w.inTxn.readField[w.r.IntN(w.c.fieldCount)]
	}
	rerr := w.txQuery(ctx, tx, sql, w.readArgs)
	if rerr == nil && w.rows == 0 && !w.null {
		rerr = fmt.Errorf("read %s: %w", w.keyBuf, ErrNotFound)
	}
	mid := time.Now()
	if rerr != nil && !errors.Is(rerr, ErrNotFound) {
		w.recordPart(0, opRead, rerr, mid.Sub(start))
		return w.rmwFailed(ctx, tx, rerr, mid)
	}
	f := w.r.IntN(w.c.fieldCount)
	w.updateArgs[0], w.updateArgs[1+w.t] = w.value(0), key
	n, uerr := w.txExec(ctx, tx, w.s.updateField[f], w.updateArgs)
	if uerr == nil {
		uerr = tx.Commit(ctx)
	} else {
		_ = tx.Rollback(ctx)
	}
	if uerr == nil && n == 0 && !w.null {
		uerr = fmt.Errorf("update %s: %w", w.keyBuf, ErrNotFound)
	}
	end := time.Now()
	w.recordPart(0, opRead, rerr, mid.Sub(start))
	w.recordPart(1, opUpdate, uerr, end.Sub(mid))
	if uerr != nil && (w.stopOnError || errors.Is(uerr, context.Canceled)) {
		return workload.Result{Op: opReadModifyWrite, Err: uerr}
	}
	return workload.Result{Op: opReadModifyWrite}
}

// rmwFailed ends a transaction that failed before its update: rolled
// back, recorded as a failed update part.
func (w *worker) rmwFailed(ctx context.Context, tx sqlx.Tx, err error, since time.Time) workload.Result {
	if tx != nil {
		_ = tx.Rollback(ctx)
	}
	w.recordPart(1, opUpdate, err, time.Since(since))
	if w.stopOnError || errors.Is(err, context.Canceled) {
		return workload.Result{Op: opReadModifyWrite, Err: err}
	}
	return workload.Result{Op: opReadModifyWrite}
}

// txQuery is query inside tx.
func (w *worker) txQuery(ctx context.Context, tx sqlx.Tx, sql string, args []any) error {
	w.rows, w.received = 0, 0
	if raw, ok := tx.(sqlx.RawQuerier); ok {
		_, err := raw.QueryRaw(ctx, sql, w.encode(args), w.countRow)
		return err
	}
	rows, err := tx.Query(ctx, sql, args...)
	if err != nil {
		return err
	}
	for rows.Next() {
		w.count(rows.RawValues())
	}
	rows.Close()
	return rows.Err()
}

// txExec is exec inside tx.
func (w *worker) txExec(ctx context.Context, tx sqlx.Tx, sql string, args []any) (int64, error) {
	if raw, ok := tx.(sqlx.RawQuerier); ok {
		return raw.QueryRaw(ctx, sql, w.encode(args), nil)
	}
	return tx.Exec(ctx, sql, args...)
}
