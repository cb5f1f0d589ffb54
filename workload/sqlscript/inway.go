package sqlscript

import (
	"context"
	"errors"
	"fmt"
	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/internal/lazyre"
	"io"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/stampede-bench/stampede/pgscript"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// createPattern finds the relation a statement creates (without IF NOT
// EXISTS, which would not fail): CREATE [UNLOGGED|TEMP] TABLE, SEQUENCE,
// VIEW, MATERIALIZED VIEW name, and CREATE INDEX name ON.
var createPattern = lazyre.New(`(?is)^\s*create\s+(?:or\s+replace\s+)?(?:(?:global|local)\s+)?(?:temp\s+|temporary\s+|unlogged\s+)?(table|sequence|view|materialized\s+view|(?:unique\s+)?index(?:\s+concurrently)?)\s+(if\s+not\s+exists\s+)?("(?:[^"]|"")+"|[a-z_][a-z0-9_$]*(?:\s*\.\s*(?:"(?:[^"]|"")+"|[a-z_][a-z0-9_$]*))?)`)

// dropPattern finds the relations a DROP statement drops (the file's own
// DROP ... IF EXISTS before its CREATE), and what it calls them.
var dropPattern = lazyre.New(`(?is)^\s*drop\s+(table|sequence|view|materialized\s+view|index|foreign\s+table)\s+(?:concurrently\s+)?(?:if\s+exists\s+)?(.*?)\s*(?:cascade|restrict)?\s*;?\s*$`)

// relationKinds names pg_class's relkinds as a line names the object.
var relationKinds = map[string]string{"r": "table", "p": "partitioned table", "S": "sequence", "v": "view",
	"m": "materialized view", "i": "index", "I": "partitioned index", "f": "foreign table", "c": "type"}

// checkInTheWay refuses, before any statement of the file runs, a
// relation that a CREATE of the file would meet (one that exists without
// stampede's mark, and that the file does not drop before): a user's,
// which the file's CREATE would fail on after the statements before it
// had run; and a relation that a DROP of the file would drop without init
// sql's mark (a user's, which the file would drop and replace). (A
// relation of an earlier init, marked, is left to the file's own error,
// which names --drop, or to its own DROP.)
//
// With force (--force-drop), a relation the file's own DROP drops is not
// refused, and said on log: the file's statement drops it (a drop of
// init's before the file ran would make the file's plain DROP fail on it
// gone). The user's relations the file drops are all named in one
// refusal.
func checkInTheWay(ctx context.Context, db *sqlx.DB, file string, steps []pgscript.InitStep, force bool, log io.Writer) error {
	dropped := map[string]bool{}
	created := map[string]bool{}     // the relations the file creates, by normalName
	noUsers := map[string]bool{}     // the relations of writes found no user's (refuseWrite)
	var drops *workload.ForeignError // the user's relations the file drops
	var lines []string
	refuseDrops := func(err error) error {
		if drops == nil {
			return err
		}
		if len(drops.Names) > 1 {
			drops.Why = fmt.Sprintf("%s drop them, and the ones there carry no mark of stampede's init: they are yours; no statement of the file ran", strings.Join(lines, ", "))
		}
		return workload.Refusal(sqlx.ConfigErrorf("%w", drops), err)
	}
	var path []string // the file's own search_path, once it sets one
	cas := &cascades{ctx: ctx, db: db, file: file, force: force, log: log}
	// foreign takes the refusal err of a user's object (name) that
	// statement s drops: said on log with force, else one more in drops.
	foreign := func(s pgscript.InitStep, name string, err error) error {
		var fe *workload.ForeignError
		switch {
		case err == nil:
		case errors.As(err, &fe) && force:
			fmt.Fprintf(log, "%s: %s:%d drops %s %s, which stampede did not make\n", workload.ForceDropFlag, file, s.Line, fe.Kind, name)
		case errors.As(err, &fe) && drops == nil:
			drops = fe
			lines = append(lines, fmt.Sprintf("%s:%d", file, s.Line))
		case errors.As(err, &fe):
			drops.Kind = mixKind(drops.Kind, fe.Kind)
			drops.Names = append(drops.Names, name)
			lines = append(lines, fmt.Sprintf("%s:%d", file, s.Line))
		default:
			return err
		}
		return nil
	}
	for _, s := range steps {
		if s.Copy {
			continue
		}
		// Each statement of a compound (joined by \;) on its own.
		for _, part := range splitStatements(s.SQL) {
			sql := stripComments(part)
			if m := dropAllPattern().FindStringSubmatch(sql); m != nil {
				return refuseDrops(sqlx.ConfigErrorf("%s:%d: %s in an init file drops what is not the file's (%s): init sql runs no DROP OWNED nor DROP DATABASE; no statement of the file ran",
					file, s.Line, strings.ToUpper(strings.Join(strings.Fields(m[1]), " ")), strings.TrimSuffix(strings.TrimSpace(sql), ";")))
			}
			if p, ok := searchPathSet(sql); ok {
				path = p
				continue
			}
			if m := dropSchemaPattern().FindStringSubmatch(sql); m != nil {
				var names []string
				for _, n := range strings.Split(m[1], ",") {
					if err := usersSchema(ctx, db, file, s, n); err != nil {
						if err := foreign(s, unquoteIdent(n), err); err != nil {
							return refuseDrops(err)
						}
					} else if err := refuseSchemaInTheWay(ctx, db, file, s, n); err != nil {
						return err
					}
					names = append(names, unquoteIdent(n))
				}
				if err := cas.check(s, sql, "schema", names, workload.Targets{Schemas: names}); err != nil {
					return refuseDrops(err)
				}
				continue
			}
			if m := dropRoutinePattern().FindStringSubmatch(sql); m != nil {
				if err := checkDropRoutine(ctx, db, cas, file, s, sql, m[1], m[2], path, dropped, foreign); err != nil {
					return refuseDrops(err)
				}
				continue
			}
			if m := dropPattern().FindStringSubmatch(sql); m != nil && uescapePattern().MatchString(m[2]) {
				return refuseDrops(sqlx.ConfigErrorf("%s:%d: a DROP of a name written with Unicode escapes (U&\"...\") in an init file, which init sql cannot tell from a table of yours: write the name plainly; no statement of the file ran", file, s.Line))
			}
			if m := dropPattern().FindStringSubmatch(sql); m != nil {
				var targets []string
				for _, n := range strings.Split(m[2], ",") {
					if dropped[normalName(n)] {
						continue
					}
					dropped[normalName(n)] = true
					// A relation the file drops is refused as one it
					// creates: only an earlier init of sql's may go.
					name, err := resolveName(ctx, db, path, strings.Join(strings.Fields(n), ""), "to_regclass($1)")
					if err != nil {
						return err
					}
					err = refuseInTheWay(ctx, db, file, s, name, "drops")
					if err == nil || force {
						targets = append(targets, name)
					}
					if err := foreign(s, name, err); err != nil {
						return refuseDrops(err)
					}
				}
				noun := strings.ToLower(strings.Join(strings.Fields(m[1]), " "))
				if err := cas.check(s, sql, noun, targets, workload.Targets{Relations: targets}); err != nil {
					return refuseDrops(err)
				}
				continue
			}
			if dropAnyPattern().MatchString(sql) {
				if err := checkOtherDrop(ctx, db, file, s, sql, path, force, log, foreign); err != nil {
					return refuseDrops(err)
				}
				continue
			}
			// A user's object under another name or schema, which a
			// later DROP would reach unseen.
			if err := refuseRename(ctx, db, file, s, sql, path, force, log); err != nil {
				return refuseDrops(err)
			}
			// A user's table that ALTER TABLE would lose data or
			// constraints of.
			if err := refuseAlter(ctx, db, file, s, sql, path, force, log); err != nil {
				return refuseDrops(err)
			}
			// A user's object that ALTER ... OWNER TO would give away.
			if err := refuseOwner(ctx, db, file, s, sql, path, force, log); err != nil {
				return refuseDrops(err)
			}
			// A user's routine, trigger or rule, which CREATE OR REPLACE
			// would replace in place.
			if err := refuseReplace(ctx, db, file, s, sql, path, force, log); err != nil {
				return refuseDrops(err)
			}
			// A user's table whose rows TRUNCATE, DELETE or UPDATE would
			// remove or change.
			if err := refuseWrite(ctx, db, file, s, sql, path, created, noUsers, force, log); err != nil {
				return refuseDrops(err)
			}
			if n := createdName(sql); n != "" {
				created[n] = true
			}
			m := createPattern().FindStringSubmatch(sql)
			if m == nil || m[2] != "" || dropped[normalName(m[3])] {
				continue
			}
			name, err := resolveName(ctx, db, path, strings.Join(strings.Fields(m[3]), ""), "to_regclass($1)")
			if err != nil {
				return err
			}
			verb := "creates"
			if orReplacePattern().MatchString(sql) {
				verb = "replaces"
			}
			if err := refuseInTheWay(ctx, db, file, s, name, verb); err != nil {
				var fe *workload.ForeignError
				if errors.As(err, &fe) && verb == "replaces" && force && fe.Kind == "view" {
					// Replaced in place, as CREATE OR REPLACE does, and
					// without CASCADE: what depends on it stays (the
					// server refuses a new view that would break it).
					fmt.Fprintf(log, "%s: %s:%d replaces view %s, which stampede did not make, in place: nothing is dropped\n", workload.ForceDropFlag, file, s.Line, name)
					continue
				}
				if errors.As(err, &fe) && verb == "replaces" {
					err = replaceError(fe) // the file drops nothing
				}
				return refuseDrops(err)
			}
		}
	}
	return refuseDrops(nil)
}

// mixKind is the kind of a refusal of objects of kinds a and b: a when
// they are one, "relation" for two kinds of relation, else "object".
func mixKind(a, b string) string {
	isRelation := func(k string) bool {
		return slices.Contains(slices.Collect(maps.Values(relationKinds)), k) || k == "relation"
	}
	switch {
	case a == b:
		return a
	case isRelation(a) && isRelation(b):
		return "relation"
	}
	return "object"
}

// orReplacePattern finds a CREATE OR REPLACE statement.
var orReplacePattern = lazyre.New(`(?is)^\s*create\s+or\s+replace\s`)

// uescapePattern finds a name written with Unicode escapes (U&"...").
var uescapePattern = lazyre.New(`(?i)u&"`)

// dropAllPattern finds DROP OWNED BY and DROP DATABASE, which drop what
// no init file's statement may: every object of a role, another database.
var dropAllPattern = lazyre.New(`(?is)^\s*(drop\s+(?:owned|database))\b`)

// dropSchemaPattern finds the schemas a DROP SCHEMA statement drops.
var dropSchemaPattern = lazyre.New(`(?is)^\s*drop\s+schema\s+(?:if\s+exists\s+)?(.*?)\s*(?:cascade|restrict)?\s*;?\s*$`)

// searchPathPattern and setConfigPattern find a statement that sets the
// session's search_path, as SET does and as pg_dump's files do
// (SELECT pg_catalog.set_config('search_path', '...', false)).
var (
	searchPathPattern = lazyre.New(`(?is)^\s*set\s+(?:session\s+)?search_path\s*(?:=|\s+to\s+)(.*?)\s*;?\s*$`)
	setConfigPattern  = lazyre.New(`(?is)^\s*select\s+(?:pg_catalog\s*\.\s*)?set_config\s*\(\s*'search_path'\s*,\s*'((?:[^']|'')*)'`)
)

// searchPathSet returns the schemas of the search_path that statement
// sql sets (SET search_path, set_config), in order, unquoted; ok is false
// for any other statement. "$user" is left out: a schema of the user's
// name is rare in a load, and a relation found there would be refused
// under its own name anyway.
func searchPathSet(sql string) (schemas []string, ok bool) {
	var list string
	if m := searchPathPattern().FindStringSubmatch(sql); m != nil {
		list = m[1]
	} else if m := setConfigPattern().FindStringSubmatch(sql); m != nil {
		list = strings.ReplaceAll(m[1], "''", "'")
	} else {
		return nil, false
	}
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		if p == "" || strings.EqualFold(p, "default") || p == `"$user"` || p == "$user" {
			continue
		}
		if strings.HasPrefix(p, "'") && strings.HasSuffix(p, "'") && len(p) >= 2 {
			p = strings.TrimSpace(p[1 : len(p)-1])
		}
		if strings.HasPrefix(p, `"`) && strings.HasSuffix(p, `"`) && len(p) >= 2 {
			p = strings.ReplaceAll(p[1:len(p)-1], `""`, `"`)
		} else {
			p = strings.ToLower(p)
		}
		schemas = append(schemas, p)
	}
	return schemas, true
}

