package dialect

import "strings"

// The statements below mark what stampede creates (tables, schemas,
// databases) with a comment, and read the mark back, so that cleanup and
// --drop touch only what stampede made. PostgreSQL, CockroachDB,
// YugabyteDB and Greenplum share COMMENT ON and obj_description.

// CommentOnTable returns the statement that puts stampede's mark text on
// table name (unquoted), bound to the table's identity (CommentOnTableIdent).
func CommentOnTable(d Dialect, name, text string) string {
	return CommentOnTableIdent(d, d.QuoteIdent(name), text)
}

// MarkOIDSep ends a mark bound to its object: "made by stampede ...; oid
// 16385", where 16385 is the OID of the object that carries it. A copy of
// the comment (pg_dump's restore, CREATE TABLE ... LIKE ... INCLUDING
// COMMENTS, a user's hand) sits on an object of another OID, so it is no
// mark (OwnComment).
const MarkOIDSep = "; oid "

// CommentOnTableIdent returns the statement that puts mark text on table
// ident (quoted, schema-qualified or not), followed by MarkOIDSep and the
// table's OID, which the statement reads once the table exists:
//
//	DO $stampede$ BEGIN EXECUTE 'COMMENT ON TABLE ' || '"bank"' || ' IS ' ||
//	  quote_literal('made by stampede ...' || '; oid ' || to_regclass('"bank"')::oid::text); END $stampede$
//
// CockroachDB takes no DO block: there the statement puts text alone (see
// workload.MarkTable for the bound form), which OwnComment accepts as it did
// before marks were bound.
//
// On PostgreSQL the block puts the same mark on the table's row type too
// (rowTypeMark), where a user's COMMENT ON TABLE does not replace it.
func CommentOnTableIdent(d Dialect, ident, text string) string {
	if d.Name() == "cockroach" {
		return "COMMENT ON TABLE " + ident + " IS " + QuoteLiteral(text)
	}
	return markedTableBlock(d, ident, QuoteLiteral(text+MarkOIDSep)+" || to_regclass("+QuoteLiteral(ident)+")::oid::text")
}

// markedTableBlock returns the DO block that puts mark (an SQL text
// expression) on table ident as its comment and, on PostgreSQL, on its
// row type (rowTypeMark).
func markedTableBlock(d Dialect, ident, mark string) string {
	if d.Name() != "postgres" {
		return "DO $stampede$ BEGIN EXECUTE 'COMMENT ON TABLE ' || " + QuoteLiteral(ident) + " || ' IS ' || quote_literal(" + mark + "); END $stampede$"
	}
	return "DO $stampede$ DECLARE m text := " + mark + "; BEGIN EXECUTE 'COMMENT ON TABLE ' || " + QuoteLiteral(ident) + " || ' IS ' || quote_literal(m); " +
		rowTypeMark(QuoteLiteral(ident), "m") + " END $stampede$"
}

// RowTypeMarkSep ends the copy of a table's mark that stampede keeps on
// the table's row type (COMMENT ON TYPE), before the OID of the database
// it was made in: "made by stampede ...; oid 16385; made in database oid
// 5". The mark on the table is its comment, which a user's COMMENT ON
// TABLE replaces (a normal thing to do); the row type's comment is
// nothing a user sets (psql's \dT does not list row types), so it keeps
// saying who made the table, and OwnComment reads it first. Bound to the
// table's OID (MarkOIDSep) and to the database's, a copy of it (CREATE
// DATABASE ... TEMPLATE keeps OIDs; pg_dump does not dump it) is no mark.
const RowTypeMarkSep = "; made in database oid "

