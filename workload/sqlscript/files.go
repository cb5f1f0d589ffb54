package sqlscript

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/pgscript"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// runInitFile is init's load: it runs --init-file and marks the tables
// the file created as stampede's, so that cleanup drops them and only them.
func (g *gen) runInitFile(ctx context.Context, db *sqlx.DB) error {
	if g.initFile == "" {
		return sqlx.ConfigErrorf("init sql runs your init file: give --init-file FILE (SQL, and COPY ... FROM STDIN with its rows)")
	}
	src, err := readFile(g.initFile, "--init-file")
	if err != nil {
		return sqlx.ConfigErrorf("%v", err)
	}
	steps, err := pgscript.ParseInit(g.initFile, src)
	if err != nil {
		return sqlx.ConfigErrorf("%v", err)
	}
	if db.Null() {
		return nil
	}
	before, err := tables(ctx, db)
	if err != nil {
		return err
	}
	conn := db.Conn(0, true)
	defer conn.Release()
	q, ok := conn.(sqlx.ScriptQuerier)
	if !ok {
		return fmt.Errorf("init sql: the connection cannot run scripts")
	}
	if g.loaded, err = pgscript.RunInit(ctx, q, g.initFile, steps); err != nil {
		if sqlx.SQLState(err) == "42P07" {
			return sqlx.ConfigErrorf("%v: `stampede init sql --drop` drops the tables an earlier init made, and `stampede cleanup sql` drops them alone", err)
		}
		return err
	}
	after, err := tables(ctx, db)
	if err != nil {
		return err
	}
	mark := workload.InitMark(g)
	for name := range after {
		if _, ok := before[name]; ok {
			continue
		}
		if err := workload.MarkTable(ctx, db, name, mark); err != nil {
			return err
		}
	}
	return nil
}

// LoadScript implements workload.ScriptLoader.
func (g *gen) LoadScript() string { return g.initFile }

// LoadedRows implements workload.ScriptLoader.
func (g *gen) LoadedRows() int64 { return g.loaded }

// tables returns the tables of the current schema and their comments.
func tables(ctx context.Context, db *sqlx.DB) (map[string]string, error) {
	var schema string
	if err := db.QueryRow(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		return nil, fmt.Errorf("reading the current schema: %w", err)
	}
	rows, err := db.Query(ctx, dialect.UserTablesQuery(db.Dialect()))
	if err != nil {
		return nil, fmt.Errorf("listing tables: %w", err)
	}
	defer rows.Close()
	out := make(map[string]string)
	for rows.Next() {
		var s, t string
		var c *string
		if err := rows.Scan(&s, &t, &c); err != nil {
			return nil, err
		}
		if s != schema {
			continue
		}
		out[t] = ""
		if c != nil {
			out[t] = *c
		}
	}
	return out, rows.Err()
}

