package pgbench

import (
	"context"
	"errors"
	"fmt"
	"github.com/stampede-bench/stampede/dialect"
	"io"
	"slices"
	"strings"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// The pgbench form's init (stampede pgbench -i) is pgbench's own: it
// takes the -I steps as pgbench does, in any order and any subset (v, p
// or f alone on tables that exist; d alone drops them), and leaves in the
// database what pgbench leaves, the mark of its tables (a comment,
// FormMark) and stampede's record of the load (recordForm), by which a
// copy of the database is told from it. Unlike pgbench, its step
// d drops pgbench's four tables only where stampede made them (the mark
// of the pgbench form's step t, or of stampede's init): a table of one of
// those names that the real pgbench made, or a user, holding rows the
// user may want, is refused in one line naming --force-drop, before
// anything is dropped (issue 28's rule: stampede never drops what it did
// not make unless told). Stampede's own form (stampede init pgbench)
// keeps its rule too.

// FormMark is the comment the pgbench form's step t puts on the tables
// it creates: the mark by which its step d knows them as stampede's.
const FormMark = workload.Mark + " pgbench -i"

var _ workload.ForceDropSetter = (*generator)(nil)

// SetForceDrop implements workload.ForceDropSetter.
func (g *generator) SetForceDrop(force bool) { g.forceDrop = force }

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
		case 'g', 'G':
			// Data generation truncates the four tables first: the
			// same rule as step d's drop.
			if err := g.notStampedes(ctx, db, "empty", "emptied", "empties", "emptying"); err != nil {
				return err
			}
			if err := g.copiedOrIndexed(ctx, db, false); err != nil {
				return err
			}
			err = g.step(ctx, db, byte(s))
		case 'd':
			if err := g.notStampedes(ctx, db, "drop", "dropped", "drops", "dropping"); err != nil {
				return err
			}
			if err := g.copiedOrIndexed(ctx, db, true); err != nil {
				return err
			}
			cascade, derr := g.dependents(ctx, db)
			if derr != nil {
				return derr
			}
			g.log.begin('d', 0)
			err = g.exec(ctx, db, 'd', "drop table if exists "+Accounts+", "+Branches+", "+History+", "+Tellers+cascade)
		case 't':
			g.log.begin('t', 0)
			if err = g.createTables(ctx, db); err == nil {
				err = markTables(ctx, db)
			}
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
	if err := g.recordForm(ctx, db); err != nil {
		return g.said(err)
	}
	return nil
}

// recordForm records the pgbench form's load in stampede's record
// (workload.RecordLoad, bound to the database's OID), as init pgbench
// records its own, when its steps made or filled the tables (t, g or
// G) and each of the four carries stampede's mark: a copy of the
// database a user makes (CREATE DATABASE ... TEMPLATE) holds a record
// written elsewhere, which every drop refuses
// (workload.RefuseCopiedDatabase). Tables the real pgbench made, which
// --force-drop filled, stay unrecorded.
func (g *generator) recordForm(ctx context.Context, db *sqlx.DB) error {
	if db.Null() || !strings.ContainsAny(g.Steps(), "tgG") {
		return nil
	}
	for _, t := range []string{Branches, Tellers, Accounts, History} {
		c, err := workload.TableComment(ctx, db, t)
		if err != nil || !workload.IsMarkOf(c, g) {
			return err
		}
	}
	return workload.RecordLoad(ctx, db, g)
}

// pgbenchColumns are the columns, in order, of the tables pgbench -i
// makes (pgbench 15's initCreateTables).
var pgbenchColumns = map[string]string{
	Branches: "bid,bbalance,filler",
	Tellers:  "tid,bid,tbalance,filler",
	Accounts: "aid,bid,abalance,filler",
	History:  "tid,bid,aid,delta,mtime,filler",
}

