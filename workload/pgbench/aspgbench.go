package pgbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// The pgbench form's init (stampede pgbench -i) is pgbench's own: it
// takes the -I steps as pgbench does, in any order and any subset (v, p
// or f alone on tables that exist; d alone drops them), drops pgbench's
// four tables when they are pgbench's (the columns pgbench -i makes,
// whichever pgbench made them: the user, by asking pgbench to
// initialise, names them), never a table of one of those names with
// other columns (a user's own: refused in one line, nothing dropped),
// and leaves in the database only what pgbench leaves: no stampede_load
// record, no mark on the tables. Stampede's own form (stampede init
// pgbench) keeps its rule: it drops only what it made, and records its
// load.

var _ workload.SelfLoader = (*generator)(nil)

// pgbenchSteps are the characters pgbench's -I takes (blanks are
// skipped).
const pgbenchSteps = AllSteps + " "

// checkPgbenchSteps checks steps as pgbench's checkInitSteps does.
func checkPgbenchSteps(steps string) error {
	if steps == "" {
		return errors.New("no initialization steps specified (give -I one or more of dtgGvpf)")
	}
	for _, c := range steps {
		if !strings.ContainsRune(pgbenchSteps, c) {
			return fmt.Errorf("unrecognized initialization step %q (allowed step characters are: %q)", string(c), AllSteps)
		}
	}
	return nil
}

// LoadsItself implements workload.SelfLoader: the pgbench form's init
// (--as-pgbench) is pgbench's own.
func (g *generator) LoadsItself() bool { return g.asPgbench }

// LoadItself implements workload.SelfLoader: pgbench -i's steps, in the
// order given, with pgbench's lines; a server error is said in
// pgbench's two lines ("error: query failed: ..." and "detail: Query
// was: ...") and ends the init (exit 1, as pgbench).
func (g *generator) LoadItself(ctx context.Context, db *sqlx.DB) error {
	for _, s := range g.Steps() {
		var err error
		switch s {
		case 'd':
			if err := notPgbenchs(ctx, db); err != nil {
				return err
			}
			g.log.begin('d', 0)
			err = g.exec(ctx, db, 'd', "drop table if exists "+Accounts+", "+Branches+", "+History+", "+Tellers)
		case 't':
			g.log.begin('t', 0)
			err = g.createTables(ctx, db)
		default:
			err = g.step(ctx, db, byte(s))
		}
		if err != nil {
			return g.said(err)
		}
		if s == 'd' || s == 't' {
			// The tables are pgbench's now: a record of stampede's
			// load of them (an earlier stampede init pgbench) goes,
			// and its table with it when it holds no other.
			if err := workload.ForgetLoad(ctx, db, g); err != nil {
				return g.said(err)
			}
		}
	}
	g.log.end()
	return nil
}

// pgbenchColumns are the columns, in order, of the tables pgbench -i
// makes (pgbench 15's initCreateTables).
var pgbenchColumns = map[string]string{
	Branches: "bid,bbalance,filler",
	Tellers:  "tid,bid,tbalance,filler",
	Accounts: "aid,bid,abalance,filler",
	History:  "tid,bid,aid,delta,mtime,filler",
}

// notPgbenchs refuses, before step d drops anything, a table of one of
// pgbench's names whose columns are not the ones pgbench -i makes: a
// user's own table, which the pgbench form never drops (issue 28's rule;
// pgbench itself would drop it).
func notPgbenchs(ctx context.Context, db *sqlx.DB) error {
	if db.Null() {
		return nil
	}
	var foreign []string
	for _, name := range []string{Branches, Tellers, Accounts, History} {
		var cols *string
		err := db.QueryRow(ctx, `SELECT string_agg(a.attname, ',' ORDER BY a.attnum)
			FROM pg_attribute a WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped`, name).Scan(&cols)
		if err != nil {
			return fmt.Errorf("reading the columns of %s: %w", name, err)
		}
		if cols != nil && *cols != pgbenchColumns[name] {
			foreign = append(foreign, fmt.Sprintf("%s (%s)", name, *cols))
		}
	}
	if len(foreign) == 0 {
		return nil
	}
	return &ForeignTablesError{fmt.Sprintf("-i would drop %s in database %q, whose columns are not pgbench's: a table of yours, which stampede never drops: nothing was dropped; rename or drop it yourself, or initialise another database (pgbench's dbname, the last argument)",
		strings.Join(foreign, ", "), db.Database())}
}

// ForeignTablesError is the pgbench form's refusal of a user's table of
// one of pgbench's names: bad input, exit 2.
type ForeignTablesError struct{ Msg string }

func (e *ForeignTablesError) Error() string { return e.Msg }

// ExitCode is the refusal's exit status: 2, as bad input.
func (*ForeignTablesError) ExitCode() int { return 2 }

// createTables is pgbench's step t: its four tables, in its order and
// words, then the partitions of pgbench_accounts.
func (g *generator) createTables(ctx context.Context, db *sqlx.DB) error {
	unlogged := ""
	if g.unlogged {
		unlogged = " unlogged"
	}
	schema := map[string]string{}
	for _, t := range g.Tables() {
		schema[t.Name] = t.Schema
	}
	for _, name := range []string{History, Tellers, Accounts, Branches} {
		if err := g.exec(ctx, db, 't', "create"+unlogged+" table "+name+schema[name]); err != nil {
			return err
		}
	}
	if g.partitionMethod() == "" {
		return nil
	}
	g.log.line(fmt.Sprintf("creating %d partitions...", g.partitions))
	for p := 1; p <= g.partitions; p++ {
		if err := g.exec(ctx, db, 't', g.partitionDDL(p)); err != nil {
			return err
		}
	}
	return nil
}

// exec runs q of step s; its error is a *StepError.
func (g *generator) exec(ctx context.Context, db *sqlx.DB, s byte, q string) error {
	if _, err := db.Exec(ctx, q); err != nil {
		return &StepError{Step: s, Query: q, Err: err}
	}
	return nil
}

// StepError is a statement of an init step that the server refused.
type StepError struct {
	Step  byte
	Query string
	Err   error
}

func (e *StepError) Error() string { return fmt.Sprintf("step %c: %s: %v", e.Step, e.Query, e.Err) }
func (e *StepError) Unwrap() error { return e.Err }

// SaidError is an error the pgbench form's init has said already, in
// pgbench's lines: the command line prints nothing more, and exits 1 as
// pgbench does.
type SaidError struct{ Err error }

func (e *SaidError) Error() string { return e.Err.Error() }
func (e *SaidError) Unwrap() error { return e.Err }

// Said reports that the error was said.
func (*SaidError) Said() bool { return true }

// ExitCode is pgbench's exit status after an init's error.
func (*SaidError) ExitCode() int { return 1 }

// said writes err as pgbench writes an init's error, on the log's
// writer, and returns it as a *SaidError (as is without a log).
func (g *generator) said(err error) error {
	if g.log == nil || g.log.w == nil {
		return err
	}
	var se *StepError
	text, ok := sqlx.LibpqText(err)
	switch {
	case errors.As(err, &se) && ok:
		writeLines(g.log.w, "pgbench: error: query failed: "+text, "pgbench: detail: Query was: "+se.Query)
	case ok:
		writeLines(g.log.w, "pgbench: error: "+text)
	default:
		writeLines(g.log.w, "pgbench: error: "+err.Error())
	}
	return &SaidError{Err: err}
}

func writeLines(w io.Writer, lines ...string) {
	fmt.Fprintln(w, strings.Join(lines, "\n"))
}
