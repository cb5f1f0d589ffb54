package workload

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/stampede-bench/stampede/sqlx"
)

// LoadRecordTable is the table in which init records what it loaded: one
// row per kind of data (DataSpecer.DataKey), with the settings the data
// depends on. Run and check read it back (ReconcileLoad).
const LoadRecordTable = "stampede_load"

// DataSetting is one setting a workload's initial data depends on.
type DataSetting struct {
	// Name is the setting as the user gives it: "rows", "table_size",
	// a YCSB property.
	Name string
	// Flag is how to give it on a command line: "--rows".
	Flag string
	// Value is its value now.
	Value string
	// Given is true when the command line gave it, false for a default.
	Given bool
	// Adopted is true when its value was taken from the load's record
	// (AdoptRecorded) rather than given: what the data holds, which a
	// mark's data flags name as a given value would be.
	Adopted bool
	// Set sets it to a value, to adopt what init loaded.
	Set func(string) error
	// Fits, when set, reports whether the value given works on data
	// loaded with another (sysbench runs on the first N of the tables
	// prepared); without it, only the loaded value does.
	Fits func(loaded string) bool
	// Form, when set, is how a value is given on a command line, where
	// Flag and the value apart will not do (YCSB's "-p recordcount=1000").
	Form func(value string) string
	// From, when set, says where a given value came from, when not as
	// Form writes it (a property file's line, another flag's name).
	From string
	// Tables says the setting decides which tables the load makes
	// (sysbench's --tables), not only what they hold: FormerTables
	// tries its loaded value, and Set must take back a value it set.
	Tables bool
}

// arg is v as given on a command line.
func (s DataSetting) arg(v string) string {
	if s.Form != nil {
		return s.Form(v)
	}
	return s.Flag + " " + v
}

// DataSpecer is a Generator that says what its initial data depends on,
// so that init records it and run and check compare with it.
type DataSpecer interface {
	Generator
	// DataKey names the data: workloads that share tables (the sysbench
	// OLTP scripts) return the same key.
	DataKey() string
	// DataSettings returns the settings the data depends on.
	DataSettings() []DataSetting
}

// ReloadHinter is a Generator whose data depends on a flag that a sweep's
// --reload does not load again per step (TPC-C's --warehouses: run
// checks it against the warehouses the database holds): ReloadHint says
// how to sweep it instead, or "" for a flag it has no advice for.
type ReloadHinter interface {
	Generator
	ReloadHint(flag, values string) string
}

// FlagSettings returns the data settings of a workload whose data depends
// on its flags that are not RuntimeOnly, in the flags' order.
func FlagSettings(f Flags) []DataSetting {
	var out []DataSetting
	f.VisitAll(func(fl *pflag.Flag) {
		if f.Meta[fl.Name].RuntimeOnly {
			return
		}
		name := fl.Name
		out = append(out, DataSetting{Name: name, Flag: "--" + name, Value: fl.Value.String(), Given: fl.Changed,
			Set: func(v string) error { return f.Set(name, v) }})
	})
	return out
}

// PartLoader is a DataSpecer whose init may load one part of data that
// several inits load together, each its own part (YCSB's clients that
// split a load with insertstart and insertcount).
type PartLoader interface {
	DataSpecer
	// LoadsPart reports whether this init loads a part of the data only.
	LoadsPart() bool
	// MergeLoad returns the settings that record this part together
	// with loaded, the record of the parts loaded before, or an error
	// that says why they do not go together (other settings, parts that
	// overlap).
	MergeLoad(loaded map[string]string) (map[string]string, error)
}

// loadsPart returns gen as a PartLoader when it loads a part only.
func loadsPart(gen Generator) (PartLoader, bool) {
	pl, ok := gen.(PartLoader)
	return pl, ok && pl.LoadsPart()
}

// JoinsLoad reports whether init of gen loads a part of data whose tables
// exist (other parts', or created by hand as YCSB's JDBC binding expects):
// then init loads into them (LoadOptions.SkipCreate) rather than refusing
// them, once gen's MergeLoad accepts the record of the parts loaded
// before; its error says why it does not. A part load that finds no
// tables forgets a record left without them.
func JoinsLoad(ctx context.Context, db *sqlx.DB, gen Generator, tables []Table) (bool, error) {
	pl, ok := loadsPart(gen)
	if !ok || db.Null() {
		return false, nil
	}
	existing, err := ExistingTables(ctx, db, tables)
	if err != nil {
		return false, err
	}
	if len(existing) < len(tables) {
		return false, ForgetLoad(ctx, db, gen)
	}
	workload, loaded, found, err := readRecord(ctx, db, db, pl.DataKey(), false)
	if err != nil || !found {
		return err == nil, err
	}
	if _, err := pl.MergeLoad(loaded); err != nil {
		return false, &LoadPartError{Workload: workload, Database: db.Database(), Err: err}
	}
	return true, nil
}

