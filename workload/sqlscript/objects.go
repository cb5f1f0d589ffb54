package sqlscript

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// object is a database object that an init file may create: a schema, a
// table, a view, a materialized view, a sequence, a type or a domain, a
// function, procedure or aggregate, a publication, and an index,
// trigger, policy or statistics object (on a table init did not make: see
// markObjects). Objects that belong to another (a
// table's own sequence and row type, an extension's members, array
// types, a constraint's index, a partition's copy of an index or
// trigger) are not objects here: they go with their owner.
type object struct {
	// kind is its kind as COMMENT ON and DROP name it (TABLE, VIEW, ...).
	kind string
	// name is its name as SQL takes it (quoted and qualified as needed;
	// a routine's with its argument types).
	name string
	// key is its catalog and oid, which pg_depend names it by.
	key objKey
	// comment is its comment ("" without one).
	comment string
	// ident is its schema-qualified identity (pg_identify_object), which
	// init's mark records (madeAs) to tell a renamed object.
	ident string
	// table is the OID of the table an index, trigger, policy or
	// statistics object is on (0 for any other object).
	table uint32
}

// madeAsSep follows init's mark on an object, before the identity it was
// made under: an object under another is one the user renamed (or moved)
// to keep it, which cleanup and --drop leave alone, as every workload's.
const madeAsSep = "; made as "

// renamed reports whether o carries init's record of the identity it was
// made under (madeAsSep), and that is not its identity now; was is that
// identity.
func (o object) renamed() (was string, ok bool) {
	_, was, found := strings.Cut(o.comment, madeAsSep)
	return was, found && was != o.ident
}

// objKey is an object's catalog (pg_class, pg_type, ...) and oid.
type objKey struct {
	catalog string
	oid     uint32
}

// userNamespace is the condition on a namespace oid (column col) of the
// schemas a user's objects are in.
func userNamespace(col string) string {
	return `(SELECT nspname NOT IN ('pg_catalog', 'information_schema') AND nspname NOT LIKE 'pg\_toast%' AND nspname NOT LIKE 'pg\_temp\_%' FROM pg_namespace WHERE oid = ` + col + `)`
}

// notExtension is the condition that an object (catalog, oid column) is
// no extension's member.
func notExtension(catalog, col string) string {
	return `NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = '` + catalog + `'::regclass AND d.objid = ` + col + ` AND d.deptype = 'e')`
}

