package workload

import (
	"context"
	"fmt"
	"strings"

	"github.com/stampede-bench/stampede/sqlx"
)

// shadowedQuery lists gen's tables ($1, names) in the schema of init's
// record table (the schema init loaded into, as the record and the
// tables are made in the same one) that the search path does not
// resolve to: a relation of the same name in a schema before it (a
// user's app.bank under search_path app, public) shadows each. Each row
// is the table as SQL writes it (schema-qualified, quoted), as a message
// names it (schema.name), and its comment.
var shadowedQuery = `SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname), n.nspname || '.' || c.relname, coalesce(` + ownClassComment("c.oid") + `, '')
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relnamespace = (SELECT relnamespace FROM pg_class WHERE oid = to_regclass($2))
	AND c.relname = ANY($1) AND c.relkind IN ('r', 'p') AND NOT c.relispartition
	AND c.oid IS DISTINCT FROM to_regclass(quote_ident(c.relname))
ORDER BY array_position($1, c.relname::text)`

// Shadowed is a table of stampede's load that the search path does not
// resolve to (see ShadowedTables).
type Shadowed struct {
	// Ref is the table as SQL writes it ("public"."bank"), Name as a
	// message names it (public.bank).
	Ref, Name string
	// Marked is true when it carries the mark of gen's init or run.
	Marked bool
}

// ShadowedTables returns gen's tables (names) that lie in the schema of
// init's record of gen's data but that the connection's search path
// resolves elsewhere (a user's table of the same name in a schema before
// it): cleanup and --drop must drop them by their qualified name, as the
// record says, or the record would outlive them. None without a record
// of gen's data, or on other databases than PostgreSQL.
func ShadowedTables(ctx context.Context, db *sqlx.DB, gen Generator, names []string) ([]Shadowed, error) {
	if db.Null() || db.Dialect().Name() != "postgres" || len(names) == 0 {
		return nil, nil
	}
	if found, err := hasRecord(ctx, db, DataKeyOf(gen)); err != nil || !found {
		return nil, err
	}
	rows, err := db.Query(ctx, shadowedQuery, names, db.Dialect().QuoteIdent(LoadRecordTable))
	if err != nil {
		return nil, fmt.Errorf("looking for tables of the load that the search path hides: %w", err)
	}
	defer rows.Close()
	var out []Shadowed
	for rows.Next() {
		var s Shadowed
		var c string
		if err := rows.Scan(&s.Ref, &s.Name, &c); err != nil {
			return nil, err
		}
		s.Marked = IsMarkOf(c, gen)
		out = append(out, s)
	}
	return out, rows.Err()
}

// qualifyQuery returns, for each of the tables $1 (names, resolved
// through the search path), its schema-qualified name when it is not in
// the schema of init's record table ($2, quoted) or when a relation of
// its name lies in another schema too: then its bare name is ambiguous.
const qualifyQuery = `SELECT t, n.nspname || '.' || c.relname
FROM unnest($1::text[]) t
JOIN pg_class c ON c.oid = to_regclass(quote_ident(t))
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relnamespace IS DISTINCT FROM coalesce((SELECT relnamespace FROM pg_class WHERE oid = to_regclass($2)), c.relnamespace)
	OR EXISTS (SELECT 1 FROM pg_class o WHERE o.relname = c.relname AND o.oid <> c.oid AND o.relkind IN ('r', 'p', 'v', 'm', 'f')
		AND o.relnamespace NOT IN (SELECT oid FROM pg_namespace WHERE nspname IN ('pg_catalog', 'information_schema') OR nspname LIKE 'pg_toast%' OR nspname LIKE 'pg_temp%'))`