// notStampedes refuses, before step d drops anything (or step g or G
// empties the tables: verb and its forms say which) and unless
// --force-drop, a table of one of pgbench's names that stampede did not
// make: one with other columns than pgbench -i makes (a user's own), or
// without stampede's mark (the real pgbench's, or a user's, which may hold
// the user's rows). pgbench itself would drop them; stampede does not
// unless told. With --force-drop it says, in the log, what it drops.
func (g *generator) notStampedes(ctx context.Context, db *sqlx.DB, verb, done, does, doing string) error {
	if db.Null() {
		return nil
	}
	var others, unmarked, added, names []string
	tables := []string{Branches, Tellers, Accounts, History}
	// Named as cleanup names them: schema.name where the search path
	// finds the table outside the load's schema, or a table of its name
	// lies in another schema too (a user's app.pgbench_accounts first).
	shown, err := workload.QualifiedNames(ctx, db, tables)
	if err != nil {
		return err
	}
	for i, name := range tables {
		var cols, comment *string
		err := db.QueryRow(ctx, `SELECT string_agg(a.attname, ',' ORDER BY a.attnum), `+dialect.OwnComment(db.Dialect(), "to_regclass($1)", "pg_class")+`
			FROM pg_attribute a WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped`, name).Scan(&cols, &comment)
		if err != nil {
			return fmt.Errorf("reading the columns of %s: %w", name, err)
		}
		switch {
		case cols == nil:
			continue
		case *cols != pgbenchColumns[name] && comment != nil && workload.IsMark(*comment) && len(extraColumns(*cols, pgbenchColumns[name])) > 0:
			// stampede's table, with columns added since.
			for _, c := range extraColumns(*cols, pgbenchColumns[name]) {
				added = append(added, shown[i]+"."+c)
			}
		case *cols != pgbenchColumns[name]:
			others = append(others, fmt.Sprintf("%s (%s)", shown[i], *cols))
		case comment == nil || !workload.IsMark(*comment):
			unmarked = append(unmarked, shown[i])
		default:
			continue
		}
		names = append(names, shown[i])
	}
	if len(names) == 0 {
		return nil
	}
	if g.forceDrop {
		if g.log != nil && g.log.w != nil {
			fmt.Fprintf(g.log.w, "%s: %s %s, which stampede did not make\n", workload.ForceDropFlag, doing, strings.Join(names, ", "))
		}
		return nil
	}
	it := "it"
	if len(names) > 1 {
		it = "them"
	}
	if len(others) == 0 && len(unmarked) == 0 {
		// Only columns added to stampede's tables: said as cleanup
		// pgbench says them.
		cols := "column " + strings.Join(added, ", ")
		if len(added) > 1 {
			cols = "columns " + strings.Join(added, ", ")
		}
		return g.withDependents(ctx, db, verb, &ForeignTablesError{fmt.Sprintf("-i would %s %s in %s: %s of stampede's table%s %s not stampede's (added since init): nothing was %s; to %s %s anyway, add %s",
			verb, strings.Join(names, ", "), db.Where(), cols, map[bool]string{true: "s", false: ""}[len(names) > 1], map[bool]string{true: "are", false: "is"}[len(added) > 1], done, verb, it, workload.ForceDropFlag)})
	}
	for _, a := range added {
		others = append(others, a+" (added since init)")
	}
	var whys []string
	if len(others) > 0 {
		whys = append(whys, strings.Join(others, ", ")+": columns that are not pgbench's")
	}
	if len(unmarked) > 0 {
		whys = append(whys, strings.Join(unmarked, ", ")+": no mark of stampede's, made by the real pgbench -i or by you")
	}
	if len(others) == 0 {
		_, whys[0], _ = strings.Cut(whys[0], ": ") // the names are said already
	}
	refusal := error(&ForeignTablesError{fmt.Sprintf("-i would %s %s in %s, which stampede did not make (%s): nothing was %s; unlike pgbench, stampede's -i %s only the tables it made; to %s %s anyway, add %s",
		verb, strings.Join(names, ", "), db.Where(), strings.Join(whys, "; "), done, does, verb, it, workload.ForceDropFlag)})
	return g.withDependents(ctx, db, verb, refusal)
}

// copiedOrIndexed refuses, before step d drops pgbench's tables (drop)
// or step g or G empties them, and unless --force-drop, a copy a user
// made of a database stampede's init loaded
// (workload.RefuseCopiedDatabase), and for step d the indexes a user
// made on the tables (workload.UserIndexes), which the drop takes along:
// one line naming them and --force-drop. With --force-drop it says, in
// the log, what goes.
func (g *generator) copiedOrIndexed(ctx context.Context, db *sqlx.DB, drop bool) error {
	if db.Null() {
		return nil
	}
	cerr := workload.RefuseCopiedDatabase(ctx, db, "-i")
	var copied *workload.CopiedDatabaseError
	if cerr != nil && !errors.As(cerr, &copied) {
		return cerr
	}
	var idx []string
	if drop {
		var err error
		if idx, err = workload.UserIndexes(ctx, db, g, []string{Accounts, Branches, History, Tellers}); err != nil {
			return err
		}
	}
	if g.forceDrop {
		if g.log != nil && g.log.w != nil && copied != nil {
			fmt.Fprintln(g.log.w, copied.Note())
		}
		if g.log != nil && g.log.w != nil && len(idx) > 0 {
			fmt.Fprintf(g.log.w, "%s: dropping %s, which stampede did not make\n", workload.ForceDropFlag, strings.Join(idx, ", "))
		}
		return nil
	}
	var ierr error
	if len(idx) > 0 {
		ierr = &workload.UserIndexesError{Indexes: idx, Where: db.Where(), Action: "-i"}
	}
	if err := workload.Refusal(cerr, ierr); err != nil {
		return &ForeignTablesError{err.Error()}
	}
	return nil
}