// objectsQuery lists the objects of the database (see object).
var objectsQuery = `
SELECT 'SCHEMA', quote_ident(n.nspname), 'pg_namespace', n.oid, ` + dialect.OwnComment(dialect.Postgres{}, "n.oid", "pg_namespace") + `, 0::oid
  FROM pg_namespace n
  WHERE ` + userNamespace("n.oid") + ` AND n.nspname <> 'public' AND ` + notExtension("pg_namespace", "n.oid") + `
UNION ALL
SELECT CASE c.relkind WHEN 'v' THEN 'VIEW' WHEN 'm' THEN 'MATERIALIZED VIEW' WHEN 'S' THEN 'SEQUENCE' WHEN 'f' THEN 'FOREIGN TABLE' ELSE 'TABLE' END,
       c.oid::regclass::text, 'pg_class', c.oid, ` + dialect.OwnComment(dialect.Postgres{}, "c.oid", "pg_class") + `, 0::oid
  FROM pg_class c
  WHERE c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f') AND ` + userNamespace("c.relnamespace") + ` AND ` + notExtension("pg_class", "c.oid") + `
    AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
                    AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i') AND c.relkind = 'S')
UNION ALL
SELECT CASE t.typtype WHEN 'd' THEN 'DOMAIN' ELSE 'TYPE' END, t.oid::regtype::text, 'pg_type', t.oid, ` + dialect.OwnComment(dialect.Postgres{}, "t.oid", "pg_type") + `, 0::oid
  FROM pg_type t
  WHERE t.typtype IN ('e', 'd', 'r', 'c') AND ` + userNamespace("t.typnamespace") + ` AND ` + notExtension("pg_type", "t.oid") + `
    AND (t.typtype <> 'c' OR (SELECT relkind FROM pg_class WHERE oid = t.typrelid) = 'c')
UNION ALL
SELECT CASE p.prokind WHEN 'p' THEN 'PROCEDURE' WHEN 'a' THEN 'AGGREGATE' ELSE 'FUNCTION' END,
       p.oid::regprocedure::text, 'pg_proc', p.oid, ` + dialect.OwnComment(dialect.Postgres{}, "p.oid", "pg_proc") + `, 0::oid
  FROM pg_proc p
  WHERE ` + userNamespace("p.pronamespace") + ` AND ` + notExtension("pg_proc", "p.oid") + `
UNION ALL
SELECT 'INDEX', c.oid::regclass::text, 'pg_class', c.oid, ` + dialect.OwnComment(dialect.Postgres{}, "c.oid", "pg_class") + `, i.indrelid
  FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid
  WHERE c.relkind IN ('i', 'I') AND NOT c.relispartition AND ` + userNamespace("c.relnamespace") + ` AND ` + notExtension("pg_class", "i.indrelid") + `
    AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
                    AND d.refclassid = 'pg_constraint'::regclass AND d.deptype = 'i')
UNION ALL
SELECT 'TRIGGER', quote_ident(t.tgname) || ' ON ' || t.tgrelid::regclass::text, 'pg_trigger', t.oid, ` + dialect.OwnComment(dialect.Postgres{}, "t.oid", "pg_trigger") + `, t.tgrelid
  FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
  WHERE NOT t.tgisinternal AND ` + userNamespace("c.relnamespace") + ` AND ` + notExtension("pg_class", "c.oid") + `
    AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_trigger'::regclass AND d.objid = t.oid AND d.deptype IN ('P', 'S'))
UNION ALL
SELECT 'POLICY', quote_ident(p.polname) || ' ON ' || p.polrelid::regclass::text, 'pg_policy', p.oid, ` + dialect.OwnComment(dialect.Postgres{}, "p.oid", "pg_policy") + `, p.polrelid
  FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid
  WHERE ` + userNamespace("c.relnamespace") + ` AND ` + notExtension("pg_class", "c.oid") + `
UNION ALL
SELECT 'STATISTICS', quote_ident(n.nspname) || '.' || quote_ident(s.stxname), 'pg_statistic_ext', s.oid, ` + dialect.OwnComment(dialect.Postgres{}, "s.oid", "pg_statistic_ext") + `, s.stxrelid
  FROM pg_statistic_ext s JOIN pg_namespace n ON n.oid = s.stxnamespace
  WHERE ` + userNamespace("s.stxnamespace") + ` AND ` + notExtension("pg_statistic_ext", "s.oid") + `
UNION ALL
SELECT 'PUBLICATION', quote_ident(b.pubname), 'pg_publication', b.oid, ` + dialect.OwnComment(dialect.Postgres{}, "b.oid", "pg_publication") + `, 0::oid
  FROM pg_publication b
  WHERE ` + notExtension("pg_publication", "b.oid")

// dependsQuery lists what depends on what: pg_depend's normal and
// automatic dependencies, each side taken to the object it is part of (a
// view's rule, a column's default, a constraint, a trigger, an index, a
// policy: their table; an array type: its element's type), and each
// object in a schema depending on the schema.
const dependsQuery = `
WITH owner (classid, objid, oclass, ooid) AS (
  SELECT 'pg_rewrite'::regclass, oid, 'pg_class'::regclass, ev_class FROM pg_rewrite
  UNION ALL SELECT 'pg_attrdef'::regclass, oid, 'pg_class'::regclass, adrelid FROM pg_attrdef
  UNION ALL SELECT 'pg_constraint'::regclass, oid,
                   CASE WHEN conrelid <> 0 THEN 'pg_class'::regclass ELSE 'pg_type'::regclass END,
                   CASE WHEN conrelid <> 0 THEN conrelid ELSE contypid END FROM pg_constraint
  UNION ALL SELECT 'pg_trigger'::regclass, oid, 'pg_class'::regclass, tgrelid FROM pg_trigger
  UNION ALL SELECT 'pg_policy'::regclass, oid, 'pg_class'::regclass, polrelid FROM pg_policy
  UNION ALL SELECT 'pg_class'::regclass, indexrelid, 'pg_class'::regclass, indrelid FROM pg_index
  UNION ALL SELECT 'pg_type'::regclass, oid, 'pg_type'::regclass, typelem FROM pg_type WHERE typcategory = 'A' AND typelem <> 0
)
SELECT coalesce(o.oclass, d.classid)::regclass::text, coalesce(o.ooid, d.objid),
       coalesce(r.oclass, d.refclassid)::regclass::text, coalesce(r.ooid, d.refobjid)
  FROM pg_depend d
  LEFT JOIN owner o ON o.classid = d.classid AND o.objid = d.objid
  LEFT JOIN owner r ON r.classid = d.refclassid AND r.objid = d.refobjid
  WHERE d.deptype IN ('n', 'a')
UNION
SELECT 'pg_class', oid, 'pg_namespace', relnamespace FROM pg_class
UNION
SELECT 'pg_type', oid, 'pg_namespace', typnamespace FROM pg_type
UNION
SELECT 'pg_proc', oid, 'pg_namespace', pronamespace FROM pg_proc`

