package workload

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/sqlx"
)

// dependentsQuery lists, as "KIND NAME", the objects that dropping the
// schemas $1, the tables $2 (of the search path), the types $3 or the
// routines $4 (with their argument types, to_regprocedure, or without
// when the name is the only one's, to_regproc) with CASCADE would
// drop or change although they lie outside them: a view, function, foreign
// key, column or index of a user's elsewhere that depends on something
// inside (an extension created in a tenant schema is one too). It follows
// pg_depend from the schemas and tables as DROP ... CASCADE does; an
// object is inside when it lies in one of the schemas, belongs to one of
// the tables (their rule, constraint, trigger, default, policy), or is
// reached from an inside object by an automatic or internal dependency
// (the tables' indexes, row types, the sequences of their SERIAL and
// identity columns). A sequence OWNED BY a column whose default does not
// use it is a user's (CREATE SEQUENCE ... OWNED BY bank.id), which the
// drop would take along: it is named, not inside. What is reached
// only by an internal dependency (a foreign key's triggers, a toast
// table) goes with what it belongs to, which is named instead. A
// trigger, rule, policy, statistics object or publication membership on
// one of the tables (or on a table in one of the schemas) is named too
// (attachedObjects): stampede makes none, so each is the user's work,
// which the drop would take along without a word. What the caller made ($5 the catalogs, $6 the oids: see
// DependentsBeyond) is left out, with what is part of it (a column,
// constraint, index, trigger, rule or default of its relation, what
// depends on it automatically or internally).
const dependentsQuery = `WITH RECURSIVE
start AS (
	SELECT 'pg_namespace'::regclass AS classid, n.oid AS objid FROM pg_namespace n WHERE n.nspname = ANY($1)
	UNION SELECT 'pg_class'::regclass, c.oid FROM pg_class c WHERE c.oid = ANY(SELECT to_regclass(t) FROM unnest($2::text[]) t)
	UNION SELECT 'pg_type'::regclass, y.oid FROM pg_type y WHERE y.oid = ANY(SELECT to_regtype(t) FROM unnest($3::text[]) t)
	UNION SELECT 'pg_proc'::regclass, p.oid FROM pg_proc p WHERE p.oid = ANY(SELECT CASE WHEN t LIKE '%(%' THEN to_regprocedure(t)::oid ELSE to_regproc(t)::oid END FROM unnest($4::text[]) t)
),
ours(classid, objid) AS (
	SELECT c::regclass, o FROM unnest($5::text[], $6::oid[]) u(c, o)
),
r(classid, objid, objsubid, inside, internal) AS (
	SELECT classid, objid, 0, true, false FROM start
	UNION
	SELECT d.classid, d.objid, d.objsubid, r.inside AND d.deptype IN ('a', 'i') AND NOT (d.deptype = 'a' AND d.classid = 'pg_class'::regclass
			AND d.refclassid = 'pg_class'::regclass AND d.refobjsubid <> 0 AND (SELECT relkind FROM pg_class WHERE oid = d.objid) = 'S'
			AND NOT EXISTS (SELECT 1 FROM pg_attrdef ad JOIN pg_depend dd ON dd.classid = 'pg_attrdef'::regclass AND dd.objid = ad.oid
				AND dd.refclassid = 'pg_class'::regclass AND dd.refobjid = d.objid
				WHERE ad.adrelid = d.refobjid AND ad.adnum = d.refobjsubid)),
		d.deptype = 'i'
	FROM r CROSS JOIN LATERAL (
		SELECT d.classid, d.objid, d.objsubid, d.deptype, d.refclassid, d.refobjid, d.refobjsubid FROM pg_depend d
		WHERE d.refclassid = r.classid AND d.refobjid = r.objid AND (r.objsubid = 0 OR d.refobjsubid = r.objsubid) AND d.deptype <> 'p'
		UNION ALL
		SELECT o.refclassid, o.refobjid, 0, 'n', r.classid, r.objid, 0 FROM pg_depend o
		WHERE o.classid = r.classid AND o.objid = r.objid AND o.deptype = 'i' AND NOT r.inside AND NOT r.internal
	) d
),
objs AS (
	SELECT classid, objid, objsubid, bool_or(inside) AS inside, bool_and(internal) AS internal FROM r GROUP BY 1, 2, 3
),
owned AS (
	SELECT o.*, CASE
		WHEN o.classid = 'pg_rewrite'::regclass THEN (SELECT ev_class FROM pg_rewrite WHERE oid = o.objid)
		WHEN o.classid = 'pg_constraint'::regclass THEN (SELECT nullif(conrelid, 0) FROM pg_constraint WHERE oid = o.objid)
		WHEN o.classid = 'pg_trigger'::regclass THEN (SELECT tgrelid FROM pg_trigger WHERE oid = o.objid)
		WHEN o.classid = 'pg_attrdef'::regclass THEN (SELECT adrelid FROM pg_attrdef WHERE oid = o.objid)
		WHEN o.classid = 'pg_policy'::regclass THEN (SELECT polrelid FROM pg_policy WHERE oid = o.objid)
		WHEN o.classid = 'pg_class'::regclass AND o.objsubid = 0 THEN o.objid
		END AS rel
	FROM objs o
)
SELECT DISTINCT CASE WHEN o.classid = 'pg_rewrite'::regclass AND rc.relkind IN ('v', 'm')
		THEN (pg_identify_object('pg_class'::regclass, o.rel, 0)).type || ' ' || (pg_identify_object('pg_class'::regclass, o.rel, 0)).identity
		ELSE i.type || ' ' || i.identity END
FROM owned o
CROSS JOIN LATERAL pg_identify_object(o.classid, o.objid, o.objsubid) i
LEFT JOIN pg_class rc ON rc.oid = o.rel
LEFT JOIN pg_namespace rn ON rn.oid = rc.relnamespace
WHERE NOT o.inside AND NOT o.internal AND coalesce(i.schema, '') <> 'pg_toast'
	AND o.classid NOT IN ('pg_amop'::regclass, 'pg_amproc'::regclass)
	AND NOT EXISTS (SELECT 1 FROM pg_depend e WHERE e.classid = o.classid AND e.objid = o.objid AND e.deptype = 'e')
	AND NOT (o.classid = 'pg_namespace'::regclass AND o.objid IN (SELECT objid FROM start))
	AND NOT (o.rel IS NOT NULL AND (rn.nspname = ANY($1) OR o.rel = ANY(SELECT objid FROM start WHERE classid = 'pg_class'::regclass)))
	AND NOT (o.rel IS NULL AND o.classid <> 'pg_extension'::regclass AND coalesce(i.schema, '') = ANY($1))
	AND NOT EXISTS (SELECT 1 FROM ours WHERE (ours.classid = o.classid AND ours.objid = o.objid)
		OR (ours.classid = 'pg_class'::regclass AND ours.objid = o.rel)
		OR EXISTS (SELECT 1 FROM pg_depend e WHERE e.classid = o.classid AND e.objid = o.objid AND e.deptype IN ('a', 'i')
			AND e.refclassid = ours.classid AND e.refobjid = ours.objid))
UNION
SELECT i.type || ' ' || i.identity
FROM (` + attachedObjects + `) x
JOIN pg_class c ON c.oid = x.rel
CROSS JOIN LATERAL pg_identify_object(x.classid, x.objid, 0) i
WHERE (c.oid IN (SELECT objid FROM start WHERE classid = 'pg_class'::regclass) OR c.relnamespace IN (SELECT objid FROM start WHERE classid = 'pg_namespace'::regclass))
	AND NOT EXISTS (SELECT 1 FROM pg_depend e WHERE e.classid = x.classid AND e.objid = x.objid AND e.deptype = 'e')
	AND NOT EXISTS (SELECT 1 FROM ours WHERE ours.classid = 'pg_class'::regclass AND ours.objid = x.rel
		OR ours.classid = x.classid AND ours.objid = x.objid)
ORDER BY 1`

