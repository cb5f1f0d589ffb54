package dialect

// MarkSchemaInDatabase is MarkSchema with DatabaseOIDTag and the current
// database's OID before the schema's own: "made by stampede fleet tenant
// of bank; database oid 16384; oid 16390". CREATE DATABASE ... TEMPLATE
// keeps the schema's OID, so the copy's schema still carries a mark bound
// to it; the database OID in it tells the copy (a tenant schema whose
// marker the user dropped in a copy of the fleet's database).
// CockroachDB's is MarkSchema's.
func MarkSchemaInDatabase(d Dialect, name, text string) string {
	if d.Name() == "cockroach" {
		return MarkSchema(d, name, text)
	}
	return "DO $stampede$ BEGIN EXECUTE 'COMMENT ON SCHEMA ' || " + QuoteLiteral(d.QuoteIdent(name)) + " || ' IS ' || quote_literal(" +
		QuoteLiteral(text+DatabaseOIDTag) + " || (SELECT oid::text FROM pg_database WHERE datname = current_database()) || " +
		QuoteLiteral(MarkOIDSep) + " || (SELECT oid FROM pg_namespace WHERE nspname = " + QuoteLiteral(name) + ")::text); END $stampede$"
}