// madeTables lists the tables init sql created (they carry its mark), for
// cleanup.
func (g *gen) madeTables(ctx context.Context, db *sqlx.DB) ([]string, error) {
	all, err := tables(ctx, db)
	if err != nil {
		return nil, err
	}
	prefix := workload.Mark + " init of " + meta.Name + " "
	var out []string
	for name, comment := range all {
		if strings.HasPrefix(comment, prefix) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out, nil
}

// check runs --check-file: every query must return one row whose first
// column is true.
func (g *gen) check(ctx context.Context, db *sqlx.DB, r workload.Reporter) error {
	if g.checkFile == "" {
		return sqlx.ConfigErrorf("check sql runs your checks: give --check-file FILE, queries that each return true")
	}
	src, err := readFile(g.checkFile, "--check-file")
	if err != nil {
		return sqlx.ConfigErrorf("%v", err)
	}
	steps, err := pgscript.ParseInit(g.checkFile, src)
	if err != nil {
		return sqlx.ConfigErrorf("%v", err)
	}
	conn := db.Conn(0, true)
	defer conn.Release()
	q, ok := conn.(sqlx.ScriptQuerier)
	if !ok {
		return fmt.Errorf("check sql: the connection cannot run scripts")
	}
	failed := 0
	for _, s := range steps {
		name := checkName(g.checkFile, s)
		if s.Copy {
			return sqlx.ConfigErrorf("%s:%d: a check file holds queries, not COPY", g.checkFile, s.Line)
		}
		var got []string
		rows := 0
		_, err := q.QueryScript(ctx, sqlx.Simple, s.SQL, nil, func(_ int, _ []pgconn.FieldDescription, values [][]byte) {
			rows++
			if rows == 1 && len(values) > 0 {
				if values[0] == nil {
					got = append(got, "NULL")
				} else {
					got = append(got, string(values[0]))
				}
			}
		})
		switch {
		case err != nil:
			return fmt.Errorf("%s:%d: %w", g.checkFile, s.Line, err)
		case rows == 1 && len(got) == 1 && (got[0] == "t" || got[0] == "true"):
			r.Printf("PASS %s\n", name)
		case rows != 1:
			failed++
			r.Printf("FAIL %s: returned %d rows, not one\n", name, rows)
		default:
			failed++
			r.Printf("FAIL %s: returned %s, not true\n", name, strings.Join(got, ", "))
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d checks failed", failed, len(steps))
	}
	return nil
}

// checkName names a check: its `-- name:`, else FILE:LINE and its first line.
func checkName(file string, s pgscript.InitStep) string {
	if s.Name != "" {
		return s.Name
	}
	first, _, _ := strings.Cut(s.SQL, "\n")
	if len(first) > 70 {
		first = first[:67] + "..."
	}
	return fmt.Sprintf("%s:%d %s", file, s.Line, first)
}

// pgbenchTables does what pgbench does with its tables before a run: a
// built-in script's :scale is the count of pgbench_branches (a --scale
// that differs is said and ignored, as pgbench does), and with
// --vacuum-first the small tables are vacuumed and pgbench_history
// emptied (only when stampede made it; else it is said and kept).
func (g *gen) pgbenchTables(ctx context.Context, db *sqlx.DB, warn func(string, ...any)) error {
	if db.Null() {
		return nil
	}
	builtin := false
	for _, s := range g.scripts {
		if s.Builtin {
			builtin = true
		}
	}
	if builtin {
		var n int64
		if err := db.QueryRow(ctx, "SELECT count(*) FROM pgbench_branches").Scan(&n); err != nil {
			if sqlx.SQLState(err) == "42P01" {
				return sqlx.ConfigErrorf("the built-in scripts use pgbench's tables, and database %q has no pgbench_branches: load them with `stampede init pgbench --scale N` (or pgbench -i)", db.Database())
			}
			return fmt.Errorf("counting pgbench_branches for the scale: %w", err)
		}
		if n == 0 {
			return sqlx.ConfigErrorf("pgbench_branches in database %q is empty, so the scale would be 0: reload it with `stampede init pgbench --scale N`", db.Database())
		}
		if g.scale != n && g.flags.Changed("scale") && warn != nil {
			warn("--scale %d ignored: the built-in scripts use the count of pgbench_branches (%d), as pgbench does", g.scale, n)
		}
		g.scale = n
	}
	if !g.vacuum {
		return nil
	}
	tables := []string{"pgbench_branches", "pgbench_tellers"}
	if g.vacAll {
		tables = append(tables, "pgbench_accounts", "pgbench_history") // pgbench -v
	}
	for _, t := range tables {
		_, _ = db.Exec(ctx, "VACUUM "+t) // pgbench ignores these errors and goes on
	}
	if ok, err := workload.TableExists(ctx, db, "pgbench_history"); err != nil || !ok {
		return nil // no such table: nothing to empty
	}
	c, err := workload.TableComment(ctx, db, "pgbench_history")
	switch {
	case err != nil:
		return nil
	case workload.IsMark(c):
		if _, err := db.Exec(ctx, "TRUNCATE pgbench_history"); err != nil {
			return fmt.Errorf("emptying pgbench_history: %w", err)
		}
	case warn != nil:
		warn("pgbench_history was not made by stampede: kept as it is (pgbench would empty it; empty it yourself, or run with -n)")
	}
	return nil
}