// rowTypeMark returns a PL/pgSQL statement that puts mark (an SQL text
// expression: the table's mark, ending in MarkOIDSep and its OID) on the
// row type of table ident (an SQL text expression), followed by
// RowTypeMarkSep and the current database's OID. A relation without a
// row type, or a server that refuses the comment, keeps the mark on the
// table alone.
func rowTypeMark(ident, mark string) string {
	return "BEGIN EXECUTE 'COMMENT ON TYPE ' || (SELECT reltype::regtype::text FROM pg_class WHERE oid = to_regclass(" + ident + ") AND reltype <> 0) || ' IS ' || quote_literal(" +
		mark + " || " + QuoteLiteral(RowTypeMarkSep) + " || (SELECT oid::text FROM pg_database WHERE datname = current_database())); " +
		"EXCEPTION WHEN null_value_not_allowed OR feature_not_supported OR wrong_object_type OR undefined_object THEN NULL; END;"
}

// MarkRowType returns the statement that puts mark, a table's mark as
// its comment carries it (ending in MarkOIDSep and the table's OID), on
// the row type of table ident (quoted, schema-qualified or not), as
// CommentOnTableIdent does; "" on other databases than PostgreSQL.
func MarkRowType(d Dialect, ident, mark string) string {
	if d.Name() != "postgres" {
		return ""
	}
	return "DO $stampede$ BEGIN " + rowTypeMark(QuoteLiteral(ident), QuoteLiteral(mark)) + " END $stampede$"
}

// DatabaseOIDTag, in a mark, precedes the OID of the database the marked
// object was made in: CREATE DATABASE ... TEMPLATE copies the object, its
// OID and so its bound mark (MarkOIDSep), but the copy is another
// database, of another OID (see CommentOnTableInDatabase).
const DatabaseOIDTag = "; database oid "

// CommentOnTableInDatabase is CommentOnTableIdent with DatabaseOIDTag and
// the current database's OID before the table's own: the mark of a
// schema- or column-mode fleet's marker, whose copy in a copied database
// names the database it was made in. CockroachDB's is CommentOnTableIdent's.
func CommentOnTableInDatabase(d Dialect, ident, text string) string {
	if d.Name() == "cockroach" {
		return CommentOnTableIdent(d, ident, text)
	}
	return markedTableBlock(d, ident, QuoteLiteral(text+DatabaseOIDTag)+" || (SELECT oid::text FROM pg_database WHERE datname = current_database()) || "+
		QuoteLiteral(MarkOIDSep)+" || to_regclass("+QuoteLiteral(ident)+")::oid::text")
}

// TableOIDQuery returns a query with one placeholder, and the value to bind
// to it, that returns table name's OID as text (NULL without the table),
// for a mark bound to it (MarkOIDSep).
func TableOIDQuery(d Dialect, name string) (string, string) {
	return "SELECT to_regclass(" + d.Placeholder(1) + ")::oid::text", d.QuoteIdent(name)
}

// TableCommentQuery returns a query with one placeholder, and the value to
// bind to it, that returns one row with table name's comment as
// OwnComment judges it (NULL without one, without the table, or when it is
// a copy of a mark), the name resolved through the search path as the
// statements resolve it.
func TableCommentQuery(d Dialect, name string) (string, string) {
	return "SELECT " + OwnComment(d, "to_regclass("+d.Placeholder(1)+")", "pg_class"), d.QuoteIdent(name)
}

// TableMarkQuery is TableCommentQuery with a second column: the comment as
// it is, which ends in MarkOIDSep and the OID when the mark is bound.
func TableMarkQuery(d Dialect, name string) (string, string) {
	q, arg := TableCommentQuery(d, name)
	return q + ", obj_description(to_regclass(" + d.Placeholder(1) + "), 'pg_class')", arg
}

