package sqlx

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// errNonConformingStrings refuses to write literals for a server that
// would read backslashes in them as escapes.
var errNonConformingStrings = errors.New("text statements (--db-ps-mode=disable) need the server's standard_conforming_strings on")

// textQuery runs sql with params written into it (see Interpolate) over
// the simple query protocol, calls row with each row, and returns the
// rows its last result affected or returned.
func textQuery(ctx context.Context, pc *pgconn.PgConn, sql string, params [][]byte, row func([][]byte)) (int64, error) {
	if pc.ParameterStatus("standard_conforming_strings") != "on" {
		return 0, errNonConformingStrings
	}
	mrr := pc.Exec(ctx, Interpolate(sql, params))
	var n int64
	for mrr.NextResult() {
		rr := mrr.ResultReader()
		for rr.NextRow() {
			if row != nil {
				row(rr.Values())
			}
		}
		tag, err := rr.Close()
		if err != nil {
			_ = mrr.Close()
			return 0, err
		}
		n = tag.RowsAffected()
	}
	if err := mrr.Close(); err != nil {
		return 0, err
	}
	return n, nil
}

// Interpolate returns sql with each placeholder $N replaced by a literal
// of params[N-1], as libpq users and sysbench's statement emulation send
// statements: NULL for nil, an integer as its digits (a negative one in
// parentheses, so that "k-$1" cannot become a comment), anything else
// between single quotes with its quotes doubled (for a server with
// standard_conforming_strings on). Placeholders inside quoted strings,
// quoted identifiers and comments are left alone, as are those without a
// parameter.
func Interpolate(sql string, params [][]byte) string {
	var b strings.Builder
	b.Grow(len(sql) + 16*len(params))
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == '\'' || c == '"':
			j := skipQuoted(sql, i)
			b.WriteString(sql[i:j])
			i = j
		case c == '-' && strings.HasPrefix(sql[i:], "--"):
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				j = len(sql) - i
			}
			b.WriteString(sql[i : i+j])
			i += j
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			j := strings.Index(sql[i+2:], "*/")
			end := len(sql)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			b.WriteString(sql[i:end])
			i = end
		case c == '$' && i+1 < len(sql) && isDigit(sql[i+1]):
			j := i + 1
			n := 0
			for j < len(sql) && isDigit(sql[j]) && n <= len(params) {
				n = n*10 + int(sql[j]-'0')
				j++
			}
			if n < 1 || n > len(params) || (j < len(sql) && isDigit(sql[j])) {
				b.WriteString(sql[i:j])
				i = j
				continue
			}
			writeLiteral(&b, params[n-1])
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// skipQuoted returns the index after the quoted string or identifier that
// starts at i (a doubled quote inside it does not end it).
func skipQuoted(sql string, i int) int {
	q := sql[i]
	for j := i + 1; j < len(sql); j++ {
		if sql[j] == q {
			if j+1 < len(sql) && sql[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(sql)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// writeLiteral writes v as an SQL literal (see Interpolate).
func writeLiteral(b *strings.Builder, v []byte) {
	switch {
	case v == nil:
		b.WriteString("NULL")
	case isInteger(v) && v[0] == '-':
		b.WriteByte('(')
		b.Write(v)
		b.WriteByte(')')
	case isInteger(v):
		b.Write(v)
	default:
		b.WriteByte('\'')
		b.WriteString(strings.ReplaceAll(string(v), "'", "''"))
		b.WriteByte('\'')
	}
}

// isInteger reports whether v is an optional minus sign and digits.
func isInteger(v []byte) bool {
	if len(v) > 0 && v[0] == '-' {
		v = v[1:]
	}
	if len(v) == 0 || len(v) > 19 {
		return false
	}
	for _, c := range v {
		if !isDigit(c) {
			return false
		}
	}
	return true
}

// TextStatements reports whether db sends statements as text
// (Options.TextStatements).
func (db *DB) TextStatements() bool { return db.text }
