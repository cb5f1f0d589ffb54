package workload

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/stampede-bench/stampede/sqlx"
)

// A split load (init --clients N --client-index I) has N inits, on one
// machine or many, each load a share of a workload's data into the same
// tables:
//
//   - The first init to take the load's lock (PostgreSQL's
//     pg_advisory_xact_lock on the data key) creates every table, runs
//     the PreLoad hook and records the load in stampede_load with no
//     share in yet (BeginShare); the others wait for the lock, then find
//     the record and the tables, and compare their data settings with the
//     record's (a flag that differs is named, ShareMismatchError).
//   - Each loads its share's rows (the generator's Tables, after
//     LoadShare, hold only them).
//   - Each then adds its share to the record (EndShare); the one whose
//     share completes the set, under the same lock, builds the indexes,
//     analyzes and runs the PostLoad hook before it records its share, so
//     that the record says complete only when the load is.
//
// Run and check refuse a record with a share missing and name it
// (MissingShareError).

// ShareLoader is a Generator whose load init can split between several
// clients (init --clients N --client-index I). The shares' data settings
// must agree: a DataSpecer's DataSettings, else its flags that are not
// RuntimeOnly (ShareSettings).
type ShareLoader interface {
	Generator
	// LoadShare makes Tables return every table with share index of
	// count's rows only; an error says why the data cannot be split so
	// (more clients than tables or warehouses).
	LoadShare(index, count int) error
	// ShareOf describes share index of count's rows for messages:
	// "keys 20000-29999", "tables sbtest3-sbtest4", "warehouses 3-4".
	ShareOf(index, count int) string
}

// ShareProber is a ShareLoader whose tables have no unique key while the
// shares load (sysbench's get their primary key from the last client),
// so rows of a share loaded twice would go in without an error.
// ShareLoaded says, before the load, whether rows of the generator's
// share (after LoadShare) are in db's tables already.
type ShareProber interface {
	ShareLoader
	ShareLoaded(ctx context.Context, db *sqlx.DB) (bool, error)
}

// Settings of a split load's record besides the DataSettings: the shares
// loaded ("3:0,2": of 3, shares 0 and 2) and the data's seed, which
// every share draws its rows from.
const (
	SharesSetting = "shares"
	SeedSetting   = "seed"
)

// Shares is the record of a split load's shares: Count of them, Loaded
// those in.
type Shares struct {
	Count  int
	Loaded []int
}

// ParseShares parses a record's "shares" setting.
func ParseShares(s string) (Shares, error) {
	c, list, ok := strings.Cut(s, ":")
	n, err := strconv.Atoi(c)
	if !ok || err != nil || n < 1 {
		return Shares{}, fmt.Errorf("%s holds a malformed record of shares %q: reload with `stampede cleanup` and init", LoadRecordTable, s)
	}
	sh := Shares{Count: n}
	for _, f := range strings.Split(list, ",") {
		if f == "" {
			continue
		}
		i, err := strconv.Atoi(f)
		if err != nil || i < 0 || i >= n {
			return Shares{}, fmt.Errorf("%s holds a malformed record of shares %q: reload with `stampede cleanup` and init", LoadRecordTable, s)
		}
		sh.Loaded = append(sh.Loaded, i)
	}
	return sh, nil
}

// String is the record's form of sh.
func (sh Shares) String() string {
	parts := make([]string, len(sh.Loaded))
	for i, l := range sh.Loaded {
		parts[i] = strconv.Itoa(l)
	}
	return strconv.Itoa(sh.Count) + ":" + strings.Join(parts, ",")
}

// Missing returns the shares not loaded, in order.
func (sh Shares) Missing() []int {
	var out []int
	for i := range sh.Count {
		if !slices.Contains(sh.Loaded, i) {
			out = append(out, i)
		}
	}
	return out
}

