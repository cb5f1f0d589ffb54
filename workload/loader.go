package workload

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/sqlx"
)

// LoadOptions configure Setup.
type LoadOptions struct {
	// Drop drops existing tables before creating them.
	Drop bool
	// SkipCreate loads the rows into tables that already exist: Setup
	// neither checks for, drops nor creates the tables, and creates no
	// indexes (the Setup that created the tables did). It is for tenants
	// sharing tables (`--tenant-mode column`): the first tenant's Setup
	// creates them, the others' only add their rows. It excludes Drop.
	SkipCreate bool
	// Concurrency is the number of parallel COPY streams.
	Concurrency int
	// BatchesPerCopy is how many batches one COPY statement carries; 0
	// means enough for about 50,000 rows.
	BatchesPerCopy int
	// Progress, if set, is called with the number of rows just loaded; it
	// must be safe for concurrent use.
	Progress func(rows int64)
	// SkipAnalyze leaves the loaded tables without planner statistics
	// (no ANALYZE after the load).
	SkipAnalyze bool
	// Insert loads the rows with multi-row INSERT statements instead of
	// COPY (cockroach workload's --data-loader=insert); see insertBatches.
	Insert bool
	// Timer, when set, has the streams insert the rows as YCSB's load's
	// threads do, timing each insert (see timedLoad). It excludes Insert
	// and BatchesPerCopy.
	Timer InsertTimer
	// CreateEach creates each table just before loading it, instead of
	// all of them first, as sysbench's prepare does (its lines follow
	// that order). It excludes a PreLoad hook, which runs between the
	// tables' creation and their load.
	CreateEach bool
	// Step, if set, is called before each step of a table's setup (see
	// LoadStep); with several tables loading at once it must be safe for
	// concurrent use.
	Step func(LoadStep)
	// PrepareRun has Setup create the tables a run of Concurrency
	// workers writes (Hooks.PrepareRun), as sysbench's prepare of
	// bulk_insert does.
	PrepareRun bool
	// mark is the comment createTable puts on each table (see InitMark),
	// set by Setup.
	mark string
}

// InsertTimer receives the timings of a load that inserts as YCSB's load
// does (LoadOptions.Timer). Its methods must be safe for concurrent use.
type InsertTimer interface {
	// Insert times one row: d is the time it took to add it to its
	// statement, and, when sent, to send the statement and read the
	// server's answer; batched says it was only added (YCSB's
	// BATCHED_OK, not OK).
	Insert(d time.Duration, batched bool)
	// Cleanup times one stream's end: sending the rows still gathered.
	Cleanup(d time.Duration)
}

// LoadStep is a step of a table's setup, which Setup reports (see
// LoadOptions.Step) before it takes it: sysbench's form prints its lines
// from them.
type LoadStep struct {
	// Table is the table's name.
	Table string
	// Kind is what Setup is about to do: StepCreate, StepLoad or
	// StepIndex (or StepDrop, which the loader reports).
	Kind StepKind
	// Rows is the rows the load inserts (StepLoad).
	Rows int64
	// Stmt is the statement that builds the index (StepIndex).
	Stmt string
}

// StepKind says which step a LoadStep is.
type StepKind int

const (
	// StepCreate is the table's CREATE TABLE.
	StepCreate StepKind = iota
	// StepLoad is the load of its initial rows.
	StepLoad
	// StepIndex is one of its index statements, after the load.
	StepIndex
	// StepDrop is the drop of the tables that exist (init --drop,
	// pgbench's step d), reported once, without a Table, when the drop
	// is allowed and about to begin: after any refusal of tables
	// stampede did not make.
	StepDrop
)

// step calls opts.Step, if set.
func (opts LoadOptions) step(st LoadStep) {
	if opts.Step != nil {
		opts.Step(st)
	}
}

// TotalRows returns the number of initial rows of all tables.
func TotalRows(tables []Table) int64 {
	var n int64
	for _, t := range tables {
		n += t.InitialRows.NumRows
	}
	return n
}

// ErrTablesExist is returned by Setup when a table exists and Drop is off.
var ErrTablesExist = errors.New("tables exist")

