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

// dropKindPattern finds what a DROP statement drops: its kind as
// written, and the rest (its names, then CASCADE or RESTRICT).
var dropKindPattern = lazyre.New(`(?is)^\s*drop\s+(access\s+method|cast|collation|conversion|event\s+trigger|extension|foreign\s+data\s+wrapper|(?:procedural\s+)?language|operator\s+class|operator\s+family|operator|policy|publication|rule|server|statistics|subscription|text\s+search\s+(?:configuration|dictionary|parser|template)|transform|trigger|user\s+mapping|role|user|group|tablespace)\s+(?:if\s+exists\s+)?(.*?)\s*(?:cascade|restrict)?\s*;?\s*$`)

// dropAnyPattern finds any DROP statement.
var dropAnyPattern = lazyre.New(`(?is)^\s*drop\s`)

// otherKinds are the kinds of object an init file may DROP beyond
// relations, schemas, types and routines, each with the query that says
// whether one of the name ($1) exists in the database (an object on a
// table, $2, with that table): init sql marks none of them, so one that
// exists before init is the user's. A kind without a query (an operator,
// a cast, a transform, a user mapping: named by more than a name) is
// one the reading cannot judge; outOfFile kinds are no file's to drop.
var otherKinds = map[string]string{
	"access method":             `SELECT count(*) > 0 FROM pg_am WHERE amname = $1`,
	"collation":                 `SELECT count(*) > 0 FROM pg_collation WHERE collname = $1`,
	"conversion":                `SELECT count(*) > 0 FROM pg_conversion WHERE conname = $1`,
	"event trigger":             `SELECT count(*) > 0 FROM pg_event_trigger WHERE evtname = $1`,
	"extension":                 `SELECT count(*) > 0 FROM pg_extension WHERE extname = $1`,
	"foreign data wrapper":      `SELECT count(*) > 0 FROM pg_foreign_data_wrapper WHERE fdwname = $1`,
	"language":                  `SELECT count(*) > 0 FROM pg_language WHERE lanname = $1`,
	"procedural language":       `SELECT count(*) > 0 FROM pg_language WHERE lanname = $1`,
	"publication":               `SELECT count(*) > 0 FROM pg_publication WHERE pubname = $1`,
	"server":                    `SELECT count(*) > 0 FROM pg_foreign_server WHERE srvname = $1`,
	"statistics":                `SELECT count(*) > 0 FROM pg_statistic_ext WHERE stxname = $1`,
	"subscription":              `SELECT count(*) > 0 FROM pg_subscription WHERE subname = $1 AND subdbid = (SELECT oid FROM pg_database WHERE datname = current_database())`,
	"text search configuration": `SELECT count(*) > 0 FROM pg_ts_config WHERE cfgname = $1`,
	"text search dictionary":    `SELECT count(*) > 0 FROM pg_ts_dict WHERE dictname = $1`,
	"text search parser":        `SELECT count(*) > 0 FROM pg_ts_parser WHERE prsname = $1`,
	"text search template":      `SELECT count(*) > 0 FROM pg_ts_template WHERE tmplname = $1`,
	"trigger":                   `SELECT count(*) > 0 FROM pg_trigger WHERE tgname = $1 AND tgrelid = to_regclass($2) AND NOT tgisinternal`,
	"policy":                    `SELECT count(*) > 0 FROM pg_policy WHERE polname = $1 AND polrelid = to_regclass($2)`,
	"rule":                      `SELECT count(*) > 0 FROM pg_rewrite WHERE rulename = $1 AND ev_class = to_regclass($2)`,
	"role":                      "", "user": "", "group": "", "tablespace": "",
	"operator": "", "operator class": "", "operator family": "", "cast": "", "transform": "", "user mapping": "",
}

// markedKinds are, for the kinds of otherKinds that init sql marks, the
// query that says whether every one of the name ($1) carries init sql's
// mark (a LIKE pattern, $2): a publication, and a statistics object (on
// a table of the user's it carries its own; on one of init's, its
// table's). One an earlier init made is init's to drop or change.
var markedKinds = map[string]string{
	"publication": `SELECT coalesce(bool_and(coalesce(` + ownMark("p.oid", "pg_publication") + `, '') LIKE $2), false) FROM pg_publication p WHERE p.pubname = $1`,
	"statistics": `SELECT coalesce(bool_and(coalesce(` + ownMark("s.oid", "pg_statistic_ext") + `, '') LIKE $2 OR coalesce(` + ownMark("s.stxrelid", "pg_class") +
		`, '') LIKE $2), false) FROM pg_statistic_ext s WHERE s.stxname = $1`,
}

// initMarked reports whether the objects of kind named name (without its
// schema) carry init sql's mark (markedKinds); false for a kind init
// does not mark.
func initMarked(ctx context.Context, db *sqlx.DB, kind, name string) (bool, error) {
	q := markedKinds[kind]
	if q == "" {
		return false, nil
	}
	var marked bool
	if err := db.QueryRow(ctx, q, name, workload.Mark+" init of "+meta.Name+" %").Scan(&marked); err != nil {
		return false, fmt.Errorf("reading the mark of %s %s: %w", kind, name, err)
	}
	return marked, nil
}

