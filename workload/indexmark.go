package workload

import "github.com/stampede-bench/stampede/dialect"

// indexMarked returns an SQL condition on the pg_class row ic of an index:
// its comment is stampede's mark bound to the index's own OID
// (dialect.MarkOIDSep), as fleet exec marks an index it made. A mark
// bound to another OID (a table's mark copied onto a user's index with
// COMMENT ON INDEX) and a mark without one (which anyone can write) are
// no mark: the index is the user's.
func indexMarked(ic string) string {
	c := "coalesce(obj_description(" + ic + ".oid, 'pg_class'), '')"
	return "(" + c + " LIKE " + dialect.QuoteLiteral(Mark+" %") + " AND " + c + " ~ '" + dialect.MarkOIDSep + "[0-9]+$' AND right(" + c + ", length(" +
		dialect.QuoteLiteral(dialect.MarkOIDSep) + " || " + ic + ".oid::text)) = " + dialect.QuoteLiteral(dialect.MarkOIDSep) + " || " + ic + ".oid::text)"
}
