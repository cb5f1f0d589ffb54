package sqlscript

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// part is something on a table (or materialized view) that goes with it
// when it is dropped: a column, an index, a trigger, a constraint, a rule
// or a sequence owned by one of its columns (serial, identity, OWNED BY). init's mark on a table its file made records the table's parts
// as the file left them (madeWithSep), so that cleanup and --drop tell a
// user's index, trigger, constraint, rule or filled column made on it
// since, which the drop would take along, from the file's own.
type part struct {
	// kind is "column", "index", "trigger", "constraint", "rule" or
	// "sequence".
	kind string
	// id is a column's attnum, or the OID of the others.
	id uint32
	// name is its name as a line says it (an index's schema-qualified
	// when the search path does not find it).
	name string
	// bare is its name alone, as init's mark records it: a part whose
	// name is not the one recorded was renamed by the user since.
	bare string
}

// partKinds are the kinds of part in the order a mark lists them, each
// with its plural as the mark writes it.
var partKinds = []struct{ kind, plural string }{
	{"column", "columns"}, {"index", "indexes"}, {"trigger", "triggers"}, {"constraint", "constraints"}, {"rule", "rules"},
	{"sequence", "sequences"}, {"policy", "policies"}, {"statistics", "statistics"}, {"publication", "publications"},
	// A publication's members (pubParts).
	{"table", "tables"}, {"schema", "schemas"},
}

// madeWithSep follows init's mark on a table its file made, before the
// parts the file made on it (inventory); madeAsSep follows them. A table
// mark without it (an older stampede's) records no parts: cleanup drops
// the table with whatever is on it, as before.
const madeWithSep = "; made with "

// partsQuery lists the parts of the relations $1 (oids): their own
// columns (not those a partition or child inherits), indexes (not a
// partition's copy of its parent's, nor one that backs a constraint,
// which is named instead), triggers (not a partition's clone, nor a
// constraint's internal ones), constraints (their own, not inherited),
// rules, and the sequences its columns own (a serial's, an identity's,
// one made OWNED BY a column).
const partsQuery = `
SELECT a.attrelid, 'column', a.attnum::int8, quote_ident(a.attname), a.attname::text FROM pg_attribute a
  WHERE a.attrelid = ANY($1) AND a.attnum > 0 AND NOT a.attisdropped AND a.attislocal
UNION ALL
SELECT x.indrelid, 'index', c.oid::int8, c.oid::regclass::text, c.relname::text FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
  WHERE x.indrelid = ANY($1) AND NOT c.relispartition
    AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid AND k.conrelid = x.indrelid)
UNION ALL
SELECT t.tgrelid, 'trigger', t.oid::int8, quote_ident(t.tgname), t.tgname::text FROM pg_trigger t
  WHERE t.tgrelid = ANY($1) AND NOT t.tgisinternal
    AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_trigger'::regclass AND d.objid = t.oid AND d.deptype IN ('P', 'S'))
UNION ALL
SELECT k.conrelid, 'constraint', k.oid::int8, quote_ident(k.conname), k.conname::text FROM pg_constraint k
  WHERE k.conrelid = ANY($1) AND k.conislocal AND k.conparentid = 0
UNION ALL
SELECT r.ev_class, 'rule', r.oid::int8, quote_ident(r.rulename), r.rulename::text FROM pg_rewrite r WHERE r.ev_class = ANY($1)
UNION ALL
SELECT d.refobjid, 'sequence', s.oid::int8, s.oid::regclass::text, s.relname::text FROM pg_depend d JOIN pg_class s ON s.oid = d.objid AND s.relkind = 'S'
  WHERE d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_class'::regclass AND d.refobjid = ANY($1) AND d.deptype IN ('a', 'i')
` + attachedPartsQuery + `
ORDER BY 1, 2, 3`

