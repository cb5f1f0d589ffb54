package churn

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/brianvoe/gofakeit/v7"

	"github.com/stampede-bench/stampede/randgen"
)

// poolBits and poolSize: a run draws its rows' textual values from
// poolSize = 2^poolBits gofakeit values of each kind (see pool).
const (
	poolBits = 9
	poolSize = 1 << poolBits
)

// pool holds, for each textual kind (names, emails, phone numbers,
// addresses, cities, companies, sentences, paragraphs, timestamps,
// dates, UUIDs outside keys), poolSize values made by gofakeit at the start of a run, each as
// a ready SQL literal beside the length of its text. gofakeit makes a
// paragraph in about 13 us and a sentence or an address in about 3 us:
// made for every value, they took 83% of the client's CPU in a 20-loop
// run (pprof), where the pool's values are copied into the statement.
// Rows draw their values from it at random, so that tables still hold
// realistic, varied data; counters, numbers, booleans and the UUIDs of
// primary keys (which must differ) are drawn for each value. It is read-only once made, safe for concurrent use.
type pool struct {
	lit  [numKinds][]string
	size [numKinds][]int
}

// newPool makes the pool from the stream src.
func newPool(src rand.Source) *pool {
	f := gofakeit.NewFaker(src, false)
	from := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	to := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	make1 := map[kind]func() string{
		kName:      f.Name,
		kEmail:     f.Email,
		kPhone:     f.PhoneFormatted,
		kStreet:    func() string { return f.Address().Address },
		kCity:      f.City,
		kCompany:   f.Company,
		kSentence:  func() string { return f.Sentence() },
		kParagraph: func() string { return f.Paragraph() },
		kTimestamp: func() string { return f.DateRange(from, to).Format(time.DateTime) },
		kDate:      func() string { return f.DateRange(from, to).Format(time.DateOnly) },
		kUUID:      f.UUID,
	}
	p := &pool{}
	for k := range numKinds { // in kind order: the same pool from the same stream
		gen := make1[k]
		if gen == nil {
			continue
		}
		p.lit[k] = make([]string, poolSize)
		p.size[k] = make([]int, poolSize)
		for i := range poolSize {
			v := gen()
			p.lit[k][i] = "'" + strings.ReplaceAll(v, "'", "''") + "'"
			p.size[k][i] = len(v)
		}
	}
	return p
}

// filler makes the rows of INSERT statements: realistic fake values
// (gofakeit's, through the pool, and numbers drawn by gofakeit for each
// value), written as SQL literals whose text is what the server prints
// back (column::text), so that the bytes it counts are those of the
// values' text, which check compares with octet_length on the server. It
// is not safe for concurrent use.
type filler struct {
	f    *gofakeit.Faker
	src  *splitMix
	pool *pool
	// bits holds random bits left for pick, n of them.
	bits uint64
	n    int
}

// splitMix is randgen.SplitMix64 as a rand.Source, for gofakeit: a
// value's draws at a fraction of a PCG's cost (they were 5% of the
// client's CPU through PCG).
type splitMix struct{ randgen.SplitMix64 }

// Uint64 implements rand.Source.
func (s *splitMix) Uint64() uint64 { return s.Next() }

// newFiller returns a filler seeded from r, drawing textual values from
// p.
func newFiller(r *rand.Rand, p *pool) *filler {
	src := &splitMix{randgen.NewSplitMix64(r)}
	return &filler{f: gofakeit.NewFaker(src, false), src: src, pool: p}
}

// appendRows appends n rows of s, "(v1, v2, ...), (...)", to buf and
// returns it with the bytes of the values' text.
func (fl *filler) appendRows(buf []byte, s *shape, n int) ([]byte, int64) {
	var bytes int64
	for i := range n {
		if i > 0 {
			buf = append(buf, ", "...)
		}
		var b int64
		buf, b = fl.appendRow(buf, s)
		bytes += b
	}
	return buf, bytes
}

// appendRow appends one row of s, "(v1, v2, ...)", to buf and returns it
// with the bytes of the values' text.
func (fl *filler) appendRow(buf []byte, s *shape) ([]byte, int64) {
	var bytes int64
	buf = append(buf, '(')
	for j := range s.columns {
		if j > 0 {
			buf = append(buf, ", "...)
		}
		var k int
		buf, k = fl.appendValue(buf, s, s.columns[j].kind)
		bytes += int64(k)
	}
	return append(buf, ')'), bytes
}

// appendValue appends one value of kind k as a literal and returns the
// length of its text as the server prints it (column::text).
func (fl *filler) appendValue(buf []byte, s *shape, k kind) ([]byte, int) {
	f := fl.f
	at := len(buf)
	switch k {
	case kSeq:
		buf = strconv.AppendInt(buf, s.seq, 10)
		s.seq++
	case kBigint:
		buf = strconv.AppendInt(buf, f.Int64(), 10)
	case kInt:
		buf = strconv.AppendInt(buf, int64(f.Int32()), 10)
	case kSmallint:
		buf = strconv.AppendInt(buf, int64(f.Int16()), 10)
	case kNumeric:
		buf = strconv.AppendFloat(buf, f.Price(0, 999999), 'f', 2, 64)
	case kBool:
		// boolean::text is true or false.
		buf = strconv.AppendBool(buf, f.Bool())
	case kUUIDKey:
		buf = append(buf, '\'')
		buf = append(buf, f.UUID()...)
		return append(buf, '\''), 36
	default:
		i := fl.pick()
		return append(buf, fl.pool.lit[k][i]...), fl.pool.size[k][i]
	}
	return buf, len(buf) - at
}

// pick draws the index of a pool value: generating a textual value is
// this draw (the pool's values were made by gofakeit); writing it into
// the statement is appendValue's copy.
// It takes poolBits of 64 random bits at a time.
func (fl *filler) pick() int {
	if fl.n < poolBits {
		fl.bits, fl.n = fl.src.Next(), 64
	}
	i := int(fl.bits & (poolSize - 1))
	fl.bits >>= poolBits
	fl.n -= poolBits
	return i
}
