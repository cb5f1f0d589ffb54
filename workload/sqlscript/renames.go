package sqlscript

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/stampede-bench/stampede/internal/lazyre"
	"github.com/stampede-bench/stampede/pgscript"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// identPattern is a name as a statement writes it: quoted or plain,
// with its schema or without.
const identPattern = `(?:"(?:[^"]|"")+"|[a-z_][a-z0-9_$]*)(?:\s*\.\s*(?:"(?:[^"]|"")+"|[a-z_][a-z0-9_$]*))?`

// Statements that give an object another name or schema (ALTER ...
// RENAME TO, SET SCHEMA): a relation, a schema, a type or domain, a
// routine (with its argument types or without).
var (
	renameRelationPattern = lazyre.New(`(?is)^\s*alter\s+(table|view|materialized\s+view|sequence|index|foreign\s+table)\s+(?:if\s+exists\s+)?(?:only\s+)?(` + identPattern + `)\s+(rename\s+to|set\s+schema)\b`)
	renameSchemaPattern   = lazyre.New(`(?is)^\s*alter\s+schema\s+("(?:[^"]|"")+"|[a-z_][a-z0-9_$]*)\s+(rename\s+to)\b`)
	renameTypePattern     = lazyre.New(`(?is)^\s*alter\s+(type|domain)\s+(` + identPattern + `)\s+(rename\s+to|set\s+schema)\b`)
	renameRoutinePattern  = lazyre.New(`(?is)^\s*alter\s+(function|procedure|routine|aggregate)\s+(` + identPattern + `(?:\s*\([^)]*\))?)\s+(rename\s+to|set\s+schema)\b`)
)

// links are the statements that make a relation (its name the pattern's
// first group; OWNED BY NONE, its last, links nothing) part of another,
// so that a DROP of the other takes it:
// ATTACH PARTITION, INHERIT, a sequence OWNED BY a column; how says what
// the statement does to it.
var links = []struct {
	pattern func() *regexp.Regexp
	how     string
}{
	{lazyre.New(`(?is)^\s*alter\s+table\s+(?:if\s+exists\s+)?(?:only\s+)?` + identPattern + `\s+attach\s+partition\s+(` + identPattern + `)`), "attaches %s as a partition of another table"},
	{lazyre.New(`(?is)^\s*alter\s+(?:foreign\s+)?table\s+(?:if\s+exists\s+)?(?:only\s+)?(` + identPattern + `)\s+inherit\s`), "makes %s inherit from another table"},
	{lazyre.New(`(?is)^\s*alter\s+sequence\s+(?:if\s+exists\s+)?(` + identPattern + `)\s.*\bowned\s+by\s+([^\s;]+)`), "makes %s owned by a column"},
}

// refuseRename refuses statement sql (s of file) when it renames or moves
// to another schema an object that exists before init and that init sql
// did not make (a user's, or another load's of stampede), or a schema of
// init's that holds a user's objects: under its new name, a later DROP
// of the file would reach it where the reading of the file's drops,
// which judges each name by what it denotes before the file runs, would
// not see it. With force it is said on log, and the file runs. path is
// the file's own search_path (see resolveName).
func refuseRename(ctx context.Context, db *sqlx.DB, file string, s pgscript.InitStep, sql string, path []string, force bool, log io.Writer) error {
	what, name, how, err := renamed(ctx, db, file, s, sql, path)
	if err != nil || what == "" {
		return err
	}
	at := fmt.Sprintf("%s:%d", file, s.Line)
	if force {
		fmt.Fprintf(log, "%s: %s %s (%s)\n", workload.ForceDropFlag, at, fmt.Sprintf(how, what), name)
		return nil
	}
	return sqlx.ConfigErrorf("%s %s in %s (%s): init sql judges each DROP of the file by what its name denotes before the file runs, so it refuses a file that renames, moves or attaches what is not init's; no statement of the file ran; to run the file anyway, add %s",
		at, fmt.Sprintf(how, what), db.Where(), name, workload.ForceDropFlag)
}

