package sqlscript

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/stampede-bench/stampede/internal/lazyre"
	"github.com/stampede-bench/stampede/pgscript"
	"github.com/stampede-bench/stampede/sqlx"
)

// tracker runs an init file's statements on init's connection and finds
// the objects they themselves made, so that init marks those and no
// object another session creates in the database meanwhile.
//
// Each statement outside the file's own transaction blocks runs in a
// transaction of the tracker's (BEGIN, the statement, COMMIT). Before a
// transaction commits (the tracker's, or the file's own at its COMMIT),
// the tracker lists the rows of pg_class, pg_type, pg_proc,
// pg_namespace, pg_trigger, pg_policy, pg_statistic_ext and
// pg_publication that this transaction wrote itself: at its top level
// (xmin is its transaction id) or in a subtransaction (a SAVEPOINT, a DO
// block with an EXCEPTION clause: xmin is a later id that
// pg_xact_status calls in progress, or one past every transaction the
// server has finished). Another session's rows that this transaction
// sees are committed ones, so none is taken for init's. So that
// statements that make no object cost little, the listing is skipped
// when the transaction inserted no row into those catalogs
// (pg_stat_xact_sys_tables's count; without track_counts it always runs), and it
// travels with the COMMIT (and the next statement's BEGIN) in one round
// trip.
//
// A statement that refuses to run inside a transaction block (VACUUM,
// CREATE DATABASE, CREATE INDEX CONCURRENTLY: SQLSTATE 25001) is rolled
// back before it did anything and run again on its own: an index it
// makes on a table init did not make is not known to be init's (left
// unmarked, and said); one on init's own table goes with its table. A statement that ends transactions
// itself (a procedure or DO block that commits: SQLSTATE 2D000) runs
// again on its own too, and what appears while it runs is not known to
// be init's: it is left unmarked, and said.
type tracker struct {
	sqlx.ScriptQuerier
	steps []pgscript.InitStep
	next  int
	// base is the catalog rows the open transaction had inserted when it
	// began (pg_stat_xact_sys_tables counts since the last report).
	base int64
	// ours says that the open transaction is the tracker's, begun for
	// the next statement.
	ours bool
	// mine are the objects (and other catalog rows) the file's own
	// transactions made.
	mine map[objKey]bool
	// alone are the lines of the statements that ran outside any
	// transaction the tracker follows.
	alone []int
}

// insertedQuery reads the rows the transaction has inserted into the
// catalogs of init's objects so far.
const insertedQuery = `SELECT pg_stat_get_xact_tuples_inserted('pg_class'::regclass) + pg_stat_get_xact_tuples_inserted('pg_type'::regclass) + pg_stat_get_xact_tuples_inserted('pg_proc'::regclass) + pg_stat_get_xact_tuples_inserted('pg_namespace'::regclass) + pg_stat_get_xact_tuples_inserted('pg_trigger'::regclass) + pg_stat_get_xact_tuples_inserted('pg_policy'::regclass) + pg_stat_get_xact_tuples_inserted('pg_statistic_ext'::regclass) + pg_stat_get_xact_tuples_inserted('pg_publication'::regclass)`

