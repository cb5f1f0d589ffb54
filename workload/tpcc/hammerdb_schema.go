package tpcc

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// hammerOrders is HammerDB's name of the orders table.
const hammerOrders = "orders"

// HammerDB's schema for PostgreSQL, as its buildschema creates it
// (CreateTables and CreateIndexes of src/postgresql/pgoltp.tcl, without
// pg_oracompat or pg_cituscompat): its column order, its types (SMALLINT
// counters, TIMESTAMP WITH TIME ZONE dates, W_YTD NUMERIC(16,2)), its
// primary keys named TABLE_I1 and unique indexes CUSTOMER_I2 and
// ORDERS_I2, HISTORY.H_C_ID, OL_AMOUNT and OL_DIST_INFO nullable, and no
// foreign keys.
var hammerSchemas = map[string]string{
	customerTable: `(
	c_since TIMESTAMP WITH TIME ZONE NOT NULL, c_id INTEGER NOT NULL, c_w_id INTEGER NOT NULL, c_d_id SMALLINT NOT NULL,
	c_payment_cnt SMALLINT NOT NULL, c_delivery_cnt SMALLINT NOT NULL, c_first CHARACTER VARYING(16) NOT NULL,
	c_middle CHARACTER(2) NOT NULL, c_last CHARACTER VARYING(16) NOT NULL, c_street_1 CHARACTER VARYING(20) NOT NULL,
	c_street_2 CHARACTER VARYING(20) NOT NULL, c_city CHARACTER VARYING(20) NOT NULL, c_state CHARACTER(2) NOT NULL,
	c_zip CHARACTER(9) NOT NULL, c_phone CHARACTER(16) NOT NULL, c_credit CHARACTER(2) NOT NULL,
	c_credit_lim NUMERIC(12,2) NOT NULL, c_discount NUMERIC(4,4) NOT NULL, c_balance NUMERIC(12,2) NOT NULL,
	c_ytd_payment NUMERIC(12,2) NOT NULL, c_data CHARACTER VARYING(500) NOT NULL,
	CONSTRAINT customer_i1 PRIMARY KEY (c_w_id, c_d_id, c_id)
)`,
	districtTable: `(
	d_w_id INTEGER NOT NULL, d_next_o_id INTEGER NOT NULL, d_id SMALLINT NOT NULL, d_ytd NUMERIC(12,2) NOT NULL,
	d_tax NUMERIC(4,4) NOT NULL, d_name CHARACTER VARYING(10) NOT NULL, d_street_1 CHARACTER VARYING(20) NOT NULL,
	d_street_2 CHARACTER VARYING(20) NOT NULL, d_city CHARACTER VARYING(20) NOT NULL, d_state CHARACTER(2) NOT NULL,
	d_zip CHARACTER(9) NOT NULL,
	CONSTRAINT district_i1 PRIMARY KEY (d_w_id, d_id)
)`,
	historyTable: `(
	h_date TIMESTAMP WITH TIME ZONE NOT NULL, h_c_id INTEGER, h_c_w_id INTEGER NOT NULL, h_w_id INTEGER NOT NULL,
	h_c_d_id SMALLINT NOT NULL, h_d_id SMALLINT NOT NULL, h_amount NUMERIC(6,2) NOT NULL, h_data CHARACTER VARYING(24) NOT NULL
)`,
	itemTable: `(
	i_id INTEGER NOT NULL, i_im_id INTEGER NOT NULL, i_name CHARACTER VARYING(24) NOT NULL, i_price NUMERIC(5,2) NOT NULL,
	i_data CHARACTER VARYING(50) NOT NULL,
	CONSTRAINT item_i1 PRIMARY KEY (i_id)
)`,
	warehouseTable: `(
	w_id INTEGER NOT NULL, w_name CHARACTER VARYING(10) NOT NULL, w_street_1 CHARACTER VARYING(20) NOT NULL,
	w_street_2 CHARACTER VARYING(20) NOT NULL, w_city CHARACTER VARYING(20) NOT NULL, w_state CHARACTER(2) NOT NULL,
	w_zip CHARACTER(9) NOT NULL, w_tax NUMERIC(4,4) NOT NULL, w_ytd NUMERIC(16,2) NOT NULL,
	CONSTRAINT warehouse_i1 PRIMARY KEY (w_id)
)`,
	stockTable: `(
	s_i_id INTEGER NOT NULL, s_w_id INTEGER NOT NULL, s_ytd INTEGER NOT NULL, s_quantity SMALLINT NOT NULL,
	s_order_cnt SMALLINT NOT NULL, s_remote_cnt SMALLINT NOT NULL, s_dist_01 CHARACTER(24) NOT NULL,
	s_dist_02 CHARACTER(24) NOT NULL, s_dist_03 CHARACTER(24) NOT NULL, s_dist_04 CHARACTER(24) NOT NULL,
	s_dist_05 CHARACTER(24) NOT NULL, s_dist_06 CHARACTER(24) NOT NULL, s_dist_07 CHARACTER(24) NOT NULL,
	s_dist_08 CHARACTER(24) NOT NULL, s_dist_09 CHARACTER(24) NOT NULL, s_dist_10 CHARACTER(24) NOT NULL,
	s_data CHARACTER VARYING(50) NOT NULL,
	CONSTRAINT stock_i1 PRIMARY KEY (s_i_id, s_w_id)
)`,
	newOrderTable: `(
	no_w_id INTEGER NOT NULL, no_o_id INTEGER NOT NULL, no_d_id SMALLINT NOT NULL,
	CONSTRAINT new_order_i1 PRIMARY KEY (no_w_id, no_d_id, no_o_id)
)`,
	orderName: `(
	o_entry_d TIMESTAMP WITH TIME ZONE NOT NULL, o_id INTEGER NOT NULL, o_w_id INTEGER NOT NULL, o_c_id INTEGER NOT NULL,
	o_d_id SMALLINT NOT NULL, o_carrier_id SMALLINT, o_ol_cnt SMALLINT NOT NULL, o_all_local SMALLINT NOT NULL,
	CONSTRAINT orders_i1 PRIMARY KEY (o_w_id, o_d_id, o_id)
)`,
	orderLineTable: `(
	ol_delivery_d TIMESTAMP WITH TIME ZONE, ol_o_id INTEGER NOT NULL, ol_w_id INTEGER NOT NULL, ol_i_id INTEGER NOT NULL,
	ol_supply_w_id INTEGER NOT NULL, ol_d_id SMALLINT NOT NULL, ol_number SMALLINT NOT NULL, ol_quantity SMALLINT NOT NULL,
	ol_amount NUMERIC(6,2), ol_dist_info CHARACTER(24),
	CONSTRAINT order_line_i1 PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)
)`,
}