// TableExists reports whether table exists in db.
func TableExists(ctx context.Context, db *sqlx.DB, table string) (bool, error) {
	if db.Null() {
		return true, nil
	}
	var ok bool
	query, arg := dialect.TableExistsQuery(db.Dialect(), table)
	err := db.QueryRow(ctx, query, arg).Scan(&ok)
	return ok, err
}

// ExistingTables returns the names of those of tables that exist in db,
// in order (none with the null driver).
func ExistingTables(ctx context.Context, db *sqlx.DB, tables []Table) ([]string, error) {
	if db.Null() {
		return nil, nil
	}
	var names []string
	for _, t := range tables {
		ok, err := TableExists(ctx, db, t.Name)
		if err != nil {
			return nil, fmt.Errorf("checking table %s: %w", t.Name, err)
		}
		if ok {
			names = append(names, t.Name)
		}
	}
	return names, nil
}

// Setup creates gen's tables, runs its PreLoad hook, loads the initial
// rows in parallel, creates indexes, analyzes, and runs PostLoad. With
// opts.SkipCreate it creates neither tables nor indexes.
func Setup(ctx context.Context, db *sqlx.DB, gen Generator, opts LoadOptions) error {
	tables := gen.Tables()
	var hooks Hooks
	if h, ok := gen.(Hookser); ok {
		hooks = h.Hooks()
	}
	if opts.SkipCreate && opts.Drop {
		return errors.New("workload.Setup: LoadOptions.SkipCreate and Drop exclude each other")
	}
	opts.mark = InitTableMark(gen)
	if opts.CreateEach && hooks.PreLoad != nil {
		return fmt.Errorf("workload.Setup: LoadOptions.CreateEach cannot create %s's tables one by one: its PreLoad hook runs between their creation and their load", gen.Meta().Name)
	}
	opts.CreateEach = opts.CreateEach && !opts.SkipCreate
	if !opts.SkipCreate {
		if err := createTables(ctx, db, gen, tables, opts); err != nil {
			return err
		}
	}
	if hooks.PreLoad != nil {
		if err := hooks.PreLoad(ctx, db); err != nil {
			return err
		}
	}
	if err := loadTables(ctx, db, tables, opts); err != nil {
		return err
	}
	if opts.PrepareRun && hooks.PrepareRun != nil {
		if err := hooks.PrepareRun(ctx, db, opts.Concurrency, opts.Step); err != nil {
			return err
		}
	}
	if hooks.PostLoad != nil {
		return hooks.PostLoad(ctx, db)
	}
	return nil
}

// AnotherDatabaseHint ends the refusal of a load into a table stampede did
// not make, in stampede's own form; the command-line forms of other tools
// (pgbench's, sysbench's, YCSB's) replace it with their own options.
const AnotherDatabaseHint = "load into another database (--db NAME), or to drop it anyway, add " + ForceDropFlag

// OtherDatabaseHint ends the refusal of a table that no flag replaces, in
// stampede's own form (the other tools' forms replace it too).
const OtherDatabaseHint = "load into another database (--db NAME)"

// RecreateHint ends the refusal of a load into the tables of an earlier
// load of stampede's of workload, in stampede's own form; the forms of
// other tools without --drop replace it with their own options.
func RecreateHint(workload string) string {
	return recreateAdvice + ", or `stampede cleanup " + workload + "`"
}

// CheckNoTables returns an error wrapping ErrTablesExist, which says how to
// start over, when one of tables exists in db: loading would refuse it.
func CheckNoTables(ctx context.Context, db *sqlx.DB, gen Generator, tables []Table) error {
	what, hint, err := checkNoTables(ctx, db, gen, tables)
	if err != nil || what == "" {
		return err
	}
	return fmt.Errorf("%w: %s: %s", ErrTablesExist, what, hint)
}

