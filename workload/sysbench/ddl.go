package sysbench

import (
	"strconv"
	"strings"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/workload"
)

// tableName returns sbtestN.
func tableName(n int) string { return "sbtest" + strconv.Itoa(n) }

// oltpColumns are the columns of an OLTP table, in the order of the
// initial rows.
var oltpColumns = []string{"id", "k", "c", "pad"}

// tenantColumns are the columns of an OLTP table in tenant column mode.
var tenantColumns = []string{workload.TenantColumn, "id", "k", "c", "pad"}

// columns returns the columns of c's OLTP tables.
func (c *config) columns() []string {
	if c.tenant != 0 {
		return tenantColumns
	}
	return oltpColumns
}

// oltpSchema returns the column list of an OLTP table, sbtestN, as
// sysbench's create_table writes it for the database's driver, but for
// the primary key on PostgreSQL:
//
//	(id SERIAL, k INTEGER DEFAULT '0' NOT NULL, c CHAR(120) DEFAULT '' NOT NULL,
//	 pad CHAR(60) DEFAULT '' NOT NULL)
//
// with id INTEGER NOT NULL when --auto_inc is off. On PostgreSQL the
// PRIMARY KEY (id) is added after the load (see secondaryIndexes): the
// tables end up as sysbench's, and building the key once, sorted, instead
// of row by row makes the load about a quarter faster. On MySQL, whose
// InnoDB tables are clustered on their primary key, the key stays inline,
// as the KEY xid (id) that replaces it with --secondary.
//
// This and secondaryIndexes are the one place that looks at the
// dialect's name, as sysbench confines its own driver check to
// create_table: the id column's auto-increment and where its index is
// declared are the only SQL of the schema that differs between PostgreSQL
// and MySQL. MySQL is not supported yet; its branch follows sysbench's
// mysql driver and is untested.
func oltpSchema(d dialect.Dialect, c *config) string {
	s := "(" + c.tenantCol(" INT NOT NULL, ") + "id "
	mysql := d.Name() == "mysql"
	switch {
	case mysql && c.autoInc:
		s += "INTEGER NOT NULL AUTO_INCREMENT"
	case c.autoInc:
		s += "SERIAL"
	default:
		s += "INTEGER NOT NULL"
	}
	s += ", k INTEGER DEFAULT '0' NOT NULL, c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL"
	switch {
	case mysql && c.secondary:
		s += ", KEY xid (" + c.tenantCol(", ") + "id)"
	case mysql:
		s += ", PRIMARY KEY (" + c.tenantCol(", ") + "id)"
	}
	return s + ")"
}

// secondaryIndexes returns the statements run on sbtestN after its load.
// On PostgreSQL: the primary key on id (see oltpSchema) or, with
// --secondary, the non-unique index xid_N on id that replaces it
// (sysbench's inline KEY xid is MySQL syntax, and PostgreSQL index names
// are unique per schema). Then, with --create_secondary, sysbench's k_N
// on k.
func secondaryIndexes(d dialect.Dialect, c *config, n int) []string {
	t := tableName(n)
	var idx []string
	switch {
	case d.Name() == "mysql":
	case c.secondary:
		idx = append(idx, "CREATE INDEX xid_"+strconv.Itoa(n)+" ON "+t+"("+c.tenantCol(", ")+"id)")
	default:
		idx = append(idx, "ALTER TABLE "+t+" ADD PRIMARY KEY ("+c.tenantCol(", ")+"id)")
	}
	if c.createSecondary {
		idx = append(idx, "CREATE INDEX k_"+strconv.Itoa(n)+" ON "+t+"("+c.tenantCol(", ")+"k)")
	}
	return idx
}

// OwnsIndex reports whether index is one a load of sysbench's tables
// makes on table (k_N and xid_N on sbtestN), whatever --tables,
// --create_secondary or --secondary say now (workload.IndexOwner).
func (g *generator) OwnsIndex(table, index string) bool {
	n, ok := strings.CutPrefix(table, "sbtest")
	if !ok || n == "" {
		return false
	}
	return index == "k_"+n || index == "xid_"+n
}

// serialSync returns the statement that moves sbtestN's id sequence past
// the ids the loader copied in, or "" when the dialect needs none. The
// loader copies explicit ids 1..table_size, which a PostgreSQL SERIAL's
// sequence does not see (sysbench's prepare lets the sequence number the
// rows instead); without this, oltp_insert's first inserts would collide
// with the loaded rows. MySQL's AUTO_INCREMENT follows explicit ids by
// itself. Like oltpSchema, it belongs to the table's DDL.
func serialSync(d dialect.Dialect, n int) string {
	if n := d.Name(); n != "postgres" && n != "greenplum" {
		return ""
	}
	t := tableName(n)
	return "SELECT setval(pg_get_serial_sequence('" + t + "', 'id'), coalesce(max(id), 0) + 1, false) FROM " + t
}

// bulkSchema is bulk_insert's table: (id INTEGER NOT NULL, k INTEGER
// DEFAULT '0' NOT NULL, PRIMARY KEY (id)), the same in every dialect.
const bulkSchema = "(id INTEGER NOT NULL, k INTEGER DEFAULT '0' NOT NULL, PRIMARY KEY (id))"
