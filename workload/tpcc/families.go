package tpcc

import "strings"

// Column families of cockroach's tpcc --families: the columns the
// transactions update apart from those they only read, in WAREHOUSE,
// DISTRICT and CUSTOMER, as cockroach groups them (its ddls.go). W_TAX
// sits alone and W_YTD with the static columns, as in cockroach's.
const (
	warehouseFamilies = `FAMILY f1 (w_id, w_name, w_street_1, w_street_2, w_city, w_state, w_zip, w_ytd),
	FAMILY f2 (w_tax)`
	districtFamilies = `FAMILY static (d_w_id, d_id, d_name, d_street_1, d_street_2, d_city, d_state, d_zip),
	FAMILY dynamic_1 (d_ytd),
	FAMILY dynamic_2 (d_next_o_id, d_tax)`
	customerFamilies = `FAMILY static (c_id, c_d_id, c_w_id, c_first, c_middle, c_last, c_street_1, c_street_2,
		c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, c_discount),
	FAMILY dynamic (c_balance, c_ytd_payment, c_payment_cnt, c_data, c_delivery_cnt)`
)

// SetColumnFamilies gives WAREHOUSE, DISTRICT and CUSTOMER cockroach's
// column families (--families). Column families are CockroachDB's: the
// caller sets them only on a CockroachDB server (cmdline/cockroach does,
// after asking the server). They change neither the rows nor the
// transactions.
func (g *tpcc) SetColumnFamilies(on bool) { g.families = on }

// withFamilies returns schema, a column list in parentheses, with the
// family clauses before its closing parenthesis when the tables get
// column families.
func (g *tpcc) withFamilies(schema, families string) string {
	if !g.families {
		return schema
	}
	i := strings.LastIndexByte(schema, ')')
	return strings.TrimRight(schema[:i], "\n") + ",\n\t" + families + "\n" + schema[i:]
}