// MissingShareError says that a split load's record lacks a share: run
// and check refuse the data until it is in.
type MissingShareError struct {
	// Workload loaded the shares in, into Database.
	Workload, Database string
	// Index of Count is the first share missing; Of describes it
	// (ShareLoader.ShareOf); Missing is how many are.
	Index, Count, Missing int
	Of                    string
	// Args are the data flags the load recorded, as on a command line.
	Args []string
}

// Is makes the error match ErrUnfinishedLoad.
func (e *MissingShareError) Is(target error) bool { return target == ErrUnfinishedLoad }

func (e *MissingShareError) Error() string {
	of := ""
	if e.Of != "" {
		of = " (" + e.Of + ")"
	}
	more := ""
	if e.Missing > 1 {
		more = fmt.Sprintf(" (%d of the %d shares are missing: each missing client's init loads its own)", e.Missing, e.Count)
	}
	cmd := strings.Join(append([]string{"stampede init", e.Workload, "--clients", strconv.Itoa(e.Count), "--client-index", strconv.Itoa(e.Index)}, e.Args...), " ")
	return fmt.Sprintf("client %d of %d's share%s is not loaded into database %q: run %s URL (or wait for it, if that init is running; if it was stopped and left part of the share in, start the split load over with `stampede cleanup %s`)%s",
		e.Index, e.Count, of, e.Database, cmd, e.Workload, more)
}

// ShareMismatchError says that a share's data setting differs from what
// the shares before recorded.
type ShareMismatchError struct {
	// Workload loaded the shares before, into Database.
	Workload, Database string
	// Given and Recorded are the setting as this client gives it and as
	// recorded, on a command line ("--table-size 2000").
	Given, Recorded string
}

func (e *ShareMismatchError) Error() string {
	return fmt.Sprintf("%s differs from what the other clients of this split load of %s recorded in database %q, %s: give every client the same data flags (%s), or start over with `stampede cleanup %s`",
		e.Given, e.Workload, e.Database, e.Recorded, e.Recorded, e.Workload)
}

// ShareLock takes, in tx, the lock of gen's split load: PostgreSQL's
// transaction advisory lock on the data key, held until tx ends. Servers
// without advisory locks (CockroachDB's are no-ops) rely on the record's
// primary key instead: two creators collide there and the second retries.
func ShareLock(ctx context.Context, tx sqlx.Tx, gen Generator) error {
	_, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext($1))", "stampede_load:"+DataKeyOf(gen))
	if sqlx.SQLState(err) == "42883" { // no such function: no advisory locks
		return nil
	}
	if err != nil {
		return fmt.Errorf("taking the lock of the split load: %w", err)
	}
	return nil
}

