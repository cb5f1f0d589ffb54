package sysbench

import (
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/stampede-bench/stampede/workload"
)

// opKind is an operation type: the transaction (one sysbench event) or a
// statement inside it.
type opKind uint8

// The operation kinds, in the order their names appear in QueryLoad.Ops
// (each workload lists only those it uses).
const (
	kTransaction opKind = iota
	kPointSelect
	kSimpleRange
	kSumRange
	kOrderRange
	kDistinctRange
	kRandomPoints
	kRandomRanges
	kIndexUpdate
	kNonIndexUpdate
	kDelete
	kInsert
	kBegin
	kCommit
	// The writes that changed no row (an UPDATE or DELETE of an id that
	// is gone), which sysbench's pgsql driver counts as "other" queries:
	// it counts a statement that returns no rows as a write when the
	// server says it affected some, else as other.
	kIndexUpdateNone
	kNonIndexUpdateNone
	kDeleteNone
	numKinds
)

// noRows is, for each write kind, the kind of its executions that
// changed no row; 0 for the others.
var noRows = [numKinds]opKind{
	kIndexUpdate:    kIndexUpdateNone,
	kNonIndexUpdate: kNonIndexUpdateNone,
	kDelete:         kDeleteNone,
}

// kindNames are the operation names, indexed by kind.
var kindNames = [numKinds]string{
	kTransaction:    "transaction",
	kPointSelect:    "point_select",
	kSimpleRange:    "simple_range",
	kSumRange:       "sum_range",
	kOrderRange:     "order_range",
	kDistinctRange:  "distinct_range",
	kRandomPoints:   "random_points",
	kRandomRanges:   "random_ranges",
	kIndexUpdate:    "index_update",
	kNonIndexUpdate: "non_index_update",
	kDelete:         "delete",
	kInsert:         "insert",
	kBegin:          "begin",
	kCommit:         "commit",

	kIndexUpdateNone:    "index_update/no_rows",
	kNonIndexUpdateNone: "non_index_update/no_rows",
	kDeleteNone:         "delete/no_rows",
}

// kindClasses are the operation classes, indexed by kind, as sysbench's
// pgsql driver counts queries: a statement that returns rows (SELECT) is
// a read, one that affects rows a write (UPDATE, DELETE, INSERT), any
// other other (BEGIN, COMMIT, and an UPDATE or DELETE that found no row).
var kindClasses = [numKinds]workload.OpClass{
	kTransaction:    workload.ClassTransaction,
	kPointSelect:    workload.ClassRead,
	kSimpleRange:    workload.ClassRead,
	kSumRange:       workload.ClassRead,
	kOrderRange:     workload.ClassRead,
	kDistinctRange:  workload.ClassRead,
	kRandomPoints:   workload.ClassRead,
	kRandomRanges:   workload.ClassRead,
	kIndexUpdate:    workload.ClassWrite,
	kNonIndexUpdate: workload.ClassWrite,
	kDelete:         workload.ClassWrite,
	kInsert:         workload.ClassWrite,
	kBegin:          workload.ClassOther,
	kCommit:         workload.ClassOther,

	kIndexUpdateNone:    workload.ClassOther,
	kNonIndexUpdateNone: workload.ClassOther,
	kDeleteNone:         workload.ClassOther,
}

// opLayout is a workload's list of operations: the kinds it uses, in
// kind order, and each kind's index in that list.
type opLayout struct {
	names   []string
	classes []workload.OpClass
	// index[k] is kind k's index in names, or -1 when the workload does
	// not use it. The transaction is always index 0.
	index [numKinds]int
}

// newOpLayout returns the layout of the kinds used[k] marks (the
// transaction is always included, and with each write kind the kind of
// its executions that changed no row).
func newOpLayout(used [numKinds]bool) opLayout {
	var l opLayout
	used[kTransaction] = true
	for k, none := range noRows {
		if none != 0 && used[k] {
			used[none] = true
		}
	}
	for k := range numKinds {
		l.index[k] = -1
		if used[k] {
			l.index[k] = len(l.names)
			l.names = append(l.names, kindNames[k])
			l.classes = append(l.classes, kindClasses[k])
		}
	}
	return l
}

// intArg is an integer bind parameter that a worker reuses: it is boxed
// once, as a pointer, and set in place, so binding it allocates nothing.
// pgx encodes it through pgtype.Int64Valuer, into INTEGER parameters with
// a range check.
type intArg struct{ v int64 }

var _ pgtype.Int64Valuer = (*intArg)(nil)

// Int64Value implements pgtype.Int64Valuer.
func (a *intArg) Int64Value() (pgtype.Int8, error) { return pgtype.Int8{Int64: a.v, Valid: true}, nil }

// column is a scan destination that copies a text column's value into a
// buffer it reuses, so reading rows allocates nothing once the buffer has
// grown. It implements pgtype.BytesScanner.
type column struct{ b []byte }

var _ pgtype.BytesScanner = (*column)(nil)

// ScanBytes implements pgtype.BytesScanner.
func (c *column) ScanBytes(v []byte) error {
	c.b = append(c.b[:0], v...)
	return nil
}

// intDest is a scan destination for an integer column (or SUM, count),
// NULL included. It implements pgtype.Int64Scanner.
type intDest struct {
	v     int64
	valid bool
}

var _ pgtype.Int64Scanner = (*intDest)(nil)

// ScanInt64 implements pgtype.Int64Scanner.
func (d *intDest) ScanInt64(v pgtype.Int8) error {
	d.v, d.valid = v.Int64, v.Valid
	return nil
}

// nopRecorder is the Recorder of a worker that was not attached to one.
type nopRecorder struct{}

func (nopRecorder) Record(int, time.Duration) {}
func (nopRecorder) RecordError(int, error)    {}
