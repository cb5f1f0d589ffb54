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

// write is a statement's change of a table's rows: the action as a line
// names it (TRUNCATE, DELETE, UPDATE, ...), what it does to them, and
// the table as written.
type write struct {
	action, does, table string
	// cascade is TRUNCATE ... CASCADE, which empties the tables that
	// reference the table too.
	cascade bool
}

// Statements that change or remove a table's rows, found anywhere in a
// statement (a data-modifying WITH, a DO block's body): the table as
// written.
var (
	deletePattern   = lazyre.New(`(?is)\bdelete\s+from\s+(?:only\s+)?(` + identPattern + `)`)
	updatePattern   = lazyre.New(`(?is)\bupdate\s+(?:only\s+)?(` + identPattern + `)\s*\*?\s+(?:(?:as\s+)?(?:"(?:[^"]|"")+"|[a-z_][a-z0-9_$]*)\s+)?set\b`)
	truncatePattern = lazyre.New(`(?is)\btruncate\s+(?:table\s+)?((?:only\s+)?` + identPattern + `\s*\*?(?:\s*,\s*(?:only\s+)?` + identPattern + `\s*\*?)*)(.*)`)
	mergePattern    = lazyre.New(`(?is)\bmerge\s+into\s+(?:only\s+)?(` + identPattern + `)(.*)`)
	upsertPattern   = lazyre.New(`(?is)\binsert\s+into\s+(` + identPattern + `)(.*)`)
	// commentPattern is COMMENT ON a relation: a user's comment lost,
	// or stampede's mark forged on a user's table (cleanup would then
	// take it for stampede's).
	commentPattern = lazyre.New(`(?is)\bcomment\s+on\s+(?:table|view|materialized\s+view|foreign\s+table|sequence|index)\s+(` + identPattern + `)\s+is\b`)
	// matchedChange is MERGE's WHEN MATCHED ... THEN UPDATE or DELETE;
	// doUpdate INSERT's ON CONFLICT ... DO UPDATE.
	matchedChange = lazyre.New(`(?is)\bwhen\s+matched\b.*?\bthen\s+(?:update|delete)\b`)
	doUpdate      = lazyre.New(`(?is)\bon\s+conflict\b.*?\bdo\s+update\b`)
	cascadeWord   = lazyre.New(`(?is)^[^;]*?\bcascade\b`)
	onlyWord      = lazyre.New(`(?is)^only\s+`)
	// doPattern finds a DO block and its body, dollar-quoted or quoted.
	doPattern = lazyre.New(`(?is)^\s*do\s+(?:language\s+\S+\s+)?(?:\$([a-z_0-9]*)\$|')`)
	// dollarQuoted finds a dollar-quoted string, whose words are no
	// statement's (a routine's body runs when called, not at init).
	dollarQuoted = lazyre.New(`(?s)\$([A-Za-z_][A-Za-z_0-9]*)?\$`)
)

// writes returns what statement sql (without comments) changes or
// removes rows of: its TRUNCATE, DELETE, UPDATE, MERGE that updates or
// deletes, and INSERT ... ON CONFLICT DO UPDATE; and the relations it
// puts a comment on (COMMENT ON TABLE ...), wherever they stand in
// it (WITH, a DO block's body). Statements run by EXECUTE, or in a
// routine's body, are not seen.
func writes(sql string) []write {
	if body, ok := doBody(sql); ok {
		var out []write
		for _, part := range splitStatements(body) {
			out = append(out, writes(stripComments(part))...)
		}
		return out
	}
	sql = literalPattern().ReplaceAllString(blankDollarQuotes(sql), "''")
	var out []write
	for _, m := range deletePattern().FindAllStringSubmatch(sql, -1) {
		out = append(out, write{action: "DELETE", does: "deletes its rows", table: m[1]})
	}
	for _, m := range updatePattern().FindAllStringSubmatch(sql, -1) {
		if !strings.EqualFold(m[1], "set") { // ON CONFLICT DO UPDATE SET
			out = append(out, write{action: "UPDATE", does: "changes its rows", table: m[1]})
		}
	}
	if m := truncatePattern().FindStringSubmatch(sql); m != nil {
		for _, n := range splitNames(m[1]) {
			n = strings.TrimSuffix(strings.TrimSpace(onlyWord().ReplaceAllString(strings.TrimSpace(n), "")), "*")
			if n = strings.TrimSpace(n); !strings.EqualFold(n, "on") { // GRANT TRUNCATE ON, BEFORE TRUNCATE ON
				out = append(out, write{action: "TRUNCATE", does: "empties it", table: n, cascade: cascadeWord().MatchString(m[2])})
			}
		}
	}
	if m := mergePattern().FindStringSubmatch(sql); m != nil && matchedChange().MatchString(m[2]) {
		out = append(out, write{action: "MERGE", does: "changes or deletes its rows", table: m[1]})
	}
	if m := upsertPattern().FindStringSubmatch(sql); m != nil && doUpdate().MatchString(m[2]) {
		out = append(out, write{action: "INSERT ... ON CONFLICT DO UPDATE", does: "changes its rows", table: m[1]})
	}
	for _, m := range commentPattern().FindAllStringSubmatch(sql, -1) {
		out = append(out, write{action: "COMMENT ON", does: "replaces its comment (where stampede's mark would make cleanup drop it)", table: m[1]})
	}
	return out
}

