package churn

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/stampede-bench/stampede/dialect"
)

// kind is what a column holds: its SQL type and the fake values that fill
// it (see filler.value).
type kind uint8

// The kinds of columns. kSeq is the table's own counter (1, 2, ...) and
// kUUIDKey a UUID drawn for each row, primary keys' columns; the others
// are drawn at random.
const (
	kSeq kind = iota
	kUUIDKey
	kBigint
	kInt
	kSmallint
	kNumeric
	kName
	kEmail
	kPhone
	kStreet
	kCity
	kCompany
	kSentence
	kParagraph
	kTimestamp
	kDate
	kBool
	kUUID
	numKinds
)

// kindInfo is the SQL type and a short label of each kind.
var kindInfo = [numKinds]struct {
	sql   string
	label string
}{
	kSeq:       {"bigint", "seq"},
	kUUIDKey:   {"uuid", "uuidkey"},
	kBigint:    {"bigint", "bigint"},
	kInt:       {"integer", "int"},
	kSmallint:  {"smallint", "smallint"},
	kNumeric:   {"numeric(12,2)", "numeric"},
	kName:      {"varchar(200)", "name"},
	kEmail:     {"varchar(200)", "email"},
	kPhone:     {"varchar(40)", "phone"},
	kStreet:    {"text", "street"},
	kCity:      {"varchar(100)", "city"},
	kCompany:   {"varchar(200)", "company"},
	kSentence:  {"text", "sentence"},
	kParagraph: {"text", "paragraph"},
	kTimestamp: {"timestamp", "timestamp"},
	kDate:      {"date", "date"},
	kBool:      {"boolean", "bool"},
	kUUID:      {"uuid", "uuid"},
}

// randomKind draws a column's kind (never a key's: kSeq, kUUIDKey).
func randomKind(r *rand.Rand) kind { return kBigint + kind(r.IntN(int(numKinds-kBigint))) }

// indexable reports whether a column of kind k may be in a secondary
// index (free text is not: a paragraph may outgrow a B-tree entry).
func (k kind) indexable() bool { return k != kParagraph && k != kSentence && k != kStreet }

// column is one column of a table.
type column struct {
	name string
	kind kind
}

// shape is a table's layout: what its CREATE TABLE and later ALTERs
// made of it.
type shape struct {
	name    string
	columns []column
	// pk holds the primary key's column indexes (none under DISTRIBUTED
	// RANDOMLY, which Greenplum refuses with a primary key).
	pk []int
	// indexes holds each secondary index's column indexes, in the order
	// they were made; nIndex numbers the next one's name.
	indexes [][]int
	nIndex  int
	// opts are the storage and distribution options (Greenplum's).
	opts dialect.TableOptions
	// seq is the next value of the kSeq column (1 first).
	seq int64
	// created is the shape's number among its worker's tables, from 0.
	created int
}

// sizes bounds what shapes and inserts are drawn from (the flags).
type sizes struct {
	cols, rows, indexes [2]int // inclusive ranges
	appendOpt, distrib  string // the Greenplum modes (see the flags)
	greenplum           bool   // the server is Greenplum: options apply
}

// drawIn draws an int uniform in [lo, hi].
func drawIn(r *rand.Rand, b [2]int) int { return b[0] + r.IntN(b[1]-b[0]+1) }

// newShape draws a table's shape from r: sz.cols columns of random kinds
// (c1, c2, ...), a primary key (a counter column, a UUID column, or a
// counter with another column), sz.indexes secondary indexes of one or
// two indexable columns, and on Greenplum the storage and distribution
// options. Everything is drawn from r in a fixed order, so the same
// stream gives the same shapes.
func newShape(r *rand.Rand, name string, sz sizes) *shape {
	n := drawIn(r, sz.cols)
	s := &shape{name: name, seq: 1}
	for i := range n {
		s.columns = append(s.columns, column{name: "c" + strconv.Itoa(i+1), kind: randomKind(r)})
	}
	// The primary key: its first column at a random place.
	at := r.IntN(n)
	switch pk := r.IntN(3); {
	case pk == 0:
		s.columns[at].kind = kSeq
		s.pk = []int{at}
	case pk == 1:
		s.columns[at].kind = kUUIDKey
		s.pk = []int{at}
	default:
		s.columns[at].kind = kSeq
		s.pk = []int{at}
		if n > 1 {
			other := r.IntN(n - 1)
			if other >= at {
				other++
			}
			if s.columns[other].kind.indexable() {
				s.pk = append(s.pk, other)
			}
		}
	}
	for range drawIn(r, sz.indexes) {
		s.addIndex(r)
	}
	if sz.greenplum {
		s.opts = drawOptions(r, sz, s.pk)
		if s.opts.DistributedRandomly {
			s.pk = nil
		}
	}
	return s
}

