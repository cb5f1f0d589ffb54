package sqlscript

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/stampede-bench/stampede/internal/lazyre"
	"github.com/stampede-bench/stampede/pgscript"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// ownerHarm says what OWNER TO does to an object that is not init's.
const ownerHarm = "gives it to another owner, who may then alter, drop and grant it"

// Statements that give an object other than a relation to another owner
// (ALTER ... OWNER TO; a relation's is an ALTER TABLE action, see
// refuseAlter): a schema, a type or domain, a routine (with its argument
// types or without), the database, and the kinds init sql marks none of
// (otherKinds), named by a name alone. They compile at their first use
// (lazyre): every stampede command paid for them at init.
var (
	ownerSchemaPattern   = lazyre.New(`(?is)^\s*alter\s+schema\s+("(?:[^"]|"")+"|[a-z_][a-z0-9_$]*)\s+owner\s+to\s+(\S+?)\s*;?\s*$`)
	ownerTypePattern     = lazyre.New(`(?is)^\s*alter\s+(type|domain)\s+(` + identPattern + `)\s+owner\s+to\s+(\S+?)\s*;?\s*$`)
	ownerRoutinePattern  = lazyre.New(`(?is)^\s*alter\s+(function|procedure|routine|aggregate)\s+(` + identPattern + `(?:\s*\([^)]*\))?)\s+owner\s+to\s+(\S+?)\s*;?\s*$`)
	ownerDatabasePattern = lazyre.New(`(?is)^\s*alter\s+database\s+("(?:[^"]|"")+"|[a-z_][a-z0-9_$]*)\s+owner\s+to\s+(\S+?)\s*;?\s*$`)
	ownerOtherPattern    = lazyre.New(`(?is)^\s*alter\s+(collation|conversion|event\s+trigger|foreign\s+data\s+wrapper|(?:procedural\s+)?language|publication|server|statistics|subscription|text\s+search\s+(?:configuration|dictionary))\s+(` + identPattern + `)\s+owner\s+to\s+(\S+?)\s*;?\s*$`)
	// reassignPattern finds REASSIGN OWNED BY, which gives every object
	// of a role to another: no init file's to run.
	reassignPattern = lazyre.New(`(?is)^\s*reassign\s+owned\s+by\b`)
)

// refuseOwner refuses statement sql (s of file) when it gives an object
// that exists before init and that init sql did not make (a schema, a
// type, a routine, the database, a publication...) to another owner, and
// REASSIGN OWNED BY, which gives away what is not the file's. With force
// it is said on log, and the file runs. path is the file's own
// search_path (see resolveName).
func refuseOwner(ctx context.Context, db *sqlx.DB, file string, s pgscript.InitStep, sql string, path []string, force bool, log io.Writer) error {
	at := fmt.Sprintf("%s:%d", file, s.Line)
	if reassignPattern().MatchString(sql) {
		if force {
			fmt.Fprintf(log, "%s: %s runs REASSIGN OWNED, which init sql cannot judge\n", workload.ForceDropFlag, at)
			return nil
		}
		return sqlx.ConfigErrorf("%s: REASSIGN OWNED in an init file gives away what is not the file's (every object of a role, in %s): no statement of the file ran; to run the file anyway, add %s",
			at, db.Where(), workload.ForceDropFlag)
	}
	what, why, role, err := ownerChanged(ctx, db, file, s, sql, path)
	if err != nil || what == "" {
		return err
	}
	if force {
		fmt.Fprintf(log, "%s: %s gives %s, which stampede did not make, to %s\n", workload.ForceDropFlag, at, what, role)
		return nil
	}
	where := " in " + db.Where()
	if strings.HasPrefix(what, "database ") {
		where = " on " + strings.Join(db.Endpoints(), ",")
	}
	return sqlx.ConfigErrorf("%s changes %s%s with OWNER TO %s, which %s (%s): no statement of the file ran; to run the file anyway, add %s",
		at, what, where, role, ownerHarm, why, workload.ForceDropFlag)
}

