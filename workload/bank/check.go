package bank

import (
	"context"
	"fmt"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// missingTableError is the error of a run or check against a database
// without the table.
func missingTableError(db *sqlx.DB) error {
	return fmt.Errorf("table %s does not exist in database %s: run `stampede init bank` first", tableName, db.Database())
}

// preRun checks that the table exists and holds the last account of
// --rows (with the null driver there is nothing to check).
func (g *bank) preRun(ctx context.Context, db *sqlx.DB) error {
	if err := g.validate(); err != nil {
		return err
	}
	if db.Null() {
		return nil
	}
	exists, err := workload.TableExists(ctx, db, tableName)
	if err != nil {
		return fmt.Errorf("checking table %s: %w", tableName, err)
	}
	if !exists {
		return missingTableError(db)
	}
	var n int64
	last := int64(g.rows - 1)
	if err := db.QueryRow(ctx, "SELECT count(*) FROM "+tableName+" WHERE id = "+db.Dialect().Placeholder(1), last).Scan(&n); err != nil {
		return fmt.Errorf("table %s in database %s is not a bank table (id, balance, payload): %w", tableName, db.Database(), err)
	}
	if n == 0 {
		return fmt.Errorf("table %s in database %s has no account %d: it holds fewer accounts than --rows %d; "+
			"give the --rows of `stampede init bank`, or reload with `stampede init bank --drop --rows %d`",
			tableName, db.Database(), last, g.rows, g.rows)
	}
	return nil
}

// checkConsistency checks the invariant of transfers: in one REPEATABLE
// READ snapshot, the table holds --rows accounts whose balances add up to
// rows × initial-balance.
func (g *bank) checkConsistency(ctx context.Context, db *sqlx.DB, rep workload.Reporter) error {
	if err := g.validate(); err != nil {
		return err
	}
	if db.Null() {
		rep.Printf("bank: skipped (null driver)")
		return nil
	}
	exists, err := workload.TableExists(ctx, db, tableName)
	if err != nil {
		return fmt.Errorf("checking table %s: %w", tableName, err)
	}
	if !exists {
		return missingTableError(db)
	}
	count, total, err := g.sums(ctx, db)
	if err != nil {
		return err
	}
	wantCount, wantTotal := int64(g.rows), g.totalBalance()
	ok := count == wantCount && total == wantTotal
	rep.Printf("bank: %d rows, total balance %d (expected %d) %s", count, total, wantTotal, passFail(ok))
	if ok {
		return nil
	}
	rep.Printf("bank: difference: %+d rows (expected %d), %+d total balance", count-wantCount, wantCount, total-wantTotal)
	return fmt.Errorf("bank consistency check failed: %d rows with total balance %d, expected %d rows with %d (difference %+d)",
		count, total, wantCount, wantTotal, total-wantTotal)
}

// sums returns the number of accounts and the total of their balances,
// read in one REPEATABLE READ, read-only transaction.
func (g *bank) sums(ctx context.Context, db *sqlx.DB) (count, total int64, err error) {
	tx, err := db.Begin(ctx, sqlx.TxOptions{Isolation: sqlx.RepeatableRead, ReadOnly: true})
	if err != nil {
		return 0, 0, fmt.Errorf("summing balances: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) // read-only: nothing to commit
	// sum(BIGINT) is NUMERIC: cast it back, which fails rather than wraps
	// on overflow.
	if err := tx.QueryRow(ctx, "SELECT count(*), CAST(coalesce(sum(balance), 0) AS BIGINT) FROM "+tableName).
		Scan(&count, &total); err != nil {
		return 0, 0, fmt.Errorf("summing balances of %s: %w", tableName, err)
	}
	return count, total, nil
}

func passFail(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}
