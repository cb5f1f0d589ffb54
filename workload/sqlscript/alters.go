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

// alterTablePattern finds an ALTER TABLE statement (or ALTER VIEW,
// MATERIALIZED VIEW, SEQUENCE, FOREIGN TABLE): the relation (as written)
// and its actions.
var alterTablePattern = lazyre.New(`(?is)^\s*alter\s+(?:foreign\s+table|table|view|materialized\s+view|sequence)\s+(?:if\s+exists\s+)?(?:only\s+)?(` + identPattern + `)\s*\*?\s+(.*?)\s*;?\s*$`)

// Actions of ALTER TABLE that harm a user's table without losing its
// rows: OWNER TO gives it to another role, RENAME COLUMN and RENAME
// CONSTRAINT change a name the user's queries and code use.
var (
	ownerAction  = lazyre.New(`(?is)^owner\s+to\b`)
	renameAction = lazyre.New(`(?is)^rename\s+(?:column\s+|constraint\s+)?` + identPattern + `\s+to\b`)
)

// harm says what ALTER TABLE action a does to a table that is not
// init's, "" when it does no harm.
func harm(a string) string {
	switch {
	case lossyActions().MatchString(a):
		return "loses its data or constraints"
	case ownerAction().MatchString(a):
		return ownerHarm
	case renameAction().MatchString(a):
		return "renames what your queries and code name"
	}
	return ""
}

// lossyActions are the ALTER TABLE actions that lose a table's data or
// constraints: DROP [COLUMN] and DROP CONSTRAINT; a column's new TYPE;
// a column's DROP DEFAULT, NOT NULL, IDENTITY or EXPRESSION; DETACH
// PARTITION and NO INHERIT (its rows leave the table); DISABLE of a
// trigger, a rule or row security; SET UNLOGGED (a crash empties it).
var lossyActions = lazyre.New(`(?is)^(?:drop\b|alter\s+(?:column\s+)?` + identPattern + `\s+(?:(?:set\s+data\s+)?type\b|drop\b)|detach\s+partition\b|no\s+inherit\b|disable\s+(?:trigger|rule|row\s+level\s+security)\b|set\s+unlogged\b)`)

// literalPattern finds a quoted string, whose words are no action's.
var literalPattern = lazyre.New(`'(?:[^']|'')*'`)

// refuseAlter refuses statement sql (s of file) when it is an ALTER
// TABLE whose action harms (see harm) a table
// that exists before init and that init sql did not make. With force it
// is said on log, and the file runs. path is the file's own search_path
// (see resolveName).
func refuseAlter(ctx context.Context, db *sqlx.DB, file string, s pgscript.InitStep, sql string, path []string, force bool, log io.Writer) error {
	m := alterTablePattern().FindStringSubmatch(sql)
	if m == nil {
		return nil
	}
	action, does := "", ""
	for _, a := range splitNames(literalPattern().ReplaceAllString(m[2], "''")) {
		if a = strings.TrimSpace(a); harm(a) != "" {
			action, does = strings.Join(strings.Fields(a), " "), harm(a)
			break
		}
	}
	if action == "" {
		return nil
	}
	what, why, _, err := relationNotOwn(ctx, db, path, m[1], "")
	if err != nil || what == "" {
		return err
	}
	at := fmt.Sprintf("%s:%d", file, s.Line)
	if force {
		fmt.Fprintf(log, "%s: %s changes %s, which stampede did not make, with %s\n", workload.ForceDropFlag, at, what, action)
		return nil
	}
	return sqlx.ConfigErrorf("%s changes %s in %s with %s, which %s (%s): no statement of the file ran; to run the file anyway, add %s",
		at, what, db.Where(), action, does, why, workload.ForceDropFlag)
}
