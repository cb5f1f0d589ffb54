package fleet

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// outsideMark returns the SQL expression of the mark fleet exec puts on
// the object of OID expression oid outside the current schema (a schema,
// an extension, what another schema holds): execMark, the current
// database's OID (dialect.DatabaseOIDTag, as a tenant schema's mark
// carries it) and the object's own OID. A copy of the database made with
// CREATE DATABASE ... TEMPLATE keeps the OIDs but not the database's, so
// the copy's objects carry no mark of its own (ownOutsideMark).
func outsideMark(oid string) string {
	return "'" + execMark + dialect.DatabaseOIDTag + "' || (SELECT oid FROM pg_database WHERE datname = current_database()) || '" + dialect.MarkOIDSep + "' || " + oid
}

// ownOutsideMark returns an SQL condition: the object of OID expression
// oid in catalog carries outsideMark, bound to its own OID and naming the
// current database.
func ownOutsideMark(d dialect.Dialect, oid, catalog string) string {
	return dialect.OwnComment(d, oid, catalog) + " = '" + execMark + dialect.DatabaseOIDTag + "' || (SELECT oid::text FROM pg_database WHERE datname = current_database())"
}

// outsideSchemas is, as n, the schemas other than the current one and
// the system's that are no tenant of any fleet (neither stampede's tenant
// mark on them nor a marker table in them): where fleet exec's statement
// may make objects that no tenant holds.
const outsideSchemas = `(SELECT * FROM pg_namespace n WHERE n.nspname <> current_schema() AND n.nspname NOT LIKE 'pg\_%' AND n.nspname <> 'information_schema'
		AND coalesce(obj_description(n.oid, 'pg_namespace'), '') NOT LIKE '` + tenantMarkPrefix + `%'
		AND NOT EXISTS (SELECT 1 FROM pg_class m WHERE m.relnamespace = n.oid AND m.relname = '` + MarkerTable + `')) n`

// hereOrOutside is the condition on n, a pg_namespace row, of the
// current schema or one of outsideSchemas.
const hereOrOutside = `(n.nspname = current_schema() OR n.oid IN (SELECT n.oid FROM ` + outsideSchemas + `))`

// notMember returns an SQL condition: the object of OID expression oid
// in catalog is no extension's member (CREATE EXTENSION makes those, and
// DROP EXTENSION drops them).
func notMember(catalog, oid string) string {
	return "NOT EXISTS (SELECT 1 FROM pg_depend e WHERE e.classid = '" + catalog + "'::regclass AND e.objid = " + oid + " AND e.deptype = 'e')"
}

// outsideObject is an object fleet exec made outside the tenants.
type outsideObject struct {
	ref workload.ObjectRef
	// kind is what DROP names ("VIEW", "TABLE", "ROUTINE", "EXTENSION",
	// "SCHEMA"...), ident the object as SQL writes it, name as the
	// census names it ("table audit.log").
	kind, ident, name string
	// schema is a schema's own name, an extension's schema; "" for the
	// others.
	schema string
}

// execOutside is what fleet exec made in a schema- or column-mode
// fleet's database outside the tenants (see outsideQuery), which the
// fleet's drop takes after them once no tenant is left there.
type execOutside struct {
	objs []outsideObject
	// keptFor, when set, names the tenants left in the database, for
	// which the objects stay.
	keptFor []string
}

