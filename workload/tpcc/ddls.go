package tpcc

import (
	"github.com/stampede-bench/stampede/dialect"
)

// Table names. ORDER is a reserved word: the table is created, dropped and
// queried as the quoted identifier orderTable.
const (
	metaTable      = "tpcc_meta"
	warehouseTable = "warehouse"
	districtTable  = "district"
	customerTable  = "customer"
	historyTable   = "history"
	newOrderTable  = "new_order"
	orderName      = "order"
	orderLineTable = "order_line"
	stockTable     = "stock"
	itemTable      = "item"
)

// dataTables are the tables of clause 1.3 in creation order, named as
// Tables names them.
var dataTables = []string{warehouseTable, itemTable, districtTable, customerTable, historyTable, orderName,
	newOrderTable, stockTable, orderLineTable}

// orderTable is "order", quoted by the dialect (only PostgreSQL's exists).
var orderTable = dialect.Postgres{}.QuoteIdent(orderName)

// The schemas of clause 1.3, with the primary keys of clause 1.3 and the
// spec's types: N digits are INTEGER (or SMALLINT), money and rates
// DECIMAL. Foreign keys are added after the load with --fks (fkStmts).
const (
	// tpcc_meta is not part of TPC-C: it records what was loaded, in one
	// row written when the load is complete (so an empty tpcc_meta means
	// an unfinished init). fresh is true until the first run, for the
	// consistency condition 3.3.2.11, which holds only right after loading.
	// profile is the load's --profile (stampede or hammerdb), which run,
	// check and init --routines-only compare with theirs; a tpcc_meta of
	// an older stampede has none (recordedProfile).
	metaSchema = `(
	version TEXT NOT NULL,
	warehouses INTEGER NOT NULL,
	c_last_load_c INTEGER NOT NULL,
	seed BIGINT NOT NULL,
	fresh BOOLEAN NOT NULL,
	profile TEXT NOT NULL
)`

	// metaTenantSchema is tpcc_meta in tenant column mode: one row per
	// loaded tenant, keyed by its id (the data tables have no tenant
	// column: a tenant is a range of warehouses).
	metaTenantSchema = `(
	tenant_id INTEGER NOT NULL PRIMARY KEY,
	version TEXT NOT NULL,
	warehouses INTEGER NOT NULL,
	c_last_load_c INTEGER NOT NULL,
	seed BIGINT NOT NULL,
	fresh BOOLEAN NOT NULL,
	profile TEXT NOT NULL
)`

	// Clause 1.3.1.
	warehouseSchema = `(
	w_id INTEGER NOT NULL PRIMARY KEY,
	w_name VARCHAR(10) NOT NULL,
	w_street_1 VARCHAR(20) NOT NULL,
	w_street_2 VARCHAR(20) NOT NULL,
	w_city VARCHAR(20) NOT NULL,
	w_state CHAR(2) NOT NULL,
	w_zip CHAR(9) NOT NULL,
	w_tax DECIMAL(4,4) NOT NULL,
	w_ytd DECIMAL(12,2) NOT NULL
)`

	// Clause 1.3.1.
	districtSchema = `(
	d_id SMALLINT NOT NULL,
	d_w_id INTEGER NOT NULL,
	d_name VARCHAR(10) NOT NULL,
	d_street_1 VARCHAR(20) NOT NULL,
	d_street_2 VARCHAR(20) NOT NULL,
	d_city VARCHAR(20) NOT NULL,
	d_state CHAR(2) NOT NULL,
	d_zip CHAR(9) NOT NULL,
	d_tax DECIMAL(4,4) NOT NULL,
	d_ytd DECIMAL(12,2) NOT NULL,
	d_next_o_id INTEGER NOT NULL,
	PRIMARY KEY (d_w_id, d_id)
)`

	// Clause 1.3.1.
	customerSchema = `(
	c_id INTEGER NOT NULL,
	c_d_id SMALLINT NOT NULL,
	c_w_id INTEGER NOT NULL,
	c_first VARCHAR(16) NOT NULL,
	c_middle CHAR(2) NOT NULL,
	c_last VARCHAR(16) NOT NULL,
	c_street_1 VARCHAR(20) NOT NULL,
	c_street_2 VARCHAR(20) NOT NULL,
	c_city VARCHAR(20) NOT NULL,
	c_state CHAR(2) NOT NULL,
	c_zip CHAR(9) NOT NULL,
	c_phone CHAR(16) NOT NULL,
	c_since TIMESTAMP NOT NULL,
	c_credit CHAR(2) NOT NULL,
	c_credit_lim DECIMAL(12,2) NOT NULL,
	c_discount DECIMAL(4,4) NOT NULL,
	c_balance DECIMAL(12,2) NOT NULL,
	c_ytd_payment DECIMAL(12,2) NOT NULL,
	c_payment_cnt INTEGER NOT NULL,
	c_delivery_cnt INTEGER NOT NULL,
	c_data VARCHAR(500) NOT NULL,
	PRIMARY KEY (c_w_id, c_d_id, c_id)
)`

	// Clause 1.3.1: HISTORY has no primary key.
	historySchema = `(
	h_c_id INTEGER NOT NULL,
	h_c_d_id SMALLINT NOT NULL,
	h_c_w_id INTEGER NOT NULL,
	h_d_id SMALLINT NOT NULL,
	h_w_id INTEGER NOT NULL,
	h_date TIMESTAMP NOT NULL,
	h_amount DECIMAL(6,2) NOT NULL,
	h_data VARCHAR(24) NOT NULL
)`

	// Clause 1.3.1.
	orderSchema = `(
	o_id INTEGER NOT NULL,
	o_d_id SMALLINT NOT NULL,
	o_w_id INTEGER NOT NULL,
	o_c_id INTEGER NOT NULL,
	o_entry_d TIMESTAMP NOT NULL,
	o_carrier_id SMALLINT,
	o_ol_cnt SMALLINT NOT NULL,
	o_all_local SMALLINT NOT NULL,
	PRIMARY KEY (o_w_id, o_d_id, o_id)
)`

	// Clause 1.3.1.
	newOrderSchema = `(
	no_o_id INTEGER NOT NULL,
	no_d_id SMALLINT NOT NULL,
	no_w_id INTEGER NOT NULL,
	PRIMARY KEY (no_w_id, no_d_id, no_o_id)
)`

	// Clause 1.3.1.
	orderLineSchema = `(
	ol_o_id INTEGER NOT NULL,
	ol_d_id SMALLINT NOT NULL,
	ol_w_id INTEGER NOT NULL,
	ol_number SMALLINT NOT NULL,
	ol_i_id INTEGER NOT NULL,
	ol_supply_w_id INTEGER NOT NULL,
	ol_delivery_d TIMESTAMP,
	ol_quantity SMALLINT NOT NULL,
	ol_amount DECIMAL(6,2) NOT NULL,
	ol_dist_info CHAR(24) NOT NULL,
	PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)
)`

	// Clause 1.3.1.
	stockSchema = `(
	s_i_id INTEGER NOT NULL,
	s_w_id INTEGER NOT NULL,
	s_quantity SMALLINT NOT NULL,
	s_dist_01 CHAR(24) NOT NULL,
	s_dist_02 CHAR(24) NOT NULL,
	s_dist_03 CHAR(24) NOT NULL,
	s_dist_04 CHAR(24) NOT NULL,
	s_dist_05 CHAR(24) NOT NULL,
	s_dist_06 CHAR(24) NOT NULL,
	s_dist_07 CHAR(24) NOT NULL,
	s_dist_08 CHAR(24) NOT NULL,
	s_dist_09 CHAR(24) NOT NULL,
	s_dist_10 CHAR(24) NOT NULL,
	s_ytd INTEGER NOT NULL,
	s_order_cnt INTEGER NOT NULL,
	s_remote_cnt INTEGER NOT NULL,
	s_data VARCHAR(50) NOT NULL,
	PRIMARY KEY (s_w_id, s_i_id)
)`

	// Clause 1.3.1.
	itemSchema = `(
	i_id INTEGER NOT NULL PRIMARY KEY,
	i_im_id INTEGER NOT NULL,
	i_name VARCHAR(24) NOT NULL,
	i_price DECIMAL(5,2) NOT NULL,
	i_data VARCHAR(50) NOT NULL
)`
)

