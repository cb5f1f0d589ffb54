package churn

import (
	"context"
	"fmt"
	"github.com/stampede-bench/stampede/dialect"
	"github.com/stampede-bench/stampede/internal/lazyre"
	"slices"
	"strings"

	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// bookRow is one live table's bookkeeping.
type bookRow struct {
	name        string
	rows, bytes int64
}

// check verifies, in one REPEATABLE READ snapshot, that every live table
// of the bookkeeping exists and holds the rows and bytes inserted into it
// (count(*), and the sum of octet_length(column::text) over its
// columns, the values' text as churn counted it), and that every table
// that carries churn's mark is in the bookkeeping.
func (g *churn) check(ctx context.Context, db *sqlx.DB, rep workload.Reporter) error {
	if db.Null() {
		rep.Printf("churn: skipped (null driver)")
		return nil
	}
	exists, err := workload.TableExists(ctx, db, bookTable)
	if err != nil {
		return err
	}
	if !exists {
		return &inputError{err: fmt.Errorf("table %s, churn's bookkeeping, does not exist in database %q: run `stampede init churn` first", bookTable, db.Database())}
	}
	if err := g.checkBook(ctx, db); err != nil {
		return err
	}
	tx, err := db.Begin(ctx, sqlx.TxOptions{Isolation: sqlx.RepeatableRead, ReadOnly: true})
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	// The values' text as churn wrote them: ISO dates.
	if _, err := tx.Exec(ctx, "SET LOCAL DateStyle = 'ISO, MDY'"); err != nil {
		return err
	}
	book, err := readBook(ctx, tx)
	if err != nil {
		return err
	}
	var bad []string
	var rows, bytes int64
	for _, b := range book {
		cols, err := columnsOf(ctx, tx, db, b.name)
		if err != nil {
			return err
		}
		if len(cols) == 0 {
			bad = append(bad, fmt.Sprintf("%s: in %s but missing from the database", b.name, bookTable))
			continue
		}
		sum := make([]string, len(cols))
		for i, c := range cols {
			sum[i] = "coalesce(octet_length(" + db.Dialect().QuoteIdent(c) + "::text), 0)"
		}
		var n, nb int64
		q := "SELECT count(*), coalesce(sum(" + strings.Join(sum, " + ") + "), 0) FROM " + db.Dialect().QuoteIdent(b.name)
		if err := tx.QueryRow(ctx, q).Scan(&n, &nb); err != nil {
			return fmt.Errorf("counting the rows of %s: %w", b.name, err)
		}
		if n != b.rows || nb != b.bytes {
			bad = append(bad, fmt.Sprintf("%s holds %d rows of %d bytes, %s says %d rows of %d bytes were inserted", b.name, n, nb, bookTable, b.rows, b.bytes))
		}
		rows += n
		bytes += nb
	}
	marked, err := madeTablesIn(ctx, tx, db)
	if err != nil {
		return err
	}
	for _, t := range marked {
		if !slices.ContainsFunc(book, func(b bookRow) bool { return b.name == t }) {
			bad = append(bad, fmt.Sprintf("%s carries churn's mark but is not alive in %s", t, bookTable))
		}
	}
	if len(bad) > 0 {
		for _, b := range bad {
			rep.Printf("churn: FAIL %s", b)
		}
		return fmt.Errorf("churn: %d of %d live tables differ from what was inserted (first: %s)", len(bad), len(book), bad[0])
	}
	rep.Printf("churn: %d live tables hold the %d rows (%d bytes of values) inserted into them, as %s says", len(book), rows, bytes, bookTable)
	return nil
}

// readBook returns the live tables' bookkeeping, by name.
func readBook(ctx context.Context, q sqlx.Querier) ([]bookRow, error) {
	rows, err := q.Query(ctx, "SELECT name, rows, bytes FROM "+bookTable+" WHERE dropped_at IS NULL ORDER BY name")
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", bookTable, err)
	}
	defer rows.Close()
	var out []bookRow
	for rows.Next() {
		var b bookRow
		if err := rows.Scan(&b.name, &b.rows, &b.bytes); err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// columnsOf returns table's columns in the current schema, in order
// (none when it does not exist).
func columnsOf(ctx context.Context, q sqlx.Querier, db *sqlx.DB, table string) ([]string, error) {
	rows, err := q.Query(ctx, "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = "+
		db.Dialect().Placeholder(1)+" ORDER BY ordinal_position", table)
	if err != nil {
		return nil, fmt.Errorf("reading the columns of %s: %w", table, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// madeTablesIn is madeTables through q.
func madeTablesIn(ctx context.Context, q sqlx.Querier, db *sqlx.DB) ([]string, error) {
	return markedTablesIn(ctx, q, db, true)
}

// markedTablesIn lists the tables of db carrying churn's run mark whose
// name is churn's (churnName), or, with churns false, whose name is not.
func markedTablesIn(ctx context.Context, q sqlx.Querier, db *sqlx.DB, churns bool) ([]string, error) {
	rows, err := q.Query(ctx, madeTablesQuery(db), workload.RunMark(churnMeta.Name))
	if err != nil {
		return nil, fmt.Errorf("listing churn's tables: %w", err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		if churnName().MatchString(n) == churns {
			names = append(names, n)
		}
	}
	return names, rows.Err()
}

// churnName matches the names churn's runs give their tables (tableName:
// churn_W_N, churn_cI_W_N). A table of churn's mark under another name is
// one the user renamed to keep: it is theirs now, and nothing of churn's
// drops or counts it (as other workloads keep a renamed table).
var churnName = lazyre.New(`^churn_(c[0-9]+_)?[0-9]+_[0-9]+$`)

// madeTablesQuery lists the tables of the current schema whose comment is
// the one placeholder, churn's run mark.
func madeTablesQuery(db *sqlx.DB) string {
	return "SELECT c.relname FROM pg_class c WHERE c.relkind IN ('r', 'p') AND c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema()) " +
		"AND " + dialect.OwnComment(db.Dialect(), "c.oid", "pg_class") + " = " + db.Dialect().Placeholder(1) + " ORDER BY c.relname"
}

// checkBook refuses a table named churn_tables that lacks columns of
// churn's bookkeeping (a user's own table of that name), before check
// reads it. Its columns are checked, not its mark: a fleet's tenant
// schemas, cloned from the first, carry no comment.
func (g *churn) checkBook(ctx context.Context, db *sqlx.DB) error {
	cols, err := workload.TableColumns(ctx, db, bookTable)
	if err != nil {
		return err
	}
	var missing []string
	for _, c := range g.Tables()[0].Columns {
		if _, ok := cols[c]; !ok {
			missing = append(missing, c)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return &inputError{err: fmt.Errorf("table %s in database %q is not churn's bookkeeping (it has no column %s): it is not stampede's, and churn neither reads nor writes it; give churn a database of its own (and run init churn there first), or rename your table",
		bookTable, db.Database(), strings.Join(missing, ", "))}
}