// checkNoTables is CheckNoTables's refusal in two parts: what exists
// ("" for nothing) and how to start over.
func checkNoTables(ctx context.Context, db *sqlx.DB, gen Generator, tables []Table) (what, hint string, err error) {
	if db.Null() {
		return "", "", nil // nothing exists and nothing is created
	}
	var existing []string
	for _, t := range tables {
		exists, err := TableExists(ctx, db, t.Name)
		if err != nil {
			return "", "", fmt.Errorf("checking table %s: %w", t.Name, err)
		}
		if exists {
			existing = append(existing, t.Name)
		}
	}
	if len(existing) == 0 {
		return "", "", nil
	}
	// A table stampede did not make is named first, wherever it is
	// among them: recreating or cleaning up stampede's would not do.
	foreign, err := ForeignTables(ctx, db, gen, existing)
	if err != nil {
		return "", "", err
	}
	others, err := OtherLoads(ctx, db, gen, foreign)
	if err != nil {
		return "", "", err
	}
	var users []string
	for _, f := range foreign {
		if others[f] == "" {
			users = append(users, f)
		}
	}
	moved, err := MovedTables(ctx, db, gen, users)
	if err != nil {
		return "", "", err
	}
	switch {
	case len(moved) > 0:
		return movedRefusal(ctx, db, gen, users, moved)
	case len(users) == 1:
		return fmt.Sprintf("table %s already exists in database %q and stampede did not make it", users[0], db.Database()), AnotherDatabaseHint, nil
	case len(users) > 1:
		return fmt.Sprintf("tables %s already exist in database %q and stampede did not make them", strings.Join(users, ", "), db.Database()), AnotherDatabaseHint, nil
	case len(foreign) > 0:
		// Made by stampede, for another workload (bulk_insert's run
		// under oltp's init): not the user's, not this one's.
		m := others[foreign[0]]
		return fmt.Sprintf("table %s in database %q is stampede's load of %s, not of %s", foreign[0], db.Database(), m, gen.Meta().Name),
			"`stampede cleanup " + m + "` drops that load, or " + AnotherDatabaseHint, nil
	}
	what = fmt.Sprintf("table %s already exists in database %q", existing[0], db.Database())
	// Recreating them drops what the user made on them (a view, a
	// foreign key): say so before anyone adds the flag that drops it.
	deps, err := Dependents(ctx, db, nil, existing)
	if err != nil {
		return "", "", err
	}
	if len(deps) > 0 {
		them := "them"
		if len(existing) == 1 {
			them = "it"
		}
		what += ", and " + DependOn(deps, "its tables") + ", which dropping " + them + " drops too"
	}
	return what, RecreateHint(gen.Meta().Name), nil
}

// movedRefusal is checkNoTables's refusal of users, tables in the way of
// init that stampede did not make, of which moved are stampede's own
// that someone moved out of the load to another schema (ALTER TABLE
// usertable SET SCHEMA app, found first on the search path): it says so
// as cleanup's refusal does (ForeignTablesError), and how to load all
// the same.
func movedRefusal(ctx context.Context, db *sqlx.DB, gen Generator, users []string, moved []MovedTable) (what, hint string, err error) {
	names, err := QualifiedNames(ctx, db, users)
	if err != nil {
		return "", "", err
	}
	e := ForeignTablesError(db, gen, users, "init", moved, nil).(*ForeignError)
	e.Names = names
	what, _ = e.parts()
	it := "it"
	if len(users) > 1 {
		it = "them"
	}
	m := moved[0]
	return what, fmt.Sprintf("init leaves %s alone; load with a search_path that does not find schema %s (?options=-csearch_path%%3D%s), or into another database (--db NAME), or to drop %s anyway, add %s",
		it, m.To, url.QueryEscape(m.From), it, ForceDropFlag), nil
}

// createTables creates the tables, refusing (ErrTablesExist) when one
// exists, unless opts.Drop drops them first.
func createTables(ctx context.Context, db *sqlx.DB, gen Generator, tables []Table, opts LoadOptions) error {
	d := db.Dialect()
	if !opts.Drop {
		if err := CheckNoTables(ctx, db, gen, tables); err != nil {
			return err
		}
	}
	for i := len(tables) - 1; opts.Drop && i >= 0; i-- {
		if _, err := db.Exec(ctx, d.DropTable(tables[i].Name)); err != nil {
			return fmt.Errorf("dropping table %s: %w", tables[i].Name, err)
		}
	}
	for _, t := range tables {
		if opts.CreateEach {
			break // setupTable creates each before its load
		}
		if err := createTable(ctx, db, t, opts); err != nil {
			return err
		}
	}
	return nil
}