// attachedObjects lists, as (classid, objid, rel), what a user attaches
// to a table rel: its triggers (but the internal ones of a foreign key),
// rules (of a table, not a view's own), policies, statistics objects and
// publication memberships. Stampede makes none of them, so each on a
// table of stampede's is the user's, which dropping the table, or the
// schema or database holding it, takes along without CASCADE or a word.
// The table-level check (dependentsQuery) and the census of a whole
// database or schema (Attached) both read it.
const attachedObjects = `SELECT 'pg_trigger'::regclass AS classid, t.oid AS objid, t.tgrelid AS rel FROM pg_trigger t WHERE NOT t.tgisinternal
	UNION ALL SELECT 'pg_rewrite'::regclass, w.oid, w.ev_class FROM pg_rewrite w JOIN pg_class c ON c.oid = w.ev_class WHERE c.relkind IN ('r', 'p', 'f')
	UNION ALL SELECT 'pg_policy'::regclass, p.oid, p.polrelid FROM pg_policy p
	UNION ALL SELECT 'pg_statistic_ext'::regclass, s.oid, s.stxrelid FROM pg_statistic_ext s
	UNION ALL SELECT 'pg_publication_rel'::regclass, p.oid, p.prrelid FROM pg_publication_rel p`

// attachedQuery lists, as "KIND NAME", the attachedObjects of the
// relations $1 (as SQL writes them), but an extension's.
const attachedQuery = `SELECT DISTINCT i.type || ' ' || i.identity
FROM (` + attachedObjects + `) x
CROSS JOIN LATERAL pg_identify_object(x.classid, x.objid, 0) i
WHERE x.rel = ANY(SELECT to_regclass(t) FROM unnest($1::text[]) t)
	AND NOT EXISTS (SELECT 1 FROM pg_depend e WHERE e.classid = x.classid AND e.objid = x.objid AND e.deptype = 'e')
ORDER BY 1`

