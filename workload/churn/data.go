package churn

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/brianvoe/gofakeit/v7"
	"github.com/brianvoe/gofakeit/v7/data"

	"github.com/stampede-bench/stampede/randgen"
)

// poolBits and poolSize: every kind but the keys and UUIDs is drawn from
// a pool of poolSize = 2^poolBits values made at the start of a run
// (gofakeitPool of those gofakeit makes whole), beside values each worker
// makes as it goes (see refreshEvery).
const (
	poolBits = 13
	poolSize = 1 << poolBits
)

// gofakeitPool is the pool's size for the kinds gofakeit makes whole
// (cities, companies, sentences): a sentence takes it about 20 us.
const gofakeitPool = 512

// refreshEvery: one pooled value in refreshEvery, counted over every
// pooled column of a worker's rows (so about one in refreshEvery of each
// kind), is made anew rather than drawn from the pool: composed from
// gofakeit's data or drawn by gofakeit (names, emails, phones, streets,
// timestamps, dates, numbers, booleans: about 0.3 us) or made by gofakeit
// whole (about 1 us for a city or a company, 20 us for a sentence on a
// busy 2-CPU machine) or a paragraph composed of its sentences (see
// filler.paragraph), so that the values change
// as the run goes at a small fraction of that cost. Counted a row at a
// time (filler.drawRow): a row whose pooled values do not reach the next
// value made anew costs no test per value.
const refreshEvery = 4096

// runRows is how many rows a filler draws from each column's run of
// consecutive pool slots, from a slot drawn at random, before it draws
// the next run's: slots read in order are in the cache, where random
// slots cost a run 50-70 ns a value on a busy machine (pprof). 256
// rather than 64: an INSERT of the default 1-500 rows (a table drawn
// for each, so a run starts with each) starts about 1.5 runs rather than
// 4 (filler.startRun, 1-2% of a run's client CPU at 64), and 10,000 rows
// of a shape still read about 5,800 distinct slots of 8,192
// (TestValuesVaried).
const runRows = 256

// perValue reports whether kind k is made for each value rather than
// drawn from the pool: the keys (the table's counter, UUIDs drawn for
// each row) and UUIDs, which are unique.
func (k kind) perValue() bool { return k == kSeq || k == kUUIDKey || k == kUUID }

// pool holds, for each kind but the keys and UUIDs, poolSize values
// (gofakeitPool of the kinds gofakeit makes) made at the start of a run,
// each as a ready SQL literal beside the length of its text: names,
// emails, phones, streets, timestamps and dates composed from gofakeit's
// own data, numbers and booleans drawn by gofakeit, paragraphs of the
// pool's sentences (filler.compose), cities, companies and sentences
// made by gofakeit, which
// made for every value took most of the client's CPU in a 20-loop run
// (pprof). Each worker reads its slots in runs from slots drawn at random
// (runRows), and in place of one value in refreshEvery makes a new one
// (filler.drawRow), so that its tables hold values made through the run.
//
// A kind's literals are one block of text, in slot order, so that a run
// of slots is a run of text: a value drawn costs the read of 2 bytes, 32
// to a cache line, its literal's length and how much longer it is than
// the value's text (lit; a slot of 8 bytes read for each value, the
// literal's offset, length and size, was half the fake rows' generation
// in a 20-loop run, mostly waiting for memory, pprof). The offsets are
// read once a run. It is read-only once made, safe for concurrent use.
type pool struct {
	text [numKinds][]byte
	// lit holds each slot's literal's length and its excess over the
	// length of the value's text as the server prints it (litLen,
	// litExtra), then those of the first runRows slots again (their
	// literals again at the end of text); off the offset of each slot's
	// literal in text, and one past the last slot's.
	lit [numKinds][]uint16
	off [numKinds][]uint32
	// cum holds, for each slot and the runRows past the last, the length
	// of the text of the values of the slots before it (cum[0] is 0): a
	// run's bytes are counted once, at its end (filler.countRuns), not a
	// value at a time.
	cum [numKinds][]uint32
}

// A pooled literal's length and its excess over the value's text (the
// quotes, doubled quotes), in one uint16: its low litBits bits and the
// rest. The longest literal seen is a paragraph of 247 bytes with no
// quote doubled; newPool makes a value whose literal does not fit anew.
const (
	litBits  = 12
	litMax   = 1<<litBits - 1
	extraMax = 1<<(16-litBits) - 1
)

// litLen and litExtra return the literal's length and its excess over
// the value's text of a pool's lit entry.
func litLen(v uint16) uint32  { return uint32(v & litMax) }
func litExtra(v uint16) int64 { return int64(v >> litBits) }

