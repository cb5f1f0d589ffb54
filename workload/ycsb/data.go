package ycsb

import (
	"math/rand/v2"
	"strings"

	"github.com/stampede-bench/stampede/randgen"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// keyColumn is the primary key column, as YCSB's JDBC binding names it.
const keyColumn = "ycsb_key"

// loadBatchSize is the number of rows per initial-data batch.
const loadBatchSize = 1000

// columns returns the table's columns: tenant_id (with a tenant), ycsb_key
// and the field columns.
func (c *config) columns() []string {
	if c.json {
		return c.jsonColumns()
	}
	if c.tenant != 0 {
		return append([]string{workload.TenantColumn}, c.dataColumns()...)
	}
	return c.dataColumns()
}

// dataColumns returns ycsb_key and the field columns.
func (c *config) dataColumns() []string {
	cols := make([]string, 0, 1+c.fieldCount)
	cols = append(cols, keyColumn)
	for i := 0; i < c.fieldCount; i++ {
		cols = append(cols, c.fieldName(i))
	}
	return cols
}

// schema returns the table's column list:
// (ycsb_key VARCHAR(255) PRIMARY KEY, field0 TEXT, ...), or with a tenant
// (tenant_id INT NOT NULL, ycsb_key VARCHAR(255) NOT NULL, field0 TEXT,
// ..., PRIMARY KEY (tenant_id, ycsb_key)).
func (c *config) schema() string {
	var b strings.Builder
	if c.tenant != 0 {
		b.WriteString("(" + workload.TenantColumn + " INT NOT NULL, " + keyColumn + " VARCHAR(255) NOT NULL")
	} else {
		b.WriteString("(" + keyColumn + " VARCHAR(255) PRIMARY KEY")
	}
	for i := 0; i < c.fieldCount; i++ {
		b.WriteString(", " + c.fieldName(i) + " TEXT")
	}
	if c.tenant != 0 {
		b.WriteString(", PRIMARY KEY (" + workload.TenantColumn + ", " + keyColumn + ")")
	}
	b.WriteString(c.familyClauses() + ")")
	return b.String()
}

// table returns the usertable with its initial rows: the key numbers
// [insertstart, insertstart+insertcount), in order, one batch per block
// of loadBatchSize key numbers they meet (see eachRow).
func (c *config) table() workload.Table {
	numBatches := c.lastBlock() - c.firstBlock() + 1
	return workload.Table{
		Name:    c.tableName,
		Schema:  c.schema(),
		Columns: c.columns(),
		InitialRows: workload.BatchedTuples{
			NumBatches:  int(numBatches),
			NumRows:     c.insertCount,
			FillBatch:   c.fillBatch,
			EncodeBatch: c.encodeBatch,
			// jdbc.batchupdateapi: INSERTs of db.batchsize rows, as
			// YCSB's JDBC binding loads.
			InsertRows: c.batchSize,
		},
	}
}

// firstBlock and lastBlock are the blocks of loadBatchSize key numbers
// (block b holds [b*loadBatchSize, (b+1)*loadBatchSize)) that hold the
// first and the last key loaded.
func (c *config) firstBlock() int64 { return c.insertStart / loadBatchSize }
func (c *config) lastBlock() int64 {
	return (c.insertStart + c.insertCount - 1) / loadBatchSize
}

// eachRow draws batch batchIdx's rows and calls row with each one's key
// name and values: the key name, and fieldcount random printable-ASCII
// values, drawn (lengths directly, bytes through a valueSource) from the
// stream (data seed, block), where block is the batch's block of key
// numbers (see firstBlock). A key's values depend on its number and the
// seed only, so a load split by insertstart and insertcount (or init
// --clients) holds the same rows as one load of every key: a batch that
// starts inside its block draws, and drops, the block's rows before its
// first. The values lie end to end in vals, lens long each; key and vals
// are valid until row returns. It is safe for concurrent use.
func (c *config) eachRow(batchIdx int, row func(key, vals []byte, lens []int64)) {
	block := c.firstBlock() + int64(batchIdx)
	r := randgen.New(c.dataSeed, uint64(block))
	vs := newValueSource(r)
	lengths := c.newFieldLengths()
	lo := max(block*loadBatchSize, c.insertStart)
	hi := min((block+1)*loadBatchSize, c.insertStart+c.insertCount)
	lens := make([]int64, c.fieldCount)
	var buf, key []byte
	for keynum := block * loadBatchSize; keynum < hi; keynum++ {
		var total int64
		for i := range lens {
			lens[i] = lengths.next(r)
			total += lens[i]
		}
		if int64(cap(buf)) < total {
			buf = make([]byte, total)
		}
		// One fill for the whole row: filling each value alone would
		// draw another stream of bytes.
		buf = buf[:total]
		vs.fill(buf)
		if keynum >= lo {
			key = appendKeyName(key[:0], keynum, c.insertOrdered, c.zeroPadding)
			row(key, buf, lens)
		}
	}
}

// fillBatch appends batch batchIdx's rows (see eachRow), led by the
// tenant id when there is one. It is safe for concurrent use.
func (c *config) fillBatch(batchIdx int, rows [][]any) [][]any {
	t := 0 // the number of leading tenant columns
	if c.tenant != 0 {
		t = 1
	}
	c.eachRow(batchIdx, func(key, vals []byte, lens []int64) {
		row := make([]any, t+1+c.fieldCount)
		if t == 1 {
			row[0] = c.tenantArg
		}
		row[t] = string(key)
		s := string(vals) // one allocation for the row's values
		var off int64
		for i, n := range lens {
			row[t+1+i] = s[off : off+n]
			off += n
		}
		rows = append(rows, row)
	})
	return rows
}

// encodeBatch writes batch batchIdx's rows into w: fillBatch's values,
// without an allocation per row. It is safe for concurrent use.
func (c *config) encodeBatch(batchIdx int, w *sqlx.RowWriter) {
	c.eachRow(batchIdx, func(key, vals []byte, lens []int64) {
		w.Row()
		if c.tenant != 0 {
			w.Int(int64(c.tenant))
		}
		w.Bytes(key)
		var off int64
		for _, n := range lens {
			w.Bytes(vals[off : off+n])
			off += n
		}
	})
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
		return fieldLengths{gen: randgen.NewZipfian(c.minFieldLength, c.fieldLength, c.zipfianConstant)}
	case distHistogram:
		return fieldLengths{gen: c.fieldHistogram}
	}
	return fieldLengths{constant: c.fieldLength}
}

func (f fieldLengths) next(r *rand.Rand) int64 {
	if f.gen == nil {
		return f.constant
	}
	return f.gen.Next(r)
}
