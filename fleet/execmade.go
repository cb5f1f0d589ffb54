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

// execMadeOnQuery lists, as the census names them ("KIND IDENTITY", as
// workload.Attached does), the triggers, rules, policies and statistics
// objects of db that carry the mark of what fleet exec made bound to
// them (execMadeQuery), and, as "SCHEMA.TABLE.COLUMN", the columns that
// carry it.
const execMadeOnQuery = `SELECT i.type || ' ' || i.identity
	FROM (SELECT 'pg_trigger'::regclass AS classid, oid AS objid FROM pg_trigger
		UNION ALL SELECT 'pg_rewrite'::regclass, oid FROM pg_rewrite
		UNION ALL SELECT 'pg_policy'::regclass, oid FROM pg_policy
		UNION ALL SELECT 'pg_statistic_ext'::regclass, oid FROM pg_statistic_ext) x
	CROSS JOIN LATERAL pg_identify_object(x.classid, x.objid, 0) i
	WHERE obj_description(x.objid, x.classid::regclass::text) = $1 || '; oid ' || x.objid
	UNION ALL
	SELECT n.nspname || '.' || c.relname || '.' || a.attname
	FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
	WHERE a.attnum > 0 AND NOT a.attisdropped AND c.relkind IN ('r', 'p') AND col_description(a.attrelid, a.attnum) = $1`

// execMadeOn returns what fleet exec made on tables in db (see
// execMadeOnQuery): stampede's, which the census of a tenant
// (holdingDatabases, tenantAddedColumns) and column mode's cleanup
// (refuseAddedColumns) leave out of what a user made. A column is named
// both as "SCHEMA.TABLE.COLUMN" and, for the current schema's tables, as
// "TABLE.COLUMN" (workload.AddedColumnsIn's two forms).
func execMadeOn(ctx context.Context, db *sqlx.DB) (map[string]bool, error) {
	made := map[string]bool{}
	if db.Null() || db.Dialect().Name() != "postgres" {
		return made, nil
	}
	var current string
	if err := db.QueryRow(ctx, "SELECT current_schema()").Scan(&current); err != nil {
		return nil, err
	}
	rows, err := db.Query(ctx, execMadeOnQuery, execMark)
	if err != nil {
		return nil, fmt.Errorf("listing what fleet exec made: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		made[s] = true
		if rest, ok := strings.CutPrefix(s, current+"."); ok {
			made[rest] = true
		}
	}
	return made, rows.Err()
}

// withoutMade returns found but the names made (execMadeOn) holds.
func withoutMade(found []string, made map[string]bool) []string {
	return slices.DeleteFunc(found, func(s string) bool { return made[s] })
}

// execMadeIn returns the relations, routines, types and domains of
// schemas (nil: db's current schema) that carry the mark of what fleet
// exec made (execMark) bound to them, the triggers, rules, policies
// and statistics objects of db that do, and the extensions that carry it
// bound to them and to db (ownOutsideMark): stampede's, which the fleet's
// drop takes with it, so that none of them is a user's dependent
// (workload.DependentsBeyond).
func execMadeIn(ctx context.Context, db *sqlx.DB, schemas []string) ([]workload.ObjectRef, error) {
	d := db.Dialect()
	if db.Null() || d.Name() != "postgres" {
		return nil, nil
	}
	in := func(col string) string {
		return col + " IN (SELECT oid FROM pg_namespace WHERE CASE WHEN $2::text[] IS NULL THEN oid = current_schema()::regnamespace ELSE nspname = ANY($2) END)"
	}
	rows, err := db.Query(ctx, `SELECT 'pg_class', c.oid FROM pg_class c WHERE `+in("c.relnamespace")+` AND `+dialect.OwnComment(d, "c.oid", "pg_class")+` = $1
		UNION ALL SELECT 'pg_proc', p.oid FROM pg_proc p WHERE `+in("p.pronamespace")+` AND `+dialect.OwnComment(d, "p.oid", "pg_proc")+` = $1
		UNION ALL SELECT 'pg_type', t.oid FROM pg_type t WHERE `+in("t.typnamespace")+` AND `+dialect.OwnComment(d, "t.oid", "pg_type")+` = $1
		UNION ALL SELECT 'pg_extension', x.oid FROM pg_extension x WHERE `+ownOutsideMark(d, "x.oid", "pg_extension")+`
		UNION ALL SELECT x.catalog, x.oid FROM (SELECT 'pg_trigger' AS catalog, oid FROM pg_trigger
			UNION ALL SELECT 'pg_rewrite', oid FROM pg_rewrite UNION ALL SELECT 'pg_policy', oid FROM pg_policy
			UNION ALL SELECT 'pg_statistic_ext', oid FROM pg_statistic_ext) x
		WHERE obj_description(x.oid, x.catalog) = $1 || '; oid ' || x.oid`, execMark, schemas)
	if err != nil {
		return nil, fmt.Errorf("listing what fleet exec made: %w", err)
	}
	defer rows.Close()
	var out []workload.ObjectRef
	for rows.Next() {
		var r workload.ObjectRef
		if err := rows.Scan(&r.Catalog, &r.OID); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// dropExecTypes drops, in tx, the domains and then the types of schema
// that carry the mark of what fleet exec made bound to them, without
// CASCADE: stampede's, which the schema's drop (RESTRICT) would
// otherwise fail over.
func dropExecTypes(ctx context.Context, db *sqlx.DB, tx sqlx.Tx, schema string) error {
	if db.Dialect().Name() != "postgres" {
		return nil
	}
	rows, err := tx.Query(ctx, `SELECT t.typtype = 'd', format('%I.%I', n.nspname, t.typname) FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
		WHERE n.nspname = $1 AND `+dialect.OwnComment(db.Dialect(), "t.oid", "pg_type")+` = $2 ORDER BY t.typtype <> 'd'`, schema, execMark)
	if err != nil {
		return err
	}
	byKind := map[bool][]string{}
	for rows.Next() {
		var domain bool
		var name string
		if err := rows.Scan(&domain, &name); err != nil {
			rows.Close()
			return err
		}
		byKind[domain] = append(byKind[domain], name)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, domain := range []bool{true, false} {
		if names := byKind[domain]; len(names) > 0 {
			kind := map[bool]string{true: "DOMAIN", false: "TYPE"}[domain]
			if _, err := tx.Exec(ctx, "DROP "+kind+" "+strings.Join(names, ", ")); err != nil {
				return err
			}
		}
	}
	return nil
}