// LoadPartError is JoinsLoad's error: the part does not go with the parts
// loaded before.
type LoadPartError struct {
	// Workload loaded the parts before, into Database.
	Workload, Database string
	// Err says why (MergeLoad's error).
	Err error
}

func (e *LoadPartError) Error() string {
	return fmt.Sprintf("this part cannot join what init (of %s) loaded into database %q: %v", e.Workload, e.Database, e.Err)
}

func (e *LoadPartError) Unwrap() error { return e.Err }

// readRecord reads the record of the data key from q (locking it, with
// lock, in a transaction); found is false without one.
func readRecord(ctx context.Context, db *sqlx.DB, q sqlx.Querier, key string, lock bool) (workload string, settings map[string]string, found bool, err error) {
	if exists, err := recordExists(ctx, db); err != nil || !exists {
		return "", nil, false, err
	}
	d := db.Dialect()
	query := "SELECT workload, settings FROM " + d.QuoteIdent(LoadRecordTable) + " WHERE data = " + d.Placeholder(1)
	if lock {
		query += " FOR UPDATE"
	}
	var raw string
	err = q.QueryRow(ctx, query, key).Scan(&workload, &raw)
	if errors.Is(err, sqlx.ErrNoRows) {
		return "", nil, false, nil
	}
	if err != nil {
		if sqlx.SQLState(err) == "42501" {
			return "", nil, false, Denied(ctx, q, LoadRecordTable, "SELECT", "stampede's record of what init loaded", err)
		}
		return "", nil, false, fmt.Errorf("reading what init loaded (%s): %w", LoadRecordTable, err)
	}
	if err := json.Unmarshal([]byte(raw), &settings); err != nil {
		return "", nil, false, fmt.Errorf("%s holds a malformed record of %s: %w", LoadRecordTable, key, err)
	}
	return workload, settings, true, nil
}

// RecordLoad records in db what gen loaded (after Setup), replacing an
// earlier record of the same data, or, for a part load (PartLoader),
// merging this part into it. The record of a generator that is not a
// DataSpecer holds no settings: it says that init loaded it there (see
// ForeignTables). adopted names the tables the load filled without
// creating them (a usertable a user made for YCSB's JDBC binding): the
// record keeps them, with those of the parts before, as the user's, so
// that cleanup and --drop leave them alone (ForeignTables). The null
// driver records nothing.
func RecordLoad(ctx context.Context, db *sqlx.DB, gen Generator, adopted ...string) error {
	if db.Null() {
		return nil
	}
	var err error
	// Parts that finish at once may both find no record and insert one:
	// the second's unique violation means it has a record to merge into.
	for range 3 {
		if err = recordLoad(ctx, db, gen, adopted); sqlx.SQLState(err) != "23505" {
			break
		}
	}
	return err
}

// adoptedColumn is the column of the record that names the tables a load
// adopted, comma-separated (added to the record tables of older
// stampedes when a load records itself).
const adoptedColumn = "adopted"

// markedColumn is the column of the record that says the load marked the
// tables it created (workload.InitMark): every load of this stampede
// does, so that a table of the same name made in place of one of them (a
// user's) is told apart by its missing mark. Records of older loads,
// which marked nothing, have it false.
const markedColumn = "marked"