// OwnComment returns an SQL expression: the comment of the object whose OID
// is the expression oid in catalog ("pg_class", "pg_proc", "pg_namespace",
// "pg_database"), as stampede reads its mark. A comment ending in
// MarkOIDSep and a number is the mark of the object of that OID: the
// expression gives it without that ending on that object, and NULL on any
// other (a copy, which the restore or copy put on an object of a new OID:
// the user's). A mark of the older form, without an OID, is kept only
// where init's record (a table named as stampede_load) is in the object's
// own schema, or is in the schema itself (legacyVouched), where
// workload.TableComment and workload.Objects check that the record is of
// the mark's data; PostgreSQL gives it NULL elsewhere, and always on a
// database, which holds no record of its own. CockroachDB, whose marks
// written by statements carry no OID (see CommentOnTableIdent), keeps
// them as they are. Any other comment is as it is. On PostgreSQL, a
// relation whose comment is no mark (a user's COMMENT ON TABLE replaced
// it, or removed it) reads as the mark on its row type (RowTypeMarkSep)
// when it has one: commenting a table stampede made does not make it the
// user's.
func OwnComment(d Dialect, oid, catalog string) string {
	c := "obj_description(" + oid + ", '" + catalog + "')"
	if catalog == "pg_database" {
		c = "shobj_description(" + oid + ", 'pg_database')"
	}
	tag := "('" + MarkOIDSep + "' || (" + oid + ")::oid::text)"
	legacy := c
	if d.Name() != "cockroach" {
		legacy = "CASE WHEN " + c + " LIKE 'made by stampede %' AND NOT " + legacyVouched(oid, catalog) + " THEN NULL ELSE " + c + " END"
	}
	own := "(CASE WHEN " + c + " ~ '^made by stampede .*; oid [0-9]+$' THEN CASE WHEN right(" + c + ", length(" + tag + ")) = " + tag +
		" THEN substr(" + c + ", 1, length(" + c + ") - length(" + tag + ")) END ELSE " + legacy + " END)"
	if catalog != "pg_class" || d.Name() != "postgres" {
		return own
	}
	// The comment's mark when it is one (it says what the row type's
	// does, or is an older stampede's), else the row type's, else the
	// comment (the user's).
	return "coalesce(CASE WHEN " + own + " LIKE 'made by stampede %' THEN " + own + " END, " + rowTypeOwn(oid) + ", " + own + ")"
}

// rowTypeOwn returns an SQL expression: the mark stampede put on the row
// type of the relation whose OID is the expression oid (RowTypeMarkSep),
// without its OIDs, when it is bound to that relation and made in the
// current database; NULL otherwise (none, or a copy: another relation's,
// another database's).
func rowTypeOwn(oid string) string {
	// oid is evaluated in a VALUES list, as in legacyVouched.
	t := "(SELECT obj_description(mark_rel.reltype, 'pg_type') FROM (VALUES ((" + oid + ")::oid)) AS mark_arg(o) JOIN pg_class mark_rel ON mark_rel.oid = mark_arg.o AND mark_rel.reltype <> 0)"
	db := "(" + QuoteLiteral(RowTypeMarkSep) + " || (SELECT oid::text FROM pg_database WHERE datname = current_database()))"
	inner := "substr(" + t + ", 1, length(" + t + ") - length(" + db + "))"
	tag := "('" + MarkOIDSep + "' || (" + oid + ")::oid::text)"
	return "(CASE WHEN " + t + " ~ '^made by stampede .*; oid [0-9]+" + RowTypeMarkSep + "[0-9]+$' AND right(" + t + ", length(" + db + ")) = " + db +
		" AND right(" + inner + ", length(" + tag + ")) = " + tag + " THEN substr(" + inner + ", 1, length(" + inner + ") - length(" + tag + ")) END)"
}

// legacyVouched returns an SQL condition: a table named as init's record
// (stampede_load) is in the schema of the object whose OID is oid in
// catalog (the schema itself for "pg_namespace"); false for a catalog of
// objects outside schemas (a database).
func legacyVouched(oid, catalog string) string {
	// oid is evaluated in a VALUES list, where no catalog's own oid
	// column hides the caller's: a bare "oid" is the caller's row's.
	arg := "(VALUES ((" + oid + ")::oid)) AS legacy_arg(o)"
	ns := map[string]string{"pg_class": "relnamespace", "pg_proc": "pronamespace", "pg_type": "typnamespace"}
	var from string
	switch col, ok := ns[catalog]; {
	case ok:
		from = arg + " JOIN " + catalog + " legacy_obj ON legacy_obj.oid = legacy_arg.o JOIN pg_class legacy_rec ON legacy_rec.relnamespace = legacy_obj." + col
	case catalog == "pg_namespace":
		from = arg + " JOIN pg_class legacy_rec ON legacy_rec.relnamespace = legacy_arg.o"
	default:
		return "false"
	}
	return "EXISTS (SELECT 1 FROM " + from + " WHERE legacy_rec.relname = '" + LoadRecordTableName + "' AND legacy_rec.relkind IN ('r', 'p'))"
}

