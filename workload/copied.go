package workload

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/stampede-bench/stampede/sqlx"
)

// databaseOIDColumn is the column of init's record that holds the OID of
// the database the record was written in. CREATE DATABASE ... TEMPLATE
// copies the record (and every table's OID, so the tables' bound marks
// still match): a record whose database OID is not the current
// database's was copied, and what it records is the copy's maker's, not
// stampede's. Records of older stampedes have it empty: they bind nothing.
const databaseOIDColumn = "database_oid"

// currentDatabaseOID is an SQL expression: the current database's OID as
// text.
const currentDatabaseOID = "(SELECT oid::text FROM pg_database WHERE datname = current_database())"

// bindRecord binds the record of data key (in tx) to the current
// database (databaseOIDColumn), adding the column to a record table of an
// older stampede.
func bindRecord(ctx context.Context, db *sqlx.DB, tx sqlx.Tx, key string) error {
	d := db.Dialect()
	t := d.QuoteIdent(LoadRecordTable)
	if _, err := tx.Exec(ctx, "ALTER TABLE "+t+" ADD COLUMN IF NOT EXISTS "+databaseOIDColumn+" TEXT NOT NULL DEFAULT ''"); err != nil {
		return fmt.Errorf("recording the load in %s: %w", LoadRecordTable, err)
	}
	if _, err := tx.Exec(ctx, "UPDATE "+t+" SET "+databaseOIDColumn+" = "+currentDatabaseOID+" WHERE data = "+d.Placeholder(1), key); err != nil {
		return fmt.Errorf("recording the load in %s: %w", LoadRecordTable, err)
	}
	return nil
}

// CopiedDatabaseError refuses to drop tables of a database whose init
// record was written in another database: a copy a user made with
// CREATE DATABASE ... TEMPLATE (a snapshot, perhaps edited), which
// stampede did not make. It matches ErrForeign and exits as bad input.
type CopiedDatabaseError struct {
	// Database is the current database's name, Source the name of the
	// database the record was written in ("" when it no longer exists),
	// SourceOID that database's OID, Action what would have dropped.
	Database, Source, SourceOID, Action string
}

func (e *CopiedDatabaseError) Error() string {
	return fmt.Sprintf("%s: %s drops nothing; to drop its tables anyway, add %s", e.what(), e.Action, ForceDropFlag)
}

// what says which database looks like a copy of which.
func (e *CopiedDatabaseError) what() string {
	src := fmt.Sprintf("database %q", e.Source)
	if e.Source == "" {
		src = "a database (OID " + e.SourceOID + ") that no longer exists"
	}
	return fmt.Sprintf("database %q looks like a copy of %s made with CREATE DATABASE ... TEMPLATE (stampede's record of its load, %s, was written there), which stampede did not make", e.Database, src, LoadRecordTable)
}

// Is makes errors.Is(err, ErrForeign) true.
func (e *CopiedDatabaseError) Is(target error) bool { return target == ErrForeign }

// ExitCode is 2: bad input, as every refusal of what stampede did not
// make.
func (e *CopiedDatabaseError) ExitCode() int { return 2 }

// Note is the line ForceDropFlag says before it drops a copy's tables.
func (e *CopiedDatabaseError) Note() string {
	return ForceDropFlag + ": dropping the tables of " + strings.Replace(e.what(), " looks like", ", which looks like", 1)
}

// RefuseCopiedDatabase returns a *CopiedDatabaseError (by action:
// "cleanup", "--drop") when db's init record was written in another
// database (databaseOIDColumn), nil when it was written here, or by an
// older stampede that bound nothing, or without a record.
func RefuseCopiedDatabase(ctx context.Context, db *sqlx.DB, action string) error {
	if db.Null() {
		return nil
	}
	if exists, err := recordExists(ctx, db); err != nil || !exists {
		return err
	}
	cols, err := tableColumns(ctx, db, LoadRecordTable)
	if err != nil {
		return fmt.Errorf("reading the columns of %s: %w", LoadRecordTable, err)
	}
	if _, ok := cols[databaseOIDColumn]; !ok {
		return nil
	}
	var e CopiedDatabaseError
	err = db.QueryRow(ctx, "SELECT "+databaseOIDColumn+", current_database() FROM "+db.Dialect().QuoteIdent(LoadRecordTable)+
		" WHERE "+databaseOIDColumn+" <> '' AND "+databaseOIDColumn+" IS DISTINCT FROM "+currentDatabaseOID+" LIMIT 1").Scan(&e.SourceOID, &e.Database)
	if errors.Is(err, sqlx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading what init loaded (%s): %w", LoadRecordTable, err)
	}
	err = db.QueryRow(ctx, "SELECT datname FROM pg_database WHERE oid::text = "+db.Dialect().Placeholder(1), e.SourceOID).Scan(&e.Source)
	if err != nil && !errors.Is(err, sqlx.ErrNoRows) {
		return fmt.Errorf("reading the database of %s's record: %w", LoadRecordTable, err)
	}
	e.Action = action
	return &e
}