// hammerIndexes are the secondary indexes of HammerDB's CreateIndexes,
// built after the load.
var hammerIndexes = map[string][]string{
	customerTable: {"CREATE UNIQUE INDEX customer_i2 ON " + customerTable + " USING btree (c_w_id, c_d_id, c_last, c_first, c_id)"},
	orderName:     {"CREATE UNIQUE INDEX orders_i2 ON " + hammerOrders + " USING btree (o_w_id, o_d_id, o_c_id, o_id)"},
}

// IndexStatements returns the CREATE INDEX statements of both schemas,
// stampede's and HammerDB's (--profile hammerdb), whichever g loads: a
// cleanup given the other profile's flags still knows them as TPC-C's
// (workload.IndexNamer).
func (g *tpcc) IndexStatements() []string {
	out := []string{customerIndex, orderIndex}
	for _, name := range slices.Sorted(maps.Keys(hammerIndexes)) {
		out = append(out, hammerIndexes[name]...)
	}
	return out
}

// hammerTables turns stampede's tables into HammerDB's: the same rows,
// HammerDB's schemas and indexes, ORDERS for "order", and ORDER_LINE
// partitioned by hash of OL_W_ID with --partition (from 200 warehouses,
// as HammerDB; preLoadHammer creates the partitions).
func (g *tpcc) hammerTables(tables []workload.Table) {
	for i := range tables {
		t := &tables[i]
		s, ok := hammerSchemas[t.Name]
		if !ok {
			continue // tpcc_meta
		}
		t.Schema, t.Indexes = s, hammerIndexes[t.Name]
		if t.Name == orderLineTable && hammerPartitions(g.warehouses, g.hdb.partition) > 0 {
			t.Schema += " PARTITION BY HASH (ol_w_id)"
		}
		if t.Name == orderName {
			t.Name = hammerOrders
		}
	}
}

var (
	_ workload.InitChecker     = (*tpcc)(nil)
	_ workload.ForceDropSetter = (*tpcc)(nil)
)

// SetForceDrop implements workload.ForceDropSetter: with --force-drop,
// init replaces the routines of HammerDB's names that stampede did not
// make, as it drops such tables.
func (g *tpcc) SetForceDrop(force bool) { g.forceDrop = force }

// CheckInit implements workload.InitChecker: with --profile hammerdb or
// --server-side, a routine of one of the five names that stampede did not
// make (or that was replaced since) is refused, naming it, unless
// --use-installed-routines keeps it.
func (g *tpcc) CheckInit(ctx context.Context, db *sqlx.DB) error {
	if !g.hammerdb() && !g.hdb.serverSide {
		return nil
	}
	_, err := g.routinesToReplace(ctx, db)
	return err
}

// preLoadHammer creates the partitions of ORDER_LINE with --partition,
// named ol_0 .. ol_N-1 as HammerDB's (unless a client of a split load
// made them already), and refuses routines of the five
// names that stampede did not make (unless --use-installed-routines keeps
// them), before any row is loaded.
func (g *tpcc) preLoadHammer(ctx context.Context, db *sqlx.DB) error {
	if db.Null() {
		return nil
	}
	if _, err := g.routinesToReplace(ctx, db); err != nil {
		return err
	}
	if !g.hammerdb() {
		return nil
	}
	n := hammerPartitions(g.warehouses, g.hdb.partition && g.hammerdb())
	for i := range n {
		name := fmt.Sprintf("ol_%d", i)
		var existed bool
		if err := db.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", name).Scan(&existed); err != nil {
			return fmt.Errorf("looking for partition %s of %s: %w", name, orderLineTable, err)
		}
		if existed {
			continue
		}
		// Marked as the tables are (in the same transaction), so that
		// what lists a database's objects (workload.ForeignObjectsIn)
		// knows it for stampede's.
		q := fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s PARTITION OF %s FOR VALUES WITH (MODULUS %d, REMAINDER %d)", name, orderLineTable, n, i)
		if err := workload.CreateMarkedTable(ctx, db, q, name, workload.InitTableMark(g)); err != nil {
			return fmt.Errorf("creating partition %s of %s: %w", name, orderLineTable, err)
		}
	}
	return nil
}