// ownerChanged returns what statement sql gives to another owner (kind
// and name; "" when it is no ALTER ... OWNER TO, or its object does not
// exist, or init sql made it), why it is not init's, and the new owner.
func ownerChanged(ctx context.Context, db *sqlx.DB, file string, s pgscript.InitStep, sql string, path []string) (what, why, role string, err error) {
	switch {
	case ownerSchemaPattern().MatchString(sql):
		m := ownerSchemaPattern().FindStringSubmatch(sql)
		schema := unquoteIdent(m[1])
		var comment *string
		var exists bool
		if err := db.QueryRow(ctx, `SELECT count(*) > 0, max(`+ownMark("oid", "pg_namespace")+`) FROM pg_namespace WHERE nspname = $1`, schema).Scan(&exists, &comment); err != nil {
			return "", "", "", fmt.Errorf("looking for schema %s, which %s:%d gives to another owner: %w", schema, file, s.Line, err)
		}
		if !exists {
			return "", "", "", nil
		}
		what, why, _, err = whyNotOwn("schema", schema, markOf(comment), "")
		return what, why, m[2], err
	case ownerTypePattern().MatchString(sql), ownerRoutinePattern().MatchString(sql):
		routine := !ownerTypePattern().MatchString(sql)
		m, lookup := ownerTypePattern().FindStringSubmatch(sql), "to_regtype($1)"
		if routine {
			m, lookup = ownerRoutinePattern().FindStringSubmatch(sql), "CASE WHEN $1 LIKE '%(%' THEN to_regprocedure($1)::oid ELSE to_regproc($1)::oid END"
		}
		name := strings.TrimSpace(m[2])
		if routine {
			name = routineSignature(ctx, db, name)
		}
		if name, err = resolveName(ctx, db, path, name, lookup); err != nil {
			return "", "", "", err
		}
		word, comment, err := typeOrRoutine(ctx, db, routine, name)
		if err != nil {
			return "", "", "", fmt.Errorf("looking for %s, which %s:%d gives to another owner: %w", name, file, s.Line, err)
		}
		if word == "" {
			return "", "", "", nil
		}
		what, why, _, err = whyNotOwn(word, name, markOf(&comment), "")
		return what, why, m[3], err
	case ownerDatabasePattern().MatchString(sql):
		m := ownerDatabasePattern().FindStringSubmatch(sql)
		name := unquoteIdent(m[1])
		var comment *string
		var exists bool
		if err := db.QueryRow(ctx, `SELECT count(*) > 0, max(shobj_description(oid, 'pg_database')) FROM pg_database WHERE datname = $1`, name).Scan(&exists, &comment); err != nil {
			return "", "", "", fmt.Errorf("looking for database %s, which %s:%d gives to another owner: %w", name, file, s.Line, err)
		}
		if !exists || (comment != nil && *comment == sqlx.CreatedDatabaseMark) {
			return "", "", "", nil // stampede's init created it
		}
		return fmt.Sprintf("database %q", name), "stampede did not create it: it is yours", m[2], nil
	case ownerOtherPattern().MatchString(sql):
		m := ownerOtherPattern().FindStringSubmatch(sql)
		kind := strings.ToLower(strings.Join(strings.Fields(m[1]), " "))
		parts := strings.Split(m[2], ".") // the schema aside
		var exists bool
		if err := db.QueryRow(ctx, otherKinds[kind], unquoteIdent(parts[len(parts)-1])).Scan(&exists); err != nil {
			return "", "", "", fmt.Errorf("looking for %s %s, which %s:%d gives to another owner: %w", kind, m[2], file, s.Line, err)
		}
		if !exists {
			return "", "", "", nil
		}
		if _, marks := markedKinds[kind]; marks {
			marked, err := initMarked(ctx, db, kind, unquoteIdent(parts[len(parts)-1]))
			if err != nil || marked {
				return "", "", "", err // an earlier init's
			}
			return kind + " " + strings.TrimSpace(m[2]), "it carries no mark of stampede's init: it is yours", m[3], nil
		}
		return kind + " " + strings.TrimSpace(m[2]), fmt.Sprintf("init sql marks no %s it makes, so one there before init is yours", kind), m[3], nil
	}
	return "", "", "", nil
}

// markOf is comment when it is stampede's mark, else nil (no mark).
func markOf(comment *string) *string {
	if comment == nil || !strings.HasPrefix(*comment, workload.Mark+" ") {
		return nil
	}
	return comment
}