// madeQuery lists the catalog rows the open transaction wrote itself
// (see tracker), when it inserted more than %d catalog rows.
const madeQuery = `WITH g AS MATERIALIZED (SELECT NOT current_setting('track_counts')::bool OR (` + insertedQuery + `) > %d AS changed),
b AS MATERIALIZED (SELECT top, top %% 4294967296 AS low, CASE WHEN xmax - top BETWEEN 1 AND 2147483647 THEN xmax - top ELSE 1 END AS db
  FROM (SELECT pg_current_xact_id()::text::bigint AS top, pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS xmax FROM g WHERE changed) x)
SELECT cat, oid FROM (
  SELECT 'pg_class' AS cat, oid, xmin FROM pg_class WHERE (SELECT changed FROM g)
  UNION ALL SELECT 'pg_type', oid, xmin FROM pg_type WHERE (SELECT changed FROM g)
  UNION ALL SELECT 'pg_proc', oid, xmin FROM pg_proc WHERE (SELECT changed FROM g)
  UNION ALL SELECT 'pg_namespace', oid, xmin FROM pg_namespace WHERE (SELECT changed FROM g)
  UNION ALL SELECT 'pg_trigger', oid, xmin FROM pg_trigger WHERE (SELECT changed FROM g)
  UNION ALL SELECT 'pg_policy', oid, xmin FROM pg_policy WHERE (SELECT changed FROM g)
  UNION ALL SELECT 'pg_statistic_ext', oid, xmin FROM pg_statistic_ext WHERE (SELECT changed FROM g)
  UNION ALL SELECT 'pg_publication', oid, xmin FROM pg_publication WHERE (SELECT changed FROM g)
) r, b, LATERAL (SELECT (r.xmin::text::bigint - b.low + 4294967296) %% 4294967296 AS d) dd
WHERE CASE WHEN d >= 2147483648 THEN false WHEN d = 0 OR d >= b.db THEN true
           ELSE pg_xact_status((b.top + d)::text::xid8) = 'in progress' END`

// newTracker returns the tracker of an init file's steps on q.
func newTracker(q sqlx.ScriptQuerier, steps []pgscript.InitStep) *tracker {
	return &tracker{ScriptQuerier: q, steps: steps, mine: map[objKey]bool{}}
}

// QueryScript implements sqlx.ScriptQuerier: it runs the init file's
// next statement (see tracker).
func (t *tracker) QueryScript(ctx context.Context, p sqlx.Protocol, sql string, params [][]byte, row sqlx.ScriptRow) (int64, error) {
	line := t.line()
	return t.run(ctx, line, sql, true, func() (int64, error) {
		return t.ScriptQuerier.QueryScript(ctx, p, sql, params, row)
	})
}

// CopyIn implements sqlx.ScriptQuerier: it runs the init file's next
// statement, a COPY (see tracker).
func (t *tracker) CopyIn(ctx context.Context, sql string, data io.Reader) (int64, error) {
	line := t.line()
	return t.run(ctx, line, sql, false, func() (int64, error) {
		return t.ScriptQuerier.CopyIn(ctx, sql, data)
	})
}

// line returns the line of the step RunInit runs now.
func (t *tracker) line() int {
	line := 0
	if t.next < len(t.steps) {
		line = t.steps[t.next].Line
	}
	t.next++
	return line
}

// simple runs sql on the connection, outside the file's statements.
func (t *tracker) simple(ctx context.Context, sql string) error {
	_, err := t.ScriptQuerier.QueryScript(ctx, sqlx.Simple, sql, nil, t.row)
	return err
}

// row takes the rows of the tracker's own queries: a catalog row the
// transaction made (madeQuery), or the rows inserted so far
// (insertedQuery).
func (t *tracker) row(_ int, _ []pgconn.FieldDescription, v [][]byte) {
	switch len(v) {
	case 1:
		if n, err := strconv.ParseInt(string(v[0]), 10, 64); err == nil {
			t.base = n
		}
	case 2:
		if oid, err := strconv.ParseUint(string(v[1]), 10, 32); err == nil {
			t.mine[objKey{string(v[0]), uint32(oid)}] = true
		}
	}
}

