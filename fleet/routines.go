package fleet

import (
	"context"
	"fmt"
	"strings"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/sqlx"
)

// markedRoutine is a routine stampede made in a tenant schema (TPC-C's
// HammerDB routines, its server-side functions): what a schema clone
// makes again in the clone.
type markedRoutine struct {
	// def is its CREATE statement (pg_get_functiondef), its name
	// qualified by the schema it is in; args its argument types, as
	// regprocedure reads them; name its name, quoted.
	def, args, name string
	// schema is the schema's name as def quotes it; mark its mark,
	// without the OID it is bound to.
	schema, mark string
}

// ownRoutine is an SQL condition on pg_proc p: p carries stampede's mark,
// bound to it (dialect.OwnComment), and its body is still the one the
// mark's md5 sum names, where the mark names one (TPC-C's routines: a
// user's CREATE OR REPLACE keeps the comment, not the body).
func ownRoutine(d dialect.Dialect) string {
	own := dialect.OwnComment(d, "p.oid", "pg_proc")
	return own + ` LIKE 'made by stampede %' AND (` + own + ` NOT LIKE '% routine md5 %' OR ` + own + ` LIKE '% routine md5 ' || md5(p.prosrc))`
}

// markedRoutinesIn lists the routines of schema that stampede made
// (ownRoutine): those a schema clone copies.
func markedRoutinesIn(ctx context.Context, db *sqlx.DB, schema string) ([]markedRoutine, error) {
	if db.Dialect().Name() != "postgres" {
		return nil, nil
	}
	own := dialect.OwnComment(db.Dialect(), "p.oid", "pg_proc")
	rows, err := db.Query(ctx, `SELECT pg_get_functiondef(p.oid), oidvectortypes(p.proargtypes), quote_ident(p.proname), quote_ident(n.nspname), `+own+`
		FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE n.nspname = $1 AND `+ownRoutine(db.Dialect())+` ORDER BY p.oid`, schema)
	if err != nil {
		return nil, fmt.Errorf("listing the routines of schema %q: %w", schema, err)
	}
	defer rows.Close()
	var out []markedRoutine
	for rows.Next() {
		var r markedRoutine
		if err := rows.Scan(&r.def, &r.args, &r.name, &r.schema, &r.mark); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// routineCloneSQL returns the statements that make r in schema to (its
// name quoted, as the server quotes it), carrying r's mark bound to the
// new routine's OID, as init marks the routines it makes.
func routineCloneSQL(r markedRoutine, to string) (string, error) {
	header, body, _ := strings.Cut(r.def, "\n")
	from := " " + r.schema + "." + r.name + "("
	if !strings.Contains(header, from) {
		return "", fmt.Errorf("copying routine %s.%s: its definition does not start with its name (%s)", r.schema, r.name, header)
	}
	def := strings.Replace(header, from, " "+to+"."+r.name+"(", 1) + "\n" + body
	sig := dialect.QuoteLiteral(to + "." + r.name + "(" + r.args + ")")
	comment := "DO $stampede$ DECLARE o oid := to_regprocedure(" + sig + "); BEGIN EXECUTE 'COMMENT ON ROUTINE ' || o::regprocedure::text || ' IS ' || quote_literal(" +
		dialect.QuoteLiteral(r.mark+dialect.MarkOIDSep) + " || o::text); END $stampede$"
	return def + ";\n" + comment, nil
}

// dropMarkedRoutines drops, in tx, the routines of schema that stampede
// made (ownRoutine): a tenant's, which its schema's drop (RESTRICT) would
// otherwise refuse as a user's.
func dropMarkedRoutines(ctx context.Context, db *sqlx.DB, tx sqlx.Tx, schema string) error {
	if db.Dialect().Name() != "postgres" {
		return nil
	}
	rows, err := tx.Query(ctx, `SELECT p.oid::regprocedure::text FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE n.nspname = $1 AND `+ownRoutine(db.Dialect()), schema)
	if err != nil {
		return err
	}
	var sigs []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return err
		}
		sigs = append(sigs, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, s := range sigs {
		if _, err := tx.Exec(ctx, "DROP ROUTINE "+s); err != nil {
			return err
		}
	}
	return nil
}