// Attached returns, as "KIND NAME", the triggers, rules, policies,
// statistics objects and publication memberships on relations (as SQL
// writes them): see attachedObjects. It is the table-level check's
// finding (Dependents names them too) for a census of a whole database
// or schema, which lists objects by kind and so misses what hangs on a
// table. It is nil on other databases than PostgreSQL.
func Attached(ctx context.Context, db *sqlx.DB, relations []string) ([]string, error) {
	if db.Null() || db.Dialect().Name() != "postgres" || len(relations) == 0 {
		return nil, nil
	}
	rows, err := db.Query(ctx, attachedQuery, relations)
	if err != nil {
		return nil, fmt.Errorf("listing the triggers, rules, policies and statistics on stampede's tables: %w", err)
	}
	defer rows.Close()
	return scanStrings(rows)
}

// AttachedForeign returns what a user attached (Attached) to the tables
// of objs (a census of db: Objects) in schema ("*" for any) that foreign,
// the census's list of what stampede did not make, does not name:
// stampede's tables, whose triggers, rules, policies and statistics a
// drop of their database or schema takes along. What foreign names
// already (a statistics object is an object of its own) is left out.
func AttachedForeign(ctx context.Context, db *sqlx.DB, objs []Object, schema string, foreign []string) ([]string, error) {
	named := func(s string) bool {
		return slices.ContainsFunc(foreign, func(f string) bool { return f == s || strings.HasPrefix(f, s+" (") })
	}
	var tables []string
	for _, o := range objs {
		if o.IsTable() && (schema == "*" || o.Schema == schema) && !named(o.String()) {
			tables = append(tables, db.Dialect().QuoteIdent(o.Schema)+"."+db.Dialect().QuoteIdent(o.Name))
		}
	}
	found, err := Attached(ctx, db, tables)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(found, named), nil
}

// Dependents returns, as "KIND NAME", the objects outside schemas and
// tables that depend on something in them (see dependentsQuery): what
// DROP ... CASCADE would take with them, and what a drop without CASCADE
// fails over (SQLSTATE 2BP01); and the user's publications that publish
// them without naming them (FOR ALL TABLES, FOR TABLES IN SCHEMA: see
// dialect.PublicationsQuery), whose replication the drop would change;
// and the partitions without stampede's mark attached to its tables
// (ForeignPartitions), which the drop takes with their parent.
// It is nil on other databases than PostgreSQL.
func Dependents(ctx context.Context, db *sqlx.DB, schemas, tables []string) ([]string, error) {
	if db.Null() || db.Dialect().Name() != "postgres" || len(schemas)+len(tables) == 0 {
		return nil, nil
	}
	if schemas == nil {
		schemas = []string{}
	}
	quotedTables := make([]string, len(tables))
	for i, t := range tables {
		quotedTables[i] = db.Dialect().QuoteIdent(t)
	}
	return dependents(ctx, db, schemas, quotedTables)
}

// DependentsOf is Dependents of relations, named as SQL writes them
// (quoted and schema-qualified as needed: "public"."bank").
func DependentsOf(ctx context.Context, db *sqlx.DB, relations []string) ([]string, error) {
	if db.Null() || db.Dialect().Name() != "postgres" || len(relations) == 0 {
		return nil, nil
	}
	return dependents(ctx, db, []string{}, relations)
}

// Targets are what a DROP ... CASCADE drops: Schemas by name, and
// Relations, Types and Routines as SQL writes them (quoted and qualified
// as needed; a routine with its argument types, or without when its name
// is its own).
type Targets struct {
	Schemas, Relations, Types, Routines []string
}

