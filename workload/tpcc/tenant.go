package tpcc

import (
	"context"
	"fmt"
	"strings"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// metaTenantColumns are tpcc_meta's columns in column mode: the tenant
// column leads its primary key. The data tables have no such column:
// W_ID, which leads every primary key but ITEM's, is the tenant key.
var metaTenantColumns = append([]string{workload.TenantColumn}, metaColumns...)

// SetTenant implements the TenantColumner interface, TPC-C's way: the
// warehouse id already leads every primary key but ITEM's, so in column
// mode a tenant is a range of warehouses, not a column. With id > 0 and
// --warehouses W, tenant id owns warehouses (id-1)*W+1 .. id*W of shared
// tables of the usual schema:
//
//   - Tables yields the rows of those warehouses (a load of W warehouses,
//     W_IDs shifted), ITEM's rows with tenant 1 only, and tpcc_meta with a
//     leading tenant_id, one row per tenant;
//   - the workers' home, supplying and paying warehouses are the tenant's;
//   - PreRun, the checks of clause 3.3.2 and the audits work on the
//     tenant's warehouses and tpcc_meta row only, and PreLoad deletes what
//     an unfinished load of the tenant left.
//
// 0, the default, is the ordinary single-tenant database. It panics on an
// id that is negative or does not fit an INT (a programmer error); an id
// whose warehouses would not fit is refused by the Validate hook.
func (g *tpcc) SetTenant(id int) {
	workload.CheckTenantID("tpcc", id)
	g.tenant = id
}

// whOffset is the number of warehouses before the generator's first: 0
// without a tenant, (tenant-1)*W with one.
func (g *tpcc) whOffset() int64 {
	if g.tenant == 0 {
		return 0
	}
	return int64(g.tenant-1) * int64(g.warehouses)
}

// whRange returns the generator's first and last warehouse.
func (g *tpcc) whRange() (first, last int64) {
	first = g.whOffset() + 1
	return first, first + int64(g.warehouses) - 1
}

// label names the checked data in reports: "tpcc", or "tpcc (tenant 2)".
func (g *tpcc) label() string {
	if g.tenant == 0 {
		return tpccMeta.Name
	}
	return fmt.Sprintf("%s (tenant %d)", tpccMeta.Name, g.tenant)
}

// metaColumnsOf returns tpcc_meta's columns: led by tenant_id in column
// mode.
func (g *tpcc) metaColumnsOf() []string {
	if g.tenant > 0 {
		return metaTenantColumns
	}
	return metaColumns
}

// metaWhere returns the filter of tpcc_meta's statements whose first
// placeholder is $i, and its argument: the tenant's row in column mode,
// nothing without a tenant.
func (g *tpcc) metaWhere(i int) (string, []any) {
	if g.tenant == 0 {
		return "", nil
	}
	return fmt.Sprintf(" WHERE %s = $%d", workload.TenantColumn, i), []any{int64(g.tenant)}
}

// tenantTables are the tables keyed by warehouse and their W_ID column,
// for deleting a tenant's rows. ORDER is quoted.
var tenantTables = []struct{ table, column string }{
	{warehouseTable, "w_id"}, {districtTable, "d_w_id"}, {customerTable, "c_w_id"}, {historyTable, "h_w_id"},
	{orderTable, "o_w_id"}, {newOrderTable, "no_w_id"}, {stockTable, "s_w_id"}, {orderLineTable, "ol_w_id"},
}

// preLoad is the PreLoad hook of column mode: it refuses --fks, and
// deletes the rows an earlier, unfinished load of the tenant left in the
// shared tables (its warehouses' rows, its tpcc_meta row, and for tenant 1
// the items), so that the load can start again. Whether there are any is
// first asked of the tables with an index on W_ID: HISTORY has none, and
// a tenant with nothing elsewhere is not made to scan it. (A load in table
// order, as the fleet's, writes HISTORY after WAREHOUSE, DISTRICT and
// CUSTOMER.)
func (g *tpcc) preLoad(ctx context.Context, db *sqlx.DB) error {
	if err := g.validate(); err != nil {
		return err
	}
	if g.fks {
		return fmt.Errorf("--fks cannot be used with --tenant-mode column: tenants load one after another into shared tables, " +
			"which each tenant's foreign keys would have to validate again; leave out --fks")
	}
	if db.Null() {
		return nil
	}
	first, last := g.whRange()
	probe := []string{"EXISTS (SELECT 1 FROM " + metaTable + " WHERE " + workload.TenantColumn + " = $1)"}
	for _, t := range tenantTables {
		if t.table != historyTable {
			probe = append(probe, fmt.Sprintf("EXISTS (SELECT 1 FROM %s WHERE %s BETWEEN $2 AND $3)", t.table, t.column))
		}
	}
	if g.tenant == 1 {
		probe = append(probe, "EXISTS (SELECT 1 FROM "+itemTable+")")
	}
	var found bool
	if err := db.QueryRow(ctx, "SELECT "+strings.Join(probe, " OR "), int64(g.tenant), first, last).Scan(&found); err != nil {
		return fmt.Errorf("%s: looking for the rows of an earlier load: %w", g.label(), err)
	}
	if !found {
		return nil
	}
	if _, err := db.Exec(ctx, "DELETE FROM "+metaTable+" WHERE "+workload.TenantColumn+" = $1", int64(g.tenant)); err != nil {
		return fmt.Errorf("%s: deleting its %s row: %w", g.label(), metaTable, err)
	}
	for _, t := range tenantTables {
		if _, err := db.Exec(ctx, fmt.Sprintf("DELETE FROM %s WHERE %s BETWEEN $1 AND $2", t.table, t.column), first, last); err != nil {
			return fmt.Errorf("%s: deleting the rows of an earlier load from %s: %w", g.label(), t.table, err)
		}
	}
	if g.tenant == 1 {
		if _, err := db.Exec(ctx, "DELETE FROM "+itemTable); err != nil {
			return fmt.Errorf("%s: deleting the rows of an earlier load from %s: %w", g.label(), itemTable, err)
		}
	}
	return nil
}

// noTenantColumnError is the error of a tenant's run or check against a
// database loaded without tenants.
func (g *tpcc) noTenantColumnError(db *sqlx.DB) error {
	return fmt.Errorf("table %s in database %s has no column %s: it was loaded without tenants; "+
		"load it in tenant column mode (`stampede init tpcc --tenants N --tenant-mode column`)", metaTable, db.Database(), workload.TenantColumn)
}

// tenantsInMetaError is the error of a run or check without a tenant
// against a database whose tpcc_meta holds several rows: a fleet's
// tenants in shared tables.
func tenantsInMetaError(db *sqlx.DB) error {
	return fmt.Errorf("database %s holds the tpcc tenants of a fleet in shared tables (%s has a row per tenant): "+
		"give --tenants N --tenant-mode column", db.Database(), metaTable)
}

// tenantNotLoadedError is the error of a tenant without a row in
// tpcc_meta: never loaded, or its load did not finish.
func (g *tpcc) tenantNotLoadedError(db *sqlx.DB) error {
	first, last := g.whRange()
	return fmt.Errorf("%s has no row for tenant %d (warehouses %d to %d) in database %s: its load is missing or did not finish; "+
		"run `stampede init tpcc --warehouses %d --tenants N --tenant-mode column` with N >= %d, which loads the tenants missing",
		metaTable, g.tenant, first, last, db.Database(), g.warehouses, g.tenant)
}