// LoadRecordTableName is the name of init's record of its loads
// (workload.LoadRecordTable), by which OwnComment finds it.
const LoadRecordTableName = "stampede_load"

// MarkSchema returns the statement that puts mark text on schema name,
// bound to the schema's OID (MarkOIDSep), as CommentOnTableIdent binds a
// table's: a copy on another schema is no mark (OwnComment). CockroachDB
// takes no DO block: there it puts text alone.
func MarkSchema(d Dialect, name, text string) string {
	if d.Name() == "cockroach" {
		return CommentOnSchema(d, name, text)
	}
	return boundComment("SCHEMA", d.QuoteIdent(name), text, "SELECT oid FROM pg_namespace WHERE nspname = "+QuoteLiteral(name))
}

// MarkDatabase returns the statement that puts mark text on database
// name, bound to the database's OID (MarkOIDSep); CockroachDB's is text
// alone (see MarkSchema).
func MarkDatabase(d Dialect, name, text string) string {
	if d.Name() == "cockroach" {
		return CommentOnDatabase(d, name, text)
	}
	return boundComment("DATABASE", d.QuoteIdent(name), text, "SELECT oid FROM pg_database WHERE datname = "+QuoteLiteral(name))
}

// boundComment returns the DO block that comments on object kind ident
// with text, MarkOIDSep and the OID that query returns.
func boundComment(kind, ident, text, query string) string {
	return "DO $stampede$ BEGIN EXECUTE 'COMMENT ON " + kind + " ' || " + QuoteLiteral(ident) + " || ' IS ' || quote_literal(" +
		QuoteLiteral(text+MarkOIDSep) + " || (" + query + ")::text); END $stampede$"
}

// CommentOnSchema returns the statement that sets schema name's comment:
// COMMENT ON SCHEMA "name" IS 'text'.
func CommentOnSchema(d Dialect, name, text string) string {
	return "COMMENT ON SCHEMA " + d.QuoteIdent(name) + " IS " + QuoteLiteral(text)
}

// SchemaCommentsQuery returns a query with one placeholder, an array of
// schema names, that returns a row (name, comment or NULL) for each of
// them that exists, the comment as OwnComment judges it.
func SchemaCommentsQuery(d Dialect) string {
	return "SELECT nspname, " + OwnComment(d, "oid", "pg_namespace") + " FROM pg_namespace WHERE nspname = ANY(" + d.Placeholder(1) + ")"
}

// DatabaseCommentsQuery returns a query with one placeholder, an array of
// database names, that returns a row (name, comment or NULL) for each of
// them that exists, the comment as OwnComment judges it.
func DatabaseCommentsQuery(d Dialect) string {
	return "SELECT datname, " + OwnComment(d, "oid", "pg_database") + " FROM pg_database WHERE datname = ANY(" + d.Placeholder(1) + ")"
}

// UserTablesQuery returns a query without placeholders that lists the
// tables of the current database outside the system schemas, as (schema,
// table, comment or NULL).
func UserTablesQuery(d Dialect) string {
	return `SELECT n.nspname, c.relname, obj_description(c.oid, 'pg_class') FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'crdb_internal', 'pg_extension', 'pg_toast')
	AND n.nspname NOT LIKE 'pg\_temp\_%' AND n.nspname NOT LIKE 'pg\_toast\_temp\_%' ORDER BY 1, 2`
}

