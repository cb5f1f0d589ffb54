package datadiff

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// compareRows fetches the rows of span sp from both sides and records
// those that differ.
func (df *differ) compareRows(ctx context.Context, lane int, sp span) error {
	t := sp.t
	var got [2]map[string][]*string
	err := df.both(ctx, func(i int) error {
		q, args := t.sql[i].rows(sp.bounds)
		rows, err := df.sides[i].tx(lane).Query(ctx, q, args...)
		if err != nil {
			return fmt.Errorf("reading rows of %s: %w", t.name, err)
		}
		defer rows.Close()
		m := map[string][]*string{}
		for rows.Next() {
			vals := make([]*string, len(t.cols))
			for j, v := range rows.RawValues() {
				if v != nil {
					s := string(v)
					vals[j] = &s
				}
			}
			m[t.keyOf(vals)] = vals
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("reading rows of %s: %w", t.name, err)
		}
		got[i] = m
		return nil
	})
	if err != nil {
		return err
	}
	var diffs []RowDiff
	for k, ra := range got[0] {
		rb, ok := got[1][k]
		if !ok {
			diffs = append(diffs, t.rowDiff(ra, OnlyA, nil))
			continue
		}
		var cols []ColumnDiff
		for j := range t.cols {
			if !sameValue(ra[j], rb[j]) {
				cols = append(cols, ColumnDiff{Column: t.cols[j], A: ra[j], B: rb[j]})
			}
		}
		if len(cols) > 0 {
			diffs = append(diffs, t.rowDiff(ra, Changed, cols))
		}
	}
	for k, rb := range got[1] {
		if _, ok := got[0][k]; !ok {
			diffs = append(diffs, t.rowDiff(rb, OnlyB, nil))
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	t.mu.Lock()
	t.res.DifferingRows += len(diffs)
	t.mu.Unlock()
	df.diffMu.Lock()
	defer df.diffMu.Unlock()
	for _, d := range diffs {
		if len(df.rows) < df.opts.MaxRows {
			df.rows = append(df.rows, d)
		}
	}
	df.found.Add(int64(len(diffs)))
	return nil
}

// sameValue compares two canonical texts, NULL equal to NULL.
func sameValue(a, b *string) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// keyOf returns a row's key as one string.
func (t *table) keyOf(vals []*string) string {
	var sb strings.Builder
	for _, i := range t.sql[0].kIdx {
		if v := vals[i]; v != nil {
			sb.WriteString(strconv.Itoa(len(*v)))
			sb.WriteByte(':')
			sb.WriteString(*v)
		}
		sb.WriteByte('|')
	}
	return sb.String()
}

// rowDiff describes a differing row.
func (t *table) rowDiff(vals []*string, kind string, cols []ColumnDiff) RowDiff {
	d := RowDiff{Table: t.name, Kind: kind, Columns: cols}
	for _, i := range t.sql[0].kIdx {
		d.Key = append(d.Key, Value{Column: t.cols[i], Value: vals[i]})
	}
	return d
}
