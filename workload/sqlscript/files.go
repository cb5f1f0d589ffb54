package sqlscript

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/internal/lazyre"
	"github.com/stampede-bench/stampede/pgscript"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// CheckInit implements workload.InitChecker: the init file is read and
// judged before init drops or creates anything, so that a refused file
// leaves what an earlier init made, and stampede's record of it, in
// place (init sql --drop dropped both before the file's reading refused).
func (g *gen) CheckInit(ctx context.Context, db *sqlx.DB) error {
	if g.initFile == "" {
		return nil // runInitFile says what to give
	}
	steps, err := g.initSteps()
	if err != nil {
		return err
	}
	if g.forceDrop {
		// --force-drop: judged silently now, for what no flag lets run;
		// the load judges again and says what it drops or replaces
		// (init drops a user's relation in the way, and runs the file
		// again).
		err := checkInTheWay(ctx, db, g.initFile, steps, true, io.Discard)
		if errors.Is(err, workload.ErrForeign) {
			return nil
		}
		if err == nil {
			err = compoundTxError(g.initFile, steps)
		}
		return err
	}
	if err := g.judge(ctx, db, steps); err != nil {
		return err
	}
	g.judged = true
	return nil
}

// initSteps reads and parses --init-file.
func (g *gen) initSteps() ([]pgscript.InitStep, error) {
	src, err := readFile(g.initFile, "--init-file")
	if err != nil {
		return nil, sqlx.ConfigErrorf("%v", err)
	}
	steps, err := pgscript.ParseInit(g.initFile, src)
	if err != nil {
		return nil, sqlx.ConfigErrorf("%v", err)
	}
	return steps, nil
}

// judge refuses, before any statement runs, an init file whose
// statements would harm what init sql did not make (checkInTheWay) or
// whose transactions init cannot follow (compoundTxError).
func (g *gen) judge(ctx context.Context, db *sqlx.DB, steps []pgscript.InitStep) error {
	if err := compoundTxError(g.initFile, steps); err != nil {
		return err
	}
	return checkInTheWay(ctx, db, g.initFile, steps, g.forceDrop, g.errOut)
}

// runInitFile is init's load: it runs --init-file and marks the tables
// the file created as stampede's, so that cleanup drops them and only them.
func (g *gen) runInitFile(ctx context.Context, db *sqlx.DB) error {
	if g.initFile == "" {
		return sqlx.ConfigErrorf("init sql runs your init file: give --init-file FILE (SQL, and COPY ... FROM STDIN with its rows)")
	}
	steps, err := g.initSteps()
	if err != nil {
		return err
	}
	if db.Null() {
		return nil
	}
	if !g.judged {
		if err := g.judge(ctx, db, steps); err != nil {
			return err
		}
	}
	conn := db.Conn(0, true)
	defer conn.Release()
	q, ok := conn.(sqlx.ScriptQuerier)
	if !ok {
		return fmt.Errorf("init sql: the connection cannot run scripts")
	}
	// The file's own transactions are followed (see tracker), so that
	// init marks only what its statements made.
	tr := newTracker(q, steps)
	before, partsBefore, err := objectKeys(ctx, db)
	if err != nil {
		return err
	}
	g.loaded, err = pgscript.RunInit(ctx, tr, g.initFile, steps)
	if ferr := tr.finish(ctx); err == nil {
		err = ferr
	}
	open := q.TxStatus() == 'T' || q.TxStatus() == 'E'
	if open {
		// A failed statement inside the file's own BEGIN, or a
		// transaction the file leaves open: rolled back, as at psql's
		// disconnect, and said.
		_, _ = q.QueryScript(ctx, sqlx.Simple, "ROLLBACK", nil, nil)
	}
	// What the file created and kept, even before a statement that
	// failed, carries the mark, so that cleanup sql drops it.
	made, others, merr := g.markObjects(ctx, db, before, tr.mine, partsBefore)
	for _, o := range others {
		by := "another session made it"
		if len(tr.alone) > 0 {
			by = fmt.Sprintf("another session, or %s:%d, which ran outside a transaction init can follow (it commits on its own), made it", g.initFile, tr.alone[0])
		}
		fmt.Fprintf(g.errOut, "warning: %s appeared while init ran but %s: not marked as stampede's, so cleanup keeps it, and refuses to drop a table of init's it is on (drop it first, or add --force-drop)\n", o, by)
	}
	fix := "fix the file and run init again (nothing it created is left)"
	if len(made) > 0 {
		fix = fmt.Sprintf("fix the file, then run `stampede init sql --drop --init-file %s` (what it created before, %s, is marked as stampede's; `stampede cleanup sql` drops it alone)", g.initFile, strings.Join(made, ", "))
	}
	var ie *pgscript.InitError
	var pe *pgconn.PgError
	errors.As(err, &ie)
	switch {
	case err != nil && sqlx.SQLState(err) == "42P07" && errors.As(err, &pe) && foreignErr(ctx, db, pe, ie) != nil:
		return foreignErr(ctx, db, pe, ie)
	case err != nil && alreadyExists(sqlx.SQLState(err)) && g.dropped && errors.As(err, &pe):
		return sqlx.ConfigErrorf("%s: %s, and --drop dropped only what an earlier init sql made (marked as stampede's): the one there is not init sql's; rename it in the file, or drop it yourself if it is yours to drop", at(ie, g.initFile), pe.Message)
	case err != nil && alreadyExists(sqlx.SQLState(err)):
		return sqlx.ConfigErrorf("%v: `stampede init sql --drop --init-file %s` drops what an earlier init made (tables, views, sequences, types, schemas, functions) and runs the file again; `stampede cleanup sql` drops it alone", err, g.initFile)
	case err != nil && errors.As(err, &ie) && errors.As(err, &pe):
		return sqlx.ConfigErrorf("%s:%d: %s (SQLSTATE %s): %s", ie.File, ie.Line, pe.Message, pe.Code, fix)
	case err != nil:
		return err
	case merr != nil:
		return merr
	case open:
		return sqlx.ConfigErrorf("%s: the file ends inside a transaction (a BEGIN among statements joined by \\;), rolled back: add COMMIT; at its end, and %s", g.initFile, strings.TrimPrefix(fix, "fix the file and "))
	}
	return nil
}

