package bank

import (
	"context"
	"fmt"
	"math/big"

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
	if g.tenant != 0 {
		return g.preRunTenant(ctx, db, last)
	}
	if err := db.QueryRow(ctx, "SELECT count(*) FROM "+tableName+" WHERE id = "+db.Dialect().Placeholder(1), last).Scan(&n); err != nil {
		return fmt.Errorf("table %s in database %s is not a bank table (id, balance, payload): %w", tableName, db.Database(), err)
	}
	if n == 0 {
		// The accounts it holds, by the primary key: a count the run
		// can give, not a command (`stampede init bank` would refuse
		// the table that exists).
		var held int64
		if err := db.QueryRow(ctx, "SELECT coalesce(max(id) + 1, 0) FROM "+tableName).Scan(&held); err != nil {
			return fmt.Errorf("reading the accounts of table %s in database %s: %w", tableName, db.Database(), err)
		}
		return rowsMismatch(fmt.Sprintf("table %s in database %s has no account %d: it holds %d accounts, fewer than --rows %d; "+
			"give --rows %d, or reload with `stampede init bank --drop --rows %d`",
			tableName, db.Database(), last, held, g.rows, held, g.rows))
	}
	return nil
}

// preRunTenant is preRun's check of the tenant's last account:
//
//	SELECT count(*) FROM bank WHERE tenant_id = $1 AND id = $2
func (g *bank) preRunTenant(ctx context.Context, db *sqlx.DB, last int64) error {
	p := db.Dialect().Placeholder
	var n int64
	if err := db.QueryRow(ctx, "SELECT count(*) FROM "+tableName+" WHERE "+workload.TenantColumn+" = "+p(1)+" AND id = "+p(2),
		g.tenantArg, last).Scan(&n); err != nil {
		return fmt.Errorf("table %s in database %s is not a bank table with tenant ids (%s, id, balance, payload): %w",
			tableName, db.Database(), workload.TenantColumn, err)
	}
	if n == 0 {
		return fmt.Errorf("table %s in database %s has no account %d of tenant %d: the tenant was not loaded, "+
			"or holds fewer accounts than --rows %d; give the --rows the tenant was loaded with, or load it again",
			tableName, db.Database(), last, g.tenant, g.rows)
	}
	return nil
}

// checkConsistency checks the invariant of transfers: in one REPEATABLE
// READ snapshot, the table (or the tenant's part of it) holds --rows
// accounts whose balances add up to rows × initial-balance.
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
	wantCount, wantTotal := int64(g.rows), big.NewInt(g.totalBalance())
	ok := count == wantCount && total.Cmp(wantTotal) == 0
	label := g.label()
	rep.Printf("%s: %d rows, total balance %d (expected %d) %s", label, count, total, wantTotal, passFail(ok))
	if ok {
		return nil
	}
	diff := new(big.Int).Sub(total, wantTotal)
	rep.Printf("%s: difference: %+d rows (expected %d), %+d total balance", label, count-wantCount, wantCount, diff)
	return fmt.Errorf("%s consistency check failed: %d rows with total balance %d, expected %d rows with %d (difference %+d)",
		label, count, total, wantCount, wantTotal, diff)
}

// sums returns the number of accounts and the total of their balances
// (of the tenant's accounts, WHERE tenant_id = $1, with a tenant), read in
// one REPEATABLE READ, read-only transaction. The total is read as the
// exact decimal the server sums, so that a total out of BIGINT's range
// (a table some other program, or an older stampede, wrote) is reported
// rather than failing the query.
func (g *bank) sums(ctx context.Context, db *sqlx.DB) (count int64, total *big.Int, err error) {
	tx, err := db.Begin(ctx, sqlx.TxOptions{Isolation: sqlx.RepeatableRead, ReadOnly: true})
	if err != nil {
		return 0, nil, fmt.Errorf("summing balances: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) // read-only: nothing to commit
	// sum(BIGINT) is NUMERIC (DECIMAL on CockroachDB): read as text.
	query := "SELECT count(*), CAST(coalesce(sum(balance), 0) AS TEXT) FROM " + tableName
	var args []any
	if g.tenant != 0 {
		query += " WHERE " + workload.TenantColumn + " = " + db.Dialect().Placeholder(1)
		args = append(args, g.tenantArg)
	}
	var text string
	if err := tx.QueryRow(ctx, query, args...).Scan(&count, &text); err != nil {
		return 0, nil, fmt.Errorf("summing balances of %s: %w", tableName, err)
	}
	total, ok := new(big.Int).SetString(text, 10)
	if !ok {
		return 0, nil, fmt.Errorf("summing balances of %s: the server returned the total %q, not a whole number", tableName, text)
	}
	return count, total, nil
}

func passFail(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

// rowsMismatch is a run's --rows beyond the accounts the table holds: the
// command line's to change (it matches workload.ErrLoadMismatch).
type rowsMismatch string

func (e rowsMismatch) Error() string { return string(e) }

// Unwrap returns workload.ErrLoadMismatch.
func (e rowsMismatch) Unwrap() error { return workload.ErrLoadMismatch }
