package sysbench

import (
	"strings"

	"github.com/stampede-bench/stampede/dialect"
)

// tableStatements are the statements of oltp_common.lua's stmt_defs for
// one table, with the dialect's placeholders in sysbench's parameter
// order.
type tableStatements struct {
	// pointSelect is SELECT c FROM sbtestN WHERE id=$1.
	pointSelect string
	// simpleRange is SELECT c FROM sbtestN WHERE id BETWEEN $1 AND $2.
	simpleRange string
	// sumRange is SELECT SUM(k) FROM sbtestN WHERE id BETWEEN $1 AND $2.
	sumRange string
	// orderRange is SELECT c FROM sbtestN WHERE id BETWEEN $1 AND $2
	// ORDER BY c.
	orderRange string
	// distinctRange is SELECT DISTINCT c FROM sbtestN WHERE id BETWEEN $1
	// AND $2 ORDER BY c.
	distinctRange string
	// indexUpdate is UPDATE sbtestN SET k=k+1 WHERE id=$1.
	indexUpdate string
	// nonIndexUpdate is UPDATE sbtestN SET c=$1 WHERE id=$2.
	nonIndexUpdate string
	// delete is DELETE FROM sbtestN WHERE id=$1.
	delete string
	// insert is INSERT INTO sbtestN (id, k, c, pad) VALUES ($1, $2, $3, $4).
	insert string
	// insertAuto is oltp_insert's statement when --auto_inc is on: INSERT
	// INTO sbtestN (k, c, pad) VALUES ($1, $2, $3). sysbench sends it with
	// literal values (and, on MySQL, an id of 0); here it has parameters,
	// and leaving id out lets MySQL's AUTO_INCREMENT choose it too.
	insertAuto string
}

// newTableStatements returns table n's statements in d's SQL. With a
// tenant (c.tenant > 0) every statement binds tenant_id first: WHERE
// tenant_id=$1 AND id=$2, INSERT INTO sbtestN (tenant_id, id, ...), and
// the c of nonIndexUpdate stays $1, before the tenant's $2.
func newTableStatements(d dialect.Dialect, c *config, n int) tableStatements {
	t := tableName(n)
	p := d.Placeholder
	o := c.tenantParams()
	where := " WHERE " + c.tenantEq(d, 1)
	between := where + "id BETWEEN " + p(o+1) + " AND " + p(o+2)
	tc := c.tenantCol(", ")
	return tableStatements{
		pointSelect:    "SELECT c FROM " + t + where + "id=" + p(o+1),
		simpleRange:    "SELECT c FROM " + t + between,
		sumRange:       "SELECT SUM(k) FROM " + t + between,
		orderRange:     "SELECT c FROM " + t + between + " ORDER BY c",
		distinctRange:  "SELECT DISTINCT c FROM " + t + between + " ORDER BY c",
		indexUpdate:    "UPDATE " + t + " SET k=k+1" + where + "id=" + p(o+1),
		nonIndexUpdate: "UPDATE " + t + " SET c=" + p(1) + " WHERE " + c.tenantEq(d, 2) + "id=" + p(o+2),
		delete:         "DELETE FROM " + t + where + "id=" + p(o+1),
		insert:         "INSERT INTO " + t + " (" + tc + "id, k, c, pad) VALUES (" + dialect.Placeholders(d, 1, o+4) + ")",
		insertAuto:     "INSERT INTO " + t + " (" + tc + "k, c, pad) VALUES (" + dialect.Placeholders(d, 1, o+3) + ")",
	}
}

// randomPointsStatement is select_random_points.lua's statement with n
// points: SELECT id, k, c, pad FROM sbtest1 WHERE k IN ($1, ..., $n).
// sysbench's text spreads it over indented lines; here it is one line.
// With a tenant: WHERE tenant_id=$1 AND k IN ($2, ..., $n+1).
func randomPointsStatement(d dialect.Dialect, c *config, n int) string {
	o := c.tenantParams()
	return "SELECT id, k, c, pad FROM sbtest1 WHERE " + c.tenantEq(d, 1) + "k IN (" + dialect.Placeholders(d, o+1, n) + ")"
}

// randomRangesStatement is select_random_ranges.lua's statement with n
// ranges: SELECT count(k) FROM sbtest1 WHERE k BETWEEN $1 AND $2 OR ...
// OR k BETWEEN $2n-1 AND $2n, on one line. With a tenant: WHERE
// tenant_id=$1 AND (k BETWEEN $2 AND $3 OR ...).
func randomRangesStatement(d dialect.Dialect, c *config, n int) string {
	o := c.tenantParams()
	var b strings.Builder
	b.WriteString("SELECT count(k) FROM sbtest1 WHERE ")
	if o > 0 {
		b.WriteString(c.tenantEq(d, 1) + "(")
	}
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(" OR ")
		}
		b.WriteString("k BETWEEN " + d.Placeholder(o+2*i+1) + " AND " + d.Placeholder(o+2*i+2))
	}
	if o > 0 {
		b.WriteString(")")
	}
	return b.String()
}