// Column lists, in the order the generators produce values.
var (
	metaColumns      = []string{"version", "warehouses", "c_last_load_c", "seed", "fresh", "profile"}
	warehouseColumns = []string{"w_id", "w_name", "w_street_1", "w_street_2", "w_city", "w_state", "w_zip", "w_tax", "w_ytd"}
	districtColumns  = []string{"d_id", "d_w_id", "d_name", "d_street_1", "d_street_2", "d_city", "d_state", "d_zip",
		"d_tax", "d_ytd", "d_next_o_id"}
	customerColumns = []string{"c_id", "c_d_id", "c_w_id", "c_first", "c_middle", "c_last", "c_street_1", "c_street_2",
		"c_city", "c_state", "c_zip", "c_phone", "c_since", "c_credit", "c_credit_lim", "c_discount", "c_balance",
		"c_ytd_payment", "c_payment_cnt", "c_delivery_cnt", "c_data"}
	historyColumns   = []string{"h_c_id", "h_c_d_id", "h_c_w_id", "h_d_id", "h_w_id", "h_date", "h_amount", "h_data"}
	orderColumns     = []string{"o_id", "o_d_id", "o_w_id", "o_c_id", "o_entry_d", "o_carrier_id", "o_ol_cnt", "o_all_local"}
	newOrderColumns  = []string{"no_o_id", "no_d_id", "no_w_id"}
	orderLineColumns = []string{"ol_o_id", "ol_d_id", "ol_w_id", "ol_number", "ol_i_id", "ol_supply_w_id",
		"ol_delivery_d", "ol_quantity", "ol_amount", "ol_dist_info"}
	stockColumns = []string{"s_i_id", "s_w_id", "s_quantity", "s_dist_01", "s_dist_02", "s_dist_03", "s_dist_04",
		"s_dist_05", "s_dist_06", "s_dist_07", "s_dist_08", "s_dist_09", "s_dist_10", "s_ytd", "s_order_cnt",
		"s_remote_cnt", "s_data"}
	itemColumns = []string{"i_id", "i_im_id", "i_name", "i_price", "i_data"}
)