// pooled makes the pooled kinds' values with f (nil: composed).
func pooled(f *gofakeit.Faker) [numKinds]func() string {
	return [numKinds]func() string{
		kCity:     f.City,
		kCompany:  f.Company,
		kSentence: func() string { return f.Sentence() },
	}
}

// newPool makes the pool from the stream r.
func newPool(r *rand.Rand) *pool {
	fl := newFiller(r, nil)
	p := &pool{}
	fl.pool = p               // paragraphs are composed from the sentences made first
	for k := range numKinds { // in kind order: the same pool from the same stream
		if k.perValue() {
			continue
		}
		n := poolSize
		if fl.make1[k] != nil {
			n = gofakeitPool // gofakeit's are slow to make
		}
		p.lit[k] = make([]uint16, n, n+runRows)
		p.off[k] = make([]uint32, n+1)
		for i := range n {
			off := len(p.text[k])
			var l int
			p.text[k], l = fl.make(p.text[k], k)
			for m := len(p.text[k]) - off; m > litMax || m-l > extraMax; m = len(p.text[k]) - off { // never seen
				p.text[k], l = fl.make(p.text[k][:off], k)
			}
			m := len(p.text[k]) - off
			p.lit[k][i] = uint16(m | (m-l)<<litBits)
			p.off[k][i+1] = uint32(len(p.text[k]))
		}
		// The first runRows slots again past the last, so that a run
		// from any slot reads on without turning back.
		p.lit[k] = append(p.lit[k], p.lit[k][:runRows]...)
		p.text[k] = append(p.text[k], p.text[k][:p.off[k][runRows]]...)
		p.cum[k] = make([]uint32, len(p.lit[k])+1)
		for i, v := range p.lit[k] {
			p.cum[k][i+1] = p.cum[k][i] + litLen(v) - uint32(litExtra(v))
		}
	}
	return p
}

// gofakeit's own data the composed kinds draw from (see
// filler.compose).
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
// (gofakeit's, through the pool), written as SQL literals whose text is
// what the server prints back (column::text), and counts the bytes of
// that text (takeBytes), which check compares with octet_length on the
// server. It is not safe for concurrent use.
type filler struct {
	f    *gofakeit.Faker
	src  *splitMix
	pool *pool
	// left counts the pooled values to draw before the next one made
	// anew (refreshEvery).
	left int
	// pcols and kcols are the pooled columns and the others (keys,
	// UUIDs) of shape, for runLeft more rows of the run.
	shape   *shape
	pcols   []pcol
	kcols   []kcol
	runLeft int
	// bytes is the length of the text of the values drawn since
	// takeBytes.
	bytes int64
	make1 [numKinds]func() string
	// vals is the row drawRow drew: each column's literal; made holds
	// the text of those made for the row (keys, UUIDs, new values).
	vals [][]byte
	made []byte
	// bits holds random bits left for pick, n of them.
	bits uint64
	n    int
}

// pcol is a pooled column of the shape a filler fills: its place in
// the row, the pool's lit entries, text and cum of its kind, its next
// slot and that slot's literal's offset, and the first slot whose value's
// bytes are not counted yet (countRuns).
type pcol struct {
	lit   []uint16
	text  []byte
	cum   []uint32
	next  int
	off   uint32
	start int
	j     int
	kind  kind
}

// kcol is a column whose values are made for each row: its place and
// kind (kSeq, kUUIDKey, kUUID).
type kcol struct {
	j    int
	kind kind
}

// splitMix is randgen.SplitMix64 as a rand.Source, for gofakeit: a
// value's draws at a fraction of a PCG's cost (they were 5% of the
// client's CPU through PCG).
type splitMix struct{ randgen.SplitMix64 }

// Uint64 implements rand.Source.
func (s *splitMix) Uint64() uint64 { return s.Next() }

// newFiller returns a filler seeded from r, drawing values from p.
func newFiller(r *rand.Rand, p *pool) *filler {
	src := &splitMix{randgen.NewSplitMix64(r)}
	fl := &filler{f: gofakeit.NewFaker(src, false), src: src, pool: p}
	fl.make1 = pooled(fl.f)
	fl.left = refreshEvery
	return fl
}

// appendRows appends n rows of s, "(v1, v2, ...), (...)", to buf and
// returns it with the bytes of the values' text.
func (fl *filler) appendRows(buf []byte, s *shape, n int) ([]byte, int64) {
	for i := range n {
		if i > 0 {
			buf = append(buf, ", "...)
		}
		buf = fl.appendRow(buf, s)
	}
	return buf, fl.takeBytes()
}

