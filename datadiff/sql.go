package datadiff

import (
	"strconv"
	"strings"

	"github.com/stampede-bench/stampede/dialect"
)

// key is a primary key value: its columns as their server's text, or nil
// for the end of the key space.
type key []string

// tableSQL builds one side's statements over one table.
type tableSQL struct {
	d     dialect.Differ
	name  string         // quoted
	cols  []string       // quoted, in A's order
	keys  []string       // quoted
	kType []dialect.Type // the key columns' types, for casting bounds
	kIdx  []int          // the key columns' positions in cols
	hash  string         // the row hash expression
	texts []string       // the columns' canonical text expressions
}

// newTableSQL returns side sc's statements for a table whose columns (in
// A's order) are cols and primary key keys; native selects the dialect's
// native row hash.
func newTableSQL(d dialect.Differ, table string, cols, keys []string, sc *schema, native bool) *tableSQL {
	q := d.(dialect.Dialect)
	t := &tableSQL{d: d, name: q.QuoteIdent(table)}
	if nsp, name := splitName(table); nsp != "" {
		t.name = q.QuoteIdent(nsp) + "." + q.QuoteIdent(name)
	}
	types := make([]dialect.Type, len(cols))
	for i, c := range cols {
		t.cols = append(t.cols, q.QuoteIdent(c))
		types[i] = sc.types[c]
		t.texts = append(t.texts, d.CanonicalText(t.cols[i], types[i]))
	}
	for _, k := range keys {
		t.keys = append(t.keys, q.QuoteIdent(k))
		t.kType = append(t.kType, sc.types[k])
		for i, c := range cols {
			if c == k {
				t.kIdx = append(t.kIdx, i)
			}
		}
	}
	if native {
		t.hash, _, _ = d.NativeRowHash(t.cols, types)
	} else {
		t.hash = d.CanonicalRowHash(t.texts)
	}
	return t
}

// param returns the placeholder of args' next value v, cast to the type of
// key column i, and appends v to args. Bounds travel as text, so that a
// key read from one server binds on the other.
func (t *tableSQL) param(args *[]any, v string, i int) string {
	*args = append(*args, v)
	return "CAST(CAST(" + t.d.(dialect.Dialect).Placeholder(len(*args)) + " AS TEXT) AS " + t.kType[i].Full + ")"
}

// bounds are a key range: from lo (included) to hi (excluded, or
// included when incl). A bound may be shorter than the key: lo = (1, 3)
// starts at the first key beginning with (1, 3), hi = (1, 3) ends before
// it (after its last one when incl). nil is the end of the key space.
type bounds struct {
	lo, hi key
	incl   bool
}