// resolveName returns name (as a statement writes it) qualified with the
// first schema of the file's search_path (path) that holds it, for an
// unqualified name once the file has set its own search_path: the file's
// statements find it there, not in the connection's path that to_regclass
// reads. lookup is the SQL that finds it ($1 the name): to_regclass($1)
// for a relation. Otherwise (qualified, no path of the file's, or found
// in none of its schemas) it is name.
func resolveName(ctx context.Context, db *sqlx.DB, path []string, name, lookup string) (string, error) {
	if path == nil || isQualified(name) {
		return name, nil
	}
	for _, schema := range path {
		q := schema + "." + name
		if !plainIdent().MatchString(schema) {
			q = db.Dialect().QuoteIdent(schema) + "." + name
		}
		var found bool
		if err := db.QueryRow(ctx, "SELECT "+lookup+" IS NOT NULL", q).Scan(&found); err != nil {
			return "", fmt.Errorf("looking for %s in the init file's search_path: %w", q, err)
		}
		if found {
			return q, nil
		}
	}
	return name, nil
}

// plainIdent matches an identifier that needs no quotes.
var plainIdent = lazyre.New(`^[a-z_][a-z0-9_$]*$`)

// isQualified reports whether a relation's name as written holds a
// schema: a dot outside double quotes.
func isQualified(name string) bool {
	quoted := false
	for _, r := range name {
		switch {
		case r == '"':
			quoted = !quoted
		case r == '.' && !quoted:
			return true
		case r == '(' && !quoted:
			return false // a routine's argument types
		}
	}
	return false
}