// outsideQuery lists what carries fleet exec's mark bound to itself and
// to the current database (ownOutsideMark) outside the schemas $1 (the
// tenants dropped, and in column mode the current schema, whose objects
// dropColumnFleet drops): schemas; extensions (those in a tenant schema
// too, which the tenant's own drop takes: dropSchemaRestrict); relations
// but indexes, routines, types and domains of the other schemas. Each
// row is its catalog, OID, DROP's kind, SQL's name, the census's name
// and the schema (a schema's own name, an extension's schema).
func outsideQuery(d dialect.Dialect) string {
	ns := "n.nspname <> ALL($1) AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'"
	return `SELECT catalog, oid, kind, ident, (pg_identify_object(catalog::regclass, oid, 0)).type || ' ' || (pg_identify_object(catalog::regclass, oid, 0)).identity, schema
	FROM (SELECT 'pg_namespace' AS catalog, n.oid, 'SCHEMA' AS kind, quote_ident(n.nspname) AS ident, n.nspname::text AS schema FROM pg_namespace n
	WHERE ` + ns + ` AND ` + ownOutsideMark(d, "n.oid", "pg_namespace") + `
	UNION ALL
	SELECT 'pg_extension', x.oid, 'EXTENSION', quote_ident(x.extname), (SELECT nspname::text FROM pg_namespace WHERE oid = x.extnamespace) FROM pg_extension x
	WHERE ` + ownOutsideMark(d, "x.oid", "pg_extension") + `
	UNION ALL
	SELECT 'pg_class', c.oid, CASE c.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'S' THEN 'SEQUENCE' WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END,
		format('%I.%I', n.nspname, c.relname), ''
	FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	WHERE c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f') AND NOT c.relispartition AND ` + ns + ` AND ` + ownOutsideMark(d, "c.oid", "pg_class") + `
	UNION ALL
	SELECT 'pg_proc', p.oid, 'ROUTINE', p.oid::regprocedure::text, ''
	FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
	WHERE ` + ns + ` AND ` + ownOutsideMark(d, "p.oid", "pg_proc") + `
	UNION ALL
	SELECT 'pg_type', t.oid, CASE t.typtype WHEN 'd' THEN 'DOMAIN' ELSE 'TYPE' END, format('%I.%I', n.nspname, t.typname), ''
	FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
	WHERE ` + ns + ` AND (t.typrelid = 0 OR (SELECT relkind FROM pg_class WHERE oid = t.typrelid) = 'c') AND ` + ownOutsideMark(d, "t.oid", "pg_type") + `) x
	ORDER BY 5`
}

// kindOrder is the order in which the fleet's drop takes what fleet exec
// made outside the tenants: what reads or holds others first (a view
// reads a table, a table's column has a type, its default calls a
// function or draws from a sequence, a function takes an extension's
// type), the schemas holding them last.
var kindOrder = []string{"MATERIALIZED VIEW", "VIEW", "TABLE", "FOREIGN TABLE", "ROUTINE", "DOMAIN", "TYPE", "SEQUENCE", "EXTENSION", "SCHEMA"}

// remainingTenantsQuery lists the schemas of the database but those $1
// that a fleet's tenants or marker hold (stampede's tenant mark on them,
// or a marker table in them): tenants that outlive the drop, of this
// fleet (past --tenants) or of another.
const remainingTenantsQuery = `SELECT n.nspname FROM pg_namespace n WHERE n.nspname <> ALL($1)
	AND (coalesce(obj_description(n.oid, 'pg_namespace'), '') LIKE '` + tenantMarkPrefix + `%'
		OR EXISTS (SELECT 1 FROM pg_class m WHERE m.relnamespace = n.oid AND m.relname = '` + MarkerTable + `'))
	ORDER BY 1`

