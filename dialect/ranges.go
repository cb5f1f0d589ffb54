package dialect

import (
	"strings"
)

// RangeSplitter is implemented by dialects whose tables are split into
// ranges that can be split and scattered by hand (CockroachDB's; `cockroach
// workload`'s --split, --splits, --ranges and --scatter). Other servers
// keep a table whole: callers say so and go on.
type RangeSplitter interface {
	// SplitAt returns the statement that splits table name (unquoted) at
	// the given primary key prefixes, each a row of SQL literals.
	SplitAt(name string, points [][]string) string
	// Scatter returns the statement that spreads table name's ranges
	// over the cluster.
	Scatter(name string) string
}

// Importer is implemented by dialects with a server-side bulk import of
// CSV files (CockroachDB's IMPORT INTO).
type Importer interface {
	// ImportInto returns the statement that loads the CSV files at urls
	// into table name's columns.
	ImportInto(name string, columns []string, urls []string) string
}

// HistoricalReader is implemented by dialects that read as of a past
// time (CockroachDB's AS OF SYSTEM TIME, for --aost).
type HistoricalReader interface {
	// AsOf returns the clause that follows a FROM list to read as of
	// expr, an interval or timestamp in SQL ('-1m').
	AsOf(expr string) string
}

var (
	_ RangeSplitter    = Cockroach{}
	_ Importer         = Cockroach{}
	_ HistoricalReader = Cockroach{}
)

// SplitAt implements RangeSplitter:
//
//	ALTER TABLE "bank" SPLIT AT VALUES (100), (200)
func (c Cockroach) SplitAt(name string, points [][]string) string {
	var b strings.Builder
	b.WriteString("ALTER TABLE " + c.QuoteIdent(name) + " SPLIT AT VALUES ")
	for i, p := range points {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("(" + strings.Join(p, ", ") + ")")
	}
	return b.String()
}

// Scatter implements RangeSplitter: ALTER TABLE "bank" SCATTER.
func (c Cockroach) Scatter(name string) string {
	return "ALTER TABLE " + c.QuoteIdent(name) + " SCATTER"
}

// ImportInto implements Importer:
//
//	IMPORT INTO "bank" ("id", "balance", "payload") CSV DATA ('http://h/1.csv', 'http://h/2.csv')
func (c Cockroach) ImportInto(name string, columns []string, urls []string) string {
	cols := make([]string, len(columns))
	for i, col := range columns {
		cols[i] = c.QuoteIdent(col)
	}
	files := make([]string, len(urls))
	for i, u := range urls {
		files[i] = QuoteLiteral(u)
	}
	return "IMPORT INTO " + c.QuoteIdent(name) + " (" + strings.Join(cols, ", ") + ") CSV DATA (" + strings.Join(files, ", ") + ")"
}

// AsOf implements HistoricalReader: AS OF SYSTEM TIME '-1m' for "'-1m'"
// (the expression as given, a quoted literal or a function call).
func (Cockroach) AsOf(expr string) string { return "AS OF SYSTEM TIME " + expr }

// QuoteLiteral quotes s as an SQL string literal, doubling embedded
// quotes.
func QuoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