// withDependents adds to refusal, for step d, what depends on the tables,
// named in the same line: what --force-drop then drops is all that the
// refusal said.
func (g *generator) withDependents(ctx context.Context, db *sqlx.DB, verb string, refusal error) error {
	if verb == "drop" {
		existing, deps, err := dependentsOf(ctx, db)
		if err != nil {
			return err
		}
		if len(deps) > 0 {
			derr := g.dependentsError(ctx, db, existing, deps)
			if !errors.Is(derr, workload.ErrForeign) {
				return derr
			}
			refusal = &ForeignTablesError{workload.Refusal(refusal, derr).Error()}
		}
	}
	return refusal
}

// dependents refuses, before step d drops anything and unless
// --force-drop, objects that stampede did not make and that depend on
// pgbench's tables (a user's view on pgbench_history, a foreign key to
// pgbench_accounts): DROP TABLE would fail over them (pgbench's raw
// "cannot drop table ... because other objects depend on it"), and
// CASCADE would take them along. With --force-drop it says what goes and
// returns the " cascade" that drops them with the tables. (notStampedes
// runs first: with a table of a user's too, both refusals are one line.)
func (g *generator) dependents(ctx context.Context, db *sqlx.DB) (string, error) {
	if db.Null() {
		return "", nil
	}
	tables, deps, err := dependentsOf(ctx, db)
	if err != nil || len(deps) == 0 {
		return "", err
	}
	if g.forceDrop {
		if g.log != nil && g.log.w != nil {
			dropped, kept := workload.KeptPublications(deps)
			if len(dropped) > 0 {
				fmt.Fprintf(g.log.w, "%s: dropping the objects that stampede did not make and that depend on %s (%s)%s\n", workload.ForceDropFlag, strings.Join(tables, ", "), strings.Join(dropped, ", "), workload.KeptNote(kept, len(tables)))
			} else {
				fmt.Fprintf(g.log.w, "%s: dropping %s%s\n", workload.ForceDropFlag, strings.Join(tables, ", "), workload.KeptNote(kept, len(tables)))
			}
		}
		return " cascade", nil
	}
	derr := g.dependentsError(ctx, db, tables, deps)
	if !errors.Is(derr, workload.ErrForeign) {
		return "", derr
	}
	return "", &ForeignTablesError{derr.Error()}
}

// dependentsOf returns pgbench's tables that exist in db, in step d's
// order, and the objects that depend on them (workload.Dependents).
func dependentsOf(ctx context.Context, db *sqlx.DB) (tables, deps []string, err error) {
	for _, name := range []string{Accounts, Branches, History, Tellers} {
		ok, err := workload.TableExists(ctx, db, name)
		if err != nil {
			return nil, nil, fmt.Errorf("checking table %s: %w", name, err)
		}
		if ok {
			tables = append(tables, name)
		}
	}
	deps, err = workload.Dependents(ctx, db, nil, tables)
	return tables, deps, err
}

// dependentsError is the refusal of deps, which depend on tables: it
// names the tables each depends on (workload.DependedOn), not every one.
func (g *generator) dependentsError(ctx context.Context, db *sqlx.DB, tables, deps []string) error {
	rels := make([]string, len(tables))
	for i, t := range tables {
		rels[i] = db.Dialect().QuoteIdent(t)
	}
	what, objs, err := workload.DependedOn(ctx, db, rels, tables, db.Where(), deps)
	if err != nil {
		return err
	}
	return &workload.DependentsError{What: what, Objects: objs, Action: "-i"}
}

// extraColumns returns the columns of cols (comma-separated) that are
// not in want, when every column of want is there; nil otherwise.
func extraColumns(cols, want string) []string {
	have := strings.Split(cols, ",")
	for _, w := range strings.Split(want, ",") {
		if !slices.Contains(have, w) {
			return nil
		}
	}
	return slices.DeleteFunc(have, func(c string) bool { return slices.Contains(strings.Split(want, ","), c) })
}

// markTables puts FormMark on pgbench's four tables, which step t made,
// and on the partitions of pgbench_accounts it made with them
// (--partitions): a partition without the mark is the user's, which
// cleanup and --drop refuse (workload.ForeignPartitions).
func markTables(ctx context.Context, db *sqlx.DB) error {
	names := []string{Branches, Tellers, Accounts, History}
	rows, err := db.Query(ctx, "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = to_regclass($1) ORDER BY 1", Accounts)
	if err != nil {
		return fmt.Errorf("listing the partitions of %s: %w", Accounts, err)
	}
	defer rows.Close()
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return err
		}
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	rows.Close()
	for _, name := range names {
		if err := workload.MarkTable(ctx, db, name, FormMark); err != nil {
			return err
		}
	}
	return nil
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
	query := ""
	if errors.As(err, &se) {
		query = se.Query // libpq shows the line of an error's position
	}
	text, ok := sqlx.LibpqQueryText(err, query)
	switch {
	case se != nil && ok:
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
