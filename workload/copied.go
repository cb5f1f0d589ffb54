package workload

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/internal/lazyre"
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

// clusterColumn is the column of init's record that holds the system
// identifier of the server (cluster) the record was written in
// (pg_control_system()): a new cluster gives its first database and
// tables the same OIDs as every other new cluster's, so a pg_dump of a
// loaded database restored into a new server matches the database OID
// and every bound mark, but not this. "" where the server has no such
// function, and in records of older stampedes: they bind nothing.
const clusterColumn = "cluster_id"

// clusterID returns the server's system identifier as text, or "" when it
// cannot say (no pg_control_system: not PostgreSQL, or a fork without
// it). It runs outside any transaction, as a failure is not an error.
func clusterID(ctx context.Context, db *sqlx.DB) string {
	if db.Null() || db.Dialect().Name() != "postgres" {
		return ""
	}
	var id string
	if err := db.QueryRow(ctx, "SELECT system_identifier::text FROM pg_catalog.pg_control_system()").Scan(&id); err != nil {
		return ""
	}
	return id
}

// bindRecord binds the record of data key (in tx) to the current
// database (databaseOIDColumn) and server (clusterColumn, cluster), which
// recordLoad added to a record table of an older stampede.
func bindRecord(ctx context.Context, db *sqlx.DB, tx sqlx.Tx, key, cluster string) error {
	d := db.Dialect()
	t := d.QuoteIdent(LoadRecordTable)
	if _, err := tx.Exec(ctx, "UPDATE "+t+" SET "+databaseOIDColumn+" = "+currentDatabaseOID+", "+clusterColumn+" = "+d.Placeholder(2)+" WHERE data = "+d.Placeholder(1), key, cluster); err != nil {
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
	// Tenant says the database holds the marker of a fleet's tenant
	// (TenantMarkerTable, database mode) but not the tenant mark stampede
	// binds to each tenant database it makes: a copy of a tenant, which
	// holds no record of its own.
	Tenant bool
	// Table, when set, is a table a run made (bulk_insert's) whose mark
	// names the database it was made in: no record of a load says the
	// database was copied, the table's mark does.
	Table string
	// MadeBy says who made Table ("a run of stampede's" when empty;
	// "stampede" for an init's table of a copy whose record was dropped).
	MadeBy string
	// Empties names the table Action would empty rather than drop
	// (--vacuum-first's pgbench_history): the refusal and the note say
	// so.
	Empties string
	// OtherCluster, when set, is the system identifier of the server the
	// record was written in (clusterColumn), not this one: a restore of a
	// pg_dump made elsewhere.
	OtherCluster string
}

func (e *CopiedDatabaseError) Error() string {
	if e.Empties != "" {
		return fmt.Sprintf("%s would empty table %s of %s: nothing was emptied; to empty it anyway, add %s", e.Action, e.Empties, e.Copy(), ForceDropFlag)
	}
	return fmt.Sprintf("%s: %s drops nothing; to drop its tables anyway, add %s", e.what(), e.Action, ForceDropFlag)
}

// Copy says which database looks like a copy of which, read after
// "of": `database "c", which looks like a copy of ...`.
func (e *CopiedDatabaseError) Copy() string {
	return strings.Replace(e.what(), " looks like", ", which looks like", 1)
}

// what says which database looks like a copy of which.
func (e *CopiedDatabaseError) what() string {
	if e.Tenant {
		return fmt.Sprintf("database %q, a copy of a fleet's tenant made with CREATE DATABASE ... TEMPLATE (it holds the tenant's marker, %s, but not the tenant mark stampede binds to each tenant database it makes), which stampede did not make", e.Database, TenantMarkerTable)
	}
	if e.OtherCluster != "" {
		return fmt.Sprintf("database %q looks like a restore of a pg_dump made on another server (stampede's record of its load, %s, was written on the server whose system identifier is %s), which stampede did not make", e.Database, LoadRecordTable, e.OtherCluster)
	}
	src := fmt.Sprintf("database %q", e.Source)
	if e.Source == "" {
		src = "a database (OID " + e.SourceOID + ") that no longer exists"
	}
	if e.Table != "" {
		return fmt.Sprintf("database %q looks like a copy of %s made with CREATE DATABASE ... TEMPLATE (table %s, which %s made, was made there), which stampede did not make", e.Database, src, e.Table, e.madeBy())
	}
	return fmt.Sprintf("database %q looks like a copy of %s made with CREATE DATABASE ... TEMPLATE or a restore of its pg_dump (stampede's record of its load, %s, was written there), which stampede did not make", e.Database, src, LoadRecordTable)
}

// Is makes errors.Is(err, ErrForeign) true.
func (e *CopiedDatabaseError) Is(target error) bool { return target == ErrForeign }

// ExitCode is 2: bad input, as every refusal of what stampede did not
// make.
func (e *CopiedDatabaseError) ExitCode() int { return 2 }

// Note is the line ForceDropFlag says before it drops a copy's tables
// (or empties the table Empties names).
func (e *CopiedDatabaseError) Note() string {
	if e.Empties != "" {
		return ForceDropFlag + ": emptying table " + e.Empties + " of " + e.Copy()
	}
	return ForceDropFlag + ": dropping the tables of " + e.Copy()
}

// RefuseCopiedDatabase returns a *CopiedDatabaseError (by action:
// "cleanup", "--drop") when db's init record was written in another
// database (databaseOIDColumn), or when db holds a fleet tenant's marker
// without the tenant mark bound to db itself (copiedTenant); nil when the
// record was written here, or by an older stampede that bound nothing,
// or without a record or marker.
func RefuseCopiedDatabase(ctx context.Context, db *sqlx.DB, action string) error {
	if db.Null() {
		return nil
	}
	if copied, name, err := copiedTenant(ctx, db); err != nil || copied {
		if err != nil {
			return err
		}
		return &CopiedDatabaseError{Database: name, Action: action, Tenant: true}
	}
	var e CopiedDatabaseError
	if exists, err := recordExists(ctx, db); err != nil {
		return err
	} else if exists {
		cols, err := tableColumns(ctx, db, LoadRecordTable)
		if err != nil {
			return fmt.Errorf("reading the columns of %s: %w", LoadRecordTable, err)
		}
		if _, ok := cols[clusterColumn]; ok {
			if here := clusterID(ctx, db); here != "" {
				err = db.QueryRow(ctx, "SELECT "+clusterColumn+", current_database() FROM "+db.Dialect().QuoteIdent(LoadRecordTable)+
					" WHERE "+clusterColumn+" <> '' AND "+clusterColumn+" <> "+db.Dialect().Placeholder(1)+" LIMIT 1", here).Scan(&e.OtherCluster, &e.Database)
				switch {
				case err == nil:
					e.Action = action
					return &e
				case !errors.Is(err, sqlx.ErrNoRows):
					return fmt.Errorf("reading what init loaded (%s): %w", LoadRecordTable, err)
				}
			}
		}
		if _, ok := cols[databaseOIDColumn]; ok {
			err = db.QueryRow(ctx, "SELECT "+databaseOIDColumn+", current_database() FROM "+db.Dialect().QuoteIdent(LoadRecordTable)+
				" WHERE "+databaseOIDColumn+" <> '' AND "+databaseOIDColumn+" IS DISTINCT FROM "+currentDatabaseOID+" LIMIT 1").Scan(&e.SourceOID, &e.Database)
			if err != nil && !errors.Is(err, sqlx.ErrNoRows) {
				return fmt.Errorf("reading what init loaded (%s): %w", LoadRecordTable, err)
			}
		}
	}
	if e.SourceOID == "" {
		// No record says so: a table stampede made names the database
		// it was made in on its row type (dialect.RowTypeMarkSep), a
		// run's (bulk_insert's sbtestN, which no record lists) and an
		// init's whose record the copy's user dropped alike.
		if found, err := madeElsewhere(ctx, db, &e); err != nil || !found {
			return err
		}
	}
	err := db.QueryRow(ctx, "SELECT datname FROM pg_database WHERE oid::text = "+db.Dialect().Placeholder(1), e.SourceOID).Scan(&e.Source)
	if err != nil && !errors.Is(err, sqlx.ErrNoRows) {
		return fmt.Errorf("reading the database of %s's record: %w", LoadRecordTable, err)
	}
	e.Action = action
	return &e
}

// TenantMarkPrefix begins the mark a fleet binds to each tenant database
// or schema it makes, followed by the fleet's workload.
const TenantMarkPrefix = Mark + " fleet tenant of "

// copiedTenant reports whether db (named name) holds stampede's marker of
// a database-mode tenant (TenantMarkerTable, in the current schema, with
// no tenant column: not column mode's shared marker) but not the tenant
// mark bound to db's own OID. CREATE DATABASE ... TEMPLATE of a tenant
// copies the marker with its OID, and so its mark, but not the
// database's comment: the copy is the user's. The tenants of a fleet are
// such clones too, each marked once made (fleet's markDatabase).
func copiedTenant(ctx context.Context, db *sqlx.DB) (copied bool, name string, err error) {
	d := db.Dialect()
	if d.Name() != "postgres" {
		return false, "", nil
	}
	var column bool
	err = db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_attribute WHERE attrelid = to_regclass(`+d.Placeholder(1)+`)
		AND attname = '`+TenantColumn+`' AND attnum > 0 AND NOT attisdropped)`, d.QuoteIdent(TenantMarkerTable)).Scan(&column)
	if err != nil {
		return false, "", fmt.Errorf("reading the columns of %s: %w", TenantMarkerTable, err)
	}
	if column {
		return false, "", nil
	}
	if _, ok, err := TenantMarkerWorkloads(ctx, db, "", TenantMarkerTable); err != nil || !ok {
		return false, "", err
	}
	var own *string
	err = db.QueryRow(ctx, "SELECT current_database(), "+dialect.OwnComment(d, "(SELECT oid FROM pg_database WHERE datname = current_database())", "pg_database")).Scan(&name, &own)
	if err != nil {
		return false, "", fmt.Errorf("reading the comment of database %s: %w", db.Database(), err)
	}
	return own == nil || !strings.HasPrefix(*own, TenantMarkPrefix), name, nil
}

// CopiedTable is a table whose comment is stampede's mark bound to
// another table's OID (dialect.MarkOIDSep): a copy of a table stampede
// made (pg_dump -t restored elsewhere, CREATE TABLE ... LIKE ...
// INCLUDING COMMENTS), which stampede did not make.
type CopiedTable struct {
	// Name is the table's name, OID its own OID, MarkOID the OID its
	// mark is bound to (the table it was copied from).
	Name, OID, MarkOID string
	// Source is the table of MarkOID in this database ("" when there is
	// none: it was copied from another database, or since dropped).
	Source string
	// MadeIn, when set, is the OID of the database that the mark on the
	// table's row type names (another than this one: the database is a
	// copy made with CREATE DATABASE ... TEMPLATE), for a table whose
	// comment the user replaced; MadeInName is that database's name.
	MadeIn, MadeInName string
}

// CopiedTables returns those of names (tables, resolved through the
// search path) whose comment is stampede's mark bound to another OID
// than their own. None on other databases than PostgreSQL.
func CopiedTables(ctx context.Context, db *sqlx.DB, names []string) ([]CopiedTable, error) {
	if db.Null() || db.Dialect().Name() != "postgres" {
		return nil, nil
	}
	var out []CopiedTable
	for _, n := range names {
		c := CopiedTable{Name: n}
		var source *string
		err := db.QueryRow(ctx, `SELECT c.oid::text, substring(obj_description(c.oid, 'pg_class') from '; oid ([0-9]+)$'),
			(SELECT s.oid::regclass::text FROM pg_class s WHERE s.oid::text = substring(obj_description(c.oid, 'pg_class') from '; oid ([0-9]+)$'))
			FROM pg_class c WHERE c.oid = to_regclass($1) AND obj_description(c.oid, 'pg_class') ~ '^`+Mark+` .*; oid [0-9]+$'`,
			db.Dialect().QuoteIdent(n)).Scan(&c.OID, &c.MarkOID, &source)
		if errors.Is(err, sqlx.ErrNoRows) {
			// No mark on the table: its row type's may name another
			// database (copiedByDatabase).
			if c, ok, err := copiedByDatabase(ctx, db, n); err != nil {
				return nil, err
			} else if ok {
				out = append(out, c)
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading the mark of table %s: %w", n, err)
		}
		if c.OID == c.MarkOID {
			continue
		}
		if source != nil {
			c.Source = *source
		}
		out = append(out, c)
	}
	return out, nil
}

// copiedWhy says why a copied table is not stampede's.
func copiedWhy(c CopiedTable) string {
	if c.MadeIn != "" {
		return madeInWhy(c)
	}
	if c.Source != "" {
		return fmt.Sprintf("a copy of table %s, which stampede made in this database: it carries that table's mark, bound to OID %s, not to its own OID %s", c.Source, c.MarkOID, c.OID)
	}
	return fmt.Sprintf("a copy of a table stampede made in another database (a restore of its pg_dump, say): it carries the mark bound to that table's OID, %s, not to its own, %s", c.MarkOID, c.OID)
}

// MarkerCopiedFrom returns the OID of the database that the mark of the
// fleet marker marker (a table, as SQL writes it) names
// (dialect.DatabaseOIDTag) when that is not the current database: the
// database is a copy of a schema- or column-mode fleet's, made with
// CREATE DATABASE ... TEMPLATE, which stampede did not make. It is ""
// when the mark names the current database, or names none (a fleet of
// an older stampede, database mode's marker, no marker).
func MarkerCopiedFrom(ctx context.Context, db *sqlx.DB, marker string) (string, error) {
	d := db.Dialect()
	if db.Null() || d.Name() != "postgres" {
		return "", nil
	}
	var made, here *string
	err := db.QueryRow(ctx, "SELECT substring("+dialect.OwnComment(d, "to_regclass($1)", "pg_class")+" from '"+dialect.DatabaseOIDTag+"([0-9]+)$'), "+
		currentDatabaseOID, marker).Scan(&made, &here)
	if err != nil {
		return "", fmt.Errorf("reading the mark of table %s: %w", marker, err)
	}
	if made == nil || here == nil || *made == *here {
		return "", nil
	}
	return *made, nil
}

// recreateAdvice begins RecreateHint's advice.
const recreateAdvice = "use --drop to recreate it"

// dropHint finds a command that a message suggests and that drops
// stampede's tables: a reload (`stampede init W ... --drop ...`) or a
// cleanup (`stampede cleanup W ...`), in backticks.
var dropHint = lazyre.New("`stampede (?:init [a-z_]+ [^`]*--drop\\b|cleanup [a-z_]+)[^`]*`")

// CopyHint returns err with ForceDropFlag added to each command its
// message suggests that drops stampede's tables (a reload with --drop, a
// cleanup: dropHint) when db is a copy of a database stampede loaded
// (RefuseCopiedDatabase), whose tables those commands refuse to drop
// without it: the suggestion is then one that runs; the message says
// why it takes the flag. Any other err, or one on a database that is no
// copy, is returned as it is; the result matches what err matched.
func CopyHint(ctx context.Context, db *sqlx.DB, err error) error {
	if db == nil || db.Null() || !SuggestsDrop(err) && (err == nil || !strings.Contains(err.Error(), recreateAdvice)) {
		return err
	}
	var copied *CopiedDatabaseError
	if cerr := RefuseCopiedDatabase(ctx, db, "--drop"); !errors.As(cerr, &copied) {
		return err
	}
	msg := dropHint().ReplaceAllStringFunc(err.Error(), func(m string) string {
		if strings.Contains(m, ForceDropFlag) {
			return m
		}
		return "`" + strings.Trim(m, "`") + " " + ForceDropFlag + "`"
	})
	// The plain advice too (RecreateHint's): --drop alone is refused
	// on the copy.
	msg = strings.Replace(msg, recreateAdvice, "use --drop "+ForceDropFlag+" to recreate it", 1)
	return &copyHintError{msg: fmt.Sprintf("%s (with %s: %s)", msg, ForceDropFlag, copied.what()), err: err}
}

// SuggestsDrop reports whether err's message suggests a command that
// drops stampede's tables (see CopyHint).
func SuggestsDrop(err error) bool {
	return err != nil && dropHint().MatchString(err.Error())
}

// copyHintError is CopyHint's error: err's message with its suggestions
// completed.
type copyHintError struct {
	msg string
	err error
}

func (e *copyHintError) Error() string { return e.msg }

// Unwrap returns the error whose suggestions it completed.
func (e *copyHintError) Unwrap() error { return e.err }