// outOfFile are the kinds that are the server's, not a database's: no
// init file's to drop, whatever the flags.
var outOfFile = map[string]bool{"role": true, "user": true, "group": true, "tablespace": true}

// onTablePattern reads "name ON table", as DROP TRIGGER, POLICY and RULE
// write it.
var onTablePattern = lazyre.New(`(?is)^("(?:[^"]|"")+"|[a-z_][a-z0-9_$]*)\s+on\s+(` + identPattern + `)$`)

// checkOtherDrop judges statement sql (s of file), a DROP of a kind
// other than a relation, schema, type or routine: one of an object that
// exists before init is the user's, refused through foreign (said with
// --force-drop); one of a kind the reading cannot judge is refused
// naming the kind (with force, said, and the file runs); a role's or a
// tablespace's is refused whatever the flags.
func checkOtherDrop(ctx context.Context, db *sqlx.DB, file string, s pgscript.InitStep, sql string, path []string, force bool, log io.Writer,
	foreign func(pgscript.InitStep, string, error) error) error {
	at := fmt.Sprintf("%s:%d", file, s.Line)
	m := dropKindPattern().FindStringSubmatch(sql)
	if m == nil {
		what := strings.Join(strings.Fields(sql), " ")
		if len(what) > 60 {
			what = what[:60] + "..."
		}
		return unjudged(at, strings.TrimSuffix(what, ";"), force, log)
	}
	kind := strings.ToLower(strings.Join(strings.Fields(m[1]), " "))
	query := otherKinds[kind]
	switch {
	case outOfFile[kind]:
		return sqlx.ConfigErrorf("%s: DROP %s in an init file drops what is the server's, not the file's: init sql runs no DROP of a role, user, group or tablespace; no statement of the file ran", at, strings.ToUpper(kind))
	case query == "":
		return unjudged(at, "DROP "+strings.ToUpper(kind)+" "+m[2], force, log)
	}
	for _, n := range splitNames(m[2]) {
		n = strings.TrimSpace(n)
		name, table := n, ""
		if strings.Contains(query, "$2") {
			on := onTablePattern().FindStringSubmatch(n)
			if on == nil {
				return nil // the server says what is wrong
			}
			resolved, err := resolveName(ctx, db, path, strings.Join(strings.Fields(on[2]), ""), "to_regclass($1)")
			if err != nil {
				return err
			}
			name, table = on[1], resolved
		}
		parts := strings.Split(name, ".") // the schema aside
		args := []any{unquoteIdent(parts[len(parts)-1])}
		if table != "" {
			args = append(args, table)
		}
		var exists bool
		if err := db.QueryRow(ctx, query, args...).Scan(&exists); err != nil {
			return fmt.Errorf("looking for %s %s, which %s drops: %w", kind, n, at, err)
		}
		if !exists {
			continue
		}
		why := fmt.Sprintf("%s drops it, and init sql marks no %s it makes, so one there before init is yours; no statement of the file ran", at, kind)
		if _, marks := markedKinds[kind]; marks {
			marked, err := initMarked(ctx, db, kind, args[0].(string))
			if err != nil {
				return err
			}
			if marked {
				continue // an earlier init's
			}
			why = fmt.Sprintf("%s drops it, and it carries no mark of stampede's init: it is yours; no statement of the file ran", at)
		}
		if table != "" {
			_, mark, err := relationMark(ctx, db, table)
			if err != nil {
				return fmt.Errorf("looking for %s, which %s drops a %s on: %w", table, at, kind, err)
			}
			if mark != nil && strings.HasPrefix(*mark, workload.Mark+" init of "+meta.Name+" ") {
				continue // on init's table: init's own
			}
			name = unquoteIdent(name) + " on " + table
			why = fmt.Sprintf("%s drops it, and its table carries no mark of stampede's init: it is yours; no statement of the file ran", at)
		}
		err := sqlx.ConfigErrorf("%w", &workload.ForeignError{Kind: kind, Names: []string{name}, Action: "init sql",
			Where: db.Where(), Why: why})
		if err := foreign(s, name, err); err != nil {
			return err
		}
	}
	return nil
}

// unjudged refuses a DROP (what, as written) that the reading of the
// file cannot judge: it cannot tell the user's object from the file's.
// With force it is said on log, and the file runs.
func unjudged(at, what string, force bool, log io.Writer) error {
	if force {
		fmt.Fprintf(log, "%s: %s runs %s, which init sql cannot judge\n", workload.ForceDropFlag, at, what)
		return nil
	}
	return sqlx.ConfigErrorf("%s: %s in an init file drops what init sql cannot judge (it cannot tell yours from the file's): no statement of the file ran; to run the file anyway, add %s",
		at, what, workload.ForceDropFlag)
}
