package dialect

// The statements below mark what stampede creates (tables, schemas,
// databases) with a comment, and read the mark back, so that cleanup and
// --drop touch only what stampede made. PostgreSQL, CockroachDB,
// YugabyteDB and Greenplum share COMMENT ON and obj_description.

// CommentOnTable returns the statement that sets table name's (unquoted)
// comment: COMMENT ON TABLE "name" IS 'text'.
func CommentOnTable(d Dialect, name, text string) string {
	return "COMMENT ON TABLE " + d.QuoteIdent(name) + " IS " + QuoteLiteral(text)
}

// TableCommentQuery returns a query with one placeholder, and the value to
// bind to it, that returns one row with table name's comment (NULL without
// one or without the table), the name resolved through the search path as
// the statements resolve it.
func TableCommentQuery(d Dialect, name string) (string, string) {
	return "SELECT obj_description(to_regclass(" + d.Placeholder(1) + "), 'pg_class')", d.QuoteIdent(name)
}

// CommentOnSchema returns the statement that sets schema name's comment:
// COMMENT ON SCHEMA "name" IS 'text'.
func CommentOnSchema(d Dialect, name, text string) string {
	return "COMMENT ON SCHEMA " + d.QuoteIdent(name) + " IS " + QuoteLiteral(text)
}

// SchemaCommentsQuery returns a query with one placeholder, an array of
// schema names, that returns a row (name, comment or NULL) for each of
// them that exists.
func SchemaCommentsQuery(d Dialect) string {
	return "SELECT nspname, obj_description(oid, 'pg_namespace') FROM pg_namespace WHERE nspname = ANY(" + d.Placeholder(1) + ")"
}

// DatabaseCommentsQuery returns a query with one placeholder, an array of
// database names, that returns a row (name, comment or NULL) for each of
// them that exists.
func DatabaseCommentsQuery(d Dialect) string {
	return "SELECT datname, shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = ANY(" + d.Placeholder(1) + ")"
}

// UserTablesQuery returns a query without placeholders that lists the
// tables of the current database outside the system schemas, as (schema,
// table, comment or NULL).
func UserTablesQuery(d Dialect) string {
	return `SELECT n.nspname, c.relname, obj_description(c.oid, 'pg_class') FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'crdb_internal', 'pg_extension', 'pg_toast')
	AND n.nspname NOT LIKE 'pg\_temp\_%' AND n.nspname NOT LIKE 'pg\_toast\_temp\_%' ORDER BY 1, 2`
}