// ObjectRef is a database object by its catalog (pg_namespace, pg_class,
// pg_type, pg_proc) and oid, as pg_depend names it.
type ObjectRef struct {
	Catalog string
	OID     uint32
}

// DependentsBeyond is Dependents of targets, less the objects of ours
// (those the caller made) and what is part of them (a constraint, index,
// trigger, rule or default of a relation of ours, what depends on one of
// ours automatically or internally): what dropping targets with CASCADE
// would take of a user's. It is nil on other databases than PostgreSQL.
func DependentsBeyond(ctx context.Context, db *sqlx.DB, t Targets, ours []ObjectRef) ([]string, error) {
	if db.Null() || db.Dialect().Name() != "postgres" || len(t.Schemas)+len(t.Relations)+len(t.Types)+len(t.Routines) == 0 {
		return nil, nil
	}
	cats, oids := make([]string, len(ours)), make([]uint32, len(ours))
	for i, o := range ours {
		cats[i], oids[i] = o.Catalog, o.OID
	}
	return query(ctx, db, t, cats, oids)
}

// dependents is Dependents of schemas and quotedTables (SQL's names).
func dependents(ctx context.Context, db *sqlx.DB, schemas, quotedTables []string) ([]string, error) {
	return query(ctx, db, Targets{Schemas: schemas, Relations: quotedTables}, nil, nil)
}

// query runs dependentsQuery of t, less the objects ours (catalogs and
// oids), and adds the publications and partitions of t's schemas and
// relations.
func query(ctx context.Context, db *sqlx.DB, t Targets, catalogs []string, oids []uint32) ([]string, error) {
	schemas, quotedTables := nonNil(t.Schemas), nonNil(t.Relations)
	if oids == nil {
		oids = []uint32{}
	}
	rows, err := db.Query(ctx, dependentsQuery, schemas, quotedTables, nonNil(t.Types), nonNil(t.Routines), nonNil(catalogs), oids)
	if err != nil {
		return nil, fmt.Errorf("listing the objects that depend on what stampede would drop: %w", err)
	}
	defer rows.Close()
	out, err := scanStrings(rows)
	if err != nil {
		return nil, err
	}
	pubs, err := publications(ctx, db, schemas, quotedTables)
	if err != nil {
		return nil, err
	}
	parts, err := foreignPartitions(ctx, db, schemas, quotedTables)
	if err != nil {
		return nil, err
	}
	return append(append(out, pubs...), parts...), nil
}

// nonNil is s, or an empty list for nil (a NULL array to the server).
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// publications returns the publications that publish what dropping
// schemas or tables (quoted) would drop without naming it (FOR ALL
// TABLES, FOR TABLES IN SCHEMA: dialect.PublicationsQuery), each as
// "publication NAME (FOR ...)": the drop changes the user's replication.
// A server without publications of schemas (before PostgreSQL 15) is
// asked for those of all tables alone.
func publications(ctx context.Context, db *sqlx.DB, schemas, quotedTables []string) ([]string, error) {
	d := db.Dialect()
	has := dialect.SchemaPublicationsQuery(d)
	if has == "" {
		return nil, nil
	}
	var bySchema bool
	if err := db.QueryRow(ctx, has).Scan(&bySchema); err != nil {
		return nil, fmt.Errorf("looking for publications of schemas: %w", err)
	}
	rows, err := db.Query(ctx, dialect.PublicationsQuery(d, bySchema), schemas, quotedTables)
	if err != nil {
		return nil, fmt.Errorf("listing the publications of what stampede would drop: %w", err)
	}
	defer rows.Close()
	return scanStrings(rows)
}

// PublicationsOf returns the publications of a user's that publish a
// table of schemas or one of relations (as SQL writes them) without
// naming it (FOR ALL TABLES, FOR TABLES IN SCHEMA), as Dependents names
// them: "publication NAME (FOR ...)". It is nil on other databases than
// PostgreSQL.
func PublicationsOf(ctx context.Context, db *sqlx.DB, schemas, relations []string) ([]string, error) {
	if db.Null() || db.Dialect().Name() != "postgres" || len(schemas)+len(relations) == 0 {
		return nil, nil
	}
	return publications(ctx, db, nonNil(schemas), nonNil(relations))
}

// scanStrings returns the rows' one text column.
func scanStrings(rows sqlx.Rows) ([]string, error) {
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	return out, nil
}