// Secondary indexes the transactions need, built after the load.
var (
	// customerIndex serves Payment and Order-Status by last name (clauses
	// 2.5.2.2 and 2.6.2.2), which sort the matches by C_FIRST.
	customerIndex = "CREATE INDEX customer_idx ON " + customerTable + " (c_w_id, c_d_id, c_last, c_first)"
	// orderIndex serves Order-Status's latest order of a customer (clause
	// 2.6.2.2).
	orderIndex = "CREATE INDEX order_idx ON " + orderTable + " (o_w_id, o_d_id, o_c_id, o_id)"
)

// fkStmts are the foreign keys of clause 1.3, added by --fks after the
// load (adding them before would make the parallel COPY streams depend on
// each other's progress).
var fkStmts = []string{
	"ALTER TABLE " + districtTable + " ADD CONSTRAINT district_fk FOREIGN KEY (d_w_id) REFERENCES " + warehouseTable,
	"ALTER TABLE " + customerTable + " ADD CONSTRAINT customer_fk FOREIGN KEY (c_w_id, c_d_id) REFERENCES " + districtTable,
	"ALTER TABLE " + historyTable + " ADD CONSTRAINT history_customer_fk FOREIGN KEY (h_c_w_id, h_c_d_id, h_c_id) REFERENCES " + customerTable,
	"ALTER TABLE " + historyTable + " ADD CONSTRAINT history_district_fk FOREIGN KEY (h_w_id, h_d_id) REFERENCES " + districtTable,
	"ALTER TABLE " + orderTable + " ADD CONSTRAINT order_fk FOREIGN KEY (o_w_id, o_d_id, o_c_id) REFERENCES " + customerTable,
	"ALTER TABLE " + newOrderTable + " ADD CONSTRAINT new_order_fk FOREIGN KEY (no_w_id, no_d_id, no_o_id) REFERENCES " + orderTable,
	"ALTER TABLE " + stockTable + " ADD CONSTRAINT stock_warehouse_fk FOREIGN KEY (s_w_id) REFERENCES " + warehouseTable,
	"ALTER TABLE " + stockTable + " ADD CONSTRAINT stock_item_fk FOREIGN KEY (s_i_id) REFERENCES " + itemTable,
	"ALTER TABLE " + orderLineTable + " ADD CONSTRAINT order_line_order_fk FOREIGN KEY (ol_w_id, ol_d_id, ol_o_id) REFERENCES " + orderTable,
	"ALTER TABLE " + orderLineTable + " ADD CONSTRAINT order_line_stock_fk FOREIGN KEY (ol_supply_w_id, ol_i_id) REFERENCES " + stockTable,
}

// ConstraintStatements returns the statements of --fks, whose foreign
// keys are stampede's (workload.ConstraintNamer).
func (g *tpcc) ConstraintStatements() []string { return fkStmts }