// createTable creates t.
func createTable(ctx context.Context, db *sqlx.DB, t Table, opts LoadOptions) error {
	opts.step(LoadStep{Table: t.Name, Kind: StepCreate})
	// The mark lets cleanup and --drop tell this table from a user's of
	// the same name, and run and check an unfinished load (a marked
	// table without init's record). It commits with the table.
	if err := CreateMarkedTable(ctx, db, db.Dialect().CreateTable(t.Name, t.Schema), t.Name, opts.mark); err != nil {
		return fmt.Errorf("creating table %s: %w", t.Name, err)
	}
	return nil
}

// loadGCPercent is the garbage collector's GOGC while tables load.
const loadGCPercent = 400

// loadTables loads, indexes and analyzes the tables. With several tables
// they proceed in parallel (up to opts.Concurrency at once, the streams
// shared out among them), so that one table's index build, which the
// server runs on one core, overlaps another's load.
func loadTables(ctx context.Context, db *sqlx.DB, tables []Table, opts LoadOptions) error {
	// Generated rows are short-lived garbage (boxed values, batch slices)
	// over a small live heap: collecting less often cut the client's CPU
	// during sysbench's prepare by a sixth (1.97-2.20 to 1.65 s of user
	// time for 4 x 1M rows), for 64-100 MB of RSS instead of 36 MB.
	defer debug.SetGCPercent(debug.SetGCPercent(loadGCPercent))
	streams := max(opts.Concurrency, 1)
	parallel := min(len(tables), streams)
	if parallel == 0 {
		return nil
	}
	per := opts
	per.Concurrency = max(1, streams/parallel)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// parallel workers claim the tables in their order, so that one
	// worker sets them up one after the other, as sysbench's one thread
	// does.
	var next atomic.Int64
	var wg sync.WaitGroup
	var once sync.Once
	var firstErr error
	for range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(tables) {
					return
				}
				if err := setupTable(ctx, db, tables[i], per, parallel); err != nil {
					once.Do(func() { firstErr = err; cancel() })
					return
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

// setupTable loads one table, then builds its indexes and analyzes it;
// builds is how many tables do so at once, whose index builds share the
// server's parallel workers (dialect.IndexBuildSharer).
func setupTable(ctx context.Context, db *sqlx.DB, t Table, opts LoadOptions, builds int) error {
	if opts.CreateEach {
		if err := createTable(ctx, db, t, opts); err != nil {
			return err
		}
	}
	if t.InitialRows.NumBatches > 0 {
		opts.step(LoadStep{Table: t.Name, Kind: StepLoad, Rows: t.InitialRows.NumRows})
	}
	if err := loadTable(ctx, db, t, opts); err != nil {
		return err
	}
	var share string
	if s, ok := db.Dialect().(dialect.IndexBuildSharer); ok {
		share = s.ShareIndexBuild(builds)
	}
	for _, stmt := range t.Indexes {
		if opts.SkipCreate {
			break // the Setup that created the table created them
		}
		opts.step(LoadStep{Table: t.Name, Kind: StepIndex, Stmt: stmt})
		if share != "" {
			// Without arguments, both go in one simple query, hence in
			// one transaction, to which the setting is local.
			stmt = share + "; " + stmt
		}
		if _, err := db.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("creating index on %s: %w", t.Name, err)
		}
	}
	if a, ok := db.Dialect().(dialect.Analyzer); ok && t.InitialRows.NumRows > 0 && !opts.SkipAnalyze {
		if _, err := db.Exec(ctx, a.AnalyzeTable(t.Name)); err != nil {
			return fmt.Errorf("analyzing %s: %w", t.Name, err)
		}
	}
	return nil
}

// loadTable copies t's initial rows with opts.Concurrency parallel COPY
// streams. Streams claim runs of batches from a shared counter, so the
// work spreads evenly whatever each batch costs.
func loadTable(ctx context.Context, db *sqlx.DB, t Table, opts LoadOptions) error {
	rt := t.InitialRows
	if rt.NumBatches == 0 {
		return nil
	}
	if opts.Timer != nil {
		return timedLoad(ctx, db, t, opts)
	}
	per := opts.BatchesPerCopy
	if per <= 0 {
		rowsPerBatch := rt.NumRows / int64(rt.NumBatches)
		per = int(50000 / max(rowsPerBatch, 1))
		per = max(per, 1)
	}
	streams := max(opts.Concurrency, 1)
	var next atomic.Int64
	// encode says whether to use rt.EncodeBatch; it turns false for good
	// when the server's column types rule it out.
	var encode atomic.Bool
	encode.Store(rt.EncodeBatch != nil)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	var once sync.Once
	var firstErr error
	for s := 0; s < streams; s++ {
		wg.Add(1)
		go func(s int) {
			defer wg.Done()
			for ctx.Err() == nil {
				lo := int(next.Add(int64(per))) - per
				if lo >= rt.NumBatches {
					return
				}
				hi := min(lo+per, rt.NumBatches)
				var err error
				if opts.Insert && rt.InsertRows == 0 { // else copyBatches inserts InsertRows a statement
					err = insertBatches(ctx, db, t, lo, hi, insertRowsPerStatement(t), opts.Progress)
				} else {
					err = copyBatches(ctx, db, s, t, lo, hi, opts.Progress, &encode)
				}
				if err != nil {
					once.Do(func() {
						firstErr = fmt.Errorf("loading %s (batches %d-%d): %w", t.Name, lo, hi-1, err)
						cancel()
					})
					return
				}
			}
		}(s)
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

// CopyBatches copies t's batches [lo, hi) of initial rows in one COPY on
// the connection of stream, reporting the rows sent to progress (when
// set): through t.InitialRows.EncodeBatch when the table has one and the
// server's column types allow it (see sqlx.CopyEncoded), else through
// FillBatch and pgx.
func CopyBatches(ctx context.Context, db *sqlx.DB, stream int, t Table, lo, hi int, progress func(int64)) error {
	var encode atomic.Bool
	encode.Store(t.InitialRows.EncodeBatch != nil)
	return copyBatches(ctx, db, stream, t, lo, hi, progress, &encode)
}

// copyBatches is CopyBatches, which uses EncodeBatch while encode holds
// and turns it off for good when the column types rule it out: the
// streams loading one table share it, so that only the first COPY asks.
func copyBatches(ctx context.Context, db *sqlx.DB, s int, t Table, lo, hi int, progress func(int64), encode *atomic.Bool) error {
	rt := t.InitialRows
	if rt.InsertRows > 0 {
		return insertBatches(ctx, db, t, lo, hi, rt.InsertRows, progress)
	}
	if encode.Load() {
		next := lo
		var w *sqlx.RowWriter
		var reported int64
		report := func() {
			if progress != nil && w != nil && w.Rows() > reported {
				progress(w.Rows() - reported)
				reported = w.Rows()
			}
		}
		fill := func(rw *sqlx.RowWriter) bool {
			w = rw
			report() // the rows of the batch before, now on their way
			if next >= hi {
				return false
			}
			rt.EncodeBatch(next, rw)
			next++
			return true
		}
		_, err := db.CopyEncoded(ctx, s, t.Name, t.Columns, fill)
		if err == nil {
			report()
		}
		if !errors.Is(err, sqlx.ErrCopyTypes) {
			return err
		}
		encode.Store(false)
	}
	src := &batchSource{fill: rt.FillBatch, next: lo, end: hi, progress: progress}
	if _, err := db.CopyFrom(ctx, s, t.Name, t.Columns, src); err != nil {
		return err
	}
	src.flushProgress()
	return nil
}

// batchSource feeds batches [next, end) to COPY as a pgx.CopyFromSource.
type batchSource struct {
	fill     func(int, [][]any) [][]any
	next     int
	end      int
	rows     [][]any
	i        int
	done     int64
	progress func(int64)
}

func (b *batchSource) Next() bool {
	b.i++
	for b.i >= len(b.rows) {
		if b.next >= b.end {
			return false
		}
		b.flushProgress()
		b.rows = b.fill(b.next, b.rows[:0])
		b.next++
		b.i = 0
	}
	b.done++
	return true
}

func (b *batchSource) flushProgress() {
	if b.progress != nil && b.done > 0 {
		b.progress(b.done)
	}
	b.done = 0
}

func (b *batchSource) Values() ([]any, error) { return b.rows[b.i], nil }

func (b *batchSource) Err() error { return nil }

// TableAdopter is a Generator whose init loads into its tables when the
// user created them, empty and of the shape init would create them in
// (YCSB's JDBC binding has its users create usertable first), rather than
// refusing them.
type TableAdopter interface {
	Generator
	// AdoptsTables reports whether init may load into such tables.
	AdoptsTables() bool
}

// AdoptsTables reports whether init of gen (a TableAdopter) loads into
// tables that all exist, each empty and with the columns gen loads (the
// same names, of character types), without creating them or their
// indexes (LoadOptions.SkipCreate). It reports false when none of them
// exists; a table that exists but holds rows or other columns, or a part
// of tables only, is an error wrapping ErrTablesExist that says which and
// how to start over.
func AdoptsTables(ctx context.Context, db *sqlx.DB, gen Generator, tables []Table) (bool, error) {
	if a, ok := gen.(TableAdopter); !ok || !a.AdoptsTables() || db.Null() {
		return false, nil
	}
	existing, err := ExistingTables(ctx, db, tables)
	if err != nil || len(existing) == 0 {
		return false, err
	}
	// refuse is CheckNoTables's refusal (which says how to start over,
	// and whether stampede made the table), and why the table was not
	// loaded into.
	refuse := func(format string, args ...any) error {
		why := fmt.Sprintf(format, args...)
		what, hint, err := checkNoTables(ctx, db, gen, tables)
		if err != nil {
			return err
		}
		if what == "" {
			return fmt.Errorf("%w: table %s exists in database %q; not loaded into: %s", ErrTablesExist, existing[0], db.Database(), why)
		}
		// The hint last: it ends with the flag that forces it.
		return fmt.Errorf("%w: %s, and init does not load into it (%s): %s", ErrTablesExist, what, why, hint)
	}
	for _, t := range tables {
		if !slices.Contains(existing, t.Name) {
			return false, refuse("%s does not exist beside it", t.Name)
		}
		cols, err := tableColumns(ctx, db, t.Name)
		if err != nil {
			return false, err
		}
		want := slices.Sorted(slices.Values(t.Columns))
		got := slices.Sorted(maps.Keys(cols))
		bad := !slices.Equal(got, want)
		for _, typ := range cols {
			bad = bad || !isCharacterType(typ)
		}
		if bad {
			return false, refuse("its columns are %s, not %s's (%s, of character types)",
				describeColumns(cols), gen.Meta().Name, strings.Join(t.Columns, ", "))
		}
		d := db.Dialect()
		var rows bool
		if err := db.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM "+d.QuoteIdent(t.Name)+")").Scan(&rows); err != nil {
			return false, fmt.Errorf("checking table %s: %w", t.Name, err)
		}
		if rows {
			return false, refuse("it holds rows (init loads only into an empty %s of %s's columns)", t.Name, gen.Meta().Name)
		}
	}
	return true, nil
}

// TableColumns returns the columns of table with their types (as
// format_type writes them): none when it does not exist.
func TableColumns(ctx context.Context, db *sqlx.DB, table string) (map[string]string, error) {
	return tableColumns(ctx, db, table)
}

// tableColumns returns the columns of table with their types (as
// format_type writes them: "character varying(255)", "text").
func tableColumns(ctx context.Context, db *sqlx.DB, table string) (map[string]string, error) {
	_, arg := dialect.TableExistsQuery(db.Dialect(), table)
	rows, err := db.Query(ctx, `SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_catalog.pg_attribute a
		WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped`, arg)
	if err != nil {
		return nil, fmt.Errorf("reading the columns of %s: %w", table, err)
	}
	defer rows.Close()
	cols := map[string]string{}
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return nil, fmt.Errorf("reading the columns of %s: %w", table, err)
		}
		if name == "rowid" && strings.HasPrefix(typ, "bigint") {
			continue // CockroachDB's hidden key of a table without a primary key
		}
		cols[name] = typ
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading the columns of %s: %w", table, err)
	}
	return cols, nil
}

// isCharacterType reports whether typ (format_type's) holds text.
func isCharacterType(typ string) bool {
	for _, p := range []string{"text", "character varying", "character", "varchar", "string", "bpchar"} {
		if typ == p || strings.HasPrefix(typ, p+"(") {
			return true
		}
	}
	return false
}

// describeColumns lists columns and their types, by name.
func describeColumns(cols map[string]string) string {
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(cols)) {
		parts = append(parts, name+" "+cols[name])
	}
	if len(parts) == 0 {
		return "(none)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
