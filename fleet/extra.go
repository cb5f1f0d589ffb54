package fleet

import (
	"fmt"
	"strings"

	"github.com/stampede-bench/stampede/dialect"
)

// extraTypes are the column types extra tables draw from: fixed-width and
// variable-width (TOASTable) types, as real applications' tables mix them.
var extraTypes = []string{
	"INT", "BIGINT", "TEXT", "VARCHAR(64)", "NUMERIC(12,2)", "TIMESTAMPTZ",
	"BOOLEAN", "JSONB", "UUID", "DATE", "DOUBLE PRECISION", "SMALLINT",
}

// ExtraTableName returns the name of extra table n (1-based): extra_001.
func ExtraTableName(n int) string { return fmt.Sprintf("extra_%03d", n) }

// ExtraTableDDL returns the statements that create extra table n (1-based),
// an empty table whose shape is a deterministic function of n: 2 to 9
// columns of varied types after an id primary key, and a secondary index
// on every third table (two on every ninth). schema, when not empty,
// qualifies the names. Tenants get K such tables each (--extra-tables K) to
// reach the table counts of real database-per-tenant fleets.
func ExtraTableDDL(d dialect.Dialect, schema string, n int) []string {
	name := ExtraTableName(n)
	qual := d.QuoteIdent(name)
	if schema != "" {
		qual = d.QuoteIdent(schema) + "." + qual
	}
	cols := 2 + (n*5)%8 // 2..9
	var b strings.Builder
	b.WriteString("CREATE TABLE " + qual + " (id BIGINT PRIMARY KEY")
	for c := 1; c <= cols; c++ {
		typ := extraTypes[(n*7+c*3)%len(extraTypes)]
		fmt.Fprintf(&b, ", c%d %s", c, typ)
		if c == 1 {
			b.WriteString(" NOT NULL")
		}
	}
	b.WriteString(")")
	stmts := []string{b.String()}
	if n%3 == 0 {
		stmts = append(stmts, fmt.Sprintf("CREATE INDEX %s ON %s (c1)", d.QuoteIdent(name+"_c1_idx"), qual))
	}
	if n%9 == 0 {
		stmts = append(stmts, fmt.Sprintf("CREATE INDEX %s ON %s (c2, c1)", d.QuoteIdent(name+"_c2_c1_idx"), qual))
	}
	return stmts
}
