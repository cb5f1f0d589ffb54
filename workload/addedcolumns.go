package workload

import (
	"context"
	"fmt"
	"github.com/stampede-bench/stampede/dialect"
	"slices"
	"strconv"
	"strings"

	"github.com/stampede-bench/stampede/sqlx"
)

// SchemaColumns returns the column names that a Table.Schema, "(k INT
// PRIMARY KEY, v TEXT, PRIMARY KEY (k)) WITH (...)", defines: the first
// word of each item of its outer parentheses that is not a constraint
// (CONSTRAINT, PRIMARY, UNIQUE, FOREIGN, CHECK, EXCLUDE, LIKE) or a
// CockroachDB column family or index, unquoted.
func SchemaColumns(schema string) []string {
	var out []string
	for _, it := range schemaItems(schema) {
		out = append(out, it[0])
	}
	return out
}

// schemaItems returns the column definitions of a Table.Schema (see
// SchemaColumns), each as its column's name and its whole text.
func schemaItems(schema string) [][2]string {
	start := strings.IndexByte(schema, '(')
	if start < 0 {
		return nil
	}
	var out [][2]string
	depth, quoted, item := 0, false, strings.Builder{}
	flush := func() {
		text := item.String()
		fields := strings.Fields(text)
		item.Reset()
		if len(fields) == 0 {
			return
		}
		switch strings.ToLower(fields[0]) {
		case "constraint", "primary", "unique", "foreign", "check", "exclude", "like", "family", "index", "inverted":
			return
		}
		name := fields[0]
		if uq, err := strconv.Unquote(name); err == nil && strings.HasPrefix(name, `"`) {
			name = uq
		} else {
			name = strings.ToLower(name)
		}
		out = append(out, [2]string{name, text})
	}
	for _, r := range schema[start+1:] {
		switch {
		case r == '"':
			quoted = !quoted
		case quoted:
		case r == '(':
			depth++
		case r == ')' && depth == 0:
			flush()
			return out
		case r == ')':
			depth--
		case r == ',' && depth == 0:
			flush()
			continue
		}
		item.WriteRune(r)
	}
	return out
}

// AddedColumns returns, of tables (the workload's tables that exist in
// db and that stampede made), the columns that gen's init does not create
// (SchemaColumns of its Table.Schema, with the data flags its mark
// records, and with gen's own) and that hold a value, as "TABLE.COLUMN":
// a column a user added to stampede's table and filled, data stampede did
// not make. An empty column, an index, a policy or a comment is not data.
func AddedColumns(ctx context.Context, db *sqlx.DB, gen Generator, tables []string) ([]string, error) {
	return AddedColumnsIn(ctx, db, gen, "", tables)
}

// AddedColumnsIn is AddedColumns of the tables in schema of db (a fleet's
// tenant schema; "" for the current schema), each named
// "SCHEMA.TABLE.COLUMN" when schema is given.
func AddedColumnsIn(ctx context.Context, db *sqlx.DB, gen Generator, schema string, tables []string) ([]string, error) {
	if db.Null() || db.Dialect().Name() != "postgres" || len(tables) == 0 {
		return nil, nil
	}
	expected := map[string][]string{}
	add := func(g Generator) {
		for _, t := range g.Tables() {
			expected[t.Name] = append(append(expected[t.Name], SchemaColumns(t.Schema)...), t.Columns...)
		}
	}
	add(gen)
	var out []string
	d := db.Dialect()
	for _, name := range tables {
		rel, label := d.QuoteIdent(name), name
		if schema != "" {
			rel, label = d.QuoteIdent(schema)+"."+rel, schema+"."+name
		}
		var cp *string
		if err := db.QueryRow(ctx, "SELECT "+dialect.OwnComment(db.Dialect(), "to_regclass($1)", "pg_class"), rel).Scan(&cp); err != nil {
			return nil, fmt.Errorf("reading the comment of table %s: %w", label, err)
		}
		c := ""
		if cp != nil {
			c = *cp
		}
		if flags, ok := markFlags(c); ok && HasInitMark(c, gen) {
			// The flags the load was given (ycsb's -p fieldcount, say)
			// shape its columns, whatever cleanup's are.
			if g, err := FromFlags(gen.Meta(), strings.Fields(flags)...); err == nil {
				add(g)
			}
		}
		want, ok := expected[name]
		if !ok {
			continue
		}
		rows, err := db.Query(ctx, `SELECT attname FROM pg_attribute WHERE attrelid = to_regclass($1) AND attnum > 0 AND NOT attisdropped ORDER BY attnum`, rel)
		if err != nil {
			return nil, fmt.Errorf("listing the columns of table %s: %w", label, err)
		}
		var extra []string
		for rows.Next() {
			var col string
			if err := rows.Scan(&col); err != nil {
				rows.Close()
				return nil, err
			}
			if !slices.Contains(want, col) {
				extra = append(extra, col)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		for _, col := range extra {
			var held bool
			q := "SELECT EXISTS (SELECT 1 FROM " + rel + " WHERE " + d.QuoteIdent(col) + " IS NOT NULL)"
			if err := db.QueryRow(ctx, q).Scan(&held); err != nil {
				return nil, fmt.Errorf("reading column %s of table %s: %w", col, label, err)
			}
			if held {
				out = append(out, label+"."+col)
			}
		}
	}
	return out, nil
}

// AddedColumnsError refuses to drop stampede's tables to which a user
// added columns holding data (AddedColumns).
type AddedColumnsError struct {
	// Columns are "TABLE.COLUMN"; Where is "database \"d\" on h:p";
	// Action what would have dropped them ("cleanup", "--drop").
	Columns []string
	Where   string
	Action  string
}

func (e *AddedColumnsError) Error() string {
	if len(e.Columns) == 1 {
		return fmt.Sprintf("column %s of stampede's table in %s holds data that stampede did not make (a column added since init): %s drops nothing; to drop it with the table anyway, add %s",
			e.Columns[0], e.Where, e.Action, ForceDropFlag)
	}
	return fmt.Sprintf("columns %s of stampede's tables in %s hold data that stampede did not make (columns added since init): %s drops nothing; to drop them with the tables anyway, add %s",
		strings.Join(e.Columns, ", "), e.Where, e.Action, ForceDropFlag)
}

// Is makes errors.Is(err, ErrForeign) true.
func (e *AddedColumnsError) Is(target error) bool { return target == ErrForeign }