// foreignPartitionsQuery lists the partitions, without stampede's mark,
// of the tables $2 (of the search path) and of the tables in the schemas
// $1, through partitions that carry the mark (a user's partition's own
// partitions go with it, unnamed), but those in the schemas $1 (inside
// what is dropped): each as "table NAME (a partition of PARENT)".
// PostgreSQL records a partition's link to its parent as an automatic
// dependency, so that dependentsQuery counts it inside.
var foreignPartitionsQuery = `WITH RECURSIVE parts(oid, parent, marked) AS (
	SELECT i.inhrelid, i.inhparent, coalesce(` + ownClassComment("i.inhrelid") + `, '') LIKE $3
	FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class pc ON pc.oid = i.inhparent
	WHERE c.relispartition AND (i.inhparent = ANY(SELECT to_regclass(t) FROM unnest($2::text[]) t)
		OR pc.relnamespace IN (SELECT oid FROM pg_namespace WHERE nspname = ANY($1)))
	UNION
	SELECT i.inhrelid, i.inhparent, coalesce(` + ownClassComment("i.inhrelid") + `, '') LIKE $3
	FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN parts p ON p.oid = i.inhparent
	WHERE c.relispartition AND p.marked
)
SELECT DISTINCT 'table ' || (pg_identify_object('pg_class'::regclass, p.oid, 0)).identity
	|| ' (a partition of ' || (pg_identify_object('pg_class'::regclass, p.parent, 0)).identity || ')'
FROM parts p JOIN pg_class c ON c.oid = p.oid
WHERE NOT p.marked AND c.relnamespace NOT IN (SELECT oid FROM pg_namespace WHERE nspname = ANY($1))
	AND c.oid <> ALL(SELECT to_regclass(t) FROM unnest($2::text[]) t WHERE to_regclass(t) IS NOT NULL)
ORDER BY 1`

// ForeignPartitions returns, as "table NAME (a partition of PARENT)", the
// partitions of tables and of the tables in schemas that do not carry
// stampede's mark (see foreignPartitionsQuery): a user's table attached
// as a partition, which DROP TABLE of its parent drops with its rows
// without CASCADE and without a word. It is nil on other databases than
// PostgreSQL.
func ForeignPartitions(ctx context.Context, db *sqlx.DB, schemas, tables []string) ([]string, error) {
	if db.Null() || db.Dialect().Name() != "postgres" || len(schemas)+len(tables) == 0 {
		return nil, nil
	}
	quoted := make([]string, len(tables))
	for i, t := range tables {
		quoted[i] = db.Dialect().QuoteIdent(t)
	}
	return foreignPartitions(ctx, db, schemas, quoted)
}

// ForeignPartitionsOf is ForeignPartitions of relations, named as SQL
// writes them (quoted and schema-qualified as needed: regclass's text).
func ForeignPartitionsOf(ctx context.Context, db *sqlx.DB, relations []string) ([]string, error) {
	if db.Null() || db.Dialect().Name() != "postgres" || len(relations) == 0 {
		return nil, nil
	}
	return foreignPartitions(ctx, db, nil, relations)
}

