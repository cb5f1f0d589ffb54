package ycsb

import (
	"context"
	"fmt"
	"strings"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// preRun checks that the table exists with the columns the properties
// need and, with a tenant, that the tenant's last loaded key is there.
// With the null driver there is nothing to check.
func (g *ycsb) preRun(ctx context.Context, db *sqlx.DB) error {
	c, err := g.config()
	if err != nil {
		return err
	}
	if db.Null() {
		return nil
	}
	d := db.Dialect()
	rows, err := db.Query(ctx, "SELECT column_name FROM information_schema.columns"+
		" WHERE table_name = "+d.Placeholder(1)+
		" AND table_schema NOT IN ('pg_catalog', 'information_schema')", c.tableName)
	if err != nil {
		return fmt.Errorf("checking table %s: %w", c.tableName, err)
	}
	have := map[string]bool{}
	for rows.Next() {
		var col string
		if err := rows.Scan(&col); err != nil {
			rows.Close()
			return fmt.Errorf("checking table %s: %w", c.tableName, err)
		}
		have[strings.ToLower(col)] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("checking table %s: %w", c.tableName, err)
	}
	if len(have) == 0 {
		return c.missingTableError(db)
	}
	if err := c.layoutError(have, db); err != nil {
		return err
	}
	for _, col := range c.columns() {
		if col == workload.TenantColumn && !have[col] {
			return c.noTenantColumnError(db)
		}
		if !have[strings.ToLower(col)] {
			return fmt.Errorf("table %s in database %s has no column %s (fieldcount is %d): run `stampede init ycsb` with the same properties",
				c.tableName, db.Database(), col, c.fieldCount)
		}
	}
	if c.tenant != 0 {
		return c.checkTenantLoaded(ctx, db)
	}
	return nil
}

// checkTenantLoaded checks that the tenant's last loaded key is in the
// shared table:
//
//	SELECT count(*) FROM usertable WHERE tenant_id = $1 AND ycsb_key = $2
func (c *config) checkTenantLoaded(ctx context.Context, db *sqlx.DB) error {
	last := c.keyName(c.insertStart + c.insertCount - 1)
	var n int64
	if err := db.QueryRow(ctx, "SELECT count(*) FROM "+c.tableName+" WHERE "+c.tenantAnd(db.Dialect(), 1)+
		keyColumn+" = "+db.Dialect().Placeholder(2), c.tenantArg, last).Scan(&n); err != nil {
		return fmt.Errorf("checking tenant %d in table %s: %w", c.tenant, c.tableName, err)
	}
	if n == 0 {
		return fmt.Errorf("table %s in database %s has no key %s of tenant %d: the tenant was not loaded, "+
			"or with other properties; load it with the same properties", c.tableName, db.Database(), last, c.tenant)
	}
	return nil
}

// checkKeysChunk is the number of keys looked up per query by
// checkConsistency.
const checkKeysChunk = 1000

// checkConsistency checks that the table (the tenant's rows, with a
// tenant) holds at least recordcount rows and every key this
// configuration loads.
func (g *ycsb) checkConsistency(ctx context.Context, db *sqlx.DB, rep workload.Reporter) error {
	c, err := g.config()
	if err != nil {
		return err
	}
	if db.Null() {
		rep.Printf("%s: skipped (null driver)", c.tableName)
		return nil
	}
	if err := g.preRun(ctx, db); err != nil {
		return err
	}
	var n int64
	query, args := c.countQuery(db.Dialect())
	if err := db.QueryRow(ctx, query, args...).Scan(&n); err != nil {
		return fmt.Errorf("counting rows of %s: %w", c.label(), err)
	}
	rowsOK := n >= c.recordCount
	rep.Printf("%s: %d rows (expected at least %d) %s", c.label(), n, c.recordCount, passFail(rowsOK))

	present, err := c.countLoadedKeys(ctx, db)
	if err != nil {
		return err
	}
	keysOK := present == c.insertCount
	rep.Printf("%s: %d of %d loaded keys present %s", c.label(), present, c.insertCount, passFail(keysOK))
	if !rowsOK || !keysOK {
		return fmt.Errorf("%s failed its consistency check", c.label())
	}
	return nil
}

// countLoadedKeys counts the keys of [insertstart, insertstart+insertcount)
// present in the table (of the tenant's rows, with a tenant: WHERE
// tenant_id = $1 AND ycsb_key IN ($2, ...)).
func (c *config) countLoadedKeys(ctx context.Context, db *sqlx.DB) (int64, error) {
	d := db.Dialect()
	lead := c.tenantArgs() // bound before the keys
	args := make([]any, 0, len(lead)+checkKeysChunk)
	args = append(args, lead...)
	var present int64
	query := func() error {
		var n int64
		q := "SELECT count(*) FROM " + c.tableName + " WHERE " + c.tenantAnd(d, 1) + keyColumn +
			" IN (" + dialect.Placeholders(d, len(lead)+1, len(args)-len(lead)) + ")"
		if err := db.QueryRow(ctx, q, args...).Scan(&n); err != nil {
			return fmt.Errorf("looking up keys of %s: %w", c.label(), err)
		}
		present += n
		args = args[:len(lead)]
		return nil
	}
	for k := c.insertStart; k < c.insertStart+c.insertCount; k++ {
		args = append(args, c.keyName(k))
		if len(args) == len(lead)+checkKeysChunk {
			if err := query(); err != nil {
				return 0, err
			}
		}
	}
	if len(args) > len(lead) {
		if err := query(); err != nil {
			return 0, err
		}
	}
	return present, nil
}

func passFail(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}