// objects lists the database's objects (see object).
func objects(ctx context.Context, db *sqlx.DB) ([]object, error) {
	rows, err := db.Query(ctx, `SELECT kind, name, cat, oid, cmt, (pg_identify_object(cat::regclass, oid, 0)).identity, tbl
		FROM (`+objectsQuery+`) q(kind, name, cat, oid, cmt, tbl)`)
	if err != nil {
		return nil, fmt.Errorf("listing the database's objects: %w", err)
	}
	defer rows.Close()
	var out []object
	for rows.Next() {
		var o object
		var c *string
		if err := rows.Scan(&o.kind, &o.name, &o.key.catalog, &o.key.oid, &c, &o.ident, &o.table); err != nil {
			return nil, err
		}
		if c != nil {
			o.comment = *c
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

// kindWord is how a line names an object's kind: "table", "view", ...
func (o object) kindWord() string { return strings.ToLower(o.kind) }

// markObjects marks as stampede's the objects that are not in before
// and that the init file's own transactions made (mine), and returns
// them, named for a line ("table t", "view v", ...). An index or trigger
// is marked when its table was there before (a user's: cleanup drops
// what init added to it, and nothing of the user's); one on a table the
// file made goes with its table. The others new since before (another
// session's, made while the file ran) are left alone and returned in
// others, named the same way. The mark of a table (or materialized view)
// records its parts as the file left them (see part); those the file
// added to an earlier init's tables (their parts before, by oid) are
// recorded in theirs.
func (g *gen) markObjects(ctx context.Context, db *sqlx.DB, before, mine map[objKey]bool, partsBefore map[uint32][]part) (made, others []string, err error) {
	after, err := objects(ctx, db)
	if err != nil {
		return nil, nil, err
	}
	var rels, pubs []uint32
	for _, o := range after {
		if !before[o.key] && mine[o.key] && o.hasParts() {
			rels = append(rels, o.key.oid)
		}
		if !before[o.key] && mine[o.key] && o.isPublication() {
			pubs = append(pubs, o.key.oid)
		}
	}
	parts, err := tableParts(ctx, db, rels)
	if err != nil {
		return nil, nil, err
	}
	members, err := pubParts(ctx, db, pubs)
	if err != nil {
		return nil, nil, err
	}
	for _, o := range after {
		if before[o.key] || o.table != 0 && !before[objKey{"pg_class", o.table}] {
			continue
		}
		if !mine[o.key] {
			others = append(others, o.kindWord()+" "+o.name)
			continue
		}
		mark := workload.InitMark(g) + madeAsSep + o.ident + dialect.MarkOIDSep + strconv.FormatUint(uint64(o.key.oid), 10)
		if o.hasParts() {
			mark = g.tableMark(o, parts[o.key.oid])
		}
		if o.isPublication() {
			mark = g.tableMark(o, members[o.key.oid]) // the tables and schemas it names
		}
		if _, err := db.Exec(ctx, "COMMENT ON "+o.kind+" "+o.name+" IS "+dialect.QuoteLiteral(mark)); err != nil {
			return made, others, fmt.Errorf("marking %s %s as stampede's: %w", o.kindWord(), o.name, err)
		}
		if err := markRowType(ctx, db, o, mark); err != nil {
			return made, others, err
		}
		made = append(made, o.kindWord()+" "+o.name)
	}
	slices.Sort(made)
	slices.Sort(others)
	return made, others, g.addParts(ctx, db, after, partsBefore)
}

// markRowType puts mark, o's, on o's row type too when o is a relation
// that has one (a table, view, materialized view, foreign table): a
// user's COMMENT ON TABLE replaces the mark on the table, never the one
// on its row type (dialect.RowTypeMarkSep).
func markRowType(ctx context.Context, db *sqlx.DB, o object, mark string) error {
	if o.key.catalog != "pg_class" || o.kind == "INDEX" || o.kind == "SEQUENCE" {
		return nil
	}
	if _, err := db.Exec(ctx, dialect.MarkRowType(db.Dialect(), o.name, mark)); err != nil {
		return fmt.Errorf("marking %s %s as stampede's: %w", o.kindWord(), o.name, err)
	}
	return nil
}

// objectKeys returns the keys of the database's objects, before init runs
// the file, and the parts of the relations an earlier init made whose
// marks record them (see addParts), by oid.
func objectKeys(ctx context.Context, db *sqlx.DB) (map[objKey]bool, map[uint32][]part, error) {
	all, err := objects(ctx, db)
	if err != nil {
		return nil, nil, err
	}
	out := make(map[objKey]bool, len(all))
	for _, o := range all {
		out[o.key] = true
	}
	parts, err := recordedObjectParts(ctx, db, all)
	return out, parts, err
}

// madeObjects returns the objects init sql made (they carry its mark),
// those that depend on others first, so that each can be dropped without
// CASCADE in that order.
func (g *gen) madeObjects(ctx context.Context, db *sqlx.DB) ([]object, error) {
	all, err := objects(ctx, db)
	if err != nil {
		return nil, err
	}
	prefix := workload.Mark + " init of " + meta.Name + " "
	made := slices.DeleteFunc(all, func(o object) bool { return !strings.HasPrefix(o.comment, prefix) })
	if len(made) == 0 {
		return nil, nil
	}
	// What depends on what among them: pg_depend, and for an object
	// inside a schema, the schema.
	rows, err := db.Query(ctx, dependsQuery)
	if err != nil {
		return nil, fmt.Errorf("reading what depends on what (pg_depend): %w", err)
	}
	defer rows.Close()
	index := make(map[objKey]int, len(made))
	for i, o := range made {
		index[o.key] = i
	}
	deps := make([][]int, len(made)) // deps[i]: the made objects that depend on made[i]
	for rows.Next() {
		var from, to objKey
		if err := rows.Scan(&from.catalog, &from.oid, &to.catalog, &to.oid); err != nil {
			return nil, err
		}
		i, ok1 := index[to]
		j, ok2 := index[from]
		if ok1 && ok2 && i != j {
			deps[i] = append(deps[i], j)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// Dependents first: a depth-first order, each object after all that
	// depend on it.
	var order []object
	state := make([]uint8, len(made))
	var visit func(i int)
	visit = func(i int) {
		if state[i] != 0 {
			return
		}
		state[i] = 1
		for _, j := range deps[i] {
			visit(j)
		}
		state[i] = 2
		order = append(order, made[i])
	}
	for i := range made {
		visit(i)
	}
	// Indexes and triggers (on tables init did not make) first: what
	// depends on them is their table's, which pg_depend's order above
	// does not see, and they depend on init's functions.
	onTable := func(o object) int {
		if o.table != 0 {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(order, func(a, b object) int { return cmp.Compare(onTable(a), onTable(b)) })
	return order, nil
}

// dropMade drops the objects init sql made, dependents first, each
// without CASCADE, so that nothing of a user's goes with them: an object
// something of the user's depends on is kept, and the error names it.
// action prefixes each line ("" for cleanup, "--drop: ").
func (g *gen) dropMade(ctx context.Context, db *sqlx.DB, log io.Writer, action string) error {
	made, err := g.madeObjects(ctx, db)
	if err != nil {
		return err
	}
	if len(made) == 0 {
		if action == "" {
			fmt.Fprintf(log, "nothing init sql made in %s: nothing to drop\n", db.Where())
		}
		return nil
	}
	if err := g.refuseMade(ctx, db, made, log, action, false); err != nil {
		return err
	}
	// What --force-drop would take along, read before the transaction
	// holds the connection (cleanup's pool may have no other).
	var theirs []string
	if g.forceDrop {
		if theirs, err = usersDependents(ctx, db, made); err != nil {
			return err
		}
	}
	tx, err := db.Begin(ctx, sqlx.TxOptions{})
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	done, kept, rest, err := dropPasses(ctx, tx, made)
	if err != nil {
		return err
	}
	if len(kept) > 0 && !g.forceDrop {
		return keptError(kept)
	}
	if len(kept) > 0 {
		cascaded, err := cascadeKept(ctx, tx, rest, theirs, log, action)
		if err != nil {
			return err
		}
		done = append(done, cascaded...)
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	for _, d := range done {
		if action == "" {
			fmt.Fprintf(log, "dropped %s\n", d)
		} else {
			fmt.Fprintf(log, "%sdropped %s, which an earlier init of sql made\n", action, d)
		}
	}
	return nil
}

// refuseMade refuses, in one line, every problem of dropping made (what
// init made): a renamed object, a table attached to a user's, a user's
// partition, part or membership, a user's publication of what it drops
// (refusePublished); and with trial, an object something of the user's
// depends on, found by dropping them all in a transaction rolled back
// (dropMade finds those as it drops). With --force-drop each says on
// log what goes instead.
func (g *gen) refuseMade(ctx context.Context, db *sqlx.DB, made []object, log io.Writer, action string, trial bool) error {
	return refuseAll(
		func() error { return g.refuseRenamed(db, made, log, action) },
		func() error { return g.refuseAttached(ctx, db, made, log, action) },
		func() error { return g.refusePartitions(ctx, db, made, log, action) },
		func() error { return g.refuseUnrecorded(ctx, db, made, log, action) },
		func() error { return g.refusePublished(ctx, db, made, log, action) },
		func() error {
			if !trial || g.forceDrop {
				return nil
			}
			tx, err := db.Begin(ctx, sqlx.TxOptions{})
			if err != nil {
				return err
			}
			defer func() { _ = tx.Rollback(ctx) }()
			_, kept, _, err := dropPasses(ctx, tx, made)
			if err != nil || len(kept) == 0 {
				return err
			}
			return keptError(kept)
		},
	)
}

// dropPasses drops made in tx, dependents first, each without CASCADE
// behind a savepoint; passes go on while one drops something, for what
// pg_depend's order misses (two tables whose foreign keys point at each
// other stay, and are said). It returns what it dropped, and what it
// kept, said with what depends on it, and as objects (rest).
func dropPasses(ctx context.Context, tx sqlx.Tx, made []object) (done, kept []string, rest []object, err error) {
	for len(made) > 0 {
		var next []object
		kept = kept[:0]
		for _, o := range made {
			if _, err := tx.Exec(ctx, "SAVEPOINT stampede_drop"); err != nil {
				return nil, nil, nil, err
			}
			_, err := tx.Exec(ctx, "DROP "+o.kind+" IF EXISTS "+o.name)
			var pe *pgconn.PgError
			if errors.As(err, &pe) && pe.Code == "2BP01" {
				if _, err := tx.Exec(ctx, "ROLLBACK TO SAVEPOINT stampede_drop"); err != nil {
					return nil, nil, nil, err
				}
				what := pe.Detail
				if what == "" {
					what = pe.Message
				}
				next = append(next, o)
				kept = append(kept, fmt.Sprintf("%s %s (%s)", o.kindWord(), o.name, strings.ReplaceAll(what, "\n", "; ")))
				continue
			}
			if err != nil {
				return nil, nil, nil, fmt.Errorf("dropping %s %s: %w", o.kindWord(), o.name, err)
			}
			done = append(done, o.kindWord()+" "+o.name)
		}
		if len(next) == len(made) {
			break
		}
		made = next
	}
	return done, kept, made, nil
}

// keptError refuses the drop of what init made when something of the
// user's depends on some of it (kept, as dropPasses says them).
func keptError(kept []string) error {
	return sqlx.ConfigErrorf("kept %s that something stampede did not make depends on, directly or through them: %s; nothing was dropped; drop or change that first (stampede drops only what it made, never with CASCADE), then run this again, or to drop %s with what depends on %s, add %s", plural(len(kept), "object"), strings.Join(kept, ", "), them(len(kept)), them(len(kept)), workload.ForceDropFlag)
}

// usersDependents returns what dropping made (what init made) with
// CASCADE would take that init did not make: what depends on it
// (workload.DependentsBeyond), and what a schema of it holds.
func usersDependents(ctx context.Context, db *sqlx.DB, made []object) ([]string, error) {
	var t workload.Targets
	var held []string
	ours := make([]workload.ObjectRef, len(made))
	for i, o := range made {
		ours[i] = workload.ObjectRef{Catalog: o.key.catalog, OID: o.key.oid}
		switch o.key.catalog {
		case "pg_namespace":
			schema := unquoteIdent(o.name)
			t.Schemas = append(t.Schemas, schema)
			found, err := schemaForeign(ctx, db, schema)
			if err != nil {
				return nil, fmt.Errorf("looking into schema %s: %w", schema, err)
			}
			held = append(held, found...)
		case "pg_class":
			t.Relations = append(t.Relations, o.name)
		case "pg_type":
			t.Types = append(t.Types, o.name)
		case "pg_proc":
			t.Routines = append(t.Routines, o.name)
		}
	}
	deps, err := workload.DependentsBeyond(ctx, db, t, ours)
	if err != nil {
		return nil, err
	}
	deps, _ = workload.KeptPublications(deps)
	return append(held, deps...), nil
}

// cascadeKept drops, with CASCADE in tx, the objects init made that
// something of the user's depends on (kept), for --force-drop, and says
// first on log what goes with them that init did not make (theirs: see
// usersDependents). It returns what it dropped, for the lines that
// follow the commit.
func cascadeKept(ctx context.Context, tx sqlx.Tx, kept []object, theirs []string, log io.Writer, action string) ([]string, error) {
	var names []string
	for _, o := range kept {
		names = append(names, o.kindWord()+" "+o.name)
	}
	with := ""
	if len(theirs) > 0 {
		with = fmt.Sprintf(", and with %s %s, which stampede did not make", them(len(kept)), strings.Join(theirs, ", "))
	}
	fmt.Fprintf(log, "%s%s: dropping %s with CASCADE%s\n", action, workload.ForceDropFlag, strings.Join(names, ", "), with)
	for _, o := range kept {
		if _, err := tx.Exec(ctx, "DROP "+o.kind+" IF EXISTS "+o.name+" CASCADE"); err != nil {
			return nil, fmt.Errorf("dropping %s %s with CASCADE: %w", o.kindWord(), o.name, err)
		}
	}
	return names, nil
}

// them is "it" for one thing, "them" for more.
func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// plural says n things.
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// refuseAttached refuses to drop a table init made that is attached to
// a table of the user's (a partition of it, or a child that inherits
// from it) and holds rows: the user's table holds them, and they would
// go with the drop. With --force-drop it says what goes.
func (g *gen) refuseAttached(ctx context.Context, db *sqlx.DB, made []object, log io.Writer, action string) error {
	oids := make([]uint32, 0, len(made))
	byOID := map[uint32]object{}
	for _, o := range made {
		if o.key.catalog == "pg_class" {
			oids = append(oids, o.key.oid)
			byOID[o.key.oid] = o
		}
	}
	if len(oids) == 0 {
		return nil
	}
	rows, err := db.Query(ctx, `SELECT i.inhrelid, i.inhparent, i.inhparent::regclass::text, c.relispartition
		FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhrelid = ANY($1) ORDER BY 3, 1`, oids)
	if err != nil {
		return fmt.Errorf("reading which of init's tables are attached to others (pg_inherits): %w", err)
	}
	type link struct {
		child, parent uint32
		name          string
		partition     bool
	}
	var links []link
	for rows.Next() {
		var l link
		if err := rows.Scan(&l.child, &l.parent, &l.name, &l.partition); err != nil {
			rows.Close()
			return err
		}
		if _, ours := byOID[l.parent]; !ours {
			links = append(links, l)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	var held []string
	for _, l := range links {
		o := byOID[l.child]
		var n int64
		if err := db.QueryRow(ctx, "SELECT count(*) FROM "+o.name).Scan(&n); err != nil {
			return fmt.Errorf("counting the rows of %s %s: %w", o.kindWord(), o.name, err)
		}
		if n == 0 {
			continue
		}
		how := "inherits from your table " + l.name
		if l.partition {
			how = "is a partition of your table " + l.name
		}
		held = append(held, fmt.Sprintf("%s %s %s and holds %s", o.kindWord(), o.name, how, plural(int(n), "row")))
	}
	if len(held) == 0 {
		return nil
	}
	if g.forceDrop {
		fmt.Fprintf(log, "%s%s: %s, and goes with its rows\n", action, workload.ForceDropFlag, strings.Join(held, "; "))
		return nil
	}
	verb := "cleanup"
	if action != "" {
		verb = "init sql --drop"
	}
	return sqlx.ConfigErrorf("%s: %s drops nothing; add %s to drop it anyway", strings.Join(held, "; "), verb, workload.ForceDropFlag)
}

// refuseRenamed refuses to drop what init made when the user renamed (or
// moved to another schema) one of its objects since (object.renamed): as
// every workload keeps a table of its load under a name it does not use,
// the object is the user's now. The line names it, what it was made as,
// and --force-drop, which drops it with the rest and says so.
func (g *gen) refuseRenamed(db *sqlx.DB, made []object, log io.Writer, action string) error {
	var kept []string
	for _, o := range made {
		if was, ok := o.renamed(); ok {
			kept = append(kept, fmt.Sprintf("%s %s (made as %s)", o.kindWord(), o.ident, was))
		}
	}
	if len(kept) == 0 {
		return nil
	}
	if g.forceDrop {
		fmt.Fprintf(log, "%s%s: dropping %s, which init sql made and you renamed since\n", action, workload.ForceDropFlag, strings.Join(kept, ", "))
		return nil
	}
	verb, it := refusalWords(action, len(kept))
	return sqlx.ConfigErrorf("%s in %s: init sql made %s and you renamed %s since, which makes %s yours (as every workload keeps a table of its load you renamed): %s drops nothing; to drop %s too, add %s",
		strings.Join(kept, ", "), db.Where(), it, it, it, verb, it, workload.ForceDropFlag)
}

// refusalWords are the words of a refusal of n objects by cleanup
// (action "") or by init sql --drop: the command, and "it" or "them".
func refusalWords(action string, n int) (verb, it string) {
	verb, it = "cleanup", "it"
	if action != "" {
		verb = "init sql --drop"
	}
	if n > 1 {
		it = "them"
	}
	return verb, it
}

// refusePartitions refuses to drop a table init made that has a
// partition init did not make (a user's table attached to it, or made
// PARTITION OF it): DROP TABLE of the parent drops its partitions with
// their rows, without CASCADE. With --force-drop it says what goes.
func (g *gen) refusePartitions(ctx context.Context, db *sqlx.DB, made []object, log io.Writer, action string) error {
	var tables []string
	for _, o := range made {
		if o.kind == "TABLE" {
			tables = append(tables, o.name)
		}
	}
	parts, err := workload.ForeignPartitionsOf(ctx, db, tables)
	if err != nil || len(parts) == 0 {
		return err
	}
	if g.forceDrop {
		fmt.Fprintf(log, "%s%s: dropping %s, which stampede did not make, with its parent\n", action, workload.ForceDropFlag, strings.Join(parts, ", "))
		return nil
	}
	verb, it := refusalWords(action, len(parts))
	return sqlx.ConfigErrorf("%s in %s: not made by stampede, and dropping the table init sql made would drop %s with %s rows: %s drops nothing; to drop %s too, add %s",
		strings.Join(parts, ", "), db.Where(), it, map[bool]string{true: "their", false: "its"}[len(parts) > 1], verb, it, workload.ForceDropFlag)
}
