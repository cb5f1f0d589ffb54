package fleet

import (
	"context"
	"fmt"
	"strings"

	"github.com/stampede-bench/stampede/dialect"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// copiedTablesWhy says why a column-mode fleet's shared tables in a
// database they were not made in are not stampede's (columnMarker.
// TablesCopied).
var copiedTablesWhy = fmt.Sprintf("the mark stampede keeps on a shared table's row type names another database: a copy of the fleet's database made with CREATE DATABASE ... TEMPLATE (its %s marker dropped or never there), which stampede did not make", MarkerTable)

// sharedTablesCopied sets m.CopiedFrom, when the marker does not (it is
// gone, or an older stampede's that names no database), to the database
// that the mark on a shared table's row type names, when that is not
// this one (workload.TableMadeIn): the database is a copy of the fleet's,
// whose marker the user dropped. m.TablesCopied then says so.
func sharedTablesCopied(ctx context.Context, db *sqlx.DB, m *columnMarker, existing []string) error {
	if m.CopiedFrom != "" || m.Unbound {
		return nil
	}
	for _, t := range existing {
		made, err := workload.TableMadeIn(ctx, db, t)
		if err != nil {
			return err
		}
		if made != "" {
			m.CopiedFrom, m.TablesCopied = made, true
			return nil
		}
	}
	return nil
}

// schemasInCopy reads, of comments (tenant schemas' marks as
// dialect.OwnComment reads them), those that name the database they were
// made in (dialect.DatabaseOIDTag, dialect.MarkSchemaInDatabase): a mark
// that names the current database is kept without the tag, one that
// names another is removed from comments and its schema returned: a
// tenant schema of a copy of the fleet's database, which stampede did
// not make. Marks of older stampedes, which name no database, stay as
// they are.
func schemasInCopy(ctx context.Context, db *sqlx.DB, comments map[string]string) ([]string, error) {
	var here string
	if err := db.QueryRow(ctx, "SELECT oid::text FROM pg_database WHERE datname = current_database()").Scan(&here); err != nil {
		return nil, fmt.Errorf("reading the current database's OID: %w", err)
	}
	var copied []string
	for name, c := range comments {
		mark, made, ok := strings.Cut(c, dialect.DatabaseOIDTag)
		if !ok || !strings.HasPrefix(mark, tenantMarkPrefix) {
			continue
		}
		if made == here {
			comments[name] = mark
			continue
		}
		delete(comments, name)
		copied = append(copied, name)
	}
	return copied, nil
}
