package datadiff

import (
	"context"
	"fmt"
	"strings"

	"github.com/stampede-bench/stampede/dialect"
)

// schema is a table's columns and primary key on one side.
type schema struct {
	cols  []string
	types map[string]dialect.Type
	keys  []string
}

// splitName splits a table name into its schema ("" when not qualified)
// and name: "tenant_3.orders" is table orders of schema tenant_3.
func splitName(table string) (schema, name string) {
	if i := strings.IndexByte(table, '.'); i > 0 {
		return table[:i], table[i+1:]
	}
	return "", table
}

// readSchema reads table's columns and primary key on side s; nil when
// the table does not exist there.
func (s *side) readSchema(ctx context.Context, table string) (*schema, error) {
	nsp, name := splitName(table)
	rows, err := s.db.Query(ctx, s.d.ColumnsQuery(), nsp, name)
	if err != nil {
		return nil, s.wrap(fmt.Errorf("reading the columns of %s: %w", table, err))
	}
	sc := &schema{types: map[string]dialect.Type{}}
	for rows.Next() {
		var name string
		var t dialect.Type
		if err := rows.Scan(&name, &t.Base, &t.Full); err != nil {
			rows.Close()
			return nil, s.wrap(fmt.Errorf("reading the columns of %s: %w", table, err))
		}
		sc.cols = append(sc.cols, name)
		sc.types[name] = t
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, s.wrap(fmt.Errorf("reading the columns of %s: %w", table, err))
	}
	if len(sc.cols) == 0 {
		return nil, nil
	}
	rows, err = s.db.Query(ctx, s.d.PrimaryKeyQuery(), nsp, name)
	if err != nil {
		return nil, s.wrap(fmt.Errorf("reading the primary key of %s: %w", table, err))
	}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			rows.Close()
			return nil, s.wrap(fmt.Errorf("reading the primary key of %s: %w", table, err))
		}
		sc.keys = append(sc.keys, k)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, s.wrap(fmt.Errorf("reading the primary key of %s: %w", table, err))
	}
	return sc, nil
}

// compareShapes returns how b's shape differs from a's, one phrase per
// difference naming the column, and notes on differences that do not
// change how values compare (integer on one side, bigint on the other).
func compareShapes(a, b *schema) (diffs, notes []string) {
	for _, c := range a.cols {
		tb, ok := b.types[c]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("column %s: only on A", c))
			continue
		}
		ta := a.types[c]
		switch {
		case ta.Family() != tb.Family():
			diffs = append(diffs, fmt.Sprintf("column %s: %s on A, %s on B", c, ta.Full, tb.Full))
		case ta.Family() == "numeric" && ta.Scale() != tb.Scale():
			diffs = append(diffs, fmt.Sprintf("column %s: %s on A, %s on B (another scale)", c, ta.Full, tb.Full))
		case !strings.EqualFold(ta.Full, tb.Full):
			notes = append(notes, fmt.Sprintf("column %s: %s on A, %s on B (compared by value)", c, ta.Full, tb.Full))
		}
	}
	for _, c := range b.cols {
		if _, ok := a.types[c]; !ok {
			diffs = append(diffs, fmt.Sprintf("column %s: only on B", c))
		}
	}
	if len(a.keys) > 0 && len(b.keys) > 0 && strings.Join(a.keys, ",") != strings.Join(b.keys, ",") {
		diffs = append(diffs, fmt.Sprintf("primary key: (%s) on A, (%s) on B", strings.Join(a.keys, ", "), strings.Join(b.keys, ", ")))
	}
	return diffs, notes
}

// sameTypes reports whether every column has the same full type on both
// sides, as a native row hash needs.
func sameTypes(a, b *schema) bool {
	for _, c := range a.cols {
		if !strings.EqualFold(a.types[c].Full, b.types[c].Full) {
			return false
		}
	}
	return true
}

// keyless is a table without a primary key on some side.
func (sc *schema) keyless() bool { return len(sc.keys) == 0 }
