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
	// Set sets it to a value, to adopt what init loaded.
	Set func(string) error
	// Fits, when set, reports whether the value given works on data
	// loaded with another (sysbench runs on the first N of the tables
	// prepared); without it, only the loaded value does.
	Fits func(loaded string) bool
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

// RecordLoad records in db what gen loaded (after Setup), replacing an
// earlier record of the same data. Generators that are not DataSpecers
// record nothing; nor does the null driver.
func RecordLoad(ctx context.Context, db *sqlx.DB, gen Generator) error {
	ds, ok := gen.(DataSpecer)
	if !ok || db.Null() {
		return nil
	}
	settings := map[string]string{}
	for _, s := range ds.DataSettings() {
		settings[s.Name] = s.Value
	}
	b, err := json.Marshal(settings)
	if err != nil {
		return err
	}
	d := db.Dialect()
	p := d.Placeholder
	t := d.QuoteIdent(LoadRecordTable)
	tx, err := db.Begin(ctx, sqlx.TxOptions{})
	if err != nil {
		return fmt.Errorf("recording the load: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	for _, stmt := range []struct {
		sql  string
		args []any
	}{
		{"CREATE TABLE IF NOT EXISTS " + t + " (data TEXT PRIMARY KEY, workload TEXT NOT NULL, version TEXT NOT NULL, settings TEXT NOT NULL, loaded_at TIMESTAMPTZ NOT NULL DEFAULT now())", nil},
		{"DELETE FROM " + t + " WHERE data = " + p(1), []any{ds.DataKey()}},
		{"INSERT INTO " + t + " (data, workload, version, settings) VALUES (" + p(1) + ", " + p(2) + ", " + p(3) + ", " + p(4) + ")",
			[]any{ds.DataKey(), gen.Meta().Name, gen.Meta().Version, string(b)}},
	} {
		if _, err := tx.Exec(ctx, stmt.sql, stmt.args...); err != nil {
			return fmt.Errorf("recording the load in %s: %w", LoadRecordTable, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("recording the load: %w", err)
	}
	return nil
}

// ForgetLoad removes gen's record (after cleanup dropped its tables), and
// the record table when it holds no other.
func ForgetLoad(ctx context.Context, db *sqlx.DB, gen Generator) error {
	ds, ok := gen.(DataSpecer)
	if !ok || db.Null() {
		return nil
	}
	if exists, err := TableExists(ctx, db, LoadRecordTable); err != nil || !exists {
		return err
	}
	d := db.Dialect()
	t := d.QuoteIdent(LoadRecordTable)
	if _, err := db.Exec(ctx, "DELETE FROM "+t+" WHERE data = "+d.Placeholder(1), ds.DataKey()); err != nil {
		return err
	}
	var left int64
	if err := db.QueryRow(ctx, "SELECT count(*) FROM "+t).Scan(&left); err != nil || left > 0 {
		return err
	}
	_, err := db.Exec(ctx, d.DropTable(LoadRecordTable))
	return err
}

// LoadMismatchError is ReconcileLoad's error: a setting given on the
// command line differs from what init loaded.
type LoadMismatchError struct {
	// Workload loaded the data (the record's), Database is where.
	Workload, Database string
	// Flag is the setting's command-line form; Given and Loaded its
	// values on the command line and in the load.
	Flag, Given, Loaded string
}

func (e *LoadMismatchError) Error() string {
	return fmt.Sprintf("%s %s differs from what init (of %s) loaded into database %q, %s %s: give %s %s, or reload with `stampede init %s --drop %s %s`",
		e.Flag, e.Given, e.Workload, e.Database, e.Flag, e.Loaded, e.Flag, e.Loaded, e.Workload, e.Flag, e.Given)
}

// ReconcileLoad compares gen's data settings with what init recorded in
// db: a setting the command line gave with another value is a
// *LoadMismatchError; one it did not give takes the loaded value, and
// notes say so ("using --rows 10, as loaded"). Without a record (data
// loaded by an older stampede or another tool) it checks nothing.
func ReconcileLoad(ctx context.Context, db *sqlx.DB, gen Generator) (notes []string, err error) {
	ds, ok := gen.(DataSpecer)
	if !ok || db.Null() {
		return nil, nil
	}
	if exists, err := TableExists(ctx, db, LoadRecordTable); err != nil || !exists {
		return nil, err
	}
	d := db.Dialect()
	var workload, raw string
	err = db.QueryRow(ctx, "SELECT workload, settings FROM "+d.QuoteIdent(LoadRecordTable)+" WHERE data = "+d.Placeholder(1), ds.DataKey()).
		Scan(&workload, &raw)
	if errors.Is(err, sqlx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading what init loaded (%s): %w", LoadRecordTable, err)
	}
	var loaded map[string]string
	if err := json.Unmarshal([]byte(raw), &loaded); err != nil {
		return nil, fmt.Errorf("%s holds a malformed record of %s: %w", LoadRecordTable, ds.DataKey(), err)
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
			return nil, &LoadMismatchError{Workload: workload, Database: db.Database(), Flag: s.Flag, Given: s.Value, Loaded: v}
		}
		if err := s.Set(v); err != nil {
			return nil, fmt.Errorf("adopting %s %s from the load: %w", s.Flag, v, err)
		}
		notes = append(notes, fmt.Sprintf("%s %s", s.Flag, v))
	}
	if len(notes) > 0 {
		slices.Sort(notes)
		notes = []string{fmt.Sprintf("using %s, as init (of %s) loaded database %q", strings.Join(notes, ", "), workload, db.Database())}
	}
	return notes, nil
}
