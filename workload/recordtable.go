package workload

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/sqlx"
)

// RecordMark is the comment stampede puts on its record of the loads
// (LoadRecordTable) when it creates it, bound to the table's OID
// (dialect.CommentOnTable): a table of the name without it, or with
// another comment, is a user's.
const RecordMark = Mark + " init: its record of the loads in this database"

// knownRecordColumns are every column a record table of stampede's has
// had: recordColumns, and those added since (loaded_at, adoptedColumn,
// markedColumn, databaseOIDColumn, clusterColumn).
var knownRecordColumns = append(slices.Clone(recordColumns), loadedAtColumn, adoptedColumn, markedColumn, databaseOIDColumn, clusterColumn)

// loadedAtColumn is the column every record table of stampede's has had
// beside recordColumns, from the first.
const loadedAtColumn = "loaded_at"

// foreignRecord returns a *ForeignRecordError when the table named
// LoadRecordTable in db, whose columns are cols, is not stampede's record:
// it lacks one of recordColumns, or has a column no record of stampede's
// has, or carries a comment other than RecordMark. A record table without
// a comment, with only the record's columns and loadedAtColumn among
// them, is an older stampede's, which marked none (markRecordTable marks
// it when a load is recorded): a user's table of that very shape is not
// told apart.
func foreignRecord(ctx context.Context, db *sqlx.DB, cols map[string]string) error {
	var missing, extra []string
	for _, c := range recordColumns {
		if _, ok := cols[c]; !ok {
			missing = append(missing, c)
		}
	}
	for c := range cols {
		if !slices.Contains(knownRecordColumns, c) {
			extra = append(extra, c)
		}
	}
	slices.Sort(extra)
	switch {
	case len(missing) > 0:
		return &ForeignRecordError{Where: db.Where(), Why: "it has not the columns " + strings.Join(recordColumns, ", ")}
	case len(extra) > 0:
		return &ForeignRecordError{Where: db.Where(), Why: "it has columns stampede's record has not: " + strings.Join(extra, ", ")}
	}
	c, err := recordComment(ctx, db)
	if err != nil {
		return err
	}
	if c != nil && !strings.HasPrefix(*c, RecordMark) {
		return &ForeignRecordError{Where: db.Where(), Why: "it carries a comment, not stampede's mark"}
	}
	if _, ok := cols[loadedAtColumn]; c == nil && !ok {
		return &ForeignRecordError{Where: db.Where(), Why: "it carries neither stampede's mark nor the column " + loadedAtColumn + " that every record of stampede's has"}
	}
	return nil
}

// recordComment returns the comment of the table named LoadRecordTable
// in db, as it is (nil without one); where a comment that is no mark (a
// user's COMMENT ON TABLE) replaced stampede's, the mark stampede keeps
// on the table's row type (dialect.RowTypeMarkSep), when it has one.
//
// The row type's mark is taken bound to the table's OID, in whatever
// database it was made: a copy of the database (CREATE DATABASE ...
// TEMPLATE) holds stampede's record as it was, which tells the copy
// (RefuseCopiedDatabase).
func recordComment(ctx context.Context, db *sqlx.DB) (*string, error) {
	var c, typed, oid *string
	rel := "to_regclass(" + db.Dialect().Placeholder(1) + ")"
	q := "SELECT obj_description(" + rel + ", 'pg_class'), NULL::text, NULL::text"
	if db.Dialect().Name() == "postgres" {
		q = "SELECT obj_description(" + rel + ", 'pg_class'), (SELECT obj_description(reltype, 'pg_type') FROM pg_class WHERE oid = " + rel + " AND reltype <> 0), " + rel + "::oid::text"
	}
	if err := db.QueryRow(ctx, q, db.Dialect().QuoteIdent(LoadRecordTable)).Scan(&c, &typed, &oid); err != nil {
		return nil, fmt.Errorf("reading the comment of %s: %w", LoadRecordTable, err)
	}
	if (c == nil || !IsMark(*c)) && typed != nil && oid != nil {
		if i := strings.LastIndex(*typed, dialect.RowTypeMarkSep); i >= 0 && strings.HasPrefix(*typed, RecordMark) {
			if mark, ok := strings.CutSuffix((*typed)[:i], dialect.MarkOIDSep+*oid); ok {
				return &mark, nil
			}
		}
	}
	return c, nil
}

// markRecordTable puts RecordMark on the record table of db, which
// foreignRecord took for stampede's, when it carries none (made now, or
// by an older stampede).
func markRecordTable(ctx context.Context, db *sqlx.DB) error {
	c, err := recordComment(ctx, db)
	if err != nil || c != nil {
		return err
	}
	if _, err := db.Exec(ctx, dialect.CommentOnTable(db.Dialect(), LoadRecordTable, RecordMark)); err != nil {
		return fmt.Errorf("marking %s as stampede's record: %w", LoadRecordTable, err)
	}
	return nil
}
