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
// four tables whoever made them (the user, by asking pgbench to
// initialise, names them, as with pgbench itself), and leaves in the
// database only what pgbench leaves: no stampede_load record, no mark
// on the tables. Stampede's own form (stampede init pgbench) keeps its
// rule: it drops only what it made, and records its load.

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