// appendRow appends one row of s, "(v1, v2, ...)", to buf and returns
// it: the row drawn (drawRow), then written into the statement
// (appendTuple). Its values' bytes are counted by takeBytes.
func (fl *filler) appendRow(buf []byte, s *shape) []byte {
	fl.drawRow(s)
	return appendTuple(buf, fl.vals)
}

// appendTuple appends "(v1, v2, ...)" to buf: the statement's text,
// copied from the literals drawn.
func appendTuple(buf []byte, vals [][]byte) []byte {
	buf = append(buf, '(')
	for j, v := range vals {
		if j > 0 {
			buf = append(buf, ", "...)
		}
		buf = append(buf, v...)
	}
	return append(buf, ')')
}

// drawRow makes one row of s into fl.vals, each column's value as its
// SQL literal: for a pooled kind, the column's next pool slot, in runs
// of runRows from one drawn at random (one pooled value in refreshEvery
// made anew instead); the table's counter and UUIDs made for the row.
// The bytes of the pooled values' text are counted by run (countRuns),
// the others' here, for takeBytes. This (with
// startRun), takeBytes and the pool's making (newPool) are the fake rows'
// generation, as scripts/bench churn counts it; copying the literals into the statement (appendTuple) and
// sending it are not.
func (fl *filler) drawRow(s *shape) {
	if fl.runLeft == 0 || fl.shape != s || len(fl.vals) != len(s.columns) {
		fl.startRun(s)
	}
	fl.runLeft--
	var bytes int64
	vals := fl.vals
	for i := range fl.pcols {
		c := &fl.pcols[i]
		v := c.lit[c.next]
		end := c.off + litLen(v)
		vals[c.j] = c.text[c.off:end:end]
		c.off = end
		c.next++
	}
	made := fl.made[:0]
	for _, c := range fl.kcols {
		at := len(made)
		if c.kind == kSeq {
			made = strconv.AppendInt(made, s.seq, 10)
			s.seq++
			bytes += int64(len(made) - at)
		} else {
			made = fl.appendUUID(made)
			bytes += 36
		}
		// Earlier values stay where they were if made grows (a new
		// array), read-only until the next row.
		vals[c.j] = made[at:len(made):len(made)]
	}
	if fl.left -= len(fl.pcols); fl.left <= 0 {
		// The row holds the next value made anew: its pooled column
		// number len(pcols)-1+left (left is 1-len(pcols) to 0), in place
		// of the slot drawn, whose bytes are taken back.
		c := &fl.pcols[len(fl.pcols)-1+fl.left]
		fl.left += refreshEvery
		at := len(made)
		var n int
		made, n = fl.make(made, c.kind)
		vals[c.j] = made[at:len(made):len(made)]
		bytes += int64(n) - int64(c.cum[c.next]-c.cum[c.next-1])
	}
	fl.made = made
	fl.bytes += bytes
}

// startRun sets the filler to s's columns and starts a run of runRows
// rows: each pooled column's next slot drawn at random (pick).
func (fl *filler) startRun(s *shape) {
	fl.countRuns()
	fl.shape, fl.runLeft = s, runRows
	fl.pcols, fl.kcols = fl.pcols[:0], fl.kcols[:0]
	p := fl.pool
	for j, c := range s.columns {
		k := c.kind
		if k.perValue() {
			fl.kcols = append(fl.kcols, kcol{j: j, kind: k})
			continue
		}
		next := fl.pick() & (len(p.off[k]) - 2) // the pool's size, a power of 2, less 1
		fl.pcols = append(fl.pcols, pcol{lit: p.lit[k], text: p.text[k], cum: p.cum[k], next: next, off: p.off[k][next], start: next, j: j, kind: k})
	}
	fl.vals = slices.Grow(fl.vals[:0], len(s.columns))[:len(s.columns)]
}

// takeBytes returns the length of the text (as the server prints it) of
// the values drawn since its last call, and starts the count anew.
func (fl *filler) takeBytes() int64 {
	fl.countRuns()
	b := fl.bytes
	fl.bytes = 0
	return b
}

// countRuns adds to the bytes counted the text of the pooled values
// drawn since the last count: for each pooled column, the pool's cum at
// its next slot less that at its first slot not counted.
func (fl *filler) countRuns() {
	var b uint32
	for i := range fl.pcols {
		c := &fl.pcols[i]
		b += c.cum[c.next] - c.cum[c.start]
		c.start = c.next
	}
	fl.bytes += int64(b)
}

