package workload

import (
	"context"
	"fmt"
	"net/url"
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

// loadPathQuery lists, of gen's tables ($1, names) in schema $2 (the
// load's, see loadSchema), each the search path resolves to another
// relation (a user's app.bank first under search_path app, public), as
// schema.name, with the relation it resolves to.
const loadPathQuery = `SELECT n.nspname || '.' || c.relname, sn.nspname || '.' || s.relname
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_class s ON s.oid = to_regclass(quote_ident(c.relname)) JOIN pg_namespace sn ON sn.oid = s.relnamespace
WHERE n.nspname = $2 AND c.relname = ANY($1) AND c.relkind IN ('r', 'p') AND NOT c.relispartition AND s.oid <> c.oid
ORDER BY array_position($1, c.relname::text)`

// strayQuery lists, of gen's tables ($1, names), each that schema $2
// (the load's) lacks but that the search path finds in another schema:
// its name, that schema and its comment (as stampede reads its mark).
var strayQuery = `SELECT u.t, sn.nspname, coalesce(` + ownClassComment("s.oid") + `, '')
FROM unnest($1::text[]) WITH ORDINALITY AS u(t, i)
JOIN pg_class s ON s.oid = to_regclass(quote_ident(u.t)) JOIN pg_namespace sn ON sn.oid = s.relnamespace
WHERE sn.nspname <> $2 AND NOT EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	WHERE n.nspname = $2 AND c.relname = u.t AND c.relkind IN ('r', 'p'))
ORDER BY u.i`

// markedSchemasQuery lists the schemas holding a table named $1, each
// with the table's comment (as stampede reads its mark).
var markedSchemasQuery = `SELECT n.nspname, coalesce(` + ownClassComment("c.oid") + `, '')
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relname = $1 AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY 1`

// LoadPath is where gen's tables of stampede's load are, seen through
// the session's search path (see LoadSearchPath).
type LoadPath struct {
	// Workload is the name of the workload whose load it is.
	Workload string
	// Schema is the schema of the load ("" when stampede's load of the
	// workload is not found); Was the session's search path.
	Schema, Was string
	// SearchPath puts Schema first, then the session's own search path
	// (Was): under it every table of the load resolves to the load's.
	SearchPath string
	// Loaded are the tables of the load (schema.name) the search path
	// hid, Found what it found instead, in order.
	Loaded, Found []string
	// Strays are the load's tables missing from Schema that the search
	// path finds in another one: moved there, or a user's.
	Strays []Stray
}

// Stray is a table of the load missing from the load's schema that the
// search path finds in another schema (see LoadPath.Strays).
type Stray struct {
	// Name is the table's name, Schema where the search path finds it.
	Name, Schema string
	// Moved is true when it carries the mark of the load's workload:
	// stampede's table, that someone moved out of the load (ALTER TABLE
	// usertable SET SCHEMA app).
	Moved bool
}

// Hides reports whether the search path finds other relations than the
// load's tables (Loaded): a run must use SearchPath.
func (p LoadPath) Hides() bool { return len(p.Loaded) > 0 }

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

// StrayError returns the refusal, by verb ("run", "check"), to work on
// the first of the load's tables that the search path finds outside the
// load (Strays), or nil when there is none.
func (p LoadPath) StrayError(verb string) error {
	if len(p.Strays) == 0 {
		return nil
	}
	s := p.Strays[0]
	return &StrayTableError{Stray: s, Workload: p.Workload, Load: p.Schema, Path: p.Was, Verb: verb}
}

// StrayTableError refuses to run or check a table of the load that the
// search path finds in another schema than the load's (a Stray).
type StrayTableError struct {
	Stray
	// Workload is the load's workload, Load its schema, Path the
	// session's search path; Verb what was refused ("run", "check").
	Workload, Load, Path, Verb string
}

func (e *StrayTableError) Error() string {
	fix := fmt.Sprintf("re-run init (or cleanup) of %s with a search_path that does not find schema %s (?options=-csearch_path%%3D%s)",
		e.Workload, e.Schema, url.QueryEscape(e.Load))
	if e.Moved {
		return fmt.Sprintf("the load's table %s was moved to schema %s since init of %s made it in schema %s: %s leaves it alone (it is yours now); move it back (ALTER TABLE %s.%s SET SCHEMA %s), or %s",
			e.Name, e.Schema, e.Workload, e.Load, e.Verb, quoteIdent(e.Schema), quoteIdent(e.Name), quoteIdent(e.Load), fix)
	}
	return fmt.Sprintf("the load's table %s is missing from schema %s, where init of %s loaded, and search_path %q finds %s.%s, which stampede did not load: %s leaves it alone; %s",
		e.Name, e.Load, e.Workload, e.Path, e.Schema, e.Name, e.Verb, fix)
}

// Is makes errors.Is(err, ErrForeign) true, for its exit code.
func (e *StrayTableError) Is(target error) bool { return target == ErrForeign }

// quoteIdent quotes a PostgreSQL identifier when it needs it.
func quoteIdent(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == "" && (s[0] < '0' || s[0] > '9') {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// LoadUser is implemented by a Generator whose runs use the tables of
// another workload's load (the sql workload's pgbench built-in scripts
// use pgbench's): a run looks for that load (LoadOf).
type LoadUser interface {
	// UsesLoadOf returns the generator whose load the runs use, or nil
	// when they use their own.
	UsesLoadOf() Generator
}

// LoadOf returns the generator whose load a run of gen uses: its
// LoadUser's, else gen.
func LoadOf(gen Generator) Generator {
	if lu, ok := gen.(LoadUser); ok {
		if g := lu.UsesLoadOf(); g != nil {
			return g
		}
	}
	return gen
}

// LoadSearchPath returns where stampede's load of gen's data is (gen's
// LoadOf: pgbench's for the sql workload's built-in scripts), as the
// session's search path sees it: its schema (loadSchema), the tables of
// the load that the search path resolves to other relations (a user's
// app.bank before stampede's public.bank under search_path app, public)
// with the search path under which every one of them resolves to the
// load's, and the load's tables the schema lacks that the search path
// finds elsewhere (Strays). A run and a check then use that search path
// on each connection, and refuse the strays, so that they never write
// into nor check a user's tables of the same names. An empty LoadPath
// without a load of gen's data, and on other databases than PostgreSQL.
func LoadSearchPath(ctx context.Context, db *sqlx.DB, gen Generator) (LoadPath, error) {
	gen = LoadOf(gen)
	if db.Null() || db.Dialect().Name() != "postgres" {
		return LoadPath{}, nil
	}
	var names []string
	for _, t := range gen.Tables() {
		names = append(names, t.Name)
	}
	if len(names) == 0 {
		return LoadPath{}, nil
	}
	p := LoadPath{Workload: gen.Meta().Name}
	if err := db.QueryRow(ctx, "SELECT current_setting('search_path')").Scan(&p.Was); err != nil {
		return LoadPath{}, fmt.Errorf("reading the search_path: %w", err)
	}
	schema, err := loadSchema(ctx, db, gen, names[0])
	if err != nil || schema == "" {
		return p, err
	}
	p.Schema = schema
	p.SearchPath = quoteIdent(schema)
	if p.Was != "" {
		p.SearchPath += ", " + p.Was
	}
	rows, err := db.Query(ctx, loadPathQuery, names, schema)
	if err != nil {
		return LoadPath{}, fmt.Errorf("looking for tables of the load that the search path hides: %w", err)
	}
	for rows.Next() {
		var loaded, found string
		if err := rows.Scan(&loaded, &found); err != nil {
			rows.Close()
			return LoadPath{}, err
		}
		p.Loaded, p.Found = append(p.Loaded, loaded), append(p.Found, found)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return LoadPath{}, err
	}
	rows, err = db.Query(ctx, strayQuery, names, schema)
	if err != nil {
		return LoadPath{}, fmt.Errorf("looking for tables of the load outside its schema: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var s Stray
		var c string
		if err := rows.Scan(&s.Name, &s.Schema, &c); err != nil {
			return LoadPath{}, err
		}
		s.Moved = IsMarkOf(c, gen)
		p.Strays = append(p.Strays, s)
	}
	return p, rows.Err()
}

// loadSchema returns the schema of stampede's load of gen's data: that
// of init's record of it (LoadRecordTable, found through the search
// path: init makes its tables beside it), else, for a generator that
// marks its tables otherwise (MarkOwner: the pgbench form's, which
// records nothing), the one schema whose table first (gen's first) carries
// such a mark; "" when there is none (or several of the latter).
func loadSchema(ctx context.Context, db *sqlx.DB, gen Generator, first string) (string, error) {
	found, err := hasRecord(ctx, db, DataKeyOf(gen))
	if err != nil {
		return "", err
	}
	if found {
		var schema string
		err := db.QueryRow(ctx, `SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass($1)`,
			db.Dialect().QuoteIdent(LoadRecordTable)).Scan(&schema)
		if err != nil {
			return "", fmt.Errorf("reading the schema of %s: %w", LoadRecordTable, err)
		}
		return schema, nil
	}
	mo, ok := gen.(MarkOwner)
	if !ok {
		return "", nil
	}
	rows, err := db.Query(ctx, markedSchemasQuery, first)
	if err != nil {
		return "", fmt.Errorf("looking for stampede's table %s: %w", first, err)
	}
	defer rows.Close()
	var schemas []string
	for rows.Next() {
		var schema, c string
		if err := rows.Scan(&schema, &c); err != nil {
			return "", err
		}
		if mo.OwnsMark(c) {
			schemas = append(schemas, schema)
		}
	}
	if err := rows.Err(); err != nil || len(schemas) != 1 {
		return "", err
	}
	return schemas[0], nil
}

// otherRecordsQuery lists the schemas holding a table named
// LoadRecordTable other than the one the search path finds.
const otherRecordsQuery = `SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relname = $1 AND c.relkind = 'r' AND c.oid IS DISTINCT FROM to_regclass(quote_ident($1)) ORDER BY 1`

// LoadsElsewhere returns, when the search path finds no record of
// gen's load, the line that says in which schemas init's record of it
// (LoadRecordTable) is, which the search path does not find, and how to
// reach it ("stampede's load of ycsb is in schema s1, which ..."), for a
// refusal of the tables the search path finds (ForeignError.Elsewhere);
// "" when there is none, or on other databases than PostgreSQL.
func LoadsElsewhere(ctx context.Context, db *sqlx.DB, gen Generator) (string, error) {
	if db.Null() || db.Dialect().Name() != "postgres" {
		return "", nil
	}
	if found, err := hasRecord(ctx, db, DataKeyOf(gen)); err != nil || found {
		return "", err
	}
	rows, err := db.Query(ctx, otherRecordsQuery, LoadRecordTable)
	if err != nil {
		return "", fmt.Errorf("looking for %s in other schemas: %w", LoadRecordTable, err)
	}
	var schemas []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return "", err
		}
		schemas = append(schemas, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return "", err
	}
	var holding []string
	for _, s := range schemas {
		var n int
		q := "SELECT count(*) FROM " + quoteIdent(s) + "." + quoteIdent(LoadRecordTable) + " WHERE data = $1"
		if err := db.QueryRow(ctx, q, DataKeyOf(gen)).Scan(&n); err != nil || n == 0 {
			continue // a user's table of the name, or one not readable
		}
		holding = append(holding, s)
	}
	if len(holding) == 0 {
		return "", nil
	}
	where := "schema " + holding[0]
	if len(holding) > 1 {
		where = "schemas " + strings.Join(holding, ", ")
	}
	return fmt.Sprintf("stampede's load of %s is in %s, which the search_path does not find (connect with ?options=-csearch_path%%3D%s to reach it); ",
		gen.Meta().Name, where, url.QueryEscape(holding[0])), nil
}
