package workload

import (
	"context"
	"fmt"
	"slices"

	"github.com/stampede-bench/stampede/sqlx"
)

// markedVisibleQuery lists the tables the search path finds by their
// bare names (pg_table_is_visible), with their comments as stampede reads
// its marks (a mark bound to another OID reads as NULL), shorter names
// first (sbtest2 before sbtest10).
var markedVisibleQuery = `SELECT c.relname, ` + ownClassComment("c.oid") + `
FROM pg_class c
WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition AND pg_table_is_visible(c.oid)
	AND c.relnamespace NOT IN (SELECT oid FROM pg_namespace WHERE nspname IN ('pg_catalog', 'information_schema'))
	AND ` + ownClassComment("c.oid") + ` IS NOT NULL
ORDER BY length(c.relname), c.relname`

// InitMarkedTables returns the tables the search path finds, other than
// known, that carry the mark of stampede's init of gen's data bound to
// their OIDs (HasInitMark): tables of a load that its flags do not name
// now, such as sbtest2..sbtest4 of an init of --tables 4 killed before it
// recorded its load, which a cleanup of the default --tables 1 would
// leave behind. None on other databases than PostgreSQL.
func InitMarkedTables(ctx context.Context, db *sqlx.DB, gen Generator, known []string) ([]string, error) {
	if db.Null() || db.Dialect().Name() != "postgres" {
		return nil, nil
	}
	rows, err := db.Query(ctx, markedVisibleQuery)
	if err != nil {
		return nil, fmt.Errorf("looking for tables with the mark of stampede's init of %s: %w", gen.Meta().Name, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name, comment string
		if err := rows.Scan(&name, &comment); err != nil {
			return nil, err
		}
		if HasInitMark(comment, gen) && !slices.Contains(known, name) {
			out = append(out, name)
		}
	}
	return out, rows.Err()
}
