package ycsb

import "strings"

// SetColumnFamilies puts each column of the relational layout in a
// column family of its own, as cockroach's ycsb does with --families:
//
//	CREATE TABLE usertable (ycsb_key VARCHAR(255) PRIMARY KEY, field0 TEXT, ...,
//	    FAMILY (ycsb_key), FAMILY (field0), ...)
//
// Column families are CockroachDB's: the caller sets them only on a
// CockroachDB server (cmdline/cockroach does, after asking the server).
// They change nothing in the JSONB layout (--json, one column) nor with a
// tenant, nor in the rows or the statements.
func (g *ycsb) SetColumnFamilies(on bool) {
	g.families = on
	if g.cfg != nil {
		g.cfg.families = on
	}
}

// familyClauses returns ", FAMILY (ycsb_key), FAMILY (field0), ..." when
// the table gets column families, else "".
func (c *config) familyClauses() string {
	if !c.families || c.json || c.tenant != 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(", FAMILY (" + keyColumn + ")")
	for i := 0; i < c.fieldCount; i++ {
		b.WriteString(", FAMILY (" + c.fieldName(i) + ")")
	}
	return b.String()
}