// UserObjectsQuery returns a query without placeholders that lists every
// object of the current database that a user can make and that is not a
// part of another (an extension's members, a table's row type, the
// sequence of a serial or identity column, a range's functions), outside
// the system schemas, as (kind, name, comment or NULL): tables,
// partitioned tables and their partitions, foreign tables, views,
// materialized views, sequences, functions, procedures, aggregates, types
// and domains, collations, operators, operator classes and families,
// conversions, statistics objects, text search configurations,
// dictionaries, parsers and templates, schemas (but public), extensions
// (but plpgsql), publications, subscriptions, foreign-data wrappers,
// servers and user mappings, access methods, languages, casts and
// transforms that are not the system's, event triggers and large objects
// (one row counting them).
// A sequence a user made OWNED BY a column is listed unless the column's
// default draws from it (as serial's does); a partitioned table's own
// columns depending on it (PostgreSQL's partition key) make it no member.
// The other dialects (CockroachDB without PostgreSQL's pg_depend,
// Greenplum 6 without prokind and relispartition) list their tables,
// views and sequences.
func UserObjectsQuery(d Dialect) string {
	if d.Name() != "postgres" {
		return `SELECT CASE c.relkind WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view' WHEN 'S' THEN 'sequence' ELSE 'table' END,
	n.nspname || '.' || c.relname, ` + OwnComment(d, "c.oid", "pg_class") + ` FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S') AND ` + userSchema + ` ORDER BY 1, 2`
	}
	return `WITH member AS (
		SELECT classid, objid FROM pg_depend WHERE objsubid = 0 AND (deptype = 'e' AND refclassid = 'pg_extension'::regclass
			OR deptype = 'i' AND refclassid IN ('pg_class'::regclass, 'pg_type'::regclass) AND NOT (classid = refclassid AND objid = refobjid))
		UNION ALL
		SELECT d.classid, d.objid FROM pg_depend d
		JOIN pg_attrdef ad ON ad.adrelid = d.refobjid AND ad.adnum = d.refobjsubid
		JOIN pg_depend dd ON dd.classid = 'pg_attrdef'::regclass AND dd.objid = ad.oid AND dd.refclassid = 'pg_class'::regclass AND dd.refobjid = d.objid
		WHERE d.deptype = 'a' AND d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_class'::regclass AND d.refobjsubid > 0
	)
	SELECT CASE WHEN c.relispartition THEN 'partition' ELSE CASE c.relkind WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view' WHEN 'S' THEN 'sequence'
		WHEN 'f' THEN 'foreign table' WHEN 'p' THEN 'partitioned table' ELSE 'table' END END,
		n.nspname || '.' || c.relname, ` + OwnComment(d, "c.oid", "pg_class") + `
	FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S') AND ` + userSchema + `
		AND NOT EXISTS (SELECT 1 FROM member m WHERE m.classid = 'pg_class'::regclass AND m.objid = c.oid)
	UNION ALL
	SELECT CASE p.prokind WHEN 'p' THEN 'procedure' WHEN 'a' THEN 'aggregate' ELSE 'function' END,
		n.nspname || '.' || p.proname, ` + OwnComment(d, "p.oid", "pg_proc") + `
	FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
	WHERE ` + userSchema + ` AND NOT EXISTS (SELECT 1 FROM member m WHERE m.classid = 'pg_proc'::regclass AND m.objid = p.oid)
	UNION ALL
	SELECT CASE t.typtype WHEN 'd' THEN 'domain' ELSE 'type' END, n.nspname || '.' || t.typname, ` + OwnComment(d, "t.oid", "pg_type") + `
	FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
	WHERE ` + userSchema + ` AND t.typtype IN ('b', 'c', 'd', 'e', 'r') AND t.typelem = 0
		AND (t.typrelid = 0 OR (SELECT relkind FROM pg_class WHERE oid = t.typrelid) = 'c')
		AND NOT EXISTS (SELECT 1 FROM member m WHERE m.classid = 'pg_type'::regclass AND m.objid = t.oid)
	UNION ALL
	SELECT 'collation', n.nspname || '.' || o.collname, obj_description(o.oid, 'pg_collation')
	FROM pg_collation o JOIN pg_namespace n ON n.oid = o.collnamespace
	WHERE ` + userSchema + ` AND NOT EXISTS (SELECT 1 FROM member m WHERE m.classid = 'pg_collation'::regclass AND m.objid = o.oid)
	UNION ALL
	SELECT 'operator', n.nspname || '.' || o.oprname, obj_description(o.oid, 'pg_operator')
	FROM pg_operator o JOIN pg_namespace n ON n.oid = o.oprnamespace
	WHERE ` + userSchema + ` AND NOT EXISTS (SELECT 1 FROM member m WHERE m.classid = 'pg_operator'::regclass AND m.objid = o.oid)
	UNION ALL
	SELECT 'schema', n.nspname, ` + OwnComment(d, "n.oid", "pg_namespace") + ` FROM pg_namespace n
	WHERE ` + userSchema + ` AND n.nspname <> 'public'
		AND NOT EXISTS (SELECT 1 FROM member m WHERE m.classid = 'pg_namespace'::regclass AND m.objid = n.oid)
	UNION ALL
	SELECT 'extension', extname, ` + OwnComment(d, "oid", "pg_extension") + ` FROM pg_extension WHERE extname <> 'plpgsql'
	UNION ALL
	SELECT 'publication', pubname, obj_description(oid, 'pg_publication') FROM pg_publication
	UNION ALL
	SELECT 'text search configuration', n.nspname || '.' || o.cfgname, obj_description(o.oid, 'pg_ts_config')
	FROM pg_ts_config o JOIN pg_namespace n ON n.oid = o.cfgnamespace
	WHERE ` + userSchema + ` AND NOT EXISTS (SELECT 1 FROM member m WHERE m.classid = 'pg_ts_config'::regclass AND m.objid = o.oid)
	UNION ALL
	SELECT 'text search dictionary', n.nspname || '.' || o.dictname, obj_description(o.oid, 'pg_ts_dict')
	FROM pg_ts_dict o JOIN pg_namespace n ON n.oid = o.dictnamespace
	WHERE ` + userSchema + ` AND NOT EXISTS (SELECT 1 FROM member m WHERE m.classid = 'pg_ts_dict'::regclass AND m.objid = o.oid)
	UNION ALL
	SELECT 'text search parser', n.nspname || '.' || o.prsname, obj_description(o.oid, 'pg_ts_parser')
	FROM pg_ts_parser o JOIN pg_namespace n ON n.oid = o.prsnamespace
	WHERE ` + userSchema + ` AND NOT EXISTS (SELECT 1 FROM member m WHERE m.classid = 'pg_ts_parser'::regclass AND m.objid = o.oid)
	UNION ALL
	SELECT 'text search template', n.nspname || '.' || o.tmplname, obj_description(o.oid, 'pg_ts_template')
	FROM pg_ts_template o JOIN pg_namespace n ON n.oid = o.tmplnamespace
	WHERE ` + userSchema + ` AND NOT EXISTS (SELECT 1 FROM member m WHERE m.classid = 'pg_ts_template'::regclass AND m.objid = o.oid)
	UNION ALL
	SELECT 'operator family', n.nspname || '.' || o.opfname, obj_description(o.oid, 'pg_opfamily')
	FROM pg_opfamily o JOIN pg_namespace n ON n.oid = o.opfnamespace
	WHERE ` + userSchema + ` AND NOT EXISTS (SELECT 1 FROM member m WHERE m.classid = 'pg_opfamily'::regclass AND m.objid = o.oid)
	UNION ALL
	SELECT 'operator class', n.nspname || '.' || o.opcname, obj_description(o.oid, 'pg_opclass')
	FROM pg_opclass o JOIN pg_namespace n ON n.oid = o.opcnamespace
	WHERE ` + userSchema + ` AND NOT EXISTS (SELECT 1 FROM member m WHERE m.classid = 'pg_opclass'::regclass AND m.objid = o.oid)
	UNION ALL
	SELECT 'conversion', n.nspname || '.' || o.conname, obj_description(o.oid, 'pg_conversion')
	FROM pg_conversion o JOIN pg_namespace n ON n.oid = o.connamespace
	WHERE ` + userSchema + ` AND NOT EXISTS (SELECT 1 FROM member m WHERE m.classid = 'pg_conversion'::regclass AND m.objid = o.oid)
	UNION ALL
	SELECT 'statistics object', n.nspname || '.' || o.stxname, obj_description(o.oid, 'pg_statistic_ext')
	FROM pg_statistic_ext o JOIN pg_namespace n ON n.oid = o.stxnamespace
	WHERE ` + userSchema + ` AND NOT EXISTS (SELECT 1 FROM member m WHERE m.classid = 'pg_statistic_ext'::regclass AND m.objid = o.oid)
	UNION ALL
	SELECT 'foreign-data wrapper', x.fdwname, obj_description(x.oid, 'pg_foreign_data_wrapper') FROM pg_foreign_data_wrapper x
	WHERE true AND NOT EXISTS (SELECT 1 FROM member m WHERE m.classid = 'pg_foreign_data_wrapper'::regclass AND m.objid = x.oid)
	UNION ALL
	SELECT 'server', x.srvname, obj_description(x.oid, 'pg_foreign_server') FROM pg_foreign_server x
	WHERE true AND NOT EXISTS (SELECT 1 FROM member m WHERE m.classid = 'pg_foreign_server'::regclass AND m.objid = x.oid)
	UNION ALL
	SELECT 'access method', x.amname, obj_description(x.oid, 'pg_am') FROM pg_am x
	WHERE x.oid >= 16384 AND NOT EXISTS (SELECT 1 FROM member m WHERE m.classid = 'pg_am'::regclass AND m.objid = x.oid)
	UNION ALL
	SELECT 'language', x.lanname, obj_description(x.oid, 'pg_language') FROM pg_language x
	WHERE x.oid >= 16384 AND NOT EXISTS (SELECT 1 FROM member m WHERE m.classid = 'pg_language'::regclass AND m.objid = x.oid)
	UNION ALL
	SELECT 'cast', format_type(x.castsource, NULL) || ' AS ' || format_type(x.casttarget, NULL), obj_description(x.oid, 'pg_cast') FROM pg_cast x
	WHERE x.oid >= 16384 AND NOT EXISTS (SELECT 1 FROM member m WHERE m.classid = 'pg_cast'::regclass AND m.objid = x.oid)
	UNION ALL
	SELECT 'transform', format_type(x.trftype, NULL) || ' LANGUAGE ' || (SELECT lanname FROM pg_language WHERE oid = x.trflang), obj_description(x.oid, 'pg_transform') FROM pg_transform x
	WHERE true AND NOT EXISTS (SELECT 1 FROM member m WHERE m.classid = 'pg_transform'::regclass AND m.objid = x.oid)
	UNION ALL
	SELECT 'event trigger', x.evtname, obj_description(x.oid, 'pg_event_trigger') FROM pg_event_trigger x
	WHERE true AND NOT EXISTS (SELECT 1 FROM member m WHERE m.classid = 'pg_event_trigger'::regclass AND m.objid = x.oid)
	UNION ALL
	SELECT 'subscription', x.subname, obj_description(x.oid, 'pg_subscription') FROM pg_subscription x
	WHERE x.subdbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND NOT EXISTS (SELECT 1 FROM member m WHERE m.classid = 'pg_subscription'::regclass AND m.objid = x.oid)
	UNION ALL
	SELECT 'user mapping', u.usename || ' on server ' || u.srvname, NULL FROM pg_user_mappings u
	UNION ALL
	SELECT 'large object', count(*)::text, NULL FROM pg_largeobject_metadata HAVING count(*) > 0
	ORDER BY 1, 2`
}