// renamed returns what statement sql renames or moves (kind and name,
// "" when it renames nothing, or nothing that exists, or only what an
// earlier init of sql made), why it is not init's, and how the statement
// moves it, a format of what ("renames %s", "moves %s to another
// schema").
func renamed(ctx context.Context, db *sqlx.DB, file string, s pgscript.InitStep, sql string, path []string) (what, why, how string, err error) {
	var m []string
	how = "renames %s"
	verb := func(action string) {
		if strings.HasPrefix(strings.ToLower(action), "set") {
			how = "moves %s to another schema"
		}
	}
	switch {
	case renameSchemaPattern().MatchString(sql):
		m = renameSchemaPattern().FindStringSubmatch(sql)
		schema := unquoteIdent(m[1])
		var comment *string
		var exists bool
		if err := db.QueryRow(ctx, `SELECT count(*) > 0, max(`+ownMark("oid", "pg_namespace")+`) FROM pg_namespace WHERE nspname = $1`, schema).Scan(&exists, &comment); err != nil {
			return "", "", "", fmt.Errorf("looking for schema %s, which %s:%d renames: %w", schema, file, s.Line, err)
		}
		if !exists {
			return "", "", "", nil
		}
		if comment == nil || !strings.HasPrefix(*comment, workload.Mark+" init of "+meta.Name+" ") {
			return "schema " + schema, notOurs, how, nil
		}
		found, err := schemaForeign(ctx, db, schema)
		if err != nil || len(found) == 0 {
			return "", "", "", err
		}
		return "schema " + schema, "init sql made it, but it holds " + strings.Join(found, ", ") + ", which init sql did not make", how, nil
	case renameRelationPattern().MatchString(sql):
		m = renameRelationPattern().FindStringSubmatch(sql)
		verb(m[3])
		return relationNotOwn(ctx, db, path, m[2], how)
	case renameTypePattern().MatchString(sql), renameRoutinePattern().MatchString(sql):
		routine := !renameTypePattern().MatchString(sql)
		lookup := "to_regtype($1)"
		if routine {
			m = renameRoutinePattern().FindStringSubmatch(sql)
			lookup = "CASE WHEN $1 LIKE '%(%' THEN to_regprocedure($1)::oid ELSE to_regproc($1)::oid END"
		} else {
			m = renameTypePattern().FindStringSubmatch(sql)
		}
		verb(m[3])
		name := strings.TrimSpace(m[2])
		if routine {
			name = routineSignature(ctx, db, name)
		}
		name, err = resolveName(ctx, db, path, name, lookup)
		if err != nil {
			return "", "", "", err
		}
		word, comment, err := typeOrRoutine(ctx, db, routine, name)
		if err != nil {
			return "", "", "", fmt.Errorf("looking for %s, which %s:%d %s: %w", name, file, s.Line, fmt.Sprintf(how, "it"), err)
		}
		if word == "" {
			return "", "", "", nil
		}
		var mark *string
		if strings.HasPrefix(comment, workload.Mark+" ") {
			mark = &comment
		}
		return whyNotOwn(word, name, mark, how)
	}
	for _, l := range links {
		if m := l.pattern().FindStringSubmatch(sql); m != nil && !strings.EqualFold(m[len(m)-1], "none") {
			return relationNotOwn(ctx, db, path, m[1], l.how)
		}
	}
	return "", "", "", nil
}

// relationNotOwn is whyNotOwn of the relation a statement names (as
// written), read in the file's search_path.
func relationNotOwn(ctx context.Context, db *sqlx.DB, path []string, written, how string) (what, why, howOut string, err error) {
	name, err := resolveName(ctx, db, path, strings.Join(strings.Fields(written), ""), "to_regclass($1)")
	if err != nil {
		return "", "", "", err
	}
	kind, mark, err := relationMark(ctx, db, name)
	if err != nil || kind == "" {
		return "", "", "", err
	}
	return whyNotOwn(kind, name, mark, how)
}

// notOurs says why an object without stampede's mark is the user's.
const notOurs = "not made by stampede: no mark of stampede's init on it, so it is yours"

// whyNotOwn returns the kind and name of an object, and why it is not
// init sql's (mark is stampede's mark on it, nil without one), or all ""
// when it is.
func whyNotOwn(kind, name string, mark *string, how string) (what, why, howOut string, err error) {
	switch {
	case mark == nil:
		return kind + " " + name, notOurs, how, nil
	case strings.HasPrefix(*mark, workload.Mark+" init of "+meta.Name+" "):
		return "", "", "", nil
	}
	return kind + " " + name, fmt.Sprintf("it carries stampede's mark %q, not init sql's", *mark), how, nil
}

// unquoteIdent is an identifier as the catalog holds it: a quoted one
// without its quotes, a plain one lower-cased.
func unquoteIdent(name string) string {
	name = strings.TrimSpace(name)
	if strings.HasPrefix(name, `"`) && strings.HasSuffix(name, `"`) && len(name) >= 2 {
		return strings.ReplaceAll(name[1:len(name)-1], `""`, `"`)
	}
	return strings.ToLower(name)
}
