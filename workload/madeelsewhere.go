package workload

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/sqlx"
)

// madeElsewhereQuery finds a table whose row type carries a mark of
// stampede's (an init's, a run's, the pgbench form's, a fleet's) bound to
// the table's own OID but made in another database than the current one
// (dialect.RowTypeMarkSep): CREATE DATABASE ... TEMPLATE copies comments
// and OIDs, so the copy's tables carry their source's marks, which still
// match their OIDs, while the database OID in them is the source's. It
// returns that database's OID, the current database's name, the table,
// and whether a run made it; a run's table first, as before.
var madeElsewhereQuery = `SELECT m[2], current_database(), c.oid::regclass::text, obj_description(c.reltype, 'pg_type') LIKE '` + Mark + ` run of %'
	FROM pg_class c, ` + rowTypeMark + `
	WHERE c.relkind IN ('r', 'p') AND ` + madeInAnother + `
	ORDER BY 4 DESC, c.oid LIMIT 1`

// rowTypeMark matches the mark on the row type of pg_class row c as m:
// m[1] the table OID it is bound to, m[2] the database OID it was made
// in (dialect.RowTypeMarkSep); madeInAnother holds for a mark bound to
// c's own OID and made in another database than the current one.
const (
	rowTypeMark = `regexp_match(obj_description(c.reltype, 'pg_type'),
		'^` + Mark + ` .*; oid ([0-9]+)` + dialect.RowTypeMarkSep + `([0-9]+)$') AS m`
	madeInAnother = `c.reltype <> 0 AND m[1] = c.oid::text AND m[2] <> ` + currentDatabaseOID
)

// ownTenantDatabaseQuery says whether the current database carries a
// fleet's tenant mark bound to its own OID: a database-mode fleet's
// clone, whose tables' marks name the tenant it was cloned from.
var ownTenantDatabaseQuery = "SELECT coalesce(" + dialect.OwnComment(dialect.Postgres{}, currentDatabaseOID+"::oid", "pg_database") +
	" LIKE '" + TenantMarkPrefix + "%', false)"

// madeElsewhere fills e (SourceOID, Database, Table, MadeBy) from a table
// of db whose mark names another database (madeElsewhereQuery), and
// reports whether there is one. A database-mode fleet's tenant, which
// carries its own tenant mark, is no copy: its tables were cloned from
// the first tenant's. The check needs no record of a load: a copy whose
// record (or marker) the user dropped is still a copy.
func madeElsewhere(ctx context.Context, db *sqlx.DB, e *CopiedDatabaseError) (bool, error) {
	if db.Dialect().Name() != "postgres" {
		return false, nil
	}
	var tenant bool
	if err := db.QueryRow(ctx, ownTenantDatabaseQuery).Scan(&tenant); err != nil {
		return false, fmt.Errorf("reading the comment of database %s: %w", db.Database(), err)
	}
	if tenant {
		return false, nil
	}
	var run bool
	err := db.QueryRow(ctx, madeElsewhereQuery).Scan(&e.SourceOID, &e.Database, &e.Table, &run)
	if errors.Is(err, sqlx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("reading the marks of the tables stampede made: %w", err)
	}
	if !run {
		e.MadeBy = "stampede"
	}
	return true, nil
}

// madeBy says who made e.Table: a run of stampede's unless MadeBy says.
func (e *CopiedDatabaseError) madeBy() string {
	if e.MadeBy != "" {
		return e.MadeBy
	}
	return "a run of stampede's"
}