// run runs one statement of the file (f), in a transaction of the
// tracker's when it is outside the file's own.
func (t *tracker) run(ctx context.Context, line int, sql string, again bool, f func() (int64, error)) (int64, error) {
	st := t.TxStatus()
	if st == 0 {
		// Not connected yet: the first statement connects.
		if err := t.Connect(ctx); err != nil {
			return 0, err
		}
		st = t.TxStatus()
	}
	kind := txKind(sql)
	if t.ours && (st != 'T' || kind != txPlain) {
		// Begun for a statement that is not this one (never, as the
		// steps are read ahead): ended empty.
		if st == 'T' {
			if err := t.simple(ctx, "COMMIT"); err != nil {
				return 0, err
			}
		}
		t.ours, st = false, t.TxStatus()
	}
	if kind == txPlain && (st == 'I' || t.ours) {
		if !t.ours {
			if err := t.simple(ctx, "BEGIN; "+insertedQuery); err != nil {
				return 0, fmt.Errorf("following init's transactions: %w", err)
			}
		}
		t.ours = false
		n, err := f()
		if err != nil {
			_ = t.simple(ctx, "ROLLBACK")
			switch code := sqlx.SQLState(err); {
			case again && code == "25001":
				// Refused before it did anything; it makes no object
				// init marks but an index (CREATE INDEX CONCURRENTLY),
				// which then is not known to be init's, and is said.
				if concurrentIndex().MatchString(skipComments(sql)) {
					t.alone = append(t.alone, line)
				}
				return f()
			case again && code == "2D000":
				t.alone = append(t.alone, line)
				return f()
			}
			return n, err
		}
		switch t.TxStatus() {
		case 'T':
			// What it made, its COMMIT, and the next statement's BEGIN
			// when the next is one of the tracker's.
			end := "; COMMIT"
			next := t.next < len(t.steps) && txKind(t.steps[t.next].SQL) == txPlain
			if next {
				end += "; BEGIN; " + insertedQuery
			}
			err := t.simple(ctx, fmt.Sprintf(madeQuery, t.base)+end)
			t.ours = next && err == nil && t.TxStatus() == 'T'
			return n, err
		case 'E':
			_ = t.simple(ctx, "ROLLBACK")
		default:
			t.alone = append(t.alone, line)
		}
		return n, nil
	}
	if st == 'T' && kind == txCommit {
		if err := t.simple(ctx, fmt.Sprintf(madeQuery, t.base)); err != nil {
			return 0, fmt.Errorf("listing what init's transaction made: %w", err)
		}
	}
	n, err := f()
	if err == nil && (kind == txBegin && st != 'T' || kind == txCommit || kind == txRollback) && t.TxStatus() == 'T' {
		// The file's BEGIN (or COMMIT AND CHAIN): its transaction's
		// count starts here.
		if err := t.simple(ctx, insertedQuery); err != nil {
			return n, fmt.Errorf("following init's transactions: %w", err)
		}
	}
	return n, err
}

// concurrentIndex finds CREATE INDEX CONCURRENTLY.
var concurrentIndex = lazyre.New(`(?is)^create\s+(?:unique\s+)?index\s+concurrently\b`)

// finish commits the transaction begun for a statement that did not
// run (RunInit stopped before it).
func (t *tracker) finish(ctx context.Context) error {
	if t.ours && t.TxStatus() == 'T' {
		t.ours = false
		return t.simple(ctx, "COMMIT")
	}
	t.ours = false
	return nil
}

// Kinds of statement, as the tracker runs them.
const (
	txPlain    = iota // runs in a transaction of the tracker's
	txBegin           // BEGIN, START TRANSACTION
	txCommit          // COMMIT, END, PREPARE TRANSACTION
	txRollback        // ROLLBACK, ABORT
	txInBlock         // SAVEPOINT, RELEASE, ROLLBACK TO, LOCK: only inside a block
)

// txKind is the kind of statement sql is (its first part's, for a
// compound joined by \;).
func txKind(sql string) int {
	f := strings.Fields(strings.ToUpper(skipComments(sql)))
	if len(f) == 0 {
		return txPlain
	}
	second := ""
	if len(f) > 1 {
		second = strings.TrimSuffix(f[1], ";")
	}
	switch strings.TrimSuffix(f[0], ";") {
	case "BEGIN":
		return txBegin
	case "START":
		if second == "TRANSACTION" {
			return txBegin
		}
	case "COMMIT", "END":
		if second != "PREPARED" {
			return txCommit
		}
	case "PREPARE":
		if second == "TRANSACTION" {
			return txCommit
		}
	case "ROLLBACK", "ABORT":
		switch second {
		case "TO":
			return txInBlock
		case "PREPARED":
			return txPlain
		}
		return txRollback
	case "SAVEPOINT", "RELEASE", "LOCK":
		return txInBlock
	}
	return txPlain
}

