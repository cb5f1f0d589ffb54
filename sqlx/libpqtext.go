package sqlx

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgconn"
	"golang.org/x/text/width"
)

// LibpqQueryText returns a server error as libpq's PQerrorMessage words
// it (what pgbench and psql print) for a statement whose text, as sent,
// was query: "ERROR:  message", the statement's line with a caret under
// the error's position ("LINE 1: select nosuchcol from t" and "^"), then
// its DETAIL, HINT, QUERY and CONTEXT lines, without a final newline.
// Without query, a position is said as libpq says it then: " at
// character N" after the message. ok is false when err is not the
// server's.
func LibpqQueryText(err error, query string) (text string, ok bool) {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return "", false
	}
	return libpqText(pe, query, true), true
}

// LibpqNotice returns a notice as libpq's default notice processor
// prints it: "NOTICE:  message" and its DETAIL and HINT lines (libpq
// shows CONTEXT for errors only), each ending in a newline.
func LibpqNotice(n *pgconn.Notice) string {
	return libpqText((*pgconn.PgError)(n), "", false) + "\n"
}

// libpqText is PQerrorMessage's text of pe (without its final newline),
// with its CONTEXT line when context is set.
func libpqText(pe *pgconn.PgError, query string, context bool) string {
	var b strings.Builder
	b.WriteString(pe.Severity + ":  " + pe.Message)
	cursor, pos := "", 0
	switch {
	case pe.Position > 0 && query != "":
		cursor, pos = query, int(pe.Position)
	case pe.Position > 0:
		b.WriteString(" at character " + strconv.Itoa(int(pe.Position)))
	case pe.InternalPosition > 0 && pe.InternalQuery != "":
		cursor, pos = pe.InternalQuery, int(pe.InternalPosition)
	case pe.InternalPosition > 0:
		b.WriteString(" at character " + strconv.Itoa(int(pe.InternalPosition)))
	}
	if cursor != "" {
		writeErrorPosition(&b, cursor, pos)
	}
	where := pe.Where
	if !context {
		where = ""
	}
	for _, f := range []struct{ name, v string }{{"DETAIL", pe.Detail}, {"HINT", pe.Hint}, {"QUERY", pe.InternalQuery}, {"CONTEXT", where}} {
		if f.v != "" {
			b.WriteString("\n" + f.name + ":  " + f.v)
		}
	}
	return b.String()
}

// libpq's limits for the line it shows: at most displaySize screen
// columns, cut at least minRightCut columns after the position.
const (
	displaySize = 60
	minRightCut = 10
)

// writeErrorPosition writes "\nLINE n: ..." and the caret line under
// position pos (in characters, from 1) of query, as libpq's
// reportErrorPosition does for a UTF-8 client: tabs shown as spaces, a
// long line cut to 60 columns around the position with "..." where it
// was cut, East Asian wide characters two columns wide.
func writeErrorPosition(b *strings.Builder, query string, pos int) {
	loc := pos - 1
	if loc < 0 {
		return
	}
	q := []byte(query)
	var qidx, scr []int // per character: its byte offset and screen column
	line, ibeg, iend := 1, 0, -1
	off, col, cno := 0, 0, 0
	for ; off < len(q); cno++ {
		qidx, scr = append(qidx, off), append(scr, col)
		ch := q[off]
		if ch == '\t' {
			q[off] = ' '
		} else if ch == '\r' || ch == '\n' {
			if cno < loc {
				if ch == '\r' || cno == 0 || q[qidx[cno-1]] != '\r' {
					line++
				}
				ibeg = cno + 1
			} else {
				iend = cno
				break
			}
		}
		r, size := utf8.DecodeRune(q[off:])
		col += displayWidth(r)
		off += size
	}
	if iend < 0 {
		iend = cno
		qidx, scr = append(qidx, off), append(scr, col)
	}
	if loc > cno {
		return
	}
	begCut, endCut := false, false
	if scr[iend]-scr[ibeg] > displaySize {
		if scr[ibeg]+displaySize >= scr[loc]+minRightCut {
			for scr[iend]-scr[ibeg] > displaySize {
				iend--
			}
			endCut = true
		} else {
			for scr[loc]+minRightCut < scr[iend] {
				iend--
				endCut = true
			}
			for scr[iend]-scr[ibeg] > displaySize {
				ibeg++
				begCut = true
			}
		}
	}
	prefix := "LINE " + strconv.Itoa(line) + ": "
	if begCut {
		prefix += "..."
	}
	b.WriteString("\n" + prefix + string(q[qidx[ibeg]:qidx[iend]]))
	if endCut {
		b.WriteString("...")
	}
	b.WriteString("\n" + strings.Repeat(" ", len(prefix)+scr[loc]-scr[ibeg]) + "^")
}

// displayWidth is a character's screen columns as PostgreSQL's
// ucs_wcwidth counts them for libpq's cursor: 2 for East Asian wide and
// fullwidth characters, else 1 (control and combining characters count
// 1 there too).
func displayWidth(r rune) int {
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}
