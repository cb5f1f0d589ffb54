package sqlscript

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// pubTablesQuery lists the members of the publications $1 (oids) that
// it names: the tables of FOR TABLE, as parts of kind "table" by the
// table's oid.
const pubTablesQuery = `SELECT r.prpubid, 'table', r.prrelid::int8, r.prrelid::regclass::text, c.relname::text
  FROM pg_publication_rel r JOIN pg_class c ON c.oid = r.prrelid WHERE r.prpubid = ANY($1)`

// pubSchemasQuery continues pubTablesQuery on a server with publications
// of schemas (PostgreSQL 15): the schemas of FOR TABLES IN SCHEMA, as
// parts of kind "schema" by the schema's oid.
const pubSchemasQuery = `
UNION ALL
SELECT p.pnpubid, 'schema', p.pnnspid::int8, quote_ident(n.nspname), n.nspname::text
  FROM pg_publication_namespace p JOIN pg_namespace n ON n.oid = p.pnnspid WHERE p.pnpubid = ANY($1)`

// pubParts returns the members of the publications pubs (oids) that
// they name (pubTablesQuery, pubSchemasQuery), by the publication's oid:
// init's mark on a publication its file made records them, so that a
// table or schema a user added to it since, whose membership dropping
// the publication would end, is told from the file's own.
func pubParts(ctx context.Context, db *sqlx.DB, pubs []uint32) (map[uint32][]part, error) {
	out := map[uint32][]part{}
	if len(pubs) == 0 {
		return out, nil
	}
	q := pubTablesQuery
	var bySchema bool
	if err := db.QueryRow(ctx, dialect.SchemaPublicationsQuery(db.Dialect())).Scan(&bySchema); err != nil {
		return nil, fmt.Errorf("looking for publications of schemas: %w", err)
	}
	if bySchema {
		q += pubSchemasQuery
	}
	rows, err := db.Query(ctx, q+"\nORDER BY 1, 2, 3", pubs)
	if err != nil {
		return nil, fmt.Errorf("listing the tables and schemas of init's publications: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var pub uint32
		var id int64
		var p part
		if err := rows.Scan(&pub, &p.kind, &id, &p.name, &p.bare); err != nil {
			return nil, err
		}
		p.id = uint32(id)
		out[pub] = append(out[pub], p)
	}
	return out, rows.Err()
}

// isPublication reports whether o is a publication.
func (o object) isPublication() bool { return o.kind == "PUBLICATION" }

// refusePublished refuses to drop what init made when a user's
// replication would change without a word: a table or schema the user
// added to a publication init made (ALTER PUBLICATION p ADD TABLE
// users_t), whose membership dropping the publication ends; and a
// publication of the user's that publishes a table or schema init made
// without naming it (FOR ALL TABLES, FOR TABLES IN SCHEMA), which
// dropping them changes (one that publishes init's record too is named
// by the record's census, not again here). With --force-drop it says
// what goes, and that it keeps the user's publications.
func (g *gen) refusePublished(ctx context.Context, db *sqlx.DB, made []object, log io.Writer, action string) error {
	madeRel, madeSchema := map[uint32]bool{}, map[uint32]bool{}
	var pubs []uint32
	var schemas, tables []string
	for _, o := range made {
		switch {
		case o.key.catalog == "pg_namespace":
			madeSchema[o.key.oid] = true
			schemas = append(schemas, unquoteIdent(o.name))
		case o.key.catalog == "pg_class":
			madeRel[o.key.oid] = true
			if o.kind == "TABLE" {
				tables = append(tables, o.name)
			}
		case o.isPublication():
			if _, ok := recordedParts(o.comment); ok {
				pubs = append(pubs, o.key.oid)
			}
		}
	}
	parts, err := pubParts(ctx, db, pubs)
	if err != nil {
		return err
	}
	var members []string
	for _, o := range made {
		recorded, ok := recordedParts(o.comment)
		if !o.isPublication() || !ok {
			continue
		}
		for _, p := range parts[o.key.oid] {
			if _, had := recorded[p.key()]; had || p.kind == "table" && madeRel[p.id] || p.kind == "schema" && madeSchema[p.id] {
				continue
			}
			members = append(members, fmt.Sprintf("publication %s's membership of %s %s", o.name, p.kind, p.name))
		}
	}
	users, err := workload.PublicationsOf(ctx, db, schemas, tables)
	if err != nil {
		return err
	}
	if len(users) > 0 {
		// Those that publish init's record, which goes too, are named
		// by the record's census.
		goes, err := workload.RecordGoes(ctx, db, g)
		if err != nil {
			return err
		}
		if goes {
			onRecord, err := workload.PublicationsOf(ctx, db, nil, []string{db.Dialect().QuoteIdent(workload.LoadRecordTable)})
			if err != nil {
				return err
			}
			users = slices.DeleteFunc(users, func(p string) bool { return slices.Contains(onRecord, p) })
		}
	}
	if g.forceDrop {
		if len(members) > 0 {
			fmt.Fprintf(log, "%s%s: dropping %s, which stampede did not make, with the publication\n", action, workload.ForceDropFlag, strings.Join(members, ", "))
		}
		if len(users) > 0 {
			fmt.Fprintf(log, "%s%s: dropping what init sql made%s\n", action, workload.ForceDropFlag, workload.KeptNote(users, len(schemas)+len(tables)))
		}
		return nil
	}
	var merr, uerr error
	if len(members) > 0 {
		verb, it := refusalWords(action, len(members))
		merr = sqlx.ConfigErrorf("%s in %s: not made by stampede (init's mark on a publication records the tables and schemas its file put in it), and dropping the publication would end %s: %s drops nothing; to drop %s too, add %s",
			strings.Join(members, ", "), db.Where(), it, verb, it, workload.ForceDropFlag)
	}
	if len(users) > 0 {
		verb, it := refusalWords(action, len(users))
		uerr = sqlx.ConfigErrorf("%s in %s: not made by stampede, and %s what init sql made without naming it, which dropping it would change: %s drops nothing; to drop it anyway (keeping %s), add %s",
			strings.Join(users, ", "), db.Where(), map[bool]string{true: "it publishes", false: "they publish"}[len(users) == 1], verb, it, workload.ForceDropFlag)
	}
	return refuseAll(func() error { return merr }, func() error { return uerr })
}