// foreignErr is the refusal foreignInTheWay finds (or its error reading
// the catalogue), nil when the relation in the way is an earlier init's.
func foreignErr(ctx context.Context, db *sqlx.DB, pe *pgconn.PgError, ie *pgscript.InitError) error {
	fe, err := foreignInTheWay(ctx, db, pe, ie)
	if err != nil {
		return err
	}
	if fe != nil {
		return sqlx.ConfigErrorf("%w", fe)
	}
	// Another workload's load, marked: init sql --drop is no remedy.
	if m := existsPattern().FindStringSubmatch(pe.Message); m != nil {
		c, err := workload.TableComment(ctx, db, m[1])
		if err != nil {
			return err
		}
		return otherMarkError("relation", m[1], c, at(ie, "the init file"), "creates")
	}
	return nil
}

// at is where a statement of an init file is (FILE:LINE), or def when
// the error does not say.
func at(ie *pgscript.InitError, def string) string {
	if ie == nil {
		return def
	}
	return fmt.Sprintf("%s:%d", ie.File, ie.Line)
}

// existsPattern finds the name in PostgreSQL's 42P07 message, `relation
// "accounts" already exists`.
var existsPattern = lazyre.New(`relation "([^"]+)" already exists`)

// foreignInTheWay returns the refusal of a relation that the init file
// creates and that exists without stampede's mark (the user's, not an
// earlier init's): nil when it carries the mark or cannot be named.
func foreignInTheWay(ctx context.Context, db *sqlx.DB, pe *pgconn.PgError, ie *pgscript.InitError) (*workload.ForeignError, error) {
	m := existsPattern().FindStringSubmatch(pe.Message)
	if m == nil {
		return nil, nil
	}
	c, err := workload.TableComment(ctx, db, m[1])
	if err != nil || workload.IsMark(c) {
		return nil, err
	}
	kind := "table"
	var rk string
	if err := db.QueryRow(ctx, "SELECT relkind::text FROM pg_class WHERE oid = to_regclass($1)", db.Dialect().QuoteIdent(m[1])).Scan(&rk); err == nil && relationKinds[rk] != "" {
		kind = relationKinds[rk]
	}
	return &workload.ForeignError{Kind: kind, Names: []string{m[1]}, Action: "init sql",
		Where: db.Where(),
		Why:   at(ie, "the init file") + " creates it, and the one there carries no mark of stampede's init: it is yours"}, nil
}