func recordLoad(ctx context.Context, db *sqlx.DB, gen Generator, adopted []string) error {
	settings := map[string]string{}
	if ds, ok := gen.(DataSpecer); ok {
		for _, s := range ds.DataSettings() {
			settings[s.Name] = s.Value
		}
	}
	d := db.Dialect()
	p := d.Placeholder
	t := d.QuoteIdent(LoadRecordTable)
	exists, err := recordExists(ctx, db)
	if err != nil {
		return err // a user's table of the name: never written
	}
	// Only what is missing is created (IF NOT EXISTS for two parts that
	// record at once): no NOTICE for the pgbench form to print.
	if !exists {
		if _, err := db.Exec(ctx, "CREATE TABLE IF NOT EXISTS "+t+" (data TEXT PRIMARY KEY, workload TEXT NOT NULL, version TEXT NOT NULL, settings TEXT NOT NULL, loaded_at TIMESTAMPTZ NOT NULL DEFAULT now(), "+adoptedColumn+" TEXT NOT NULL DEFAULT '', "+markedColumn+" BOOLEAN NOT NULL DEFAULT false, "+databaseOIDColumn+" TEXT NOT NULL DEFAULT '', "+clusterColumn+" TEXT NOT NULL DEFAULT '')"); err != nil {
			return fmt.Errorf("recording the load in %s: %w", LoadRecordTable, err)
		}
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
	for col, def := range map[string]string{adoptedColumn: "TEXT NOT NULL DEFAULT ''", markedColumn: "BOOLEAN NOT NULL DEFAULT false", databaseOIDColumn: "TEXT NOT NULL DEFAULT ''", clusterColumn: "TEXT NOT NULL DEFAULT ''"} {
		if _, ok := cols[col]; ok {
			continue
		}
		if _, err := db.Exec(ctx, "ALTER TABLE "+t+" ADD COLUMN IF NOT EXISTS "+col+" "+def); err != nil {
			return fmt.Errorf("recording the load in %s: %w", LoadRecordTable, err)
		}
	}
	cluster := clusterID(ctx, db) // before the transaction: it may fail
	tx, err := db.Begin(ctx, sqlx.TxOptions{})
	if err != nil {
		return fmt.Errorf("recording the load: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if pl, ok := loadsPart(gen); ok {
		_, loaded, found, err := readRecord(ctx, db, tx, pl.DataKey(), true)
		if err != nil {
			return err
		}
		if found {
			if settings, err = pl.MergeLoad(loaded); err != nil {
				return fmt.Errorf("recording the load in %s: %w", LoadRecordTable, err)
			}
			before, err := readAdopted(ctx, db, tx, pl.DataKey())
			if err != nil {
				return err
			}
			adopted = append(before, adopted...)
		}
	}
	slices.Sort(adopted)
	adopted = slices.Compact(adopted)
	b, err := json.Marshal(settings)
	if err != nil {
		return err
	}
	for _, stmt := range []struct {
		sql  string
		args []any
	}{
		{"DELETE FROM " + t + " WHERE data = " + p(1), []any{DataKeyOf(gen)}},
		{"INSERT INTO " + t + " (data, workload, version, settings, " + adoptedColumn + ", " + markedColumn + ") VALUES (" + p(1) + ", " + p(2) + ", " + p(3) + ", " + p(4) + ", " + p(5) + ", true)",
			[]any{DataKeyOf(gen), gen.Meta().Name, gen.Meta().Version, string(b), strings.Join(adopted, ",")}},
	} {
		if _, err := tx.Exec(ctx, stmt.sql, stmt.args...); err != nil {
			return fmt.Errorf("recording the load in %s: %w", LoadRecordTable, err)
		}
	}
	if err := bindRecord(ctx, db, tx, DataKeyOf(gen), cluster); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("recording the load: %w", err)
	}
	return nil
}

// hasAdoptedColumn reports whether the record table, which exists, has
// the column of adopted tables (an older stampede's has not).
func hasAdoptedColumn(ctx context.Context, db *sqlx.DB) (bool, error) {
	cols, err := tableColumns(ctx, db, LoadRecordTable)
	if err != nil {
		return false, fmt.Errorf("reading the columns of %s: %w", LoadRecordTable, err)
	}
	_, ok := cols[adoptedColumn]
	return ok, nil
}

// readAdopted returns the tables that the load recorded under data key
// adopted (none without a record, or in an older stampede's record
// table, whose loads adopted nothing).
func readAdopted(ctx context.Context, db *sqlx.DB, q sqlx.Querier, key string) ([]string, error) {
	if exists, err := recordExists(ctx, db); err != nil || !exists {
		return nil, err
	}
	if has, err := hasAdoptedColumn(ctx, db); err != nil || !has {
		return nil, err
	}
	d := db.Dialect()
	var list string
	err := q.QueryRow(ctx, "SELECT "+adoptedColumn+" FROM "+d.QuoteIdent(LoadRecordTable)+" WHERE data = "+d.Placeholder(1), key).Scan(&list)
	if errors.Is(err, sqlx.ErrNoRows) || list == "" {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading what init loaded (%s): %w", LoadRecordTable, err)
	}
	return strings.Split(list, ","), nil
}

// readMarked reports whether the load recorded under data key marked the
// tables it created (false without a record, or for an older stampede's).
func readMarked(ctx context.Context, db *sqlx.DB, key string) (bool, error) {
	if exists, err := recordExists(ctx, db); err != nil || !exists {
		return false, err
	}
	cols, err := tableColumns(ctx, db, LoadRecordTable)
	if err != nil {
		return false, fmt.Errorf("reading the columns of %s: %w", LoadRecordTable, err)
	}
	if _, ok := cols[markedColumn]; !ok {
		return false, nil
	}
	d := db.Dialect()
	var marked bool
	err = db.QueryRow(ctx, "SELECT "+markedColumn+" FROM "+d.QuoteIdent(LoadRecordTable)+" WHERE data = "+d.Placeholder(1), key).Scan(&marked)
	if errors.Is(err, sqlx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading what init loaded (%s): %w", LoadRecordTable, err)
	}
	return marked, nil
}

// recordColumns are the columns of init's record table that tell it from
// a user's table of its name.
var recordColumns = []string{"data", "workload", "version", "settings"}

// recordExists reports whether db holds init's record table, and refuses
// (*ForeignRecordError) a table of its name without its columns: a
// user's, which stampede neither reads nor changes.
func recordExists(ctx context.Context, db *sqlx.DB) (bool, error) {
	exists, err := TableExists(ctx, db, LoadRecordTable)
	if err != nil || !exists || db.Null() {
		return exists, err
	}
	cols, err := tableColumns(ctx, db, LoadRecordTable)
	if err != nil {
		return false, fmt.Errorf("reading the columns of %s: %w", LoadRecordTable, err)
	}
	return true, foreignRecord(ctx, db, cols)
}

// CheckRecordTable refuses (*ForeignRecordError) a table of db named as
// init's record table (LoadRecordTable) without its columns: a user's.
func CheckRecordTable(ctx context.Context, db *sqlx.DB) error {
	_, err := recordExists(ctx, db)
	return err
}

// ForeignRecordError refuses a table named as init's record table
// (LoadRecordTable) that has not its columns: a user's own, in which
// stampede can neither read nor record what init loaded, and which it
// leaves alone. It matches ErrForeign, and exits as bad input (2).
type ForeignRecordError struct {
	// Where is the database ("database \"d\" on 127.0.0.1:5432").
	Where string
	// Why says how it differs from stampede's record ("it has not the
	// columns ...").
	Why string
}

func (e *ForeignRecordError) Error() string {
	return fmt.Sprintf("table %s in %s is not stampede's record of what init loaded (%s): a table of yours with the name stampede records its loads under, which stampede never reads, writes or drops (%s neither); rename it (ALTER TABLE %s RENAME TO ...), or use another database",
		LoadRecordTable, e.Where, e.Why, ForceDropFlag, LoadRecordTable)
}

// Is makes errors.Is(err, ErrForeign) true.
func (e *ForeignRecordError) Is(target error) bool { return target == ErrForeign }

// ExitCode is 2: bad input, as every refusal of what stampede did not
// make.
func (e *ForeignRecordError) ExitCode() int { return 2 }

// ForgetLoad removes gen's record (after cleanup dropped its tables), and
// the record table when it holds no other.
func ForgetLoad(ctx context.Context, db *sqlx.DB, gen Generator) error {
	if db.Null() {
		return nil
	}
	if exists, err := recordExists(ctx, db); err != nil || !exists {
		return err
	}
	d := db.Dialect()
	t := d.QuoteIdent(LoadRecordTable)
	if _, err := db.Exec(ctx, "DELETE FROM "+t+" WHERE data = "+d.Placeholder(1), DataKeyOf(gen)); err != nil {
		return err
	}
	var left int64
	if err := db.QueryRow(ctx, "SELECT count(*) FROM "+t).Scan(&left); err != nil || left > 0 {
		return err
	}
	_, err := db.Exec(ctx, d.DropTable(LoadRecordTable))
	return err
}

// TenantMarkerTable is the table that marks a fleet's tenant complete
// (fleet.MarkerTable): a fleet's tenants record no load of their own.
const TenantMarkerTable = "stampede_tenant"

// ErrUnfinishedLoad marks an error about a database whose load init began
// and never finished (UnfinishedLoadError, TPC-C's empty tpcc_meta): the
// run or check cannot go on until it is reloaded, and front ends report
// it as bad input, as a run whose flags differ from the load
// (ErrLoadMismatch).
var ErrUnfinishedLoad = errors.New("the database holds an unfinished load")

// UnfinishedLoadError says that db holds tables init created but whose
// load it never recorded: init was interrupted, or is running. It matches
// ErrUnfinishedLoad.
type UnfinishedLoadError struct {
	// Workload is the workload whose tables they are; Table the first;
	// Database where.
	Workload, Table, Database string
	// Flags are the interrupted init's data flags, as its tables' mark
	// records them (InitTableMark); Recorded is false for the mark of an
	// older stampede, which records none.
	Flags    string
	Recorded bool
	// Copy, when set, says that the database is a copy of the one
	// stampede loaded (the table's mark names that one, see
	// madeElsewhere), whose record of the load the user dropped: not
	// an interrupted init.
	Copy *CopiedDatabaseError
}

// Is makes the error match ErrUnfinishedLoad.
func (e *UnfinishedLoadError) Is(target error) bool { return target == ErrUnfinishedLoad }

func (e *UnfinishedLoadError) Error() string {
	if e.Copy != nil {
		return e.copyError()
	}
	head := fmt.Sprintf("database %q holds an unfinished load of %s: init created table %s but never finished loading it (interrupted, or still running)",
		e.Database, e.Workload, e.Table)
	if !e.Recorded {
		return fmt.Sprintf("%s: reload with the interrupted init's data flags and --drop, `stampede init %s --drop`", head, e.Workload)
	}
	cmd := "stampede init " + e.Workload + " --drop"
	if e.Flags != "" {
		cmd += " " + e.Flags
	}
	return fmt.Sprintf("%s: reload it as the interrupted init had it, `%s`", head, cmd)
}

// unfinishedLoad returns an *UnfinishedLoadError when one of gen's tables
// carries the mark of stampede's init but init recorded no load of it
// (unless the database is a fleet's tenant, which records none). Tables
// without the mark (another tool's load, an older stampede's) say
// nothing.
func unfinishedLoad(ctx context.Context, db *sqlx.DB, gen Generator) error {
	for _, t := range gen.Tables() {
		if err := unfinishedTable(ctx, db, gen.Meta().Name, t.Name); err != nil {
			return err
		}
	}
	return nil
}

// UnfinishedTable returns an *UnfinishedLoadError when table, of workload
// (its data key key), carries the mark of stampede's init and init's
// record holds no load of key: init was interrupted (or is running).
func UnfinishedTable(ctx context.Context, db *sqlx.DB, workload, key, table string) error {
	if db.Null() {
		return nil
	}
	_, _, found, err := readRecord(ctx, db, db, key, false)
	if err != nil || found {
		return err
	}
	return unfinishedTable(ctx, db, workload, table)
}

// unfinishedTable is UnfinishedTable once no record was found.
func unfinishedTable(ctx context.Context, db *sqlx.DB, workload, table string) error {
	c, err := TableComment(ctx, db, table)
	if err != nil || !isInitMark(c) {
		return err
	}
	tenant, err := TableExists(ctx, db, TenantMarkerTable)
	if err != nil || tenant {
		return err
	}
	flags, recorded := markFlags(c)
	e := &UnfinishedLoadError{Workload: workload, Table: table, Database: db.Database(), Flags: flags, Recorded: recorded}
	if e.Copy, err = copiedLoad(ctx, db); err != nil {
		return err
	}
	return e
}

// LoadMismatchError is ReconcileLoad's error: a setting given on the
// command line differs from what init loaded.
type LoadMismatchError struct {
	// Workload loaded the data (the record's), Database is where.
	Workload, Database string
	// Flag is the setting's command-line form; Given and Loaded its
	// values on the command line and in the load.
	Flag, Given, Loaded string
	// GivenArg and LoadedArg are the values as given on a command line
	// ("--rows 10", "-p recordcount=1000"); From where the given one came
	// from, when not so (DataSetting.From).
	GivenArg, LoadedArg, From string
}

func (e *LoadMismatchError) Error() string {
	given, loaded := e.GivenArg, e.LoadedArg
	if given == "" {
		given = e.Flag + " " + e.Given
	}
	said := given
	if e.From != "" {
		said += " (from " + e.From + ")"
	}
	if loaded == "" {
		loaded = e.Flag + " " + e.Loaded
	}
	return fmt.Sprintf("%s differs from what init (of %s) loaded into database %q, %s: give %s, or reload with `stampede init %s --drop %s`",
		said, e.Workload, e.Database, loaded, loaded, e.Workload, given)
}

// ReconcileLoad compares gen's data settings with what init recorded in
// db: a setting the command line gave with another value is a
// *LoadMismatchError; one it did not give takes the loaded value, and
// notes say so ("using --rows 10, as loaded"). Without a record (data
// loaded by an older stampede or another tool) it checks nothing.
func ReconcileLoad(ctx context.Context, db *sqlx.DB, gen Generator) (notes []string, err error) {
	ds, ok := gen.(DataSpecer)
	if _, split := gen.(ShareLoader); !ok && split {
		return nil, CheckShares(ctx, db, gen)
	}
	if !ok || db.Null() {
		return nil, nil
	}
	workload, loaded, found, err := readRecord(ctx, db, db, ds.DataKey(), false)
	var denied *DeniedError
	if errors.As(err, &denied) {
		return []string{unreadRecord(denied, ds)}, nil
	}
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, unfinishedLoad(ctx, db, gen)
	}
	if err := checkShares(db, gen, workload, loaded); err != nil {
		return nil, err
	}
	for _, s := range ds.DataSettings() {
		v, ok := loaded[s.Name]
		if !ok || v == s.Value {
			continue
		}
		if s.Given && s.Fits != nil && s.Fits(v) {
			continue
		}
		if s.Given {
			return nil, &LoadMismatchError{Workload: workload, Database: db.Database(), Flag: s.Flag, Given: s.Value, Loaded: v,
				GivenArg: s.arg(s.Value), LoadedArg: s.arg(v), From: s.From}
		}
		if err := s.Set(v); err != nil {
			return nil, fmt.Errorf("adopting %s from the load: %w", s.arg(v), err)
		}
		notes = append(notes, s.arg(v))
	}
	if len(notes) > 0 {
		slices.Sort(notes)
		notes = []string{fmt.Sprintf("using %s, as init (of %s) loaded database %q", strings.Join(notes, ", "), workload, db.Database())}
	}
	return notes, nil
}