// QualifiedNames returns names (tables resolved through the search path)
// as a message names them: schema-qualified where the bare name would
// mislead (the table is not in the schema init loaded into, or a table
// of its name lies in another schema too), else as they are.
func QualifiedNames(ctx context.Context, db *sqlx.DB, names []string) ([]string, error) {
	out := append([]string(nil), names...)
	if db.Null() || db.Dialect().Name() != "postgres" || len(names) == 0 {
		return out, nil
	}
	rows, err := db.Query(ctx, qualifyQuery, names, db.Dialect().QuoteIdent(LoadRecordTable))
	if err != nil {
		return nil, fmt.Errorf("reading the schemas of %v: %w", names, err)
	}
	defer rows.Close()
	q := map[string]string{}
	for rows.Next() {
		var n, full string
		if err := rows.Scan(&n, &full); err != nil {
			return nil, err
		}
		q[n] = full
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i, n := range out {
		if full, ok := q[n]; ok {
			out[i] = full
		}
	}
	return out, nil
}

// loadPathQuery lists, of gen's tables ($1, names) in the schema of
// init's record table ($2, quoted), each the search path resolves to
// another relation (a user's app.bank first under search_path app,
// public), as schema.name, with the relation it resolves to; and beside
// each, the search_path that puts the load's schema first, then the
// session's own, and the session's.
const loadPathQuery = `SELECT n.nspname || '.' || c.relname, sn.nspname || '.' || s.relname,
	quote_ident(n.nspname) || coalesce(', ' || nullif(current_setting('search_path'), ''), ''), current_setting('search_path')
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_class s ON s.oid = to_regclass(quote_ident(c.relname)) JOIN pg_namespace sn ON sn.oid = s.relnamespace
WHERE c.relnamespace = (SELECT relnamespace FROM pg_class WHERE oid = to_regclass($2))
	AND c.relname = ANY($1) AND c.relkind IN ('r', 'p') AND NOT c.relispartition AND s.oid <> c.oid
ORDER BY array_position($1, c.relname::text)`

// LoadPath is where a run or check finds gen's tables of init's load
// when the session's search path would find others (see LoadSearchPath).
type LoadPath struct {
	// SearchPath puts the schema of init's load first, then the
	// session's own search path (Was).
	SearchPath, Was string
	// Loaded are the tables of the load (schema.name) the search path
	// hid, Found what it found instead, in order.
	Loaded, Found []string
}

// Note says, in one line, that the search path hid the load's tables and
// which search path the run or check uses instead.
func (p LoadPath) Note() string {
	var hid []string
	for i := range p.Loaded {
		hid = append(hid, p.Found[i]+" before "+p.Loaded[i])
	}
	return fmt.Sprintf("search_path %q finds %s, which init loaded: using the load's tables, with search_path %s",
		p.Was, strings.Join(hid, ", "), p.SearchPath)
}

// LoadSearchPath returns, when the session's search path resolves one of
// gen's tables to another relation than the table of init's load of
// gen's data (as ShadowedTables finds them: a user's app.bank before
// stampede's public.bank under search_path app, public), the search path
// under which every one of them resolves to the load's; ok is false when
// the search path already does, without a record of gen's data, and on
// other databases than PostgreSQL. A run and a check then use that
// search path on each connection, so that they never write into nor
// check a user's tables of the same names.
func LoadSearchPath(ctx context.Context, db *sqlx.DB, gen Generator) (p LoadPath, ok bool, err error) {
	if db.Null() || db.Dialect().Name() != "postgres" {
		return LoadPath{}, false, nil
	}
	var names []string
	for _, t := range gen.Tables() {
		names = append(names, t.Name)
	}
	if len(names) == 0 {
		return LoadPath{}, false, nil
	}
	if found, err := hasRecord(ctx, db, DataKeyOf(gen)); err != nil || !found {
		return LoadPath{}, false, err
	}
	rows, err := db.Query(ctx, loadPathQuery, names, db.Dialect().QuoteIdent(LoadRecordTable))
	if err != nil {
		return LoadPath{}, false, fmt.Errorf("looking for tables of the load that the search path hides: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var loaded, found string
		if err := rows.Scan(&loaded, &found, &p.SearchPath, &p.Was); err != nil {
			return LoadPath{}, false, err
		}
		p.Loaded, p.Found = append(p.Loaded, loaded), append(p.Found, found)
	}
	return p, len(p.Loaded) > 0, rows.Err()
}