// hex8 returns the 8 lower-case hexadecimal digits of v as the bytes of
// a big-endian uint64: the nibbles spread one a byte, then each turned
// into its digit, all at once.
func hex8(v uint32) uint64 {
	x := uint64(v)
	x = (x | x<<16) & 0x0000ffff0000ffff
	x = (x | x<<8) & 0x00ff00ff00ff00ff
	x = (x | x<<4) & 0x0f0f0f0f0f0f0f0f
	letters := (x + 0x0606060606060606) >> 4 & 0x0101010101010101 // 1 in each byte of 10 or more
	return x + 0x3030303030303030 + letters*('a'-'0'-10)
}

// appendUUID appends a random (version 4) UUID as an SQL literal, as
// gofakeit's UUID makes it (16 random bytes, the version and variant bits
// set, in lower-case hexadecimal 8-4-4-4-12) in quotes, from two draws of
// the worker's stream.
func (fl *filler) appendUUID(b []byte) []byte {
	hi := fl.src.Next()&^(0xf<<12) | 0x4<<12 // version 4
	lo := fl.src.Next()&^(0x3<<62) | 0x2<<62 // variant 10
	at := len(b)
	b = slices.Grow(b, 38)[:at+38]
	u := b[at : at+38]
	be := binary.BigEndian
	be.PutUint64(u[1:], hex8(uint32(hi>>32)))
	be.PutUint64(u[10:], hex8(uint32(hi))) // 4 digits, '-', then 4 more
	copy(u[15:19], u[14:18])
	be.PutUint64(u[20:], hex8(uint32(lo>>32)))
	copy(u[25:29], u[24:28])
	be.PutUint64(u[29:], hex8(uint32(lo)))
	u[0], u[9], u[14], u[19], u[24], u[37] = '\'', '-', '-', '-', '-', '\''
	return b
}

// make appends a new value of pooled kind k, as its literal, to buf and
// returns it with the length of its text: made by gofakeit whole, or
// composed (compose).
func (fl *filler) make(buf []byte, k kind) ([]byte, int) {
	if gen := fl.make1[k]; gen != nil {
		v := gen()
		return appendLiteral(buf, v), len(v)
	}
	return fl.compose(buf, k)
}

// appendLiteral appends v as an SQL string literal.
func appendLiteral(buf []byte, v string) []byte {
	buf = append(buf, '\'')
	for i := 0; i < len(v); i++ {
		if v[i] == '\'' {
			buf = append(buf, '\'')
		}
		buf = append(buf, v[i])
	}
	return append(buf, '\'')
}

// compose appends a value of composed kind k (names, emails, phones,
// streets, timestamps, dates), drawn from gofakeit's own data, as its
// literal, and returns it with the length of its text.
func (fl *filler) compose(buf []byte, k kind) ([]byte, int) {
	f, at := fl.f, len(buf)
	switch k {
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
	case kParagraph:
		return fl.paragraph(buf)
	case kTimestamp:
		return fl.quoted(buf, func(b []byte) []byte {
			return time.Unix(timeFrom+int64(fl.src.Next()%uint64(timeSpan)), 0).UTC().AppendFormat(b, time.DateTime)
		})
	case kDate:
		return fl.quoted(buf, func(b []byte) []byte {
			return time.Unix(timeFrom+int64(fl.src.Next()%uint64(timeSpan)), 0).UTC().AppendFormat(b, time.DateOnly)
		})
	}
	return buf, len(buf) - at // the numbers and booleans: unquoted
}

// paragraph appends a paragraph as gofakeit's Paragraph makes it (2 to
// 5 of its sentences, drawn by its Number, joined by spaces) from the
// pool's sentences (gofakeit's, made whole first), as its literal, and
// returns it with the length of its text: about 0.1 us where gofakeit's
// Paragraph takes 40 (its sentences made anew), which made the pool's
// 512 paragraphs half of its making.
func (fl *filler) paragraph(buf []byte) ([]byte, int) {
	p := fl.pool
	lit, off, text := p.lit[kSentence], p.off[kSentence], p.text[kSentence]
	slots := uint64(len(off) - 1)
	buf = append(buf, '\'')
	n := 0
	for i := range fl.f.Number(2, 5) {
		if i > 0 {
			buf = append(buf, ' ')
			n++
		}
		j := fl.src.Next() % slots
		buf = append(buf, text[off[j]+1:off[j+1]-1]...) // its quotes already doubled
		n += int(litLen(lit[j])) - int(litExtra(lit[j]))
	}
	return append(buf, '\''), n
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

// pick draws the index of a pool slot, poolBits of 64 random bits at a
// time: a pooled value's making, with the pool's (see drawRow).
func (fl *filler) pick() int {
	if fl.n < poolBits {
		fl.bits, fl.n = fl.src.Next(), 64
	}
	i := int(fl.bits & (poolSize - 1))
	fl.bits >>= poolBits
	fl.n -= poolBits
	return i
}