// UnreadRecordNote begins ReconcileLoad's note when the role may not read
// init's record: a warning, not a note of what was adopted.
const UnreadRecordNote = "warning: "

// unreadRecord is ReconcileLoad's note when the role may not read init's
// record (denied): the run or check goes on with the data settings given
// and the defaults, as a fleet's does when its role may not read the
// tenants' marker, and says which defaults stand and what to grant.
func unreadRecord(denied *DeniedError, ds DataSpecer) string {
	var defaults []string
	for _, s := range ds.DataSettings() {
		if !s.Given {
			defaults = append(defaults, s.arg(s.Value))
		}
	}
	stand := "the data flags given stand"
	if len(defaults) > 0 {
		stand = "the defaults " + strings.Join(defaults, ", ") + " stand"
	}
	return fmt.Sprintf("%srole %s may not read table %s (%s), so %s: give init's data flags on the command line, or have %s `GRANT SELECT ON %s TO %s`",
		UnreadRecordNote, denied.Role, denied.Table, denied.What, stand, denied.Owner, denied.Table, denied.Role)
}

// CleanupMismatchError is AdoptLoad's error: cleanup was given a data
// setting other than the one init loaded, and would drop another set of
// tables than the load's while forgetting the whole record.
type CleanupMismatchError struct {
	// Workload loaded the data (the record's), Database is where.
	Workload, Database string
	// GivenArg and LoadedArg are the setting as given and as loaded, as
	// given on a command line ("--tables 1").
	GivenArg, LoadedArg string
}

