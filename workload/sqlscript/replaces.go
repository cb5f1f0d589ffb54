package sqlscript

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/stampede-bench/stampede/internal/lazyre"
	"github.com/stampede-bench/stampede/pgscript"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// Statements that replace an existing object in place: CREATE OR
// REPLACE of a routine (its name; the argument list follows), of a
// trigger or of a rule (its name, and the table it is on).
var (
	replaceRoutinePattern = lazyre.New(`(?is)^\s*create\s+or\s+replace\s+(function|procedure|aggregate)\s+(` + identPattern + `)\s*\(`)
	replaceTriggerPattern = lazyre.New(`(?is)^\s*create\s+or\s+replace\s+(?:constraint\s+)?trigger\s+("(?:[^"]|"")+"|[a-z_][a-z0-9_$]*)\s.*?\bon\s+(` + identPattern + `)`)
	replaceRulePattern    = lazyre.New(`(?is)^\s*create\s+or\s+replace\s+rule\s+("(?:[^"]|"")+"|[a-z_][a-z0-9_$]*)\s+as\s+on\s+[a-z]+\s+to\s+(` + identPattern + `)`)
	// argDefaultPattern finds an argument's default, which names no type.
	argDefaultPattern = lazyre.New(`(?is)\s+(?:default\s|=).*$`)
)

// refuseReplace refuses statement sql (s of file) when it is a CREATE OR
// REPLACE of a routine, trigger or rule that exists before init and that
// init sql did not make: the file would replace the user's in place.
// With force it is said on log, and the file runs. path is the file's
// own search_path (see resolveName).
func refuseReplace(ctx context.Context, db *sqlx.DB, file string, s pgscript.InitStep, sql string, path []string, force bool, log io.Writer) error {
	kind, name, err := replaced(ctx, db, file, s, sql, path)
	if err == nil && kind == "" {
		return nil
	}
	var fe *workload.ForeignError
	if errors.As(err, &fe) {
		if force {
			fmt.Fprintf(log, "%s: %s:%d replaces %s %s, which stampede did not make\n", workload.ForceDropFlag, file, s.Line, fe.Kind, name)
			return nil
		}
		return replaceError(fe)
	}
	return err
}

// replaced returns the kind and name of what statement sql replaces when
// it is a CREATE OR REPLACE of a routine, trigger or rule ("" when it is
// none, or replaces nothing that exists), and the refusal when that is
// not init sql's.
func replaced(ctx context.Context, db *sqlx.DB, file string, s pgscript.InitStep, sql string, path []string) (kind, name string, err error) {
	if m := replaceRoutinePattern().FindStringSubmatchIndex(sql); m != nil {
		args, ok := parenthesized(sql[m[1]-1:])
		if !ok {
			return "", "", nil // the server says what is wrong
		}
		var plain []string
		for _, a := range splitNames(args) {
			plain = append(plain, argDefaultPattern().ReplaceAllString(strings.TrimSpace(a), ""))
		}
		written := strings.Join(strings.Fields(sql[m[4]:m[5]]), "") + "(" + strings.Join(plain, ",") + ")"
		name, err = resolveName(ctx, db, path, routineSignature(ctx, db, written),
			"CASE WHEN $1 LIKE '%(%' THEN to_regprocedure($1)::oid ELSE to_regproc($1)::oid END")
		if err != nil {
			return "", "", err
		}
		word, _, err := typeOrRoutine(ctx, db, true, name)
		if err != nil {
			// A name the server cannot read, said in one line.
			return "", "", refuseTypeOrRoutine(ctx, db, file, s, true, name, "replaces")
		}
		if word == "" {
			return "", "", nil
		}
		return word, name, refuseTypeOrRoutine(ctx, db, file, s, true, name, "replaces")
	}
	kind = "trigger"
	m := replaceTriggerPattern().FindStringSubmatch(sql)
	lookup := `SELECT count(*) > 0 FROM pg_trigger WHERE tgname = $1 AND tgrelid = to_regclass($2) AND NOT tgisinternal`
	if m == nil {
		kind = "rule"
		m = replaceRulePattern().FindStringSubmatch(sql)
		lookup = `SELECT count(*) > 0 FROM pg_rewrite WHERE rulename = $1 AND ev_class = to_regclass($2)`
	}
	if m == nil {
		return "", "", nil
	}
	table, err := resolveName(ctx, db, path, strings.Join(strings.Fields(m[2]), ""), "to_regclass($1)")
	if err != nil {
		return "", "", err
	}
	var exists bool
	if err := db.QueryRow(ctx, lookup, unquoteIdent(m[1]), table).Scan(&exists); err != nil {
		return "", "", fmt.Errorf("looking for %s %s on %s, which %s:%d replaces: %w", kind, m[1], table, file, s.Line, err)
	}
	if !exists {
		return "", "", nil
	}
	_, mark, err := relationMark(ctx, db, table)
	if err != nil {
		return "", "", fmt.Errorf("looking for %s, which %s:%d replaces a %s on: %w", table, file, s.Line, kind, err)
	}
	if mark != nil && strings.HasPrefix(*mark, workload.Mark+" init of "+meta.Name+" ") {
		return "", "", nil // on init's table: init's own
	}
	name = unquoteIdent(m[1]) + " on " + table
	return kind, name, sqlx.ConfigErrorf("%w", &workload.ForeignError{Kind: kind, Names: []string{name}, Action: "init sql",
		Where: db.Where(),
		Why:   fmt.Sprintf("%s:%d replaces it, and its table carries no mark of stampede's init: it is yours; no statement of the file ran", file, s.Line)})
}

// replaceError is the refusal fe of a user's object that the file's
// CREATE OR REPLACE replaces: --force-drop replaces it, drops nothing.
func replaceError(fe *workload.ForeignError) error {
	fe.Verb = "replace"
	return sqlx.ConfigErrorf("%w", fe) // its line, written again
}

// parenthesized returns what the parentheses that open text hold (text
// starts with "("), and false when they do not close.
func parenthesized(text string) (string, bool) {
	depth, quote := 0, rune(0)
	for i, r := range text {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '"' || r == '\'':
			quote = r
		case r == '(':
			depth++
		case r == ')':
			depth--
			if depth == 0 {
				return text[1:i], true
			}
		}
	}
	return "", false
}
