package churn

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/brianvoe/gofakeit/v7"
	"github.com/brianvoe/gofakeit/v7/data"

	"github.com/stampede-bench/stampede/randgen"
)

// poolBits and poolSize: the textual kinds start from poolSize =
// 2^poolBits values of each kind (gofakeitPool of those gofakeit makes),
// which each worker renews as it goes (see filler.refresh).
const (
	poolBits = 12
	poolSize = 1 << poolBits
)

// gofakeitPool is the pool's size for the kinds gofakeit makes (cities,
// companies, sentences, paragraphs): a paragraph takes it about 40 us.
const gofakeitPool = 512

// refreshEvery is, for each pooled kind, one value in how many drawn that
// a worker makes anew into its own copy of the pool's slot: composed from
// gofakeit's data (names, emails, phones, streets, timestamps, dates:
// about 0.3 us) or made by gofakeit (about 1 us for a city or a company,
// 20 us for a sentence and 40 us for a paragraph on a busy 2-CPU
// machine), so that the values change as the run goes at a fraction of
// that cost.
var refreshEvery = [numKinds]int{kName: 4, kEmail: 4, kPhone: 4, kStreet: 4, kTimestamp: 4, kDate: 4,
	kCity: 64, kCompany: 64, kSentence: 256, kParagraph: 512}

// pool holds, for each textual kind, poolSize values (gofakeitPool of
// the kinds gofakeit makes) made at the start of a run, each as a ready
// SQL literal beside the length of its text: names, emails, phones,
// streets, timestamps and dates composed from gofakeit's own data
// (filler.compose), cities, companies, sentences and paragraphs made by
// gofakeit, which made for every value took most of the client's CPU in
// a 20-loop run (pprof). Each worker draws from it at random and renews
// one value drawn in refreshEvery (filler.refresh), so that its tables
// hold values made through the run; numbers, booleans and UUIDs are
// drawn for each value. It is read-only once made, safe for concurrent
// use.
type pool struct {
	lit  [numKinds][]string
	size [numKinds][]int
}

// pooled makes the pooled kinds' values with f.
func pooled(f *gofakeit.Faker) map[kind]func() string {
	return map[kind]func() string{
		kCity:      f.City,
		kCompany:   f.Company,
		kSentence:  func() string { return f.Sentence() },
		kParagraph: func() string { return f.Paragraph() },
	}
}

// newPool makes the pool from the stream src.
func newPool(src rand.Source) *pool {
	f := gofakeit.NewFaker(src, false)
	make1 := pooled(f)
	fl := &filler{src: &splitMix{randgen.NewSplitMix64(rand.New(src))}}
	p := &pool{}
	for k := range numKinds { // in kind order: the same pool from the same stream
		if refreshEvery[k] == 0 {
			continue
		}
		n := poolSize
		if make1[k] != nil {
			n = gofakeitPool // gofakeit's are slow to make
		}
		p.lit[k] = make([]string, n)
		p.size[k] = make([]int, n)
		for i := range n {
			if gen := make1[k]; gen != nil {
				v := gen()
				p.lit[k][i], p.size[k][i] = literal(v), len(v)
				continue
			}
			b, n := fl.compose(nil, k)
			p.lit[k][i], p.size[k][i] = string(b), n
		}
	}
	return p
}

// literal is v as an SQL string literal.
func literal(v string) string { return "'" + strings.ReplaceAll(v, "'", "''") + "'" }

// gofakeit's own data the composed kinds draw from (see
// filler.appendValue).
var (
	firstNames   = data.Data["person"]["first"]
	lastNames    = data.Data["person"]["last"]
	phoneFormats = data.Data["person"]["phone"]
	domainSuffix = data.Data["internet"]["domain_suffix"]
	streetNames  = data.Data["address"]["street_name"]
	streetSuffix = data.Data["address"]["street_suffix"]
)