// execOutsideOf returns what fleet exec made in db outside the schemas
// dropped (the tenant schemas, or column mode's current schema with its
// shared tables and marker: see outsideQuery); tenants are the tenant
// schemas, whose extensions their drop takes. When tenants or a marker
// of a fleet outlive the drop (remainingTenantsQuery), nothing of it is
// to drop: keptFor names them, and objs what stays for them.
func execOutsideOf(ctx context.Context, db *sqlx.DB, dropped, tenants []string) (execOutside, error) {
	var out execOutside
	d := db.Dialect()
	if db.Null() || d.Name() != "postgres" {
		return out, nil
	}
	rows, err := db.Query(ctx, outsideQuery(d), nonNilNames(dropped))
	if err != nil {
		return out, fmt.Errorf("listing what fleet exec made outside the tenants: %w", err)
	}
	for rows.Next() {
		var o outsideObject
		if err := rows.Scan(&o.ref.Catalog, &o.ref.OID, &o.kind, &o.ident, &o.name, &o.schema); err != nil {
			rows.Close()
			return out, err
		}
		out.objs = append(out.objs, o)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return out, err
	}
	if len(out.objs) == 0 {
		return out, nil
	}
	rows, err = db.Query(ctx, remainingTenantsQuery, nonNilNames(dropped))
	if err != nil {
		return out, fmt.Errorf("listing the tenants left in database %q: %w", db.Database(), err)
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return out, err
		}
		out.keptFor = append(out.keptFor, s)
	}
	if err := rows.Err(); err != nil || len(out.keptFor) == 0 {
		return out, err
	}
	// What stays: an extension in a tenant schema goes with it.
	out.objs = slices.DeleteFunc(out.objs, func(o outsideObject) bool { return o.kind == "EXTENSION" && slices.Contains(tenants, o.schema) })
	if len(out.objs) == 0 {
		out.keptFor = nil
	}
	return out, nil
}

// nonNilNames is names, or an empty list for nil (a NULL array to the
// server).
func nonNilNames(names []string) []string {
	if names == nil {
		return []string{}
	}
	return names
}

// toDrop reports whether the drop takes x's objects: some, and no
// tenant left for them.
func (x execOutside) toDrop() bool { return len(x.objs) > 0 && len(x.keptFor) == 0 }

// names returns the census's names of x's objects.
func (x execOutside) names() []string {
	out := make([]string, len(x.objs))
	for i, o := range x.objs {
		out[i] = o.name
	}
	return out
}

// refs returns x's objects as DependentsBeyond takes what the caller
// made, when the drop takes them; none otherwise.
func (x execOutside) refs() []workload.ObjectRef {
	if !x.toDrop() {
		return nil
	}
	out := make([]workload.ObjectRef, len(x.objs))
	for i, o := range x.objs {
		out[i] = o.ref
	}
	return out
}

// targets adds to t what the drop takes of x (its schemas, relations,
// types and routines), for DependentsBeyond.
func (x execOutside) targets(t workload.Targets) workload.Targets {
	if !x.toDrop() {
		return t
	}
	t.Schemas, t.Relations = slices.Clone(t.Schemas), slices.Clone(t.Relations)
	for _, o := range x.objs {
		switch o.kind {
		case "SCHEMA":
			t.Schemas = append(t.Schemas, o.schema)
		case "ROUTINE":
			t.Routines = append(t.Routines, o.ident)
		case "DOMAIN", "TYPE":
			t.Types = append(t.Types, o.ident)
		case "EXTENSION":
		default:
			t.Relations = append(t.Relations, o.ident)
		}
	}
	return t
}

// what names x's objects after what else the drop takes: " and what
// fleet exec made outside the tenants (schema audit, table audit.log)".
func (x execOutside) what() string {
	if !x.toDrop() {
		return ""
	}
	return " and what fleet exec made outside the tenants (" + strings.Join(x.names(), ", ") + ")"
}