// rowTypeMarked reports whether table name's row type carries a mark of
// stampede's bound to the table's OID (made in any database), as every
// table stampede makes on PostgreSQL does; true on other databases,
// which keep no such mark.
func rowTypeMarked(ctx context.Context, db *sqlx.DB, name string) (bool, error) {
	if db.Null() || db.Dialect().Name() != "postgres" {
		return true, nil
	}
	var ok bool
	err := db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_class c, `+rowTypeMark+` WHERE c.oid = to_regclass($1) AND c.reltype <> 0 AND m[1] = c.oid::text)`,
		db.Dialect().QuoteIdent(name)).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("reading the mark of table %s's row type: %w", name, err)
	}
	return ok, nil
}

// TableMadeIn returns the OID of the database that the mark on table
// name's row type (dialect.RowTypeMarkSep) says it was made in, when the
// mark is bound to the table's own OID and that database is not the
// current one; "" otherwise (made here, no such mark, not PostgreSQL).
// It tells a copy's table whose comment the user replaced from a table
// stampede never marked.
func TableMadeIn(ctx context.Context, db *sqlx.DB, name string) (string, error) {
	if db.Null() || db.Dialect().Name() != "postgres" {
		return "", nil
	}
	var made *string
	err := db.QueryRow(ctx, `SELECT m[2] FROM pg_class c, `+rowTypeMark+` WHERE c.oid = to_regclass($1) AND `+madeInAnother,
		db.Dialect().QuoteIdent(name)).Scan(&made)
	if errors.Is(err, sqlx.ErrNoRows) || err == nil && made == nil {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading the mark of table %s: %w", name, err)
	}
	return strings.TrimSpace(*made), nil
}

// copiedByDatabase returns table name as a CopiedTable when its row type
// carries stampede's mark bound to its OID and made in another database
// (TableMadeIn): the comment on the table (the user's, replacing the
// mark) says nothing, the row type says the table is a copy's.
func copiedByDatabase(ctx context.Context, db *sqlx.DB, name string) (CopiedTable, bool, error) {
	made, err := TableMadeIn(ctx, db, name)
	if err != nil || made == "" {
		return CopiedTable{}, false, err
	}
	c := CopiedTable{Name: name, MadeIn: made}
	err = db.QueryRow(ctx, "SELECT to_regclass($1)::oid::text, coalesce((SELECT datname::text FROM pg_database WHERE oid::text = $2), '')",
		db.Dialect().QuoteIdent(name), made).Scan(&c.OID, &c.MadeInName)
	if err != nil {
		return CopiedTable{}, false, fmt.Errorf("reading the database table %s was made in: %w", name, err)
	}
	c.MarkOID = c.OID
	return c, true, nil
}

// madeInWhy says why a table whose row type's mark names another
// database (CopiedTable.MadeIn) is not stampede's.
func madeInWhy(c CopiedTable) string {
	src := fmt.Sprintf("database %q", c.MadeInName)
	if c.MadeInName == "" {
		src = "a database (OID " + c.MadeIn + ") that no longer exists"
	}
	return fmt.Sprintf("a copy of a table stampede made in %s: this database looks like a copy of it made with CREATE DATABASE ... TEMPLATE (the mark stampede keeps on the table's row type names that database), which stampede did not make", src)
}

// copiedLoad returns the *CopiedDatabaseError of db when a table of its
// carries a mark naming another database (madeElsewhere), nil otherwise:
// marked tables without a record there are a copy's, not an interrupted
// init's.
func copiedLoad(ctx context.Context, db *sqlx.DB) (*CopiedDatabaseError, error) {
	var e CopiedDatabaseError
	if found, err := madeElsewhere(ctx, db, &e); err != nil || !found {
		return nil, err
	}
	err := db.QueryRow(ctx, "SELECT coalesce((SELECT datname::text FROM pg_database WHERE oid::text = $1), '')", e.SourceOID).Scan(&e.Source)
	if err != nil {
		return nil, fmt.Errorf("reading the database table %s was made in: %w", e.Table, err)
	}
	return &e, nil
}

// copyError is UnfinishedLoadError's message for a copy (Copy): run and
// check need the record the copy lost; loading anew drops the copy's
// rows, which only ForceDropFlag does.
func (e *UnfinishedLoadError) copyError() string {
	cmd := "stampede init " + e.Workload + " " + ForceDropFlag
	if e.Flags != "" {
		cmd += " " + e.Flags
	}
	return fmt.Sprintf("%s, and holds no record of its load (%s): run and check need it; work on the database it was copied from, or to replace the copy's tables and their rows with a new load, `%s`",
		e.Copy.what(), LoadRecordTable, cmd)
}