func (e *CleanupMismatchError) Error() string {
	return fmt.Sprintf("%s differs from what init (of %s) loaded into database %q, %s: cleanup drops the whole load; give %s, or leave the flag out",
		e.GivenArg, e.Workload, e.Database, e.LoadedArg, e.LoadedArg)
}

// Is makes the error match ErrLoadMismatch.
func (e *CleanupMismatchError) Is(target error) bool { return target == ErrLoadMismatch }

// AdoptLoad gives gen the data settings init recorded in db, for cleanup:
// a setting the command line did not give takes the loaded value (so
// that cleanup drops every table of the load: sbtest1..--tables), and
// notes say so; one given with another value is kept when gen's tables
// with it include the load's (sysbench's cleanup --tables=4 of a load of
// 1), and otherwise a *CleanupMismatchError, as cleanup would leave
// tables of the load behind and forget them. Without a record it
// changes nothing.
func AdoptLoad(ctx context.Context, db *sqlx.DB, gen Generator) (notes []string, err error) {
	ds, ok := gen.(DataSpecer)
	if !ok || db.Null() {
		return nil, nil
	}
	workload, loaded, found, err := readRecord(ctx, db, db, ds.DataKey(), false)
	var denied *DeniedError
	if errors.As(err, &denied) {
		// Cleanup removes the load's record, which it must read first.
		denied.Need, denied.Then = "SELECT, DELETE", "cleanup removes the load's record there, so it drops nothing"
		return nil, denied
	}
	if err != nil || !found {
		return nil, err
	}
	for _, s := range ds.DataSettings() {
		v, ok := loaded[s.Name]
		if !ok || v == s.Value {
			continue
		}
		if s.Given {
			covers, err := coversLoad(gen, s, v)
			if err != nil {
				return nil, err
			}
			if !covers {
				return nil, &CleanupMismatchError{Workload: workload, Database: db.Database(), GivenArg: s.arg(s.Value), LoadedArg: s.arg(v)}
			}
			continue
		}
		if err := s.Set(v); err != nil {
			return nil, fmt.Errorf("adopting %s from the load: %w", s.arg(v), err)
		}
		notes = append(notes, s.arg(v))
	}
	if len(notes) > 0 {
		slices.Sort(notes)
		notes = []string{fmt.Sprintf("using %s, as init (of %s) loaded database %q", strings.Join(notes, ", "), workload, db.Database())}
	}
	return notes, nil
}

