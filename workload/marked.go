package workload

import (
	"context"
	"fmt"
	"slices"
	"strings"

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
// leave behind. Apart, renamed are those whose name no load of the flags
// their mark names uses (markRenamed): a table the user renamed to keep
// it (ALTER TABLE bank RENAME TO bank_keep), which is the user's now. None
// on other databases than PostgreSQL.
func InitMarkedTables(ctx context.Context, db *sqlx.DB, gen Generator, known []string) (extra, renamed []string, err error) {
	if db.Null() || db.Dialect().Name() != "postgres" {
		return nil, nil, nil
	}
	rows, err := db.Query(ctx, markedVisibleQuery)
	if err != nil {
		return nil, nil, fmt.Errorf("looking for tables with the mark of stampede's init of %s: %w", gen.Meta().Name, err)
	}
	defer rows.Close()
	for rows.Next() {
		var name, comment string
		if err := rows.Scan(&name, &comment); err != nil {
			return nil, nil, err
		}
		switch {
		case !HasInitMark(comment, gen) || slices.Contains(known, name):
		case markRenamed(name, comment, gen):
			renamed = append(renamed, name)
		default:
			extra = append(extra, name)
		}
	}
	return extra, renamed, rows.Err()
}

// markRenamed reports whether name, a table carrying comment, the mark
// of gen's init, is a name that the load of the data flags the mark
// names (InitTableMark) does not use (renamedTable): another --profile's
// or --tables' table is that load's, a name no flags give is the user's.
// A mark without flags (an older stampede's) is judged by gen's flags.
func markRenamed(name, comment string, gen Generator) bool {
	if tn, ok := gen.(TableNamer); ok && tn.UsesTableName(name) {
		return false
	}
	if flags, ok := markFlags(comment); ok {
		if g, err := FromFlags(gen.Meta(), strings.Fields(flags)...); err == nil {
			return renamedTable(name, g)
		}
	}
	return renamedTable(name, gen)
}

// TableNamer is implemented by a Generator whose tables' names depend on
// a flag that the mark of its tables does not name (TPC-C's --profile):
// UsesTableName reports whether name is one of its tables under some
// flags, so that a cleanup with other flags drops it rather than keep it
// as renamed (markRenamed).
type TableNamer interface {
	UsesTableName(name string) bool
}