// skipComments returns sql without its leading comments and blanks.
func skipComments(sql string) string {
	for {
		sql = strings.TrimLeft(sql, " \t\r\n")
		switch {
		case strings.HasPrefix(sql, "--"):
			i := strings.IndexByte(sql, '\n')
			if i < 0 {
				return ""
			}
			sql = sql[i+1:]
		case strings.HasPrefix(sql, "/*"):
			// Comments nest in PostgreSQL.
			depth, i := 0, 0
			for ; i < len(sql); i++ {
				if strings.HasPrefix(sql[i:], "/*") {
					depth++
					i++
				} else if strings.HasPrefix(sql[i:], "*/") {
					depth--
					i++
					if depth == 0 {
						break
					}
				}
			}
			if i >= len(sql) {
				return ""
			}
			sql = sql[i+1:]
		default:
			return sql
		}
	}
}

// compoundTxError refuses a statement that joins BEGIN, COMMIT or
// ROLLBACK to others with \;: the tracker cannot follow the transactions
// it opens and ends.
func compoundTxError(file string, steps []pgscript.InitStep) error {
	for _, s := range steps {
		if s.Copy {
			continue
		}
		var parts []string
		for _, p := range splitStatements(s.SQL) {
			if strings.TrimSpace(skipComments(p)) != "" {
				parts = append(parts, p)
			}
		}
		if len(parts) < 2 {
			continue
		}
		for _, p := range parts {
			if k := txKind(p); k != txPlain && k != txInBlock {
				return sqlx.ConfigErrorf("%s:%d: %s joined to other statements by \\; in one: init sql follows the transactions of the file's statements, to mark as stampede's only what they made (not what another session makes meanwhile); end each statement with ; instead",
					file, s.Line, strings.Fields(strings.ToUpper(skipComments(p)))[0])
			}
		}
	}
	return nil
}

// splitStatements splits sql at its semicolons that are outside quotes,
// dollar quotes and comments (a compound's statements, joined by \; in
// the file).
func splitStatements(sql string) []string {
	var parts []string
	start := 0
	for i := 0; i < len(sql); i++ {
		switch c := sql[i]; {
		case c == ';':
			parts = append(parts, sql[start:i])
			start = i + 1
		case c == '\'' || c == '"':
			// E'...' takes backslash escapes; '' and "" are escapes too.
			esc := c == '\'' && i > 0 && (sql[i-1] == 'E' || sql[i-1] == 'e')
			for i++; i < len(sql); i++ {
				if esc && sql[i] == '\\' {
					i++
					continue
				}
				if sql[i] == c {
					if i+1 < len(sql) && sql[i+1] == c {
						i++
						continue
					}
					break
				}
			}
		case c == '-' && strings.HasPrefix(sql[i:], "--"):
			if j := strings.IndexByte(sql[i:], '\n'); j >= 0 {
				i += j
			} else {
				i = len(sql)
			}
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			depth := 0
			for ; i < len(sql); i++ {
				if strings.HasPrefix(sql[i:], "/*") {
					depth++
					i++
				} else if strings.HasPrefix(sql[i:], "*/") {
					depth--
					i++
					if depth == 0 {
						break
					}
				}
			}
		case c == '$' && (i == 0 || !isIdentChar(sql[i-1])):
			j := i + 1
			for j < len(sql) && isIdentChar(sql[j]) && !(j == i+1 && sql[j] >= '0' && sql[j] <= '9') {
				j++
			}
			if j < len(sql) && sql[j] == '$' {
				tag := sql[i : j+1]
				if k := strings.Index(sql[j+1:], tag); k >= 0 {
					i = j + k + len(tag)
				} else {
					i = len(sql)
				}
			}
		}
	}
	return append(parts, sql[min(start, len(sql)):])
}

// isIdentChar says whether c may be in an identifier or a dollar quote's
// tag.
func isIdentChar(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}