// coversLoad reports whether gen's tables with s's given value include
// those it has with the loaded value v: gen is left with the given one.
func coversLoad(gen Generator, s DataSetting, v string) (bool, error) {
	given := map[string]bool{}
	for _, t := range gen.Tables() {
		given[t.Name] = true
	}
	if err := s.Set(v); err != nil {
		return false, fmt.Errorf("trying %s from the load: %w", s.arg(v), err)
	}
	loaded := gen.Tables()
	if err := s.Set(s.Value); err != nil {
		return false, fmt.Errorf("restoring %s: %w", s.arg(s.Value), err)
	}
	for _, t := range loaded {
		if !given[t.Name] {
			return false, nil
		}
	}
	return true, nil
}

// HintedError is an operation's error that ended a run, with the remedy
// the run's error names instead of its generic one (--tolerate-errors):
// a workload whose own flag decides whether an error ends the run (TPC-C
// --profile hammerdb's --raise-error) names that flag.
type HintedError struct {
	Err  error
	Hint string
}

func (e *HintedError) Error() string { return e.Err.Error() }

// Unwrap returns the operation's error.
func (e *HintedError) Unwrap() error { return e.Err }

// AdoptRecorded gives gen the data settings init recorded in db that its
// command line did not give, as ReconcileLoad does, and leaves the given
// ones as they are, whatever was loaded: a load again with other values
// of those (a sweep's --reload) keeps the rest of the data as init
// loaded it. Without a record, it takes them from the mark of a load
// that init began and never finished (killed mid-reload: the mark names
// the data flags, UnfinishedLoadError), so that a load again does not
// fall back to the defaults; without either it changes nothing.
func AdoptRecorded(ctx context.Context, db *sqlx.DB, gen Generator) error {
	ds, ok := gen.(DataSpecer)
	if !ok || db.Null() {
		return nil
	}
	_, loaded, found, err := readRecord(ctx, db, db, ds.DataKey(), false)
	if err != nil {
		return err
	}
	if !found {
		if loaded, err = unfinishedSettings(ctx, db, gen); err != nil || loaded == nil {
			return err
		}
	}
	for _, s := range ds.DataSettings() {
		if v, ok := loaded[s.Name]; ok && !s.Given && v != s.Value {
			if err := s.Set(v); err != nil {
				return fmt.Errorf("adopting %s from the load: %w", s.arg(v), err)
			}
		}
	}
	return nil
}