// tableParts returns the parts of the relations rels (oids), by oid.
func tableParts(ctx context.Context, db *sqlx.DB, rels []uint32) (map[uint32][]part, error) {
	out := map[uint32][]part{}
	if len(rels) == 0 {
		return out, nil
	}
	rows, err := db.Query(ctx, partsQuery, rels)
	if err != nil {
		return nil, fmt.Errorf("listing the columns, indexes, triggers, constraints, rules and sequences of init's tables: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var rel uint32
		var id int64
		var p part
		if err := rows.Scan(&rel, &p.kind, &id, &p.name, &p.bare); err != nil {
			return nil, err
		}
		p.id = uint32(id)
		out[rel] = append(out[rel], p)
	}
	return out, rows.Err()
}

// hasParts reports whether o is a relation whose parts init's mark
// records: a table or materialized view.
func (o object) hasParts() bool { return o.kind == "TABLE" || o.kind == "MATERIALIZED VIEW" }

// inventory writes parts as init's mark records them, each with the
// name it was made under (partNameSep, escaped): "columns 1=id 2=n,
// indexes 16390=a_idx, constraints 16392=a_pkey", or "nothing". A part
// that recorded (an earlier mark's record, by key) names keeps the name
// recorded there: a part the user renamed stays renamed.
func inventory(parts []part, recorded map[string]string) string {
	var groups []string
	for _, k := range partKinds {
		var ids []string
		for _, p := range parts {
			if p.kind == k.kind {
				name := p.bare
				if was := recorded[p.key()]; was != "" {
					name = was
				}
				ids = append(ids, strconv.FormatUint(uint64(p.id), 10)+partNameSep+url.PathEscape(name))
			}
		}
		if len(ids) > 0 {
			groups = append(groups, k.plural+" "+strings.Join(ids, " "))
		}
	}
	if len(groups) == 0 {
		return "nothing"
	}
	return strings.Join(groups, ", ")
}

// partNameSep follows a part's id in init's mark, before the name it was
// made under (escaped: url.PathEscape). Marks of an older stampede record
// ids alone.
const partNameSep = "="

// recordedParts reads the parts init's mark on a table records (comment
// is the mark as read, without its OID), as "kind id" keys, each with
// the name it was made under ("" when the mark records ids alone); ok is
// false for a mark that records none (an older stampede's).
func recordedParts(comment string) (recorded map[string]string, ok bool) {
	_, rest, found := strings.Cut(comment, madeWithSep)
	if !found {
		return nil, false
	}
	list, _, _ := strings.Cut(rest, madeAsSep)
	recorded = map[string]string{}
	for _, group := range strings.Split(list, ", ") {
		f := strings.Fields(group)
		if len(f) == 0 {
			continue
		}
		i := slices.IndexFunc(partKinds, func(k struct{ kind, plural string }) bool { return k.plural == f[0] })
		if i < 0 {
			continue // "nothing"
		}
		for _, tok := range f[1:] {
			id, name, _ := strings.Cut(tok, partNameSep)
			if n, err := url.PathUnescape(name); err == nil {
				name = n
			}
			recorded[partKinds[i].kind+" "+id] = name
		}
	}
	return recorded, true
}

// key is how recordedParts names p.
func (p part) key() string { return p.kind + " " + strconv.FormatUint(uint64(p.id), 10) }

// tableMark is init's mark on a relation o the file made, recording its
// parts.
func (g *gen) tableMark(o object, parts []part) string {
	return workload.InitMark(g) + madeWithSep + inventory(parts, nil) + madeAsSep + o.ident + dialect.MarkOIDSep + strconv.FormatUint(uint64(o.key.oid), 10)
}

// recordedTables returns the oids of objs (the database's objects) that
// are relations carrying init's mark with their parts recorded.
func recordedTables(objs []object) []uint32 {
	var out []uint32
	for _, o := range objs {
		if _, ok := recordedParts(o.comment); ok && o.hasParts() && strings.HasPrefix(o.comment, workload.Mark+" init of "+meta.Name+" ") {
			out = append(out, o.key.oid)
		}
	}
	return out
}

// recordedObjectParts returns the parts of the relations among objs that
// carry init's mark recording them (recordedTables), and the members of
// the publications that do (pubParts), by oid.
func recordedObjectParts(ctx context.Context, db *sqlx.DB, objs []object) (map[uint32][]part, error) {
	out, err := tableParts(ctx, db, recordedTables(objs))
	if err != nil {
		return nil, err
	}
	var pubs []uint32
	for _, o := range objs {
		if _, ok := recordedParts(o.comment); ok && o.isPublication() && strings.HasPrefix(o.comment, workload.Mark+" init of "+meta.Name+" ") {
			pubs = append(pubs, o.key.oid)
			out[o.key.oid] = nil // recorded, though it names none
		}
	}
	members, err := pubParts(ctx, db, pubs)
	for oid, ps := range members {
		out[oid] = append(out[oid], ps...)
	}
	return out, err
}

// addParts records in the marks of the relations an earlier init made
// (among after, the objects now) the columns, constraints and rules that
// the file made on them (those not among before, their parts before it
// ran): a later init file's `ALTER TABLE t ADD COLUMN` of an earlier's
// table is init's, not a user's. (Indexes and triggers a file makes on a
// table that was there carry marks of their own: see markObjects.)
func (g *gen) addParts(ctx context.Context, db *sqlx.DB, after []object, before map[uint32][]part) error {
	if len(before) == 0 {
		return nil
	}
	now, err := recordedObjectParts(ctx, db, after)
	if err != nil {
		return err
	}
	for _, o := range after {
		was, ok := before[o.key.oid]
		recorded, marked := recordedParts(o.comment)
		if !ok || !marked {
			continue
		}
		var keep []part
		added := false
		for _, p := range now[o.key.oid] {
			isNew := p.kind != "index" && p.kind != "trigger" && !slices.ContainsFunc(was, func(w part) bool { return w.key() == p.key() })
			_, had := recorded[p.key()]
			if had || isNew {
				keep = append(keep, p)
			}
			added = added || isNew && !had
		}
		if !added {
			continue
		}
		head, _, _ := strings.Cut(o.comment, madeWithSep)
		_, tail, _ := strings.Cut(o.comment, madeAsSep)
		mark := head + madeWithSep + inventory(keep, recorded) + madeAsSep + tail + dialect.MarkOIDSep + strconv.FormatUint(uint64(o.key.oid), 10)
		// The comment is rewritten only while it is stampede's mark: a
		// comment the user put in its place stays (the row type's mark
		// says who made the table).
		var raw *string
		if err := db.QueryRow(ctx, "SELECT obj_description($1, $2)", o.key.oid, o.key.catalog).Scan(&raw); err != nil {
			return fmt.Errorf("reading the comment of %s %s: %w", o.kindWord(), o.name, err)
		}
		if raw != nil && workload.IsMark(*raw) {
			if _, err := db.Exec(ctx, "COMMENT ON "+o.kind+" "+o.name+" IS "+dialect.QuoteLiteral(mark)); err != nil {
				return fmt.Errorf("recording what init made on %s %s: %w", o.kindWord(), o.name, err)
			}
		}
		if err := markRowType(ctx, db, o, mark); err != nil {
			return err
		}
	}
	return nil
}

// refuseUnrecorded refuses to drop the relations init made (among made)
// whose mark records their parts, when one has a part since that init's
// file did not make and that carries no mark of its own: a user's index,
// trigger, constraint or rule, or a column that holds data, which the
// drop would take along; or a part the file made that the user renamed
// since (a mark records the names, see partNameSep), which is the
// user's as a renamed table is. With --force-drop it says what goes.
// Relations whose mark records no parts (an older stampede's) are
// dropped as before, with whatever is on them.
func (g *gen) refuseUnrecorded(ctx context.Context, db *sqlx.DB, made []object, log io.Writer, action string) error {
	ours := map[objKey]bool{}
	var rels []uint32
	for _, o := range made {
		ours[o.key] = true
		if _, ok := recordedParts(o.comment); ok && o.hasParts() {
			rels = append(rels, o.key.oid)
		}
	}
	parts, err := tableParts(ctx, db, rels)
	if err != nil {
		return err
	}
	var theirs, renamed []string
	for _, o := range made {
		recorded, ok := recordedParts(o.comment)
		if !ok || !o.hasParts() {
			continue
		}
		for _, p := range parts[o.key.oid] {
			was, had := recorded[p.key()]
			switch {
			case had && was != "" && was != p.bare && p.kind != "publication":
				// (A membership is named by its publication's name: a
				// publication renamed is said as such, refuseRenamed.)
				// The file's own part, which the user renamed: as a
				// renamed table, the user's now (ALTER INDEX a_idx
				// RENAME TO keep_a_idx).
				renamed = append(renamed, fmt.Sprintf("%s %s on %s %s (made as %s)", p.kind, p.name, o.kindWord(), o.name, was))
			case had, p.kind == "index" && ours[objKey{"pg_class", p.id}], p.kind == "trigger" && ours[objKey{"pg_trigger", p.id}]:
				continue
			case p.kind == "column":
				var held bool
				if err := db.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM "+o.name+" WHERE "+p.name+" IS NOT NULL)").Scan(&held); err != nil {
					return fmt.Errorf("reading column %s of %s %s: %w", p.name, o.kindWord(), o.name, err)
				}
				if held {
					theirs = append(theirs, fmt.Sprintf("column %s of %s %s (it holds data)", p.name, o.kindWord(), o.name))
				}
			default:
				theirs = append(theirs, p.line(o))
			}
		}
	}
	if len(renamed) > 0 && g.forceDrop {
		fmt.Fprintf(log, "%s%s: dropping %s, which init sql made and you renamed since, with its table\n", action, workload.ForceDropFlag, strings.Join(renamed, ", "))
	}
	var renamedErr error
	if len(renamed) > 0 && !g.forceDrop {
		verb, it := refusalWords(action, len(renamed))
		renamedErr = sqlx.ConfigErrorf("%s in %s: init sql made %s and you renamed %s since, which makes %s yours (as a table of init's you renamed), and %s would go with the table: %s drops nothing; to drop %s too, add %s",
			strings.Join(renamed, ", "), db.Where(), it, it, it, it, verb, it, workload.ForceDropFlag)
	}
	if len(theirs) == 0 {
		return renamedErr
	}
	if g.forceDrop {
		fmt.Fprintf(log, "%s%s: dropping %s, which stampede did not make, with what init sql made\n", action, workload.ForceDropFlag, strings.Join(theirs, ", "))
		return nil
	}
	verb, it := refusalWords(action, len(theirs))
	// The renamed parts are named too: one refusal names all.
	return refuseAll(func() error { return renamedErr }, func() error {
		return sqlx.ConfigErrorf("%s in %s: not made by stampede (init's mark records what its file made on the table), and %s would go with the table: %s drops nothing; to drop %s too, add %s",
			strings.Join(theirs, ", "), db.Where(), subject(len(theirs)), verb, it, workload.ForceDropFlag)
	})
}