// cleanupSteps reads --cleanup-file.
func (g *gen) cleanupSteps() ([]pgscript.InitStep, error) {
	src, err := readFile(g.cleanupFile, "--cleanup-file")
	if err != nil {
		return nil, err
	}
	steps, err := pgscript.ParseCleanup(g.cleanupFile, src)
	if err != nil {
		return nil, err
	}
	for _, s := range steps {
		if s.Copy {
			return nil, fmt.Errorf("%s:%d: a cleanup file holds SQL statements, not COPY", g.cleanupFile, s.Line)
		}
	}
	return steps, nil
}

var _ workload.MadeDropper = (*gen)(nil)

// DropMade implements workload.MadeDropper: what init made, dependents
// first, without CASCADE (cleanup runs --cleanup-file before:
// RunCleanupFile).
func (g *gen) DropMade(ctx context.Context, db *sqlx.DB, log io.Writer, action string) error {
	g.dropped = action != ""
	if db.Null() {
		return nil
	}
	return g.dropMade(ctx, db, log, action)
}

// RefuseMade implements workload.MadeDropper: the refusals of dropMade,
// surveyed without dropping anything.
func (g *gen) RefuseMade(ctx context.Context, db *sqlx.DB, action string) error {
	if db.Null() || g.forceDrop {
		return nil
	}
	made, err := g.madeObjects(ctx, db)
	if err != nil || len(made) == 0 {
		return err
	}
	return g.refuseMade(ctx, db, made, io.Discard, action, true)
}

// RunCleanupFile implements workload.MadeDropper: --cleanup-file, before
// cleanup surveys and drops what init made (a statement that fails stops
// there, nothing of init's dropped).
func (g *gen) RunCleanupFile(ctx context.Context, db *sqlx.DB, log io.Writer) error {
	if g.cleanupFile != "" && !db.Null() {
		steps, err := g.cleanupSteps()
		if err != nil {
			return sqlx.ConfigErrorf("%v", err)
		}
		conn := db.Conn(0, true)
		q, ok := conn.(sqlx.ScriptQuerier)
		if !ok {
			conn.Release()
			return fmt.Errorf("cleanup sql: the connection cannot run scripts")
		}
		_, err = pgscript.RunInit(ctx, q, g.cleanupFile, steps)
		if st := q.TxStatus(); st == 'T' || st == 'E' {
			_, _ = q.QueryScript(ctx, sqlx.Simple, "ROLLBACK", nil, nil)
		}
		conn.Release()
		var ie *pgscript.InitError
		var pe *pgconn.PgError
		switch {
		case err != nil && errors.As(err, &ie) && errors.As(err, &pe):
			return sqlx.ConfigErrorf("%s:%d: %s (SQLSTATE %s): fix the file and run cleanup again (what init made is not dropped yet)", ie.File, ie.Line, pe.Message, pe.Code)
		case err != nil:
			return err
		}
		fmt.Fprintf(log, "ran %s (%s)\n", g.cleanupFile, plural(len(steps), "statement"))
	}
	return nil
}

// LoadScript implements workload.ScriptLoader.
func (g *gen) LoadScript() string { return g.initFile }

// LoadedRows implements workload.ScriptLoader.
func (g *gen) LoadedRows() int64 { return g.loaded }

// alreadyExists reports whether SQLSTATE code says that an object the
// file creates exists already: a table or view (42P07), a type, sequence
// or other object (42710), a schema (42P06), a function (42723).
func alreadyExists(code string) bool {
	switch code {
	case "42P07", "42710", "42P06", "42723":
		return true
	}
	return false
}