// unfinishedSettings returns the data settings that the mark of an
// unfinished load of gen's (UnfinishedLoadError) names, by name; nil
// when none of gen's tables carries such a mark, or the mark names no
// flags (an older stampede's).
func unfinishedSettings(ctx context.Context, db *sqlx.DB, gen Generator) (map[string]string, error) {
	for _, t := range gen.Tables() {
		c, err := TableComment(ctx, db, t.Name)
		if err != nil {
			return nil, err
		}
		flags, ok := markFlags(c)
		if !ok || !IsMarkOf(c, gen) {
			continue
		}
		settings := map[string]string{}
		for _, s := range gen.(DataSpecer).DataSettings() {
			if v, ok := flagValue(flags, s); ok {
				settings[s.Name] = v
			}
		}
		return settings, nil
	}
	return nil, nil
}

// flagValue returns the value of s in flags, data flags as DataFlags
// writes them ("-p recordcount=30000 -p fieldlength=50", "--rows 10"),
// and whether they name it.
func flagValue(flags string, s DataSetting) (string, bool) {
	const hole = "\x00"
	before, after, ok := strings.Cut(s.arg(hole), hole)
	if !ok || before == "" {
		return "", false
	}
	for i := 0; i < len(flags); {
		j := strings.Index(flags[i:], before)
		if j < 0 {
			return "", false
		}
		at := i + j
		if at == 0 || flags[at-1] == ' ' {
			v, _, _ := strings.Cut(flags[at+len(before):], " ")
			return strings.TrimSuffix(v, after), true
		}
		i = at + 1
	}
	return "", false
}

