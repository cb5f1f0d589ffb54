package ycsb

import (
	"fmt"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// SetTenant implements the TenantColumner interface. With id > 0 the table
// is
//
//	usertable (tenant_id INT NOT NULL, ycsb_key VARCHAR(255) NOT NULL,
//	           field0 TEXT, ..., PRIMARY KEY (tenant_id, ycsb_key))
//
// holding tenant id's rows (the same rows as without a tenant, each led by
// id), and every statement filters on tenant_id = id; inserts start after
// the tenant's own rows. It panics on an id that is negative or does not
// fit an INT (a programmer error).
func (g *ycsb) SetTenant(id int) {
	workload.CheckTenantID("ycsb", id)
	g.tenant = id
	if g.cfg != nil {
		g.cfg.setTenant(id)
	}
}

// setTenant sets the tenant of the configuration; tenantArg is boxed once,
// not per row or per statement.
func (c *config) setTenant(id int) {
	c.tenant = id
	c.tenantArg = int32(id)
}

// label names the checked data in reports: "usertable", or "usertable
// (tenant 2)".
func (c *config) label() string {
	if c.tenant == 0 {
		return c.tableName
	}
	return fmt.Sprintf("%s (tenant %d)", c.tableName, c.tenant)
}

// tenantAnd returns "tenant_id = $i AND " with a tenant, "" without: the
// start of a WHERE clause whose tenant id is bound to parameter i.
func (c *config) tenantAnd(d dialect.Dialect, i int) string {
	if c.tenant == 0 {
		return ""
	}
	return workload.TenantColumn + " = " + d.Placeholder(i) + " AND "
}

// tenantArgs returns the leading arguments of a statement that starts with
// tenantAnd(d, 1): the tenant id, or none.
func (c *config) tenantArgs() []any {
	if c.tenant == 0 {
		return nil
	}
	return []any{c.tenantArg}
}

// countQuery returns the query counting the table's rows (the tenant's,
// with a tenant) and its arguments:
//
//	SELECT count(*) FROM usertable [WHERE tenant_id = $1]
func (c *config) countQuery(d dialect.Dialect) (string, []any) {
	q := "SELECT count(*) FROM " + c.tableName
	if c.tenant != 0 {
		q += " WHERE " + workload.TenantColumn + " = " + d.Placeholder(1)
	}
	return q, c.tenantArgs()
}

// noTenantColumnError is the error of a tenant's run or check against a
// table loaded without tenants.
func (c *config) noTenantColumnError(db *sqlx.DB) error {
	return fmt.Errorf("table %s in database %s has no column %s: it was loaded without tenants; "+
		"load it in tenant column mode (--tenant-mode column)", c.tableName, db.Database(), workload.TenantColumn)
}
