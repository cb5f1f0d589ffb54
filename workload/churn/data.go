package churn

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/brianvoe/gofakeit/v7"
)

// filler makes the rows of INSERT statements: realistic fake values from
// gofakeit (names, addresses, emails, phone numbers, companies, free
// text, timestamps, numerics), written as SQL literals in the form the
// server prints them back, so that the bytes it counts are those of the
// values' text (octet_length(column::text) on the server, which check
// compares). It is not safe for concurrent use.
type filler struct {
	f *gofakeit.Faker
	// The range of timestamps and dates: 2000-01-01 to 2030-01-01.
	from, to time.Time
}

// newFiller returns a filler drawing from the stream src.
func newFiller(src rand.Source) *filler {
	return &filler{
		f:    gofakeit.NewFaker(src, false),
		from: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC),
		to:   time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC),
	}
}

// appendRows appends n rows of s, "(v1, v2, ...), (...)", to buf and
// returns it with the bytes of the values' text (NULLs count none).
func (fl *filler) appendRows(buf []byte, s *shape, n int) ([]byte, int64) {
	var bytes int64
	for i := range n {
		if i > 0 {
			buf = append(buf, ", "...)
		}
		buf = append(buf, '(')
		for j := range s.columns {
			if j > 0 {
				buf = append(buf, ", "...)
			}
			var k int
			buf, k = fl.appendValue(buf, s, s.columns[j].kind)
			bytes += int64(k)
		}
		buf = append(buf, ')')
	}
	return buf, bytes
}

// appendValue appends one value of kind k as a literal and returns the
// length of its text as the server prints it.
func (fl *filler) appendValue(buf []byte, s *shape, k kind) ([]byte, int) {
	f := fl.f
	switch k {
	case kSeq:
		at := len(buf)
		buf = strconv.AppendInt(buf, s.seq, 10)
		s.seq++
		return buf, len(buf) - at
	case kBigint:
		at := len(buf)
		buf = strconv.AppendInt(buf, f.Int64(), 10)
		return buf, len(buf) - at
	case kInt:
		at := len(buf)
		buf = strconv.AppendInt(buf, int64(f.Int32()), 10)
		return buf, len(buf) - at
	case kSmallint:
		at := len(buf)
		buf = strconv.AppendInt(buf, int64(f.Int16()), 10)
		return buf, len(buf) - at
	case kNumeric:
		at := len(buf)
		buf = strconv.AppendFloat(buf, f.Price(0, 999999), 'f', 2, 64)
		return buf, len(buf) - at
	case kBool:
		// boolean::text is true or false.
		if f.Bool() {
			return append(buf, "true"...), 4
		}
		return append(buf, "false"...), 5
	case kTimestamp:
		return quoted(buf, f.DateRange(fl.from, fl.to).Format(time.DateTime))
	case kDate:
		return quoted(buf, f.DateRange(fl.from, fl.to).Format(time.DateOnly))
	case kName:
		return quoted(buf, f.Name())
	case kEmail:
		return quoted(buf, f.Email())
	case kPhone:
		return quoted(buf, f.PhoneFormatted())
	case kStreet:
		return quoted(buf, f.Address().Address)
	case kCity:
		return quoted(buf, f.City())
	case kCompany:
		return quoted(buf, f.Company())
	case kSentence:
		return quoted(buf, f.Sentence())
	case kParagraph:
		return quoted(buf, f.Paragraph())
	case kUUID:
		return quoted(buf, f.UUID())
	}
	panic("churn: unknown column kind " + strconv.Itoa(int(k)))
}

// quoted appends v as a string literal ('...', quotes doubled) and
// returns the length of v.
func quoted(buf []byte, v string) ([]byte, int) {
	buf = append(buf, '\'')
	if strings.IndexByte(v, '\'') < 0 {
		buf = append(buf, v...)
	} else {
		buf = append(buf, strings.ReplaceAll(v, "'", "''")...)
	}
	return append(buf, '\''), len(v)
}
