package churn

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/randgen"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// preRun refuses Greenplum's options on another server, --force-drop
// without --fresh, and a database without the bookkeeping table (init
// makes it), before anything is created.
func (g *churn) preRun(ctx context.Context, db *sqlx.DB) error {
	if err := g.validate(); err != nil {
		return err
	}
	if g.forceDrop && !g.fresh {
		// run's --force-drop (SetForceDrop) forces what --fresh
		// refuses, and churn's run drops nothing else.
		return &inputError{err: fmt.Errorf("%s applies to --fresh only (churn's run drops nothing without it): add --fresh, or leave out %s", workload.ForceDropFlag, workload.ForceDropFlag), usage: true}
	}
	if err := g.checkDialect(db.Dialect()); err != nil {
		return err
	}
	if db.Null() {
		return nil
	}
	exists, err := workload.TableExists(ctx, db, bookTable)
	if err != nil {
		return fmt.Errorf("checking table %s: %w", bookTable, err)
	}
	if !exists {
		return &inputError{err: fmt.Errorf("table %s, churn's bookkeeping, does not exist in database %q: run `stampede init churn` first", bookTable, db.Database())}
	}
	// A table of the bookkeeping's name that init did not make (a
	// user's): a run would write into it, and fail on its columns.
	// A fleet's tenant schemas are clones of the first, whose tables carry
	// no comment: a table without the mark is churn's when it has every
	// column of churn's bookkeeping.
	if c, err := workload.TableComment(ctx, db, bookTable); err != nil {
		return err
	} else if !workload.IsMark(c) && g.checkBook(ctx, db) != nil {
		return &inputError{err: fmt.Errorf("table %s in database %q was not made by stampede (no mark of stampede's init on it): a run of churn would write into it: use another database (--db NAME), or to replace it, run `stampede init churn %s` first",
			bookTable, db.Database(), workload.ForceDropFlag)}
	}
	if g.fresh {
		if g.clients > 1 {
			return &inputError{err: fmt.Errorf("--fresh with --clients %d: each client would drop the tables of the others; run cleanup and init churn before the clients start instead", g.clients), usage: true}
		}
		if err := g.freshSchema(ctx, db); err != nil {
			return err
		}
		return sayKept(ctx, db, g.runLog)
	}
	return nil
}

var _ workload.RunLogger = (*churn)(nil)

// SetRunLog implements workload.RunLogger: --fresh says there which
// tables it keeps.
func (g *churn) SetRunLog(w io.Writer) { g.runLog = w }

// freshDropChunk is the number of tables one DROP TABLE statement of
// freshSchema drops.
const freshDropChunk = 100

// freshSchema drops the tables churn's runs made (those with its mark,
// as cleanup drops them) and empties its bookkeeping, so that a run
// starts as after init (--fresh). As cleanup, it refuses, unless
// --force-drop, a copy of the database stampede loaded, a user's index
// on one of the tables and objects that depend on them
// (workload.RefuseDrop).
func (g *churn) freshSchema(ctx context.Context, db *sqlx.DB) error {
	names, err := madeTables(ctx, db)
	if err != nil {
		return fmt.Errorf("--fresh: listing churn's tables: %w", err)
	}
	notes, cascade, err := workload.RefuseDrop(ctx, db, g, names, g.forceDrop, "--fresh")
	if err != nil {
		return err
	}
	for _, n := range notes {
		if g.runLog != nil {
			fmt.Fprintln(g.runLog, n)
		}
	}
	drop := "DROP TABLE IF EXISTS "
	end := ""
	if cascade {
		end = " CASCADE"
	}
	d := db.Dialect()
	for i := 0; i < len(names); i += freshDropChunk {
		chunk := names[i:min(i+freshDropChunk, len(names))]
		quoted := make([]string, len(chunk))
		for j, n := range chunk {
			quoted[j] = d.QuoteIdent(n)
		}
		if _, err := db.Exec(ctx, drop+strings.Join(quoted, ", ")+end); err != nil {
			return fmt.Errorf("--fresh: dropping churn's tables of earlier runs: %w", err)
		}
	}
	if _, err := db.Exec(ctx, "DELETE FROM "+bookTable); err != nil {
		return fmt.Errorf("--fresh: emptying %s: %w", bookTable, err)
	}
	return nil
}