// drawOptions draws the Greenplum options of a table whose primary key
// is pk: appendoptimized true or false (--appendoptimized), distributed
// by a non-empty part of the primary key, the whole key, or randomly
// (--distributed-by).
func drawOptions(r *rand.Rand, sz sizes, pk []int) dialect.TableOptions {
	var o dialect.TableOptions
	ao := r.IntN(2) == 1 // drawn whatever the mode, so the streams stay aligned
	switch sz.appendOpt {
	case "random", "auto":
		o.AppendOptimized = &ao
	case "true", "false":
		v := sz.appendOpt == "true"
		o.AppendOptimized = &v
	}
	k := 1 + r.IntN(len(pk))
	switch sz.distrib {
	case "random", "auto":
		o.DistributedBy = make([]string, 0, k)
		for _, c := range pk[:k] {
			o.DistributedBy = append(o.DistributedBy, "c"+strconv.Itoa(c+1))
		}
	case "key":
		for _, c := range pk {
			o.DistributedBy = append(o.DistributedBy, "c"+strconv.Itoa(c+1))
		}
	case "randomly":
		o.DistributedRandomly = true
	}
	return o
}

// addIndex adds a secondary index on one or two indexable columns drawn
// from r and returns its column indexes (nil when the table has no
// indexable column).
func (s *shape) addIndex(r *rand.Rand) []int {
	var ok []int
	for i, c := range s.columns {
		if c.kind.indexable() {
			ok = append(ok, i)
		}
	}
	if len(ok) == 0 {
		return nil
	}
	cols := []int{ok[r.IntN(len(ok))]}
	if len(ok) > 1 && r.IntN(2) == 0 {
		second := ok[r.IntN(len(ok))]
		if second != cols[0] {
			cols = append(cols, second)
		}
	}
	s.indexes = append(s.indexes, cols)
	s.nIndex++
	return cols
}

// addColumn adds a column of a random kind, named after the last, and
// returns it.
func (s *shape) addColumn(r *rand.Rand) column {
	c := column{name: "c" + strconv.Itoa(len(s.columns)+1), kind: randomKind(r)}
	s.columns = append(s.columns, c)
	return c
}

// String describes the shape in one line, for tests and messages:
// name(c1 seq, c2 email, ...) pk(c1) idx(c3,c2) ao=true dist(c1).
func (s *shape) String() string {
	var b strings.Builder
	b.WriteString(s.name + "(")
	for i, c := range s.columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.name + " " + kindInfo[c.kind].label)
	}
	b.WriteString(") pk(" + s.colList(s.pk, false) + ")")
	for _, ix := range s.indexes {
		b.WriteString(" idx(" + s.colList(ix, false) + ")")
	}
	if s.opts.AppendOptimized != nil {
		fmt.Fprintf(&b, " ao=%t", *s.opts.AppendOptimized)
	}
	if len(s.opts.DistributedBy) > 0 {
		b.WriteString(" dist(" + strings.Join(s.opts.DistributedBy, ",") + ")")
	}
	if s.opts.DistributedRandomly {
		b.WriteString(" dist(randomly)")
	}
	return b.String()
}

// colList returns the names of the columns cols, comma-separated, quoted
// as identifiers when quote is set.
func (s *shape) colList(cols []int, quote bool) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = s.columns[c].name
		if quote {
			names[i] = `"` + names[i] + `"`
		}
	}
	return strings.Join(names, ", ")
}

// createSQL returns the statements that create the table: CREATE TABLE
// with its columns, primary key and options, then each secondary index.
func (s *shape) createSQL(d dialect.Dialect) ([]string, error) {
	var b strings.Builder
	b.WriteString("(")
	for i, c := range s.columns {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(d.QuoteIdent(c.name) + " " + kindInfo[c.kind].sql)
		if c.kind == kSeq || c.kind == kUUIDKey {
			b.WriteString(" NOT NULL")
		}
	}
	if len(s.pk) > 0 {
		b.WriteString(", PRIMARY KEY (" + s.colList(s.pk, true) + ")")
	}
	b.WriteString(")")
	create := d.CreateTable(s.name, b.String())
	if !s.opts.Empty() {
		to, ok := d.(dialect.TableOptioner)
		if !ok {
			return nil, fmt.Errorf("%s has no table storage or distribution options (Greenplum's)", d.Name())
		}
		clause, err := to.TableOptionsClause(s.opts)
		if err != nil {
			return nil, err
		}
		create += " " + clause
	}
	out := []string{create}
	for i, ix := range s.indexes {
		out = append(out, s.indexSQL(d, i+1, ix))
	}
	return out, nil
}

// indexSQL returns CREATE INDEX "<table>_i<n>" ON "<table>" (cols).
func (s *shape) indexSQL(d dialect.Dialect, n int, cols []int) string {
	return "CREATE INDEX " + d.QuoteIdent(s.name+"_i"+strconv.Itoa(n)) + " ON " + d.QuoteIdent(s.name) + " (" + s.colList(cols, true) + ")"
}

// addColumnSQL returns ALTER TABLE "<table>" ADD COLUMN "c" type.
func (s *shape) addColumnSQL(d dialect.Dialect, c column) string {
	return "ALTER TABLE " + d.QuoteIdent(s.name) + " ADD COLUMN " + d.QuoteIdent(c.name) + " " + kindInfo[c.kind].sql
}
