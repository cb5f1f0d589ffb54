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
// had run. (A relation of an earlier init, marked, is left to the file's
// own error, which names --drop.)
func checkInTheWay(ctx context.Context, db *sqlx.DB, file string, steps []pgscript.InitStep) error {
	dropped := map[string]bool{}
	for _, s := range steps {
		if s.Copy {
			continue
		}
		if m := dropPattern.FindStringSubmatch(s.SQL); m != nil {
			for _, n := range strings.Split(m[1], ",") {
				dropped[normalName(n)] = true
			}
			continue
		}
		m := createPattern.FindStringSubmatch(s.SQL)
		if m == nil || m[2] != "" || dropped[normalName(m[3])] {
			continue
		}
		name := strings.Join(strings.Fields(m[3]), "")
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
			return fmt.Errorf("looking for %s, which %s:%d creates: %w", name, file, s.Line, err)
		}
		if kind == nil {
			continue
		}
		word := relationKinds[*kind]
		if word == "" {
			word = "relation"
		}
		if mark != nil {
			if err := otherMarkError(word, name, *mark, fmt.Sprintf("%s:%d", file, s.Line)); err != nil {
				return err
			}
			continue
		}
		return sqlx.ConfigErrorf("%w", &workload.ForeignError{Kind: word, Names: []string{name}, Action: "init sql",
			Where: fmt.Sprintf("database %q on %s", db.Database(), strings.Join(db.Endpoints(), ",")),
			Why:   fmt.Sprintf("%s:%d creates it, and the one there carries no mark of stampede's init: it is yours; no statement of the file ran", file, s.Line)})
	}
	return nil
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
// that a statement of the init file at at creates and that carries mark,
// stampede's mark of something other than init sql (another workload's
// load), or nil when mark is init sql's own (an earlier init, which the
// file's own error and --drop deal with). init sql --drop drops only what
// init sql made, so the refusal names the command that drops the other.
func otherMarkError(kind, name, mark, at string) error {
	if strings.HasPrefix(mark, workload.Mark+" init of "+meta.Name+" ") {
		return nil
	}
	if m := markPattern.FindStringSubmatch(mark); m != nil {
		return sqlx.ConfigErrorf("%s %s, which %s creates, is stampede's load of %s, not of init sql (its mark: %q): no statement of the file ran; `stampede cleanup %s` drops that load (init sql --drop drops only what init sql made), or rename %s in the file",
			kind, name, at, m[1], mark, m[1], name)
	}
	return sqlx.ConfigErrorf("%s %s, which %s creates, carries stampede's mark %q, not init sql's: no statement of the file ran; drop it with the stampede command that made it (init sql --drop drops only what init sql made), or rename %s in the file",
		kind, name, at, mark, name)
}