// The range of timestamps and dates: 2000-01-01 to 2030-01-01 (UTC).
var (
	timeFrom = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	timeSpan = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).Unix() - timeFrom
)

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
	// own holds the values this worker renewed (refresh), over the
	// pool's, by kind and slot ("": the pool's); ownSize their lengths;
	// drawn counts each kind's draws.
	own     [numKinds][]string
	ownSize [numKinds][]int
	drawn   [numKinds]int
	make1   map[kind]func() string
	scratch []byte
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
	fl := &filler{f: gofakeit.NewFaker(src, false), src: src, pool: p}
	fl.make1 = pooled(fl.f)
	return fl
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
	case kUUID:
		buf = append(buf, '\'')
		buf = append(buf, f.UUID()...)
		return append(buf, '\''), 36
	default:
		i := fl.pick() & (len(fl.pool.lit[k]) - 1)
		if fl.drawn[k]++; fl.drawn[k]%refreshEvery[k] == 0 {
			fl.refresh(k, i)
		}
		if o := fl.own[k]; o != nil && o[i] != "" {
			return append(buf, o[i]...), fl.ownSize[k][i]
		}
		return append(buf, fl.pool.lit[k][i]...), fl.pool.size[k][i]
	}
	return buf, len(buf) - at
}

// compose appends a value of composed kind k (names, emails, phones,
// streets, timestamps, dates), drawn from gofakeit's own data, as its
// literal, and returns it with the length of its text.
func (fl *filler) compose(buf []byte, k kind) ([]byte, int) {
	switch k {
	case kName:
		return fl.quoted(buf, func(b []byte) []byte {
			b = append(b, fl.from(firstNames)...)
			return append(append(b, ' '), fl.from(lastNames)...)
		})
	case kEmail:
		// gofakeit's Email: first.last@domain.suffix, lower case.
		return fl.quoted(buf, func(b []byte) []byte {
			b = appendLower(b, fl.from(firstNames))
			b = appendLower(append(b, '.'), fl.from(lastNames))
			b = appendLower(append(b, '@'), fl.from(lastNames))
			return append(append(b, '.'), fl.from(domainSuffix)...)
		})
	case kPhone:
		// gofakeit's PhoneFormatted: a format with its #s drawn.
		return fl.quoted(buf, func(b []byte) []byte {
			for _, c := range []byte(fl.from(phoneFormats)) {
				if c == '#' {
					c = '0' + byte(fl.src.Next()%10)
				}
				b = append(b, c)
			}
			return b
		})
	case kStreet:
		// A house number, a street of a surname and a suffix (gofakeit's
		// street's parts): "4821 Hansenville Road".
		return fl.quoted(buf, func(b []byte) []byte {
			b = strconv.AppendUint(b, 1+fl.src.Next()%99999, 10)
			b = append(append(b, ' '), fl.from(lastNames)...)
			b = append(b, fl.from(streetSuffix)...)
			return append(append(b, ' '), fl.from(streetNames)...)
		})
	case kTimestamp:
		return fl.quoted(buf, func(b []byte) []byte {
			return time.Unix(timeFrom+int64(fl.src.Next()%uint64(timeSpan)), 0).UTC().AppendFormat(b, time.DateTime)
		})
	case kDate:
		return fl.quoted(buf, func(b []byte) []byte {
			return time.Unix(timeFrom+int64(fl.src.Next()%uint64(timeSpan)), 0).UTC().AppendFormat(b, time.DateOnly)
		})
	}
	return buf, 0
}

// refresh makes slot i of pooled kind k anew with gofakeit, for this
// worker.
func (fl *filler) refresh(k kind, i int) {
	if fl.own[k] == nil {
		fl.own[k], fl.ownSize[k] = make([]string, poolSize), make([]int, poolSize)
	}
	if mk := fl.make1[k]; mk != nil {
		v := mk()
		fl.own[k][i], fl.ownSize[k][i] = literal(v), len(v)
		return
	}
	b, n := fl.compose(fl.scratch[:0], k)
	fl.scratch = b
	fl.own[k][i], fl.ownSize[k][i] = string(b), n
}

// from draws one of vals.
func (fl *filler) from(vals []string) string { return vals[fl.src.Next()%uint64(len(vals))] }

// quoted appends to buf the text value makes as an SQL literal
// (its quotes doubled) and returns it with the length of the text.
func (fl *filler) quoted(buf []byte, value func([]byte) []byte) ([]byte, int) {
	buf = append(buf, '\'')
	start := len(buf)
	buf = value(buf)
	n := len(buf) - start
	if bytes.IndexByte(buf[start:], '\'') >= 0 {
		v := strings.ReplaceAll(string(buf[start:]), "'", "''")
		buf = append(buf[:start], v...)
	}
	return append(buf, '\''), n
}

// appendLower appends s in lower case (ASCII).
func appendLower(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != ' ' && c != '\'' {
			b = append(b, c)
		}
	}
	return b
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
