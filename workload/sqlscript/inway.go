package sqlscript

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/stampede-bench/stampede/pgscript"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// createPattern finds the relation a statement creates (without IF NOT
// EXISTS, which would not fail): CREATE [UNLOGGED|TEMP] TABLE, SEQUENCE,
// VIEW, MATERIALIZED VIEW name, and CREATE INDEX name ON.
var createPattern = regexp.MustCompile(`(?is)^\s*create\s+(?:or\s+replace\s+)?(?:(?:global|local)\s+)?(?:temp\s+|temporary\s+|unlogged\s+)?(table|sequence|view|materialized\s+view|(?:unique\s+)?index(?:\s+concurrently)?)\s+(if\s+not\s+exists\s+)?("(?:[^"]|"")+"|[a-z_][a-z0-9_$]*(?:\s*\.\s*(?:"(?:[^"]|"")+"|[a-z_][a-z0-9_$]*))?)`)

// dropPattern finds the relations a DROP statement drops (the file's own
// DROP ... IF EXISTS before its CREATE).
var dropPattern = regexp.MustCompile(`(?is)^\s*drop\s+(?:table|sequence|view|materialized\s+view|index)\s+(?:concurrently\s+)?(?:if\s+exists\s+)?(.*?)\s*(?:cascade|restrict)?\s*;?\s*$`)

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
func checkInTheWay(ctx context.Context, db *sqlx.DB, file string, steps []pgscript.InitStep) error {
	dropped := map[string]bool{}
	for _, s := range steps {
		if s.Copy {
			continue
		}
		if m := dropPattern.FindStringSubmatch(s.SQL); m != nil {
			for _, n := range strings.Split(m[1], ",") {
				if dropped[normalName(n)] {
					continue
				}
				dropped[normalName(n)] = true
				// A relation the file drops is refused as one it
				// creates: only an earlier init of sql's may go.
				if err := refuseInTheWay(ctx, db, file, s, strings.Join(strings.Fields(n), ""), "drops"); err != nil {
					return err
				}
			}
			continue
		}
		m := createPattern.FindStringSubmatch(s.SQL)
		if m == nil || m[2] != "" || dropped[normalName(m[3])] {
			continue
		}
		if err := refuseInTheWay(ctx, db, file, s, strings.Join(strings.Fields(m[3]), ""), "creates"); err != nil {
			return err
		}
	}
	return nil
}

// refuseInTheWay refuses relation name (as statement s of file writes
// it), which s creates or drops (verb), when it exists without init sql's
// mark: a user's (kind and name said, and --force-drop), or another
// load's of stampede. It is nil when name does not exist or an earlier
// init of sql made it.
func refuseInTheWay(ctx context.Context, db *sqlx.DB, file string, s pgscript.InitStep, name, verb string) error {
	// The relation as the statement names it (to_regclass reads
	// quotes and a schema), and stampede's mark on it: its own, its
	// schema's, or that of the table it is part of (an index, a
	// sequence owned by a column).
	var kind, mark *string
	err := db.QueryRow(ctx, `SELECT c.relkind::text,
		coalesce(CASE WHEN obj_description(c.oid, 'pg_class') LIKE $2 THEN obj_description(c.oid, 'pg_class') END,
			CASE WHEN obj_description(c.relnamespace, 'pg_namespace') LIKE $2 THEN obj_description(c.relnamespace, 'pg_namespace') END,
			(SELECT obj_description(d.refobjid, 'pg_class') FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
				AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i') AND obj_description(d.refobjid, 'pg_class') LIKE $2 LIMIT 1))
		FROM pg_class c WHERE c.oid = to_regclass($1)`, name, workload.Mark+" %").Scan(&kind, &mark)
	if err != nil && !errors.Is(err, sqlx.ErrNoRows) {
		return fmt.Errorf("looking for %s, which %s:%d %s: %w", name, file, s.Line, verb, err)
	}
	if kind == nil {
		return nil
	}
	word := relationKinds[*kind]
	if word == "" {
		word = "relation"
	}
	if mark != nil {
		return otherMarkError(word, name, *mark, fmt.Sprintf("%s:%d", file, s.Line), verb)
	}
	return sqlx.ConfigErrorf("%w", &workload.ForeignError{Kind: word, Names: []string{name}, Action: "init sql",
		Where: fmt.Sprintf("database %q on %s", db.Database(), strings.Join(db.Endpoints(), ",")),
		Why:   fmt.Sprintf("%s:%d %s it, and the one there carries no mark of stampede's init: it is yours; no statement of the file ran", file, s.Line, verb)})
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
var markPattern = regexp.MustCompile(`^` + regexp.QuoteMeta(workload.Mark) + ` (?:init|run) of ([a-z0-9_]+)(?: |$)`)

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
	if m := markPattern.FindStringSubmatch(mark); m != nil {
		return sqlx.ConfigErrorf("%s %s, which %s %s, is stampede's load of %s, not of init sql (its mark: %q): no statement of the file ran; `stampede cleanup %s` drops that load (init sql --drop drops only what init sql made), or rename %s in the file",
			kind, name, at, verb, m[1], mark, m[1], name)
	}
	return sqlx.ConfigErrorf("%s %s, which %s %s, carries stampede's mark %q, not init sql's: no statement of the file ran; drop it with the stampede command that made it (init sql --drop drops only what init sql made), or rename %s in the file",
		kind, name, at, verb, mark, name)
}
