package sysbench

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"strings"

	"github.com/stampede-bench/stampede/randgen"
	"github.com/stampede-bench/stampede/sqlx"
	"github.com/stampede-bench/stampede/workload"
)

// The values of c and pad are sysbench's templates of 11-digit groups
// separated by dashes (get_c_value, get_pad_value): c has 10 groups, 119
// characters, in a CHAR(120); pad has 5 groups, 59 characters, in a
// CHAR(60). Each digit is uniform over 0-9, as sysbench.rand.string draws
// it for each '#'.
const (
	groupDigits = 11
	cGroups     = 10
	padGroups   = 5
	// cLen and padLen are the values' lengths: 119 and 59.
	cLen   = cGroups*(groupDigits+1) - 1
	padLen = padGroups*(groupDigits+1) - 1
)

// loadBatchSize is the number of rows per initial-data batch.
const loadBatchSize = 1000

// dataStream is the random stream of batch b of table n: (init seed,
// n<<32 | b), so that tables differ and no batch shares a stream with a
// worker (workerStream sets the top bit).
func dataStream(n, b int) uint64 { return uint64(n)<<32 | uint64(b) }

// digitSource draws the random digits of c and pad values from a
// SplitMix64 seeded from a batch's or a worker's stream (see
// randgen.SplitMix64). It is not safe for concurrent use.
type digitSource struct{ randgen.SplitMix64 }

// newDigitSource seeds a digitSource from r.
func newDigitSource(r *rand.Rand) digitSource { return digitSource{randgen.NewSplitMix64(r)} }

// digitPairs[i] holds the two digits of i, 0 to 99, as a little-endian
// uint16: "00" to "99" when stored.
var digitPairs = func() (p [100]uint16) {
	for i := range p {
		p[i] = uint16('0'+i/10) | uint16('0'+i%10)<<8
	}
	return p
}()

// fillGroups writes groups groups of 11 random digits separated by dashes
// into buf, which must hold groups*12-1 bytes. Each group comes from one
// 64-bit draw x, read as the fraction x/2⁶⁴ whose first 11 decimal digits
// are the group (two at a time, by multiplying by 100): every group value
// is uniform over [0, 10¹¹) to within a relative bias of 10¹¹/2⁶⁴ < 6e-9.
// A group and its dash are stored in two writes. It does not allocate.
func (d *digitSource) fillGroups(buf []byte, groups int) {
	buf = buf[:groups*(groupDigits+1)-1]
	for len(buf) >= groupDigits {
		x := d.Next()
		var p0, p1, p2, p3, p4, p5 uint64
		p0, x = bits.Mul64(x, 100)
		p1, x = bits.Mul64(x, 100)
		p2, x = bits.Mul64(x, 100)
		p3, x = bits.Mul64(x, 100)
		p4, x = bits.Mul64(x, 100)
		p5, _ = bits.Mul64(x, 10)
		binary.LittleEndian.PutUint64(buf, uint64(digitPairs[p0])|uint64(digitPairs[p1])<<16|
			uint64(digitPairs[p2])<<32|uint64(digitPairs[p3])<<48)
		tail := uint32(digitPairs[p4]) | uint32('0'+p5)<<16
		if len(buf) == groupDigits { // the last group: no dash
			binary.LittleEndian.PutUint16(buf[8:], uint16(tail))
			buf[10] = byte(tail >> 16)
			return
		}
		binary.LittleEndian.PutUint32(buf[8:], tail|'-'<<24)
		buf = buf[groupDigits+1:]
	}
}

// fillC fills buf (cLen bytes) with a c value.
func (d *digitSource) fillC(buf []byte) { d.fillGroups(buf[:cLen], cGroups) }

// fillPad fills buf (padLen bytes) with a pad value.
func (d *digitSource) fillPad(buf []byte) { d.fillGroups(buf[:padLen], padGroups) }

// initialRows returns sbtestN's initial data: ids 1..table_size in order,
// loadBatchSize per batch, with k from the --rand-type distribution over
// [1, table_size] and random c and pad, as sysbench's prepare inserts
// them. rows is 0 for a table that starts empty.
func (g *generator) initialRows(n int, rows int) workload.BatchedTuples {
	if rows == 0 {
		return workload.BatchedTuples{}
	}
	return workload.BatchedTuples{
		NumBatches: (rows + loadBatchSize - 1) / loadBatchSize,
		NumRows:    int64(rows),
		FillBatch: func(b int, out [][]any) [][]any {
			return g.fillBatch(n, b, rows, out)
		},
		EncodeBatch: func(b int, w *sqlx.RowWriter) {
			g.encodeBatch(n, b, rows, w)
		},
	}
}

// batchRows returns batch b's random streams and its ids, lo to hi.
func (g *generator) batchRows(n, b, tableSize int) (r *rand.Rand, ds digitSource, ks randgen.IntGenerator, lo, hi int) {
	r = randgen.New(g.seed, dataStream(n, b))
	ds = newDigitSource(r)
	ks = g.cfg.ids(1, int64(tableSize))
	lo = b*loadBatchSize + 1
	hi = min(lo+loadBatchSize-1, tableSize)
	return r, ds, ks, lo, hi
}

// encodeBatch writes batch b of table n into w: the rows fillBatch makes,
// without boxing a value. Each row's c and pad digits go straight into
// w's buffer.
func (g *generator) encodeBatch(n, b, tableSize int, w *sqlx.RowWriter) {
	r, ds, ks, lo, hi := g.batchRows(n, b, tableSize)
	tenant := int64(g.cfg.tenant)
	for id := lo; id <= hi; id++ {
		w.Row()
		if tenant != 0 {
			w.Int(tenant)
		}
		w.Int(int64(id))
		w.Int(ks.Next(r))
		ds.fillC(w.Text(cLen))
		ds.fillPad(w.Text(padLen))
	}
}

// fillBatch appends batch b of table n: its values are drawn from the
// stream (seed, dataStream(n, b)). A batch costs a handful of allocations
// plus four small ones per row (the boxed values); the digits of all its
// c and pad values are written into one string. It is safe for concurrent
// use.
func (g *generator) fillBatch(n, b, tableSize int, out [][]any) [][]any {
	r, ds, ks, lo, hi := g.batchRows(n, b, tableSize)
	count := hi - lo + 1

	const rowLen = cLen + padLen
	var sb strings.Builder
	sb.Grow(count * rowLen)
	var buf [rowLen]byte
	for range count {
		ds.fillC(buf[:cLen])
		ds.fillPad(buf[cLen:])
		sb.Write(buf[:])
	}
	text := sb.String()

	// In column mode each row is led by the tenant id, boxed once.
	cols, first := 4, 0
	var tenant any
	if g.cfg.tenant != 0 {
		cols, first, tenant = 5, 1, int32(g.cfg.tenant)
	}
	vals := make([]any, cols*count)
	for i := range count {
		row := vals[cols*i : cols*i+cols : cols*i+cols]
		if first > 0 {
			row[0] = tenant
		}
		s := text[i*rowLen : (i+1)*rowLen]
		row[first] = int32(lo + i)
		row[first+1] = int32(ks.Next(r))
		row[first+2] = s[:cLen]
		row[first+3] = s[cLen:]
		out = append(out, row)
	}
	return out
}
