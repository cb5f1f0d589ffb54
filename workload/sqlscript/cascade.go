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

// cascadePattern finds the CASCADE that ends a DROP statement.
var cascadePattern = lazyre.New(`(?is)\bcascade\s*;?\s*$`)

// dropRoutinePattern finds the types or routines a DROP TYPE, DOMAIN,
// FUNCTION, PROCEDURE, ROUTINE or AGGREGATE statement drops.
var dropRoutinePattern = lazyre.New(`(?is)^\s*drop\s+(type|domain|function|procedure|routine|aggregate)\s+(?:if\s+exists\s+)?(.*?)\s*(?:cascade|restrict)?\s*;?\s*$`)

// cascades judges what an init file's DROP takes beyond its targets,
// before any statement of the file runs: with CASCADE, the objects that
// depend on them (workload.DependentsBeyond), and without, the
// partitions of a table (which DROP TABLE takes along): those init sql
// did not make are the user's, refused, or with force said on log.
type cascades struct {
	ctx   context.Context
	db    *sqlx.DB
	file  string
	force bool
	log   io.Writer
	// ours are the objects an earlier init of sql made, read once.
	ours   []workload.ObjectRef
	loaded bool
}

// check refuses statement s, which drops t (noun is what the statement
// calls its targets, names how it writes them), when the drop would take
// an object init sql did not make along.
func (c *cascades) check(s pgscript.InitStep, sql, noun string, names []string, t workload.Targets) error {
	if len(names) == 0 {
		return nil
	}
	var deps []string
	var err error
	if cascadePattern().MatchString(sql) {
		if !c.loaded {
			if c.ours, err = ownObjects(c.ctx, c.db); err != nil {
				return err
			}
			c.loaded = true
		}
		deps, err = workload.DependentsBeyond(c.ctx, c.db, t, c.ours)
		// A publication of all tables (or of a schema's) is kept, and
		// a plain DROP changes it alike: it is not the CASCADE's.
		deps, _ = workload.KeptPublications(deps)
	} else {
		deps, err = workload.ForeignPartitionsOf(c.ctx, c.db, t.Relations)
	}
	if err != nil || len(deps) == 0 {
		return err
	}
	what := noun + " " + strings.Join(names, ", ")
	if len(names) > 1 {
		what = nouns(noun) + " " + strings.Join(names, ", ")
	}
	how := "drops"
	if cascadePattern().MatchString(sql) {
		how = "drops with CASCADE"
	}
	what = fmt.Sprintf("%s, which %s:%d %s", what, c.file, s.Line, how)
	if c.force {
		fmt.Fprintf(c.log, "%s: %s, and with it %s, which stampede did not make\n", workload.ForceDropFlag, what, strings.Join(deps, ", "))
		return nil
	}
	return sqlx.ConfigErrorf("%w", &workload.DependentsError{What: what, Objects: deps, Action: "init sql"})
}

// nouns is the plural of noun: "tables", "indexes".
func nouns(noun string) string {
	if strings.HasSuffix(noun, "x") {
		return noun + "es"
	}
	return noun + "s"
}

// ownObjects returns the objects an earlier init of sql made: those that
// carry its mark under the name it made them (one the user renamed since
// is the user's, as cleanup sql holds).
func ownObjects(ctx context.Context, db *sqlx.DB) ([]workload.ObjectRef, error) {
	all, err := objects(ctx, db)
	if err != nil {
		return nil, err
	}
	prefix := workload.Mark + " init of " + meta.Name + " "
	var out []workload.ObjectRef
	for _, o := range all {
		if _, renamed := o.renamed(); strings.HasPrefix(o.comment, prefix) && !renamed {
			out = append(out, workload.ObjectRef{Catalog: o.key.catalog, OID: o.key.oid})
		}
	}
	return out, nil
}

// splitNames splits a DROP's list of names at its commas outside
// parentheses and quotes (a routine's argument types hold commas).
func splitNames(list string) []string {
	var out []string
	depth, quoted, start := 0, false, 0
	for i, r := range list {
		switch {
		case r == '"':
			quoted = !quoted
		case quoted:
		case r == '(':
			depth++
		case r == ')':
			depth--
		case r == ',' && depth == 0:
			out = append(out, list[start:i])
			start = i + 1
		}
	}
	return append(out, list[start:])
}

// typeOrRoutine returns the kind word ("type", "domain", "function",
// "procedure", "aggregate") and the comment ("" without one) of the type
// (routine false) or routine that name denotes as SQL writes it; word is
// "" when none does.
func typeOrRoutine(ctx context.Context, db *sqlx.DB, routine bool, name string) (word, comment string, err error) {
	q := `SELECT CASE typtype WHEN 'd' THEN 'domain' ELSE 'type' END, coalesce(` + ownMark("oid", "pg_type") + `, '')
		FROM pg_type WHERE oid = to_regtype($1)`
	if routine {
		q = `SELECT CASE prokind WHEN 'p' THEN 'procedure' WHEN 'a' THEN 'aggregate' ELSE 'function' END, coalesce(` + ownMark("oid", "pg_proc") + `, '')
			FROM pg_proc WHERE oid = (CASE WHEN $1 LIKE '%(%' THEN to_regprocedure($1)::oid ELSE to_regproc($1)::oid END)`
	}
	err = db.QueryRow(ctx, q, name).Scan(&word, &comment)
	if errors.Is(err, sqlx.ErrNoRows) {
		return "", "", nil
	}
	return word, comment, err
}