// FormerTables returns the tables of the load recorded in db (its data
// settings that decide the tables, DataSetting.Tables, as init recorded
// them: a sweep's previous step's --tables 3) that gen, with its own
// settings, does not have: what a load of gen with other data settings
// would leave behind. gen is left as it was; without a record, or with
// the same settings, there are none.
func FormerTables(ctx context.Context, db *sqlx.DB, gen Generator) (former []Table, err error) {
	ds, ok := gen.(DataSpecer)
	if !ok || db.Null() {
		return nil, nil
	}
	_, loaded, found, err := readRecord(ctx, db, db, ds.DataKey(), false)
	if err != nil || !found {
		return nil, err
	}
	own := map[string]bool{}
	for _, t := range gen.Tables() {
		own[t.Name] = true
	}
	var set []DataSetting // the settings changed to the loaded values, to restore
	defer func() {
		for i := len(set) - 1; i >= 0; i-- {
			if rerr := set[i].Set(set[i].Value); rerr != nil && err == nil {
				err = fmt.Errorf("restoring %s: %w", set[i].arg(set[i].Value), rerr)
			}
		}
	}()
	for _, s := range ds.DataSettings() {
		if v, ok := loaded[s.Name]; ok && s.Tables && v != s.Value {
			if err := s.Set(v); err != nil {
				return nil, fmt.Errorf("trying %s from the load: %w", s.arg(v), err)
			}
			set = append(set, s)
		}
	}
	for _, t := range gen.Tables() {
		if !own[t.Name] {
			former = append(former, t)
		}
	}
	return former, nil
}

// Recorded is what init recorded of a generator's data in a database
// (ReadRecorded).
type Recorded struct {
	// Workload loaded the data into Database.
	Workload, Database string
	// Args are the recorded settings as given on a command line
	// ("--rows 10", "-p recordcount=1000"), in DataSettings' order;
	// Names are their settings' names (DataSetting.Name), Values their
	// values ("10", "1000").
	Args, Names, Values []string
	// Same says the generator's own settings equal the recorded ones,
	// every one of them: a load of it would load the same data again.
	Same bool
}

// ReadRecorded returns what init recorded in db of gen's data, compared
// with gen's settings; nil when gen says nothing of its data
// (DataSpecer), on the null driver and without a record.
func ReadRecorded(ctx context.Context, db *sqlx.DB, gen Generator) (*Recorded, error) {
	ds, ok := gen.(DataSpecer)
	if !ok || db.Null() {
		return nil, nil
	}
	workload, loaded, found, err := readRecord(ctx, db, db, ds.DataKey(), false)
	if err != nil || !found {
		return nil, err
	}
	r := &Recorded{Workload: workload, Database: db.Database(), Same: true}
	for _, s := range ds.DataSettings() {
		v, ok := loaded[s.Name]
		if !ok {
			r.Same = false // recorded by an older init: not known to be the same
			continue
		}
		r.Args, r.Names, r.Values = append(r.Args, s.arg(v)), append(r.Names, s.Name), append(r.Values, v)
		r.Same = r.Same && v == s.Value
	}
	return r, nil
}