// arms returns conditions that together select the keys in b, each
// selecting a disjoint part, and their arguments. Each is the shape a
// B-tree index scans exactly: equalities on leading key columns and a
// range on the next one. A row comparison such as (a, b) >= (1, 5) is not:
// PostgreSQL 15 scans about ten times the rows of a 10,000-row range of
// order lines with one, and a BETWEEN on the first column the bounds do
// not share reads every row of the values between. [(1, 3, 1500, 5),
// (1, 4, 200, 3)) of order_line is five arms: w = 1 AND d > 3 AND d < 4;
// w = 1 AND d = 3 AND o > 1500; w = 1 AND d = 3 AND o = 1500 AND n >= 5;
// w = 1 AND d = 4 AND o < 200; w = 1 AND d = 4 AND o = 200 AND n < 3.
func (t *tableSQL) arms(b bounds) ([]string, []any) {
	lo, hi := b.lo, b.hi
	if len(t.keys) == 0 || lo == nil && hi == nil {
		return []string{"TRUE"}, nil
	}
	var args []any
	var out []string
	hiOp := "<"
	if b.incl {
		hiOp = "<="
	}
	cond := func(eqs []string, i int, op, v string) string {
		return strings.Join(append(append([]string(nil), eqs...), t.keys[i]+" "+op+" "+t.param(&args, v, i)), " AND ")
	}
	eq := func(eqs []string, i int, v string) []string {
		return append(append([]string(nil), eqs...), t.keys[i]+" = "+t.param(&args, v, i))
	}
	// above: keys from column i on, after the equalities eqs, >= lo.
	var above func(eqs []string, i int)
	above = func(eqs []string, i int) {
		if i == len(lo)-1 {
			out = append(out, cond(eqs, i, ">=", lo[i]))
			return
		}
		out = append(out, cond(eqs, i, ">", lo[i]))
		above(eq(eqs, i, lo[i]), i+1)
	}
	// below: keys from column i on, after the equalities eqs, < hi.
	var below func(eqs []string, i int)
	below = func(eqs []string, i int) {
		if i == len(hi)-1 {
			out = append(out, cond(eqs, i, hiOp, hi[i]))
			return
		}
		out = append(out, cond(eqs, i, "<", hi[i]))
		below(eq(eqs, i, hi[i]), i+1)
	}
	switch {
	case lo == nil:
		below(nil, 0)
	case hi == nil:
		above(nil, 0)
	default:
		var eqs []string
		p := 0 // key columns equal in both bounds
		for p < len(lo) && p < len(hi) && lo[p] == hi[p] {
			eqs = eq(eqs, p, lo[p])
			p++
		}
		switch {
		case p == len(hi) && !b.incl: // keys >= lo, which starts with hi, and < hi: none
			return []string{"FALSE"}, nil
		case p == len(hi): // hi included: keys beginning with hi, from lo
			if p == len(lo) {
				out = append(out, strings.Join(eqs, " AND "))
			} else {
				above(eqs, p)
			}
		case p == len(lo): // lo is a prefix of hi: keys beginning with lo, below hi
			below(eqs, p)
		default:
			loEnd, hiEnd := p == len(lo)-1, p == len(hi)-1
			loOp, midHi := ">", "<"
			if loEnd {
				loOp = ">="
			}
			if hiEnd {
				midHi = hiOp
			}
			out = append(out, cond(eqs, p, loOp, lo[p])+" AND "+t.keys[p]+" "+midHi+" "+t.param(&args, hi[p], p))
			if !loEnd {
				above(eq(eqs, p, lo[p]), p+1)
			}
			if !hiEnd {
				below(eq(eqs, p, hi[p]), p+1)
			}
		}
	}
	return out, args
}

// checksum returns the statement counting and hashing the rows in b:
// one row, the count and the sum of the row hashes as text.
func (t *tableSQL) checksum(b bounds) (string, []any) {
	arms, args := t.arms(b)
	if len(arms) == 1 {
		return "SELECT count(*), COALESCE(CAST(sum(" + t.hash + ") AS TEXT), '0') FROM " + t.name + " WHERE " + arms[0], args
	}
	parts := make([]string, len(arms))
	for i, a := range arms {
		parts[i] = "SELECT count(*) AS c, sum(" + t.hash + ") AS s FROM " + t.name + " WHERE " + a
	}
	return "SELECT COALESCE(CAST(sum(c) AS BIGINT), 0), COALESCE(CAST(sum(s) AS TEXT), '0') FROM (" +
		strings.Join(parts, " UNION ALL ") + ") x", args
}

// selectRange returns a query of cols (expressions) over the rows in
// [lo, hi), in no particular order.
func (t *tableSQL) selectRange(cols string, b bounds) (string, []any) {
	arms, args := t.arms(b)
	parts := make([]string, len(arms))
	for i, a := range arms {
		parts[i] = "SELECT " + cols + " FROM " + t.name + " WHERE " + a
	}
	return strings.Join(parts, " UNION ALL "), args
}

// split returns the statement giving, in key order, every every-th key in
// [lo, hi), as text.
func (t *tableSQL) split(b bounds, every int64) (string, []any) {
	keys := strings.Join(t.keys, ", ")
	sub, args := t.selectRange(keys, b)
	return "SELECT " + dialect.KeyTexts(t.keys) + " FROM (SELECT " + keys + ", row_number() OVER (ORDER BY " + keys +
		") AS rn FROM (" + sub + ") r) s WHERE rn % " + strconv.FormatInt(max(every, 1), 10) + " = 0 ORDER BY " + keys, args
}

// rows returns the statement fetching the rows in [lo, hi), every
// column's canonical text.
func (t *tableSQL) rows(b bounds) (string, []any) {
	return t.selectRange(strings.Join(t.texts, ", "), b)
}

// sample returns the statement sampling boundary keys, and which of its
// rows are boundaries (every stride-th).
func (t *tableSQL) sample(rowsPerRange int) (string, int) {
	return t.d.KeySample(t.name, t.keys, t.kType, rowsPerRange)
}