// surveyOutside finds what fleet exec made in db outside the schemas
// dropped (see execOutsideOf), keeps it in e.outside for the refusals
// (refuseDependents, refuseTableDependents) and the drop (dropOutside),
// and returns the refusal, unless ForceDrop, of what a user put in an
// exec-made schema that the drop would take (a table of the user's in
// schema audit: workload.HoldsForeignError, by action), or a note
// (logged) of what stays for the tenants left.
func (e *env) surveyOutside(ctx context.Context, db *sqlx.DB, dropped, tenants []string, action string) error {
	x, err := execOutsideOf(ctx, db, dropped, tenants)
	if err != nil {
		return err
	}
	e.outside = x
	if len(x.objs) == 0 {
		return nil
	}
	if !x.toDrop() {
		e.logf("kept what fleet exec made outside the tenants (%s): the database still holds the tenants or marker of a fleet in %s", strings.Join(shortList(x.names()), ", "), nameList(shortList(x.keptFor)))
		return nil
	}
	var schemas []string
	for _, o := range x.objs {
		if o.kind == "SCHEMA" {
			schemas = append(schemas, o.schema)
		}
	}
	if len(schemas) == 0 {
		return nil
	}
	objs, err := workload.Objects(ctx, db)
	if err != nil {
		return err
	}
	var here string
	if err := db.QueryRow(ctx, "SELECT oid::text FROM pg_database WHERE datname = current_database()").Scan(&here); err != nil {
		return err
	}
	made, err := execMadeOn(ctx, db)
	if err != nil {
		return err
	}
	holding := map[string][]string{}
	for _, s := range schemas {
		var foreign []string
		for _, o := range objs {
			if o.Schema != s || o.Comment == execMark+dialect.DatabaseOIDTag+here {
				continue
			}
			foreign = append(foreign, o.String())
		}
		attached, err := workload.AttachedForeign(ctx, db, objs, s, foreign)
		if err != nil {
			return err
		}
		if foreign = append(foreign, withoutMade(attached, made)...); len(foreign) > 0 {
			holding[s] = foreign
		}
	}
	return e.refuseHolding("schema", holding, "in "+db.Where()+" (made by stampede fleet exec)", action)
}