// Ops implements the Opser interface: one loop per worker, each on its
// own connection. The loops share --max-tables less the tables alive
// already (of earlier runs), evenly; each continues its table numbers
// after those of earlier runs.
func (g *churn) Ops(ctx context.Context, db *sqlx.DB, oc workload.OpsConfig) (workload.QueryLoad, error) {
	if err := g.validate(); err != nil {
		return workload.QueryLoad{}, err
	}
	if err := g.checkDialect(db.Dialect()); err != nil {
		return workload.QueryLoad{}, err
	}
	g.sz.greenplum = isGreenplum(db.Dialect())
	alive, next, err := bookState(ctx, db)
	if err != nil {
		return workload.QueryLoad{}, err
	}
	room := g.maxTables - alive
	if g.clients > 1 {
		// The client's share of the room: clients that start together
		// split it exactly; one that starts later counts the tables of
		// those before it as alive, and takes less.
		room = max(room, 0)/g.clients + btoi(g.client < max(room, 0)%g.clients)
	}
	if room < oc.Concurrency {
		why := ""
		if alive > 0 {
			why = fmt.Sprintf(" (database %q holds %d of churn's tables already: `stampede cleanup churn` drops them)", db.Database(), alive)
		}
		if g.clients > 1 {
			why += fmt.Sprintf(" (client %d's share of %d clients)", g.client, g.clients)
		}
		// The flags' whether or not tables of earlier runs take room:
		// what the tenant holds is churn's own, not a load to redo.
		return workload.QueryLoad{}, &inputError{err: fmt.Errorf("--max-tables %d leaves room for %s%s, fewer than the %d loops (--concurrency), each of which needs one: raise --max-tables or lower --concurrency",
			g.maxTables, plural(max(room, 0), "table"), why, oc.Concurrency), usage: true}
	}
	tot := &totals{}
	p := newPool(randgen.New(oc.Seed, poolStream))
	workers := make([]*worker, oc.Concurrency)
	ql := workload.QueryLoad{
		Ops:     opNames[:],
		Classes: []workload.OpClass{workload.ClassTransaction, workload.ClassTransaction, workload.ClassTransaction, workload.ClassTransaction},
		Workers: make([]workload.Worker, oc.Concurrency),
		Header:  []string{g.header(db.Dialect(), oc.Concurrency, room)},
	}
	for i := range workers {
		share := room / oc.Concurrency
		if i < room%oc.Concurrency {
			share++
		}
		workers[i] = newWorker(g, db.Dialect(), db.Conn(i, true), oc.Seed, i, next[i], share, tot, p)
		ql.Workers[i] = workers[i].run
	}
	ql.Close = func(context.Context) error {
		for _, w := range workers {
			w.conn.Release()
		}
		return nil
	}
	g.m = &measure{db: db, tot: tot}
	return ql, nil
}

// btoi is 1 for true, 0 for false.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// header says how the run churns, under the run's first line.
func (g *churn) header(d dialect.Dialect, loops, room int) string {
	gp := ""
	if isGreenplum(d) {
		gp = fmt.Sprintf(", appendoptimized %s, distributed by %s", g.appendOpt, g.distrib)
	}
	if g.clients > 1 {
		gp += fmt.Sprintf(", client %d of %d (tables %sW_N)", g.client, g.clients, g.tablePrefix())
	}
	return fmt.Sprintf("churn: %s, mix %s, columns %s, rows per insert %s, indexes %s, room for %s%s",
		plural(loops, "loop"), g.mix, g.columns, g.rows, g.indexes, plural(room, "table"), gp)
}

// isGreenplum reports whether d has Greenplum's table options.
func isGreenplum(d dialect.Dialect) bool {
	_, ok := d.(dialect.TableOptioner)
	return ok
}

// bookState reads the bookkeeping table: the tables alive and, per
// loop, the number its next table takes (after those of earlier runs).
func bookState(ctx context.Context, db *sqlx.DB) (alive int, next map[int]int, err error) {
	next = map[int]int{}
	if db.Null() {
		return 0, next, nil
	}
	if err := db.QueryRow(ctx, "SELECT count(*) FROM "+bookTable+" WHERE dropped_at IS NULL").Scan(&alive); err != nil {
		return 0, nil, fmt.Errorf("reading %s: %w", bookTable, err)
	}
	rows, err := db.Query(ctx, "SELECT worker, max(seq) + 1 FROM "+bookTable+" GROUP BY worker")
	if err != nil {
		return 0, nil, fmt.Errorf("reading %s: %w", bookTable, err)
	}
	defer rows.Close()
	for rows.Next() {
		var w, n int
		if err := rows.Scan(&w, &n); err != nil {
			return 0, nil, err
		}
		next[w] = n
	}
	return alive, next, rows.Err()
}

// madeTables lists the tables of db that runs of churn made: those that
// carry its run's mark (Hooks.RunTables), which cleanup drops.
func madeTables(ctx context.Context, db *sqlx.DB) ([]string, error) {
	if db.Null() {
		return nil, nil
	}
	return madeTablesIn(ctx, db, db)
}

var _ workload.ObjectCleaner = (*churn)(nil)

// CleanupObjects implements the ObjectCleaner interface: cleanup drops
// churn's tables (madeTables) and keeps, saying so on log, those of its
// mark that the user renamed.
func (g *churn) CleanupObjects(ctx context.Context, db *sqlx.DB, log io.Writer) error {
	return sayKept(ctx, db, log)
}

// sayKept says on log, one line each, the tables of churn's mark that the
// user renamed, which cleanup and --fresh keep (nothing without a log).
func sayKept(ctx context.Context, db *sqlx.DB, log io.Writer) error {
	if log == nil || db.Null() {
		return nil
	}
	kept, err := markedTablesIn(ctx, db, db, false)
	if err != nil {
		return err
	}
	for _, t := range kept {
		fmt.Fprintf(log, "kept table %s (churn's table, renamed: it is yours now)\n", t)
	}
	return nil
}

var _ workload.IndexOwner = (*churn)(nil)

// OwnsIndex implements workload.IndexOwner: a run names the indexes it
// makes on its table T T_i1, T_i2... (shape.indexSQL); any other index
// on T is a user's.
func (g *churn) OwnsIndex(table, index string) bool {
	n, ok := strings.CutPrefix(index, table+"_i")
	if !ok || n == "" {
		return false
	}
	_, err := strconv.Atoi(n)
	return err == nil
}

var _ workload.ForceDropSetter = (*churn)(nil)

// SetForceDrop implements workload.ForceDropSetter: run --fresh
// --force-drop drops churn's tables of earlier runs with what a user
// made on them.
func (g *churn) SetForceDrop(force bool) { g.forceDrop = force }