// foreignPartitions runs foreignPartitionsQuery.
func foreignPartitions(ctx context.Context, db *sqlx.DB, schemas, relations []string) ([]string, error) {
	if schemas == nil {
		schemas = []string{}
	}
	rows, err := db.Query(ctx, foreignPartitionsQuery, schemas, relations, Mark+" %")
	if err != nil {
		return nil, fmt.Errorf("listing the partitions stampede did not make: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// DependentsError refuses to drop what stampede made when objects it did
// not make depend on it (Dependents): a drop would take them along.
type DependentsError struct {
	// What is what would be dropped ("schema \"bank_1\"", "table bank"),
	// Objects the dependents, Action what would have dropped it.
	What    string
	Objects []string
	Action  string
}

func (e *DependentsError) Error() string {
	them := "them"
	if len(e.Objects) == 1 {
		them = "it"
	}
	return fmt.Sprintf("%s: %s drops nothing; to drop %s too, add %s", DependOn(e.Objects, e.What), e.Action, them, ForceDropFlag)
}

// DependOn says that objects, which stampede did not make, depend on what:
// "2 objects that stampede did not make depend on table bank (view
// public.v, ...)", naming the first five.
func DependOn(objects []string, what string) string {
	objs, more := objects, ""
	if len(objs) > 5 {
		objs, more = objs[:5], " and "+strconv.Itoa(len(objects)-5)+" more"
	}
	n, verb := "1 object", "depends"
	if len(objects) != 1 {
		n, verb = strconv.Itoa(len(objects))+" objects", "depend"
	}
	return fmt.Sprintf("%s that stampede did not make %s on %s (%s%s)", n, verb, what, strings.Join(objs, ", "), more)
}

// ForceDropNote is the line --force-drop says before it drops what (n
// tables or schemas) with deps, the objects that depend on it: those the
// drop takes along, and apart from them the publications it keeps
// (KeptPublications).
func ForceDropNote(what string, n int, deps []string) string {
	them := "them"
	if n == 1 {
		them = "it"
	}
	dropped, kept := KeptPublications(deps)
	s := ForceDropFlag + ": dropping " + what
	if len(dropped) > 0 {
		s += fmt.Sprintf(" and the objects that depend on %s (%s)", them, strings.Join(dropped, ", "))
	}
	return s + KeptNote(kept, n)
}

// KeptPublications splits deps (Dependents' list) into what a drop with
// CASCADE takes along and the publications that publish what is dropped
// without naming it (FOR ALL TABLES, FOR TABLES IN SCHEMA), which it
// keeps: they only stop publishing what is dropped.
func KeptPublications(deps []string) (dropped, kept []string) {
	for _, d := range deps {
		if strings.HasPrefix(d, "publication ") && (strings.HasSuffix(d, " (FOR ALL TABLES)") || strings.Contains(d, " (FOR TABLES IN SCHEMA ")) {
			kept = append(kept, d)
		} else {
			dropped = append(dropped, d)
		}
	}
	return dropped, kept
}

// KeptNote ends a --force-drop line that drops n tables or schemas: the
// publications kept (KeptPublications), "" without any.
func KeptNote(kept []string, n int) string {
	if len(kept) == 0 {
		return ""
	}
	verb, them := "publishes", "them"
	if len(kept) > 1 {
		verb = "publish"
	}
	if n == 1 {
		them = "it"
	}
	return fmt.Sprintf("; kept, not dropped: %s, which no longer %s %s", strings.Join(kept, ", "), verb, them)
}

// Is makes errors.Is(err, ErrForeign) true.
func (e *DependentsError) Is(target error) bool { return target == ErrForeign }

// ownClassComment is the comment of the relation of OID expression oid as
// stampede reads its mark (dialect.OwnComment: a copy is no mark).
func ownClassComment(oid string) string {
	return dialect.OwnComment(dialect.Postgres{}, oid, "pg_class")
}

// DependedOn says which of the tables a drop would take each of deps
// (Dependents' list for them all) depends on, for DependentsError: what
// names the tables (in where) that the objects depend on, no more
// ("table bank in ...", though stampede_load goes with it), and objects
// are deps, each followed by its own tables (" on table bank") when
// they do not all depend on the same ones. relations are the tables as
// SQL writes them, names as the line names them (in the same order);
// each relation's own dependents (pg_depend, followed as Dependents
// follows it) tell which.
func DependedOn(ctx context.Context, db *sqlx.DB, relations, names []string, where string, deps []string) (what string, objects []string, err error) {
	on := map[string][]string{}
	if len(relations) > 1 {
		for i, rel := range relations {
			own, err := dependents(ctx, db, []string{}, []string{rel})
			if err != nil {
				return "", nil, err
			}
			for _, d := range own {
				on[d] = append(on[d], names[i])
			}
		}
	}
	sets := map[string]bool{}
	var union []string
	for _, d := range deps {
		ts := on[d]
		if len(ts) == 0 {
			ts = names // found only with them all: say them all
			on[d] = ts
		}
		sets[strings.Join(ts, ", ")] = true
		for _, t := range ts {
			if !slices.Contains(union, t) {
				union = append(union, t)
			}
		}
	}
	tables := func(ts []string) string {
		if len(ts) == 1 {
			return "table " + ts[0]
		}
		return "tables " + strings.Join(ts, ", ")
	}
	in := ""
	if where != "" {
		in = " in " + where
	}
	if len(sets) <= 1 {
		return tables(union) + in, deps, nil
	}
	objects = make([]string, len(deps))
	for i, d := range deps {
		objects[i] = d + " on " + tables(on[d])
	}
	// Their tables in the order names gives them.
	slices.SortStableFunc(union, func(a, b string) int { return slices.Index(names, a) - slices.Index(names, b) })
	return tables(union) + in, objects, nil
}