// ensureRecordTable creates the record table when missing (and the
// columns an older stampede's lacks).
func ensureRecordTable(ctx context.Context, db *sqlx.DB) error {
	d := db.Dialect()
	t := d.QuoteIdent(LoadRecordTable)
	if _, err := recordExists(ctx, db); err != nil {
		return err // a user's table of the name: never written
	}
	var err error
	for range 3 { // concurrent CREATE TABLE IF NOT EXISTS may collide
		_, err = db.Exec(ctx, "CREATE TABLE IF NOT EXISTS "+t+" (data TEXT PRIMARY KEY, workload TEXT NOT NULL, version TEXT NOT NULL, settings TEXT NOT NULL, loaded_at TIMESTAMPTZ NOT NULL DEFAULT now(), "+adoptedColumn+" TEXT NOT NULL DEFAULT '', "+markedColumn+" BOOLEAN NOT NULL DEFAULT false)")
		if s := sqlx.SQLState(err); s != "23505" && s != "42P07" {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("recording the load in %s: %w", LoadRecordTable, err)
	}
	cols, err := tableColumns(ctx, db, LoadRecordTable)
	if err != nil {
		return fmt.Errorf("reading the columns of %s: %w", LoadRecordTable, err)
	}
	if err := foreignRecord(ctx, db, cols); err != nil {
		return err
	}
	if err := markRecordTable(ctx, db); err != nil {
		return err
	}
	for col, def := range map[string]string{adoptedColumn: "TEXT NOT NULL DEFAULT ''", markedColumn: "BOOLEAN NOT NULL DEFAULT false"} {
		if _, ok := cols[col]; ok {
			continue
		}
		if _, err := db.Exec(ctx, "ALTER TABLE "+t+" ADD COLUMN IF NOT EXISTS "+col+" "+def); err != nil {
			return fmt.Errorf("recording the load in %s: %w", LoadRecordTable, err)
		}
	}
	return nil
}

// ShareSettings returns the data settings the shares of gen's split load
// must agree on: a DataSpecer's DataSettings, else its flags that are not
// RuntimeOnly.
func ShareSettings(gen Generator) []DataSetting {
	if ds, ok := gen.(DataSpecer); ok {
		return ds.DataSettings()
	}
	if f, ok := gen.(Flagser); ok {
		return FlagSettings(f.Flags())
	}
	return nil
}

// shareSettings returns gen's data settings as a split load records them,
// with the seed and shares.
func shareSettings(gen ShareLoader, seed uint64, sh Shares) map[string]string {
	settings := map[string]string{}
	for _, s := range ShareSettings(gen) {
		settings[s.Name] = s.Value
	}
	settings[SeedSetting] = strconv.FormatUint(seed, 10)
	settings[SharesSetting] = sh.String()
	return settings
}

// ShareStart is what BeginShare found.
type ShareStart struct {
	// Create is true for the client that creates the tables (no record
	// before it): it runs createTables and PreLoad, then Created.
	Create bool
	// Seed is the data's seed: the record's, which this client adopts
	// when its command line gave none.
	Seed uint64
}

// BeginShare starts share index of count of gen's split load, in tx (which
// holds ShareLock): when the record is missing, it inserts it (no share
// in) and says to create the tables; when present, it checks it: the same
// count, data settings and seed (seedGiven: the command line gave one,
// else the record's is adopted), this share not in yet.
func BeginShare(ctx context.Context, db *sqlx.DB, tx sqlx.Tx, gen ShareLoader, index, count int, seed uint64, seedGiven bool) (ShareStart, error) {
	if err := ensureRecordTable(ctx, db); err != nil {
		return ShareStart{}, err
	}
	workload, loaded, found, err := readRecord(ctx, db, tx, DataKeyOf(gen), true)
	if err != nil {
		return ShareStart{}, err
	}
	if !found {
		if err := CheckNoTables(ctx, db, gen, gen.Tables()); err != nil {
			return ShareStart{}, err
		}
		b, err := json.Marshal(shareSettings(gen, seed, Shares{Count: count}))
		if err != nil {
			return ShareStart{}, err
		}
		d := db.Dialect()
		p := d.Placeholder
		if _, err := tx.Exec(ctx, "INSERT INTO "+d.QuoteIdent(LoadRecordTable)+" (data, workload, version, settings, "+markedColumn+") VALUES ("+p(1)+", "+p(2)+", "+p(3)+", "+p(4)+", true)",
			DataKeyOf(gen), gen.Meta().Name, gen.Meta().Version, string(b)); err != nil {
			return ShareStart{}, fmt.Errorf("recording the load in %s: %w", LoadRecordTable, err)
		}
		return ShareStart{Create: true, Seed: seed}, nil
	}
	raw, ok := loaded[SharesSetting]
	if !ok {
		return ShareStart{}, fmt.Errorf("%w: database %q holds a whole load of %s (not split between clients): start over with `stampede cleanup %s` before a split load, or run on it as it is",
			ErrTablesExist, db.Database(), workload, workload)
	}
	sh, err := ParseShares(raw)
	if err != nil {
		return ShareStart{}, err
	}
	db0 := db.Database()
	if sh.Count != count {
		return ShareStart{}, &ShareMismatchError{Workload: workload, Database: db0,
			Given: "--clients " + strconv.Itoa(count), Recorded: "--clients " + strconv.Itoa(sh.Count)}
	}
	for _, s := range ShareSettings(gen) {
		if v, ok := loaded[s.Name]; ok && v != s.Value {
			return ShareStart{}, &ShareMismatchError{Workload: workload, Database: db0, Given: s.arg(s.Value), Recorded: s.arg(v)}
		}
	}
	recSeed, err := strconv.ParseUint(loaded[SeedSetting], 10, 64)
	if err != nil {
		return ShareStart{}, fmt.Errorf("%s holds a malformed seed %q: start over with `stampede cleanup %s`", LoadRecordTable, loaded[SeedSetting], workload)
	}
	if seedGiven && recSeed != seed {
		return ShareStart{}, &ShareMismatchError{Workload: workload, Database: db0,
			Given: "--seed " + strconv.FormatUint(seed, 10), Recorded: "--seed " + strconv.FormatUint(recSeed, 10)}
	}
	if slices.Contains(sh.Loaded, index) {
		return ShareStart{}, fmt.Errorf("%w: client %d of %d's share (%s) is loaded already in database %q: give another --client-index (missing: %s), or start over with `stampede cleanup %s`",
			ErrTablesExist, index, count, gen.ShareOf(index, count), db0, indexList(sh.Missing()), workload)
	}
	return ShareStart{Seed: recSeed}, nil
}

// indexList is a list of share indexes for messages.
func indexList(idx []int) string {
	if len(idx) == 0 {
		return "none"
	}
	parts := make([]string, len(idx))
	for i, x := range idx {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ", ")
}

// CreateShared creates gen's tables (every table, each marked as init's)
// and runs its PreLoad hook: the first client of a split load does, under
// the load's lock.
func CreateShared(ctx context.Context, db *sqlx.DB, gen Generator) error {
	opts := LoadOptions{mark: InitTableMark(gen)}
	for _, t := range gen.Tables() {
		if err := createTable(ctx, db, t, opts); err != nil {
			return err
		}
	}
	if h, ok := gen.(Hookser); ok && h.Hooks().PreLoad != nil {
		return h.Hooks().PreLoad(ctx, db)
	}
	return nil
}

// LoadShareRows loads the rows of gen's share into the tables that exist
// (no index built, nothing analyzed: the last share does, FinishShare).
func LoadShareRows(ctx context.Context, db *sqlx.DB, gen Generator, opts LoadOptions) error {
	opts.SkipCreate, opts.SkipAnalyze, opts.Drop, opts.CreateEach = true, true, false, false
	return loadTables(ctx, db, gen.Tables(), opts)
}

// EndShare adds share index to the record, in tx (which holds ShareLock).
// When it completes the set, it first finishes the load (finish: the
// indexes, statistics and PostLoad of every table); last says so.
func EndShare(ctx context.Context, db *sqlx.DB, tx sqlx.Tx, gen ShareLoader, index int, finish func() error) (last bool, err error) {
	_, loaded, found, err := readRecord(ctx, db, tx, DataKeyOf(gen), true)
	if err != nil {
		return false, err
	}
	if !found {
		return false, errors.New("the record of the split load in " + LoadRecordTable + " is gone (a cleanup or init --drop ran meanwhile): start the split load over")
	}
	sh, err := ParseShares(loaded[SharesSetting])
	if err != nil {
		return false, err
	}
	if !slices.Contains(sh.Loaded, index) {
		sh.Loaded = append(sh.Loaded, index)
		slices.Sort(sh.Loaded)
	}
	last = len(sh.Missing()) == 0
	if last {
		if err := finish(); err != nil {
			return false, err
		}
	}
	loaded[SharesSetting] = sh.String()
	b, err := json.Marshal(loaded)
	if err != nil {
		return false, err
	}
	d := db.Dialect()
	if _, err := tx.Exec(ctx, "UPDATE "+d.QuoteIdent(LoadRecordTable)+" SET settings = "+d.Placeholder(1)+", loaded_at = now() WHERE data = "+d.Placeholder(2), string(b), DataKeyOf(gen)); err != nil {
		return false, fmt.Errorf("recording the share in %s: %w", LoadRecordTable, err)
	}
	return last, nil
}

// FinishTables builds the indexes of gen's tables and analyzes them
// (unless skipAnalyze), then runs PostLoad: the last share of a split load
// does, once every row is in.
func FinishTables(ctx context.Context, db *sqlx.DB, gen Generator, skipAnalyze bool) error {
	for _, t := range gen.Tables() {
		t.InitialRows = BatchedTuples{NumRows: 1} // indexes and statistics only
		if skipAnalyze {
			t.InitialRows.NumRows = 0
		}
		if err := setupTable(ctx, db, t, LoadOptions{}, 1); err != nil {
			return err
		}
	}
	if h, ok := gen.(Hookser); ok && h.Hooks().PostLoad != nil {
		return h.Hooks().PostLoad(ctx, db)
	}
	return nil
}

// checkShares returns a *MissingShareError when the record of a split
// load (its settings, loaded) lacks a share.
func checkShares(db *sqlx.DB, gen Generator, workload string, loaded map[string]string) error {
	raw, ok := loaded[SharesSetting]
	if !ok {
		return nil
	}
	sh, err := ParseShares(raw)
	if err != nil {
		return err
	}
	missing := sh.Missing()
	if len(missing) == 0 {
		return nil
	}
	e := &MissingShareError{Workload: workload, Database: db.Database(), Index: missing[0], Count: sh.Count, Missing: len(missing)}
	if sl, ok := gen.(ShareLoader); ok {
		settings := ShareSettings(sl)
		for _, s := range settings {
			if v, ok := loaded[s.Name]; ok && !s.Given && v != s.Value && s.Set != nil {
				_ = s.Set(v) // the load's, to describe its share (the run is refused)
			}
		}
		e.Of = sl.ShareOf(missing[0], sh.Count)
		// The suggestion gives the settings the load did not take by
		// default: those whose value differs from a fresh generator's.
		defaults := map[string]string{}
		for _, s := range ShareSettings(gen.Meta().New()) {
			defaults[s.Name] = s.Value
		}
		for _, s := range settings {
			if v, ok := loaded[s.Name]; ok && v != defaults[s.Name] {
				e.Args = append(e.Args, s.arg(v))
			}
		}
	}
	return e // the seed is the record's: the missing share adopts it
}

// ShareBatches returns share [lo, hi) of bt's batches, each of rows rows
// (the last of bt may hold fewer: total is bt's rows), renumbered from 0
// for the loader and drawn as batch lo+i of the whole load, so that the
// shares together load exactly the whole load's rows.
func ShareBatches(bt BatchedTuples, lo, hi int, rows int64) BatchedTuples {
	hi = min(hi, bt.NumBatches)
	if lo >= hi {
		return BatchedTuples{}
	}
	n := min(int64(hi)*rows, bt.NumRows) - int64(lo)*rows
	out := BatchedTuples{NumBatches: hi - lo, NumRows: n, InsertRows: bt.InsertRows}
	if f := bt.FillBatch; f != nil {
		out.FillBatch = func(i int, r [][]any) [][]any { return f(lo+i, r) }
	}
	if e := bt.EncodeBatch; e != nil {
		out.EncodeBatch = func(i int, w *sqlx.RowWriter) { e(lo+i, w) }
	}
	return out
}

// CheckShares returns a *MissingShareError when gen's data in db was
// loaded split between clients and a share is missing (nil without a
// record: ReconcileLoad and the workload's own checks judge that).
func CheckShares(ctx context.Context, db *sqlx.DB, gen Generator) error {
	if db.Null() {
		return nil
	}
	workload, loaded, found, err := readRecord(ctx, db, db, DataKeyOf(gen), false)
	if err != nil || !found {
		return err
	}
	return checkShares(db, gen, workload, loaded)
}