// stripComments returns sql without its comments (-- to the end of the
// line, and /* */, which nest in PostgreSQL), each replaced by a space,
// leaving quoted strings and identifiers as written.
func stripComments(sql string) string {
	var b strings.Builder
	for i := 0; i < len(sql); {
		switch c := sql[i]; {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(sql) && sql[j] != c {
				j++
			}
			if j < len(sql) {
				j++
			}
			b.WriteString(sql[i:j])
			i = j
		case c == '-' && i+1 < len(sql) && sql[i+1] == '-':
			for i < len(sql) && sql[i] != '\n' {
				i++
			}
			b.WriteByte(' ')
		case c == '/' && i+1 < len(sql) && sql[i+1] == '*':
			depth := 0
			for i < len(sql) {
				if sql[i] == '/' && i+1 < len(sql) && sql[i+1] == '*' {
					depth++
					i += 2
				} else if sql[i] == '*' && i+1 < len(sql) && sql[i+1] == '/' {
					depth--
					i += 2
					if depth == 0 {
						break
					}
				} else {
					i++
				}
			}
			b.WriteByte(' ')
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// refuseSchemaInTheWay refuses schema name (as statement s of file writes
// it), which s drops, when it holds anything without init sql's mark (a
// relation, a type or a routine): the user's, which the drop (with CASCADE) would
// take with it. An empty schema, or one holding only what an earlier init
// of sql made, may go.
func refuseSchemaInTheWay(ctx context.Context, db *sqlx.DB, file string, s pgscript.InitStep, name string) error {
	schema := unquoteIdent(name)
	found, err := schemaForeign(ctx, db, schema)
	if err != nil {
		return fmt.Errorf("looking into schema %s, which %s:%d drops: %w", schema, file, s.Line, err)
	}
	if len(found) == 0 {
		return nil
	}
	return sqlx.ConfigErrorf("%w", &workload.ForeignError{Kind: "schema", Names: []string{schema}, Action: "init sql",
		Where: db.Where(),
		Why: fmt.Sprintf("%s:%d drops it, and it holds what stampede's init did not make (%s): it is yours; no statement of the file ran",
			file, s.Line, strings.Join(found, ", "))})
}

// usersSchema refuses schema name (as statement s of file writes it),
// which s drops, when it exists without init sql's mark: the user's,
// empty or not, with its grants.
func usersSchema(ctx context.Context, db *sqlx.DB, file string, s pgscript.InitStep, name string) error {
	schema := unquoteIdent(name)
	var exists bool
	var comment *string
	if err := db.QueryRow(ctx, `SELECT count(*) > 0, max(`+ownMark("oid", "pg_namespace")+`) FROM pg_namespace WHERE nspname = $1`, schema).Scan(&exists, &comment); err != nil {
		return fmt.Errorf("looking for schema %s, which %s:%d drops: %w", schema, file, s.Line, err)
	}
	if exists && (comment == nil || !strings.HasPrefix(*comment, workload.Mark+" init of "+meta.Name+" ")) {
		// Empty or not, with its grants and its comment: the user's.
		return sqlx.ConfigErrorf("%w", &workload.ForeignError{Kind: "schema", Names: []string{schema}, Action: "init sql",
			Where: db.Where(),
			Why:   fmt.Sprintf("%s:%d drops it, and it carries no mark of stampede's init: it is yours, with its grants; no statement of the file ran", file, s.Line)})
	}
	return nil
}

// schemaForeign returns what schema holds that init sql did not make (a
// relation, a type or a routine; at most 5, each "KIND NAME").
func schemaForeign(ctx context.Context, db *sqlx.DB, schema string) ([]string, error) {
	own := workload.Mark + " init of " + meta.Name + " %"
	rows, err := db.Query(ctx, `SELECT kind || ' ' || name FROM (
		SELECT CASE c.relkind WHEN 'r' THEN 'table' WHEN 'p' THEN 'partitioned table' WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view'
			WHEN 'S' THEN 'sequence' ELSE 'foreign table' END AS kind,
			format('%I.%I', n.nspname, c.relname) AS name
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
			AND NOT coalesce(`+ownMark("c.oid", "pg_class")+` LIKE $2, false)
			AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
				AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i') AND `+ownMark("d.refobjid", "pg_class")+` LIKE $2)
		UNION ALL
		SELECT 'type', format('%I.%I', n.nspname, t.typname)
		FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
		WHERE n.nspname = $1 AND t.typtype IN ('e', 'd', 'r', 'c')
			AND (t.typtype <> 'c' OR (SELECT relkind FROM pg_class WHERE oid = t.typrelid) = 'c')
			AND NOT coalesce(`+ownMark("t.oid", "pg_type")+` LIKE $2, false)
			AND NOT EXISTS (SELECT 1 FROM pg_depend e WHERE e.classid = 'pg_type'::regclass AND e.objid = t.oid AND e.deptype = 'e')
		UNION ALL
		SELECT 'routine', format('%I.%I', n.nspname, p.proname)
		FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE n.nspname = $1 AND NOT coalesce(`+ownMark("p.oid", "pg_proc")+` LIKE $2, false)
			AND NOT EXISTS (SELECT 1 FROM pg_depend e WHERE e.classid = 'pg_proc'::regclass AND e.objid = p.oid AND e.deptype = 'e')
	) x ORDER BY 1 LIMIT 5`, schema, own)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var found []string
	for rows.Next() {
		var o string
		if err := rows.Scan(&o); err != nil {
			return nil, err
		}
		found = append(found, o)
	}
	return found, rows.Err()
}

// refuseInTheWay refuses relation name (as statement s of file writes
// it), which s creates or drops (verb), when it exists without init sql's
// mark: a user's (kind and name said, and --force-drop), or another
// load's of stampede. It is nil when name does not exist or an earlier
// init of sql made it.
func refuseInTheWay(ctx context.Context, db *sqlx.DB, file string, s pgscript.InitStep, name, verb string) error {
	word, mark, err := relationMark(ctx, db, name)
	if err != nil {
		return fmt.Errorf("looking for %s, which %s:%d %s: %w", name, file, s.Line, verb, err)
	}
	if word == "" {
		return nil
	}
	if mark != nil {
		return otherMarkError(word, name, *mark, fmt.Sprintf("%s:%d", file, s.Line), verb)
	}
	return sqlx.ConfigErrorf("%w", &workload.ForeignError{Kind: word, Names: []string{name}, Action: "init sql",
		Where: db.Where(),
		Why:   fmt.Sprintf("%s:%d %s it, and the one there carries no mark of stampede's init: it is yours; no statement of the file ran", file, s.Line, verb)})
}

// relationMark returns the kind word ("table", "view", ...) of the
// relation name denotes as a statement writes it ("" when none does),
// and stampede's mark on it (nil without one): its own, its schema's, or
// that of the table it is part of (an index, a sequence owned by a
// column).
func relationMark(ctx context.Context, db *sqlx.DB, name string) (word string, mark *string, err error) {
	var kind *string
	err = db.QueryRow(ctx, `SELECT c.relkind::text,
		coalesce(CASE WHEN `+ownMark("c.oid", "pg_class")+` LIKE $2 THEN `+ownMark("c.oid", "pg_class")+` END,
			CASE WHEN `+ownMark("c.relnamespace", "pg_namespace")+` LIKE $2 THEN `+ownMark("c.relnamespace", "pg_namespace")+` END,
			(SELECT `+ownMark("d.refobjid", "pg_class")+` FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
				AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i') AND `+ownMark("d.refobjid", "pg_class")+` LIKE $2 LIMIT 1))
		FROM pg_class c WHERE c.oid = to_regclass($1)`, name, workload.Mark+" %").Scan(&kind, &mark)
	if err != nil && !errors.Is(err, sqlx.ErrNoRows) {
		return "", nil, err
	}
	if kind == nil {
		return "", nil, nil
	}
	word = relationKinds[*kind]
	if word == "" {
		word = "relation"
	}
	return word, mark, nil
}

// normalName is a relation's name as a statement writes it, lower-cased
// unless quoted, without spaces.
func normalName(n string) string {
	n = strings.Join(strings.Fields(n), "")
	if strings.Contains(n, `"`) {
		return n
	}
	return strings.ToLower(n)
}

// markPattern reads the workload out of stampede's mark on a table: "init
// of bank (data bank)...", "run of bulk_insert".
var markPattern = lazyre.New(`^` + regexp.QuoteMeta(workload.Mark) + ` (?:init|run) of ([a-z0-9_]+)(?: |$)`)

// otherMarkError returns the refusal of a relation (kind word, named name)
// that a statement of the init file at at creates or drops (verb) and that carries mark,
// stampede's mark of something other than init sql (another workload's
// load), or nil when mark is init sql's own (an earlier init, which the
// file's own error and --drop deal with). init sql --drop drops only what
// init sql made, so the refusal names the command that drops the other.
func otherMarkError(kind, name, mark, at, verb string) error {
	if strings.HasPrefix(mark, workload.Mark+" init of "+meta.Name+" ") {
		return nil
	}
	if m := markPattern().FindStringSubmatch(mark); m != nil {
		return sqlx.ConfigErrorf("%s %s, which %s %s, is stampede's load of %s, not of init sql (its mark: %q): no statement of the file ran; `stampede cleanup %s` drops that load (init sql --drop drops only what init sql made), or rename %s in the file",
			kind, name, at, verb, m[1], mark, m[1], name)
	}
	return sqlx.ConfigErrorf("%s %s, which %s %s, carries stampede's mark %q, not init sql's: no statement of the file ran; drop it with the stampede command that made it (init sql --drop drops only what init sql made), or rename %s in the file",
		kind, name, at, verb, mark, name)
}

// ownMark is the comment of the object of OID expression oid in catalog,
// as stampede reads its mark (dialect.OwnComment: a copy is no mark).
func ownMark(oid, catalog string) string { return dialect.OwnComment(dialect.Postgres{}, oid, catalog) }
