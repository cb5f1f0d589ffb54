package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/stampede-bench/stampede/internal/lazyre"
)

// createTable reads a CREATE TABLE statement of the store's schema: the
// table's name and its column definitions, one a line.
var createTable = lazyre.New(`(?s)^CREATE TABLE IF NOT EXISTS (\w+) \((.*)\)$`)

// storeTables returns the tables of the store's schema, each with its
// columns, read from the schema's own CREATE TABLE statements.
func storeTables() map[string][]string {
	out := map[string][]string{}
	for _, stmt := range schema {
		m := createTable().FindStringSubmatch(strings.TrimSpace(stmt))
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
// CockroachDB's), else SQLite's. It returns the store's tables that the
// database does not hold, sorted.
func refuseForeignTables(ctx context.Context, db *sql.DB, pg bool, name string) (absent []string, err error) {
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
			return nil, fmt.Errorf("cannot read the columns of %s in the results store %s: %w", t, name, err)
		}
		have := map[string]bool{}
		for rows.Next() {
			var c string
			if err := rows.Scan(&c); err != nil {
				rows.Close()
				return nil, err
			}
			have[strings.ToLower(c)] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		if len(have) == 0 { // no such table: the store creates it
			absent = append(absent, t)
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
			return nil, badURLError{fmt.Errorf("the results store %s holds a table %s that is not stampede's store (it lacks %s): stampede neither writes into it nor alters it; give --results-url a database or file of its own, or rename that table", name, t, lacks)}
		}
	}
	return absent, nil
}

// runsTable is the store's table of runs, a row each: a database without
// it holds no results.
const runsTable = "stampede_runs"

// readable refuses, for a reader (OpenReadOnly), which creates nothing, a
// store whose database lacks tables a reader reads (absent, as
// refuseForeignTables found them): without stampede_runs it holds no
// results at all (a database of another use, or a store emptied); a
// PostgreSQL store (pg), whose readers also read the runs' files and
// writers' liveness, needs every table. What a reader would meet is
// PostgreSQL's "relation does not exist"; this says what to do instead.
func readable(absent []string, pg bool, name string) error {
	if slices.Contains(absent, runsTable) {
		return badURLError{fmt.Errorf("the results store %s holds no stampede results (no table %s: not a results store, or one emptied): point --results-url (or $STAMPEDE_RESULTS_URL) at the database your runs were written to, or fill this one: `stampede runs upload DIR`, or a run with --results-url", name, runsTable)}
	}
	if !pg || len(absent) == 0 {
		return nil
	}
	what := "table " + absent[0]
	if len(absent) > 1 {
		what = "tables " + strings.Join(absent, ", ")
	}
	return badURLError{fmt.Errorf("the results store %s lacks %s of a results store (dropped, or the store was made by an older stampede): nothing was read; `stampede runs upload DIR`, or a run with --results-url, makes it again", name, what)}
}
