package store

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// createTable reads a CREATE TABLE statement of the store's schema: the
// table's name and its column definitions, one a line.
var createTable = regexp.MustCompile(`(?s)^CREATE TABLE IF NOT EXISTS (\w+) \((.*)\)$`)

// storeTables returns the tables of the store's schema, each with its
// columns, read from the schema's own CREATE TABLE statements.
func storeTables() map[string][]string {
	out := map[string][]string{}
	for _, stmt := range schema {
		m := createTable.FindStringSubmatch(strings.TrimSpace(stmt))
		if m == nil {
			continue
		}
		var cols []string
		for _, line := range strings.Split(m[2], "\n") {
			f := strings.Fields(line)
			if len(f) == 0 || f[0] == "PRIMARY" {
				continue
			}
			cols = append(cols, f[0])
		}
		out[m[1]] = cols
	}
	return out
}

// refuseForeignTables refuses a store whose database holds a table of
// one of the store's names that lacks columns the store's has: a table
// of someone else's (a user's own stampede_runs), which the store would
// neither read nor write, and which stampede must not alter. Nothing is
// created or written before it. pg says the database is PostgreSQL's (or
// CockroachDB's), else SQLite's.
func refuseForeignTables(ctx context.Context, db *sql.DB, pg bool, name string) error {
	q := `SELECT name FROM pragma_table_info(?)`
	if pg {
		q = `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1`
	}
	tables := storeTables()
	names := make([]string, 0, len(tables))
	for t := range tables {
		names = append(names, t)
	}
	slices.Sort(names)
	for _, t := range names {
		rows, err := db.QueryContext(ctx, q, t)
		if err != nil {
			return fmt.Errorf("cannot read the columns of %s in the results store %s: %w", t, name, err)
		}
		have := map[string]bool{}
		for rows.Next() {
			var c string
			if err := rows.Scan(&c); err != nil {
				rows.Close()
				return err
			}
			have[strings.ToLower(c)] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(have) == 0 { // no such table: the store creates it
			continue
		}
		var missing []string
		for _, c := range tables[t] {
			if !have[c] {
				missing = append(missing, c)
			}
		}
		if len(missing) > 0 {
			lacks := "column " + strings.Join(missing, ", ")
			if len(missing) > 3 {
				lacks = fmt.Sprintf("%d of the store's %d columns, %s, ...", len(missing), len(tables[t]), strings.Join(missing[:3], ", "))
			}
			return badURLError{fmt.Errorf("the results store %s holds a table %s that is not stampede's store (it lacks %s): stampede neither writes into it nor alters it; give --results-url a database or file of its own, or rename that table", name, t, lacks)}
		}
	}
	return nil
}