// dropOutside drops, once the tenants are gone, what fleet exec made
// outside them that surveyOutside found (e.outside), in one transaction,
// each kind in kindOrder with RESTRICT (with CASCADE under ForceDrop, as
// the refusals said): an object of a user's made since the census fails
// the drop, which then drops nothing of it. It returns the census's names
// of what it dropped.
func (e *env) dropOutside(ctx context.Context, db *sqlx.DB) ([]string, error) {
	x := e.outside
	if !x.toDrop() {
		return nil, nil
	}
	tx, err := db.Begin(ctx, sqlx.TxOptions{})
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	how := ""
	if e.ForceDrop {
		how = " CASCADE"
	}
	for _, k := range kindOrder {
		var idents []string
		for _, o := range x.objs {
			if o.kind == k {
				idents = append(idents, o.ident)
			}
		}
		if len(idents) == 0 {
			continue
		}
		if _, err := tx.Exec(ctx, "DROP "+k+" IF EXISTS "+strings.Join(idents, ", ")+how); err != nil {
			return nil, fmt.Errorf("dropping what fleet exec made outside the tenants (%s): %w: the tenants are dropped; run the same command again to drop the rest", strings.Join(x.names(), ", "), e.explain(err))
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, err
	}
	return x.names(), nil
}

// outsideViewsQuery lists, of the views and materialized views $2
// (OIDs), those that read a relation of the schemas $1, or another such
// view: they must go before the tenant schemas $1, whose drop without
// CASCADE would fail over them.
const outsideViewsQuery = `WITH RECURSIVE v(oid) AS (
	SELECT r.ev_class FROM pg_rewrite r JOIN pg_depend d ON d.classid = 'pg_rewrite'::regclass AND d.objid = r.oid AND d.refclassid = 'pg_class'::regclass
		JOIN pg_class c ON c.oid = d.refobjid
	WHERE r.ev_class = ANY($2) AND c.relnamespace IN (SELECT oid FROM pg_namespace WHERE nspname = ANY($1))
	UNION
	SELECT r.ev_class FROM pg_rewrite r JOIN pg_depend d ON d.classid = 'pg_rewrite'::regclass AND d.objid = r.oid AND d.refclassid = 'pg_class'::regclass
		JOIN v ON v.oid = d.refobjid
	WHERE r.ev_class = ANY($2)
)
SELECT oid FROM v`

// dropOutsideViews drops, before the tenant schemas (tenants), the views
// and materialized views fleet exec made outside them (e.outside) that
// read a tenant's tables (outsideViewsQuery): the tenants' drop, without
// CASCADE, would fail over them. Under ForceDrop they go with CASCADE, as
// the refusals said.
func (e *env) dropOutsideViews(ctx context.Context, db *sqlx.DB, tenants []string) error {
	x := e.outside
	if !x.toDrop() || len(tenants) == 0 {
		return nil
	}
	var oids []uint32
	for _, o := range x.objs {
		if o.kind == "VIEW" || o.kind == "MATERIALIZED VIEW" {
			oids = append(oids, o.ref.OID)
		}
	}
	if len(oids) == 0 {
		return nil
	}
	rows, err := db.Query(ctx, outsideViewsQuery, tenants, oids)
	if err != nil {
		return fmt.Errorf("listing the views fleet exec made over the tenants: %w", err)
	}
	reads := map[uint32]bool{}
	for rows.Next() {
		var oid uint32
		if err := rows.Scan(&oid); err != nil {
			rows.Close()
			return err
		}
		reads[oid] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, k := range []string{"MATERIALIZED VIEW", "VIEW"} {
		var idents []string
		for _, o := range x.objs {
			if o.kind == k && reads[o.ref.OID] {
				idents = append(idents, o.ident)
			}
		}
		if len(idents) > 0 {
			how := ""
			if e.ForceDrop {
				how = " CASCADE"
			}
			if _, err := db.Exec(ctx, "DROP "+k+" IF EXISTS "+strings.Join(idents, ", ")+how); err != nil {
				return fmt.Errorf("dropping the views fleet exec made over the tenants: %w", e.explain(err))
			}
		}
	}
	return nil
}

// dropExecExtensions drops, in tx, the extensions in schema (a tenant's:
// the tenant's search_path put there what fleet exec's CREATE EXTENSION
// made) that carry fleet exec's mark bound to them and to db
// (ownOutsideMark), without CASCADE: an object of a user's that uses one
// fails the drop, which then drops nothing.
func dropExecExtensions(ctx context.Context, db *sqlx.DB, tx sqlx.Tx, schema string) error {
	d := db.Dialect()
	if db.Null() || d.Name() != "postgres" {
		return nil
	}
	rows, err := tx.Query(ctx, `SELECT quote_ident(x.extname) FROM pg_extension x JOIN pg_namespace n ON n.oid = x.extnamespace
		WHERE n.nspname = $1 AND `+ownOutsideMark(d, "x.oid", "pg_extension")+` ORDER BY 1`, schema)
	if err != nil {
		return err
	}
	var names []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return err
		}
		names = append(names, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(names) == 0 {
		return err
	}
	_, err = tx.Exec(ctx, "DROP EXTENSION "+strings.Join(names, ", "))
	return err
}

// dropOutsideSaid is dropOutside for init's --drop, which says what it
// dropped.
func (e *env) dropOutsideSaid(ctx context.Context, db *sqlx.DB) error {
	names, err := e.dropOutside(ctx, db)
	if err == nil && len(names) > 0 {
		e.logf("dropped what fleet exec made outside the tenants: %s", strings.Join(names, ", "))
	}
	return err
}

// surveyColumnOutside is surveyOutside in column mode: what fleet exec
// made outside db's current schema (whose shared tables, marker and
// what exec made beside them dropColumnFleet drops), when the fleet's
// marker goes with the drop or there is none (dropped); a marker that
// stays (another workload's fleet's) keeps it all. It returns the
// current schema, for dropOutsideViews, and surveyOutside's refusal.
func (e *env) surveyColumnOutside(ctx context.Context, db *sqlx.DB, dropped bool, action string) ([]string, error) {
	if !dropped || db.Null() || db.Dialect().Name() != "postgres" {
		return nil, nil
	}
	var here string
	if err := db.QueryRow(ctx, "SELECT current_schema()").Scan(&here); err != nil {
		return nil, err
	}
	return []string{here}, e.surveyOutside(ctx, db, []string{here}, nil, action)
}