// doBody returns the body of DO block sql, and false when sql is no DO
// block.
func doBody(sql string) (string, bool) {
	m := doPattern().FindStringSubmatchIndex(sql)
	if m == nil {
		return "", false
	}
	rest := sql[m[1]:]
	if sql[m[1]-1] == '\'' {
		var b strings.Builder
		for i := 0; i < len(rest); i++ {
			if rest[i] == '\'' {
				if i+1 < len(rest) && rest[i+1] == '\'' {
					b.WriteByte('\'')
					i++
					continue
				}
				break
			}
			b.WriteByte(rest[i])
		}
		return b.String(), true
	}
	tag := "$" + sql[m[2]:m[3]] + "$"
	if i := strings.Index(rest, tag); i >= 0 {
		rest = rest[:i]
	}
	return rest, true
}

// blankDollarQuotes replaces each dollar-quoted string of sql by ”.
func blankDollarQuotes(sql string) string {
	var b strings.Builder
	for {
		m := dollarQuoted().FindStringIndex(sql)
		if m == nil || m[0] > 0 && isIdentChar(sql[m[0]-1]) {
			if m == nil {
				return b.String() + sql
			}
			b.WriteString(sql[:m[1]])
			sql = sql[m[1]:]
			continue
		}
		tag := sql[m[0]:m[1]]
		b.WriteString(sql[:m[0]] + "''")
		end := strings.Index(sql[m[1]:], tag)
		if end < 0 {
			return b.String()
		}
		sql = sql[m[1]+end+len(tag):]
	}
}

// refuseWrite refuses statement sql (s of file) when it changes or
// removes rows (see writes) of a relation that exists before init, that
// carries no mark of stampede's, and that the file did not create
// earlier (created, by normalName): the user's rows. With force it is
// said on log, and the file runs. path is the file's own search_path;
// none keeps the names (as resolved) found to be no user's, so that a
// file of many statements on them asks the server once.
func refuseWrite(ctx context.Context, db *sqlx.DB, file string, s pgscript.InitStep, sql string, path []string, created, none map[string]bool, force bool, log io.Writer) error {
	for _, w := range writes(sql) {
		if created[normalName(w.table)] {
			continue
		}
		name, err := resolveName(ctx, db, path, strings.Join(strings.Fields(w.table), ""), "to_regclass($1)")
		if err != nil {
			return err
		}
		if path != nil && name == strings.Join(strings.Fields(w.table), "") && !isQualified(name) {
			continue // in none of the file's schemas: not there before init
		}
		key := fmt.Sprint(w.cascade, " ", name)
		if none[key] {
			continue
		}
		tables, err := usersTables(ctx, db, name, w.cascade)
		if err != nil {
			return fmt.Errorf("looking for %s, which %s:%d changes: %w", name, file, s.Line, err)
		}
		if len(tables) == 0 {
			none[key] = true
		}
		for _, t := range tables {
			action := w.action
			if t.references {
				action = fmt.Sprintf("TRUNCATE ... CASCADE of %s, which it references", name)
			}
			at := fmt.Sprintf("%s:%d", file, s.Line)
			if force {
				fmt.Fprintf(log, "%s: %s changes %s, which stampede did not make, with %s\n", workload.ForceDropFlag, at, t.what, action)
				continue
			}
			return sqlx.ConfigErrorf("%s changes %s in %s with %s, which %s (%s): no statement of the file ran; to run the file anyway, add %s",
				at, t.what, db.Where(), action, w.does, notOurs, workload.ForceDropFlag)
		}
	}
	return nil
}

// userRel is a relation of the user's that a statement changes: "KIND
// SCHEMA.NAME", and whether it is one that references the statement's
// table (TRUNCATE ... CASCADE empties it too).
type userRel struct {
	what       string
	references bool
}

// usersTables returns the relation name denotes (as a statement writes
// it), with the tables that reference it when cascade, that carry no
// mark of stampede's: the user's.
func usersTables(ctx context.Context, db *sqlx.DB, name string, cascade bool) ([]userRel, error) {
	rows, err := db.Query(ctx, `WITH RECURSIVE r(oid, depth) AS (
		SELECT to_regclass($1)::oid, 0 WHERE to_regclass($1) IS NOT NULL
		UNION SELECT c.conrelid, r.depth + 1 FROM pg_constraint c JOIN r ON c.confrelid = r.oid WHERE $2 AND c.contype = 'f')
	SELECT c.relkind::text, format('%I.%I', n.nspname, c.relname), min(r.depth)
	FROM r JOIN pg_class c ON c.oid = r.oid JOIN pg_namespace n ON n.oid = c.relnamespace
	GROUP BY 1, 2 ORDER BY 3, 2`, name, cascade)
	if err != nil {
		return nil, err
	}
	type rel struct {
		kind, name string
		depth      int
	}
	var rels []rel
	for rows.Next() {
		var r rel
		if err := rows.Scan(&r.kind, &r.name, &r.depth); err != nil {
			rows.Close()
			return nil, err
		}
		rels = append(rels, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var out []userRel
	for _, r := range rels {
		_, mark, err := relationMark(ctx, db, r.name)
		if err != nil {
			return nil, err
		}
		if mark == nil {
			word := relationKinds[r.kind]
			if word == "" {
				word = "relation"
			}
			out = append(out, userRel{word + " " + r.name, r.depth > 0})
		}
	}
	return out, nil
}

// createdName returns the relation statement sql creates (without IF
// NOT EXISTS), as normalName writes it, or "".
func createdName(sql string) string {
	if m := createPattern().FindStringSubmatch(sql); m != nil && m[2] == "" {
		return normalName(m[3])
	}
	return ""
}
