package sysbench

import (
	"context"
	"fmt"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// SetTenant implements the TenantColumner interface. With id > 0 every
// table is
//
//	sbtestN (tenant_id INT NOT NULL, id SERIAL, k INTEGER DEFAULT '0' NOT NULL,
//	         c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL)
//
// with the primary key (tenant_id, id) and k_N on (tenant_id, k) built
// after the load, holding tenant id's rows (the same rows as without a
// tenant, each led by id), and every statement filters on tenant_id = id.
// bulk_insert, whose run creates its own tables, refuses column mode in
// Validate. It panics on an id that is negative or does not fit an INT (a
// programmer error).
func (g *generator) SetTenant(id int) {
	workload.CheckTenantID("sysbench", id)
	g.cfg.tenant = id
}

// tenantCol returns "tenant_id" with a tenant, "" without.
func (c *config) tenantCol(sep string) string {
	if c.tenant == 0 {
		return ""
	}
	return workload.TenantColumn + sep
}

// tenantEq returns "tenant_id=$i AND " with a tenant, "" without.
func (c *config) tenantEq(d dialect.Dialect, i int) string {
	if c.tenant == 0 {
		return ""
	}
	return workload.TenantColumn + "=" + d.Placeholder(i) + " AND "
}

// tenantParams returns the number of tenant parameters of a statement:
// 1 with a tenant, 0 without.
func (c *config) tenantParams() int {
	if c.tenant == 0 {
		return 0
	}
	return 1
}

// label names table t in reports: "sbtest1", or "sbtest1 (tenant 2)".
func (c *config) label(t string) string {
	if c.tenant == 0 {
		return t
	}
	return fmt.Sprintf("%s (tenant %d)", t, c.tenant)
}

// tenantArgs returns the leading arguments of a check query that starts
// with tenantWhere: the tenant id, or none.
func (c *config) tenantArgs() []any {
	if c.tenant == 0 {
		return nil
	}
	return []any{int32(c.tenant)}
}

// tenantWhere returns " WHERE tenant_id=$1" with a tenant, "" without.
func (c *config) tenantWhere(d dialect.Dialect) string {
	if c.tenant == 0 {
		return ""
	}
	return " WHERE " + workload.TenantColumn + "=" + d.Placeholder(1)
}

// bulkGenerator is bulk_insert's generator: a generator without SetTenant,
// so that it is no TenantColumner (its run creates one table per worker,
// which tenants cannot share) and fleets refuse column mode up front.
type bulkGenerator struct{ g *generator }

var (
	_ workload.Flagser = bulkGenerator{}
	_ workload.Hookser = bulkGenerator{}
	_ workload.Opser   = bulkGenerator{}
	_ workload.Seeder  = bulkGenerator{}

	_ workload.RunTablesDropper = bulkGenerator{}
)

// DropsRunTables implements the RunTablesDropper interface: its tables
// are all its runs' (and its prepare's), so init --drop drops them, those
// that stampede did not make only with --force-drop, as cleanup does.
func (b bulkGenerator) DropsRunTables() bool { return true }

// Meta implements the Generator interface.
func (b bulkGenerator) Meta() workload.Meta { return b.g.Meta() }

// Flags implements the Flagser interface.
func (b bulkGenerator) Flags() workload.Flags { return b.g.Flags() }

// SetSeed implements the Seeder interface.
func (b bulkGenerator) SetSeed(seed uint64) { b.g.SetSeed(seed) }

// Hooks implements the Hookser interface.
func (b bulkGenerator) Hooks() workload.Hooks { return b.g.Hooks() }

// Tables implements the Generator interface: none.
func (b bulkGenerator) Tables() []workload.Table { return b.g.Tables() }

// Ops implements the Opser interface.
func (b bulkGenerator) Ops(ctx context.Context, db *sqlx.DB, oc workload.OpsConfig) (workload.QueryLoad, error) {
	return b.g.Ops(ctx, db, oc)
}