// refuseTypeOrRoutine refuses a type or routine (name as SQL writes it)
// that statement s of file drops or renames (verb) and that init sql did
// not make: a user's (ForeignError, as a relation's), or another load's
// of stampede. It is nil when name denotes nothing or what an earlier
// init of sql made.
func refuseTypeOrRoutine(ctx context.Context, db *sqlx.DB, file string, s pgscript.InitStep, routine bool, name, verb string) error {
	word, comment, err := typeOrRoutine(ctx, db, routine, name)
	if code := sqlx.SQLState(err); strings.HasPrefix(code, "42") || strings.HasPrefix(code, "22") {
		return sqlx.ConfigErrorf("%s:%d %s %s, which the server does not read as a name (%v): fix the statement; no statement of the file ran", file, s.Line, verb, name, err)
	}
	if err != nil {
		return fmt.Errorf("looking for %s, which %s:%d %s: %w", name, file, s.Line, verb, err)
	}
	if word == "" {
		return nil
	}
	if workload.IsMark(comment) || strings.HasPrefix(comment, workload.Mark+" ") {
		return otherMarkError(word, name, comment, fmt.Sprintf("%s:%d", file, s.Line), verb)
	}
	return sqlx.ConfigErrorf("%w", &workload.ForeignError{Kind: word, Names: []string{name}, Action: "init sql",
		Where: db.Where(),
		Why:   fmt.Sprintf("%s:%d %s it, and the one there carries no mark of stampede's init: it is yours; no statement of the file ran", file, s.Line, verb)})
}

// checkDropRoutine judges statement sql (s of file), a DROP of types or
// routines (noun, as the statement calls them; list, its names as it
// writes them): a user's is refused through foreign (the refusal of a
// user's relation the file drops: said with --force-drop, else one of
// the names of one refusal), and what the drop takes with CASCADE through
// cas. dropped holds the names the file dropped before (a later DROP
// drops what the file made again); path is the file's search_path.
func checkDropRoutine(ctx context.Context, db *sqlx.DB, cas *cascades, file string, s pgscript.InitStep, sql, noun, list string,
	path []string, dropped map[string]bool, foreign func(pgscript.InitStep, string, error) error) error {
	noun = strings.ToLower(noun)
	routine := noun != "type" && noun != "domain"
	lookup := "to_regtype($1)"
	if routine {
		lookup = "CASE WHEN $1 LIKE '%(%' THEN to_regprocedure($1)::oid ELSE to_regproc($1)::oid END"
	}
	var targets []string
	for _, n := range splitNames(list) {
		n = strings.TrimSpace(n)
		if key := noun + " " + normalName(n); dropped[key] {
			continue
		} else {
			dropped[key] = true
		}
		if routine {
			n = routineSignature(ctx, db, n)
		}
		name, err := resolveName(ctx, db, path, n, lookup)
		if err != nil {
			return err
		}
		err = refuseTypeOrRoutine(ctx, db, file, s, routine, name, "drops")
		if err == nil || cas.force {
			targets = append(targets, name)
		}
		if err := foreign(s, name, err); err != nil {
			return err
		}
	}
	t := workload.Targets{Types: targets}
	if routine {
		t = workload.Targets{Routines: targets}
	}
	return cas.check(s, sql, noun, targets, t)
}

// routineSignature returns a routine's name as DROP FUNCTION writes it
// (f(x int, OUT y text)) in the form to_regprocedure reads: its argument
// types alone (f(int)), without modes, names and OUT arguments, as
// DROP FUNCTION identifies it. A word before the type is a name when the
// server does not read the argument as a type with it.
func routineSignature(ctx context.Context, db *sqlx.DB, name string) string {
	open, end := strings.Index(name, "("), strings.LastIndex(name, ")")
	if open < 0 || end < open {
		return name
	}
	var types []string
	for _, arg := range splitNames(name[open+1 : end]) {
		words := strings.Fields(arg)
		if len(words) == 0 {
			continue
		}
		switch strings.ToLower(words[0]) {
		case "out":
			continue
		case "in", "inout", "variadic":
			words = words[1:]
		}
		if len(words) > 1 {
			var ok bool
			if err := db.QueryRow(ctx, "SELECT to_regtype($1) IS NOT NULL", strings.Join(words, " ")).Scan(&ok); err != nil || !ok {
				words = words[1:] // its name
			}
		}
		types = append(types, strings.Join(words, " "))
	}
	return name[:open] + "(" + strings.Join(types, ",") + ")"
}
