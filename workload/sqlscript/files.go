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