// LegacyMarksQuery returns a query without placeholders that lists the
// tables (and views, sequences), routines and types of the current
// database whose comment is a mark of stampede's older form, without an
// OID (MarkOIDSep), as (schema, name, comment): OwnComment keeps those
// where init's record is in the same schema, and the caller checks that
// the record names the mark's data (workload.Objects).
func LegacyMarksQuery(d Dialect) string {
	const legacy = ` LIKE 'made by stampede %' AND `
	var parts []string
	for _, c := range []struct{ catalog, alias, name, ns string }{
		{"pg_class", "c", "relname", "relnamespace"}, {"pg_proc", "p", "proname", "pronamespace"}, {"pg_type", "t", "typname", "typnamespace"},
	} {
		desc := "obj_description(" + c.alias + ".oid, '" + c.catalog + "')"
		parts = append(parts, "SELECT n.nspname, "+c.alias+"."+c.name+", "+desc+" FROM "+c.catalog+" "+c.alias+
			" JOIN pg_namespace n ON n.oid = "+c.alias+"."+c.ns+" WHERE "+desc+legacy+desc+" !~ '; oid [0-9]+$' AND "+userSchema)
	}
	return strings.Join(parts, "\nUNION ALL\n")
}

// userSchema is the condition on n, a pg_namespace row, of a schema
// outside the system's.
const userSchema = `n.nspname NOT IN ('pg_catalog', 'information_schema', 'crdb_internal', 'pg_extension', 'pg_toast')
	AND n.nspname NOT LIKE 'pg\_temp\_%' AND n.nspname NOT LIKE 'pg\_toast\_temp\_%'`

