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
		// quotes and a schema), and whether it is stampede's: its mark,
		// its schema's, or that of the table it is part of (an index, a
		// sequence owned by a column).
		var kind *string
		var ours bool
		err := db.QueryRow(ctx, `SELECT c.relkind::text,
			coalesce(obj_description(c.oid, 'pg_class') LIKE $2 OR obj_description(c.relnamespace, 'pg_namespace') LIKE $2
				OR EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
					AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i') AND obj_description(d.refobjid, 'pg_class') LIKE $2), false)
			FROM pg_class c WHERE c.oid = to_regclass($1)`, name, workload.Mark+" %").Scan(&kind, &ours)
		if err != nil && !errors.Is(err, sqlx.ErrNoRows) {
			return fmt.Errorf("looking for %s, which %s:%d creates: %w", name, file, s.Line, err)
		}
		if kind == nil || ours {
			continue
		}
		word := relationKinds[*kind]
		if word == "" {
			word = "relation"
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
