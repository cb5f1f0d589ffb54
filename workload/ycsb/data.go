package ycsb

import (
	"math/rand/v2"
	"strings"

	"github.com/stampede-bench/stampede/randgen"
	"github.com/stampede-bench/stampede/workload"
)

// keyColumn is the primary key column, as YCSB's JDBC binding names it.
const keyColumn = "ycsb_key"

// loadBatchSize is the number of rows per initial-data batch.
const loadBatchSize = 1000

// columns returns ycsb_key and the field columns.
func (c *config) columns() []string {
	cols := make([]string, 0, 1+c.fieldCount)
	cols = append(cols, keyColumn)
	for i := 0; i < c.fieldCount; i++ {
		cols = append(cols, c.fieldName(i))
	}
	return cols
}

// schema returns the table's column list:
// (ycsb_key VARCHAR(255) PRIMARY KEY, field0 TEXT, ...).
func (c *config) schema() string {
	var b strings.Builder
	b.WriteString("(" + keyColumn + " VARCHAR(255) PRIMARY KEY")
	for i := 0; i < c.fieldCount; i++ {
		b.WriteString(", " + c.fieldName(i) + " TEXT")
	}
	b.WriteString(")")
	return b.String()
}

// table returns the usertable with its initial rows: the key numbers
// [insertstart, insertstart+insertcount), loadBatchSize per batch, in
// order.
func (c *config) table() workload.Table {
	numBatches := (c.insertCount + loadBatchSize - 1) / loadBatchSize
	return workload.Table{
		Name:    c.tableName,
		Schema:  c.schema(),
		Columns: c.columns(),
		InitialRows: workload.BatchedTuples{
			NumBatches: int(numBatches),
			NumRows:    c.insertCount,
			FillBatch:  c.fillBatch,
		},
	}
}

// fillBatch appends batch batchIdx's rows: the key name and fieldcount
// random printable-ASCII values, drawn (lengths directly, bytes through a
// valueSource) from the stream (data seed, batchIdx). It is safe for
// concurrent use.
func (c *config) fillBatch(batchIdx int, rows [][]any) [][]any {
	r := randgen.New(c.dataSeed, uint64(batchIdx))
	vs := newValueSource(r)
	lengths := c.newFieldLengths()
	lo := c.insertStart + int64(batchIdx)*loadBatchSize
	hi := min(lo+loadBatchSize, c.insertStart+c.insertCount)
	lens := make([]int64, c.fieldCount)
	var buf []byte
	var key []byte
	for keynum := lo; keynum < hi; keynum++ {
		row := make([]any, 1+c.fieldCount)
		key = appendKeyName(key[:0], keynum, c.insertOrdered, c.zeroPadding)
		row[0] = string(key)
		var total int64
		for i := range lens {
			lens[i] = lengths.next(r)
			total += lens[i]
		}
		if int64(cap(buf)) < total {
			buf = make([]byte, total)
		}
		buf = buf[:total]
		vs.fill(buf)
		s := string(buf) // one allocation for the row's values
		var off int64
		for i, n := range lens {
			row[1+i] = s[off : off+n]
			off += n
		}
		rows = append(rows, row)
	}
	return rows
}

// fieldLengths draws value lengths per fieldlengthdistribution.
type fieldLengths struct {
	constant int64
	gen      randgen.IntGenerator
}

func (c *config) newFieldLengths() fieldLengths {
	switch c.fieldLengthDist {
	case distUniform:
		return fieldLengths{gen: randgen.NewUniform(c.minFieldLength, c.fieldLength)}
	case distZipfian:
		return fieldLengths{gen: randgen.NewZipfian(c.minFieldLength, c.fieldLength, randgen.ZipfianConstant)}
	}
	return fieldLengths{constant: c.fieldLength}
}

func (f fieldLengths) next(r *rand.Rand) int64 {
	if f.gen == nil {
		return f.constant
	}
	return f.gen.Next(r)
}