// SchemaPublicationsQuery returns a query without placeholders that says
// (one row, a bool) whether the server has publications of whole schemas
// (pg_publication_namespace: PostgreSQL 15's FOR TABLES IN SCHEMA), for
// PublicationsQuery; "" where the dialect has no publications.
func SchemaPublicationsQuery(d Dialect) string {
	if d.Name() != "postgres" {
		return ""
	}
	return "SELECT to_regclass('pg_catalog.pg_publication_namespace') IS NOT NULL"
}

// PublicationsQuery returns a query with two placeholders, an array of
// schema names and an array of (quoted) table names resolved through the
// search path, that lists, as "publication NAME (FOR ALL TABLES)" and
// "publication NAME (FOR TABLES IN SCHEMA S)", the publications that
// publish a table of those schemas or one of those tables without naming
// it (a publication that names a table is a member of pg_publication_rel,
// which depends on the table): dropping it changes what they replicate.
// bySchema includes the publications of whole schemas, which a server
// without pg_publication_namespace (before PostgreSQL 15, see
// SchemaPublicationsQuery) has not. A publication stampede made (init
// sql's file's, carrying its mark bound to its OID) is stampede's, not a
// user's: it is left out, and goes with what init made. "" where the
// dialect has no publications.
func PublicationsQuery(d Dialect, bySchema bool) string {
	if d.Name() != "postgres" {
		return ""
	}
	notOurs := " AND coalesce(" + OwnComment(d, "p.oid", "pg_publication") + ", '') NOT LIKE 'made by stampede %'"
	q := `WITH dropped AS (
	SELECT c.oid, c.relnamespace FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	WHERE c.relkind IN ('r', 'p') AND (n.nspname = ANY(` + d.Placeholder(1) + `) OR c.oid = ANY(SELECT to_regclass(t) FROM unnest(` + d.Placeholder(2) + `::text[]) t))
)
SELECT 'publication ' || quote_ident(p.pubname) || ' (FOR ALL TABLES)' FROM pg_publication p
WHERE p.puballtables AND EXISTS (SELECT 1 FROM dropped)` + notOurs
	if bySchema {
		q += `
UNION
SELECT 'publication ' || quote_ident(p.pubname) || ' (FOR TABLES IN SCHEMA ' || quote_ident(n.nspname) || ')'
FROM pg_publication_namespace pn JOIN pg_publication p ON p.oid = pn.pnpubid JOIN pg_namespace n ON n.oid = pn.pnnspid
WHERE (n.nspname = ANY(` + d.Placeholder(1) + `) OR pn.pnnspid IN (SELECT relnamespace FROM dropped))` + notOurs
	}
	return q + "\nORDER BY 1"
}