// check runs --check-file. Each query runs in a read-only transaction
// (a statement that writes is refused) and passes when it returns at
// least one row and every column of every row is true; its columns must
// be boolean.
func (g *gen) check(ctx context.Context, db *sqlx.DB, r workload.Reporter) error {
	if g.checkFile == "" {
		return sqlx.ConfigErrorf("check sql runs your checks: give --check-file FILE, queries whose every column of every row is true")
	}
	src, err := readFile(g.checkFile, "--check-file")
	if err != nil {
		return sqlx.ConfigErrorf("%v", err)
	}
	steps, err := pgscript.ParseCheck(g.checkFile, src)
	if err != nil {
		return sqlx.ConfigErrorf("%v", err)
	}
	for _, s := range steps {
		if s.Copy {
			return sqlx.ConfigErrorf("%s:%d: a check file holds queries, not COPY", g.checkFile, s.Line)
		}
	}
	conn := db.Conn(0, true)
	defer conn.Release()
	q, ok := conn.(sqlx.ScriptQuerier)
	if !ok {
		return fmt.Errorf("check sql: the connection cannot run scripts")
	}
	failed := 0
	for _, s := range steps {
		name := checkName(g.checkFile, s)
		fail, err := runCheck(ctx, q, g.checkFile, s)
		if err != nil {
			return err
		}
		if fail != "" {
			failed++
			r.Printf("FAIL %s: %s\n", name, fail)
		} else {
			r.Printf("PASS %s\n", name)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d checks failed", failed, len(steps))
	}
	return nil
}

// runCheck runs one check in a read-only transaction and returns why it
// failed ("" when it passed), or an error for a check that is not one: a
// statement that writes, fails on the server, or returns a column that
// is not boolean.
func runCheck(ctx context.Context, q sqlx.ScriptQuerier, file string, s pgscript.InitStep) (string, error) {
	if _, err := q.QueryScript(ctx, sqlx.Simple, "BEGIN TRANSACTION READ ONLY", nil, nil); err != nil {
		return "", fmt.Errorf("starting the read-only transaction of %s:%d: %w", file, s.Line, err)
	}
	defer func() { _, _ = q.QueryScript(context.WithoutCancel(ctx), sqlx.Simple, "ROLLBACK", nil, nil) }()
	rows, fail, notBool := 0, "", ""
	_, err := q.QueryScript(ctx, sqlx.Simple, s.SQL, nil, func(_ int, fields []pgconn.FieldDescription, values [][]byte) {
		rows++
		for i, f := range fields {
			switch {
			case notBool != "" || fail != "":
			case f.DataTypeOID != pgtype.BoolOID:
				notBool = fmt.Sprintf("column %d (%s) is not boolean", i+1, f.Name)
			case values[i] == nil:
				fail = fmt.Sprintf("row %d, column %d (%s) is NULL, not true", rows, i+1, f.Name)
			case string(values[i]) != "t":
				fail = fmt.Sprintf("row %d, column %d (%s) is false", rows, i+1, f.Name)
			}
		}
	})
	var pe *pgconn.PgError
	switch {
	case err != nil && errors.As(err, &pe) && pe.Code == "25006":
		return "", sqlx.ConfigErrorf("%s:%d: the check writes (%s: %s), and checks run in a read-only transaction: a check file holds queries that read (SELECT count(*) = 100 FROM t)", file, s.Line, strings.ToUpper(firstWord(s.SQL)), pe.Message)
	case err != nil && errors.As(err, &pe):
		st := &pgscript.Command{Line: s.Line, Text: s.SQL}
		return "", sqlx.ConfigErrorf("%s:%d: %s (SQLSTATE %s): fix the query, or run it with psql to see it fail the same way", file, pgscript.ErrorLine(st, s.SQL, err), pe.Message, pe.Code)
	case err != nil:
		return "", fmt.Errorf("%s:%d: %w", file, s.Line, err)
	case notBool != "":
		return "", sqlx.ConfigErrorf("%s:%d: %s: a check returns booleans, each true when it holds (SELECT count(*) = 100 FROM t)", file, s.Line, notBool)
	case rows == 0:
		return "returned no row (a check passes when it returns rows whose every column is true)", nil
	}
	return fail, nil
}

// checkName names a check: its `-- name:`, else FILE:LINE and its first line.
func checkName(file string, s pgscript.InitStep) string {
	if s.Name != "" {
		return s.Name
	}
	first, _, _ := strings.Cut(s.SQL, "\n")
	if len(first) > 70 {
		first = first[:67] + "..."
	}
	return fmt.Sprintf("%s:%d %s", file, s.Line, first)
}

// pgbenchTables does what pgbench does with its tables before a run: a
// built-in script's :scale is the count of pgbench_branches (a --scale
// given is said and ignored, as pgbench does), and with
// --vacuum-first (vacuumFirst) the small tables are vacuumed and
// pgbench_history emptied (only when stampede made it; else it is said
// and kept).
func (g *gen) pgbenchTables(ctx context.Context, db *sqlx.DB, warn func(string, ...any)) error {
	if db.Null() {
		return nil
	}
	g.copied = nil
	if g.vacuum {
		// Read now: vacuumFirst runs once the workers hold every
		// connection of the pool.
		if err := workload.RefuseCopiedDatabase(ctx, db, "--vacuum-first"); err != nil && !errors.As(err, &g.copied) {
			return err
		}
	}
	builtin, writes := false, false
	for _, s := range g.scripts {
		if s.Builtin {
			builtin = true
			writes = writes || s.Name != "select-only"
		}
	}
	if writes && !g.truncHistory && warn != nil {
		// The sql form, over pgbench's tables that stampede did not
		// load (real pgbench's -i): said as every run says it. (The
		// pgbench form runs what the user asked pgbench to run.)
		if err := warnUnloadedPgbench(ctx, db, warn); err != nil {
			return err
		}
	}
	if builtin {
		var n int64
		if err := db.QueryRow(ctx, "SELECT count(*) FROM pgbench_branches").Scan(&n); err != nil {
			if sqlx.SQLState(err) == "42P01" {
				return sqlx.ConfigErrorf("the built-in scripts use pgbench's tables, and database %q has no pgbench_branches: load them with `stampede init pgbench --scale N` (or pgbench -i)", db.Database())
			}
			return fmt.Errorf("counting pgbench_branches for the scale: %w", err)
		}
		if n == 0 {
			// An interrupted init pgbench (its step g rolled back):
			// said so, with the command that reloads it.
			if err := workload.UnfinishedTable(ctx, db, "pgbench", "pgbench", "pgbench_branches"); err != nil {
				return sqlx.ConfigErrorf("%w", err)
			}
			drop := ""
			if c, err := workload.TableComment(ctx, db, "pgbench_branches"); err == nil && workload.IsMark(c) {
				drop = " --drop"
			}
			return sqlx.ConfigErrorf("pgbench_branches in database %q is empty, so the scale would be 0: reload it with `stampede init pgbench%s --scale N`", db.Database(), drop)
		}
		if g.flags.Changed("scale") && warn != nil {
			// pgbench's words, said as pgbench does whenever a scale
			// is given to the built-in scripts.
			warn("scale option ignored, using count from pgbench_branches table (%d)", n)
		}
		g.scale = n
		return g.readPartitions(ctx, db)
	}
	return nil
}

// vacuumFirst is --vacuum-first, after the scripts are checked on the
// server (so that a refused script is refused in one line). It runs on
// conn, a connection the run holds already: the run holds one per
// worker, so that with one worker the pool has none left to give (a
// statement on the pool would wait for one forever).
func (g *gen) vacuumFirst(ctx context.Context, db *sqlx.DB, conn sqlx.Querier, warn func(string, ...any)) error {
	if !g.vacuum || db.Null() {
		return nil
	}
	tables := []string{"pgbench_branches", "pgbench_tellers"}
	if g.vacAll {
		tables = append(tables, "pgbench_accounts", "pgbench_history") // pgbench -v
	}
	// With --truncate-history the run is pgbench's (the pgbench form
	// gives it): the advice names pgbench's option.
	hint := "a database without pgbench's tables needs no vacuum: leave out --vacuum-first, or pgbench's -n"
	if g.truncHistory {
		hint = "a database without pgbench's tables needs no vacuum: give -n"
	}
	for _, t := range tables {
		// pgbench prints these errors and goes on (exit 0): so does
		// stampede, in a warning.
		if _, err := conn.Exec(ctx, "VACUUM "+t); err != nil && warn != nil {
			warn("VACUUM %s before the run failed: %v; the run goes on, as pgbench's does (%s)", t, err, hint)
		}
	}
	if g.truncHistory {
		// pgbench empties it whoever made it, and goes on when it
		// cannot; rows stampede did not make are said first.
		if err := warnForeignHistory(ctx, db, conn, g.copied, g.forceDrop, warn); err != nil {
			return err
		}
		if _, err := conn.Exec(ctx, "TRUNCATE pgbench_history"); err != nil && warn != nil {
			warn("TRUNCATE pgbench_history before the run failed: %v; the run goes on, as pgbench's does (%s)", err, hint)
		}
		return nil
	}
	q, arg := dialect.TableExistsQuery(db.Dialect(), "pgbench_history")
	var ok bool
	if err := conn.QueryRow(ctx, q, arg).Scan(&ok); err != nil || !ok {
		return nil // no such table: nothing to empty
	}
	var c *string
	q, arg = dialect.TableCommentQuery(db.Dialect(), "pgbench_history")
	if err := conn.QueryRow(ctx, q, arg).Scan(&c); err != nil {
		return nil
	}
	switch {
	case c != nil && workload.IsMark(*c):
		// pgbench empties it; stampede's own form only when stampede
		// made it (or with --truncate-history, above, which the
		// pgbench form gives: the user asked pgbench to run), and not
		// in a copy a user made of the database stampede loaded,
		// unless --force-drop.
		if err := refuseCopiedHistory(g.copied, g.forceDrop, warn); err != nil {
			return err
		}
		if _, err := conn.Exec(ctx, "TRUNCATE pgbench_history"); err != nil {
			return fmt.Errorf("emptying pgbench_history: %w", err)
		}
	case warn != nil:
		warn("pgbench_history was not made by stampede: kept as it is (pgbench would empty it: add --truncate-history to empty it as pgbench does, or leave out --vacuum-first)")
	}
	return nil
}

// refuseCopiedHistory refuses, unless force, --vacuum-first's emptying
// of pgbench_history in a copy a user made of the database stampede
// loaded (copied, workload.RefuseCopiedDatabase's refusal; nil when the
// database is none), in one line that says it would empty the table;
// with force it says so in a warning.
func refuseCopiedHistory(copied *workload.CopiedDatabaseError, force bool, warn func(string, ...any)) error {
	if copied == nil {
		return nil
	}
	e := *copied
	e.Empties = "pgbench_history"
	if !force {
		return &e
	}
	if warn != nil {
		warn("%s", e.Note())
	}
	return nil
}

// warnUnloadedPgbench warns, before a run of pgbench's writing built-in
// scripts, that it writes into pgbench's tables that no init of
// stampede's loaded (workload.UnloadedTables of the pgbench workload).
func warnUnloadedPgbench(ctx context.Context, db *sqlx.DB, warn func(string, ...any)) error {
	meta, ok := workload.Get("pgbench")
	if !ok {
		return nil
	}
	tables, err := workload.UnloadedTables(ctx, db, meta.New())
	if err != nil || len(tables) == 0 {
		return err
	}
	warn("%s", workload.UnloadedWarning(tables, db.Database(), "pgbench"))
	return nil
}

// warnForeignHistory warns, before the pgbench form empties
// pgbench_history as pgbench does, when the table is not stampede's
// (pgbench's own, which pgbench would empty), naming how many rows it
// holds. In a copy a user made of the database stampede loaded (copied)
// it refuses, unless force, in one line naming -n and --force-drop: the
// copy's rows are the user's, kept from whatever made the copy.
func warnForeignHistory(ctx context.Context, db *sqlx.DB, conn sqlx.Querier, copied *workload.CopiedDatabaseError, force bool, warn func(string, ...any)) error {
	if warn == nil && copied == nil {
		return nil
	}
	q, arg := dialect.TableExistsQuery(db.Dialect(), "pgbench_history")
	var ok bool
	if err := conn.QueryRow(ctx, q, arg).Scan(&ok); err != nil || !ok {
		return nil // no such table: TRUNCATE says so below
	}
	var c *string
	q, arg = dialect.TableCommentQuery(db.Dialect(), "pgbench_history")
	if err := conn.QueryRow(ctx, q, arg).Scan(&c); err != nil {
		return nil
	}
	what := fmt.Sprintf("pgbench_history in database %q was not made by stampede", db.Database())
	if c != nil && workload.IsMark(*c) {
		// Stampede's, but in a copy a user made of the database
		// stampede loaded (copied): the rows are the copy's.
		if copied == nil {
			return nil
		}
		what = "table pgbench_history of " + copied.Copy()
	}
	var n int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pgbench_history").Scan(&n); err != nil || n == 0 {
		return nil
	}
	rows, them := "rows", "them"
	if n == 1 {
		rows, them = "row", "it"
	}
	if copied != nil && !force && strings.HasPrefix(what, "table pgbench_history of ") {
		return sqlx.ConfigErrorf("%s holds %d %s, which the run would empty first, as pgbench does without -n: nothing was emptied; give -n to keep %s, or %s to empty %s", what, n, rows, them, workload.ForceDropFlag, them)
	}
	if warn != nil {
		warn("%s: emptying its %d %s before the run, as pgbench does without -n (give -n to keep %s)", what, n, rows, them)
	}
	return nil
}
