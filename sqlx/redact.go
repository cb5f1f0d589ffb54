package sqlx

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/stampede-bench/stampede/internal/lazyre"
	"github.com/stampede-bench/stampede/redact"
)

// parseDetail returns the reason pgx gives for rejecting conn, on one line,
// without any password conn may hold. pgx quotes pieces of conn in its
// errors (net/url quotes the whole URL, the keyword/value parser a key), and
// pgx itself says its own redaction is best effort; so the URL that net/url
// quotes is dropped, and every other quoted piece is kept only when it is a
// piece of conn found outside the places a password can be (the user info
// of a URL, and the value after a password keyword: see secretSpans). Since
// pgx does not always quote with escapes, where a quoted piece ends cannot
// always be told: any run of 4 or more bytes left that also occurs in those
// places is masked (maskSpans). What is left is scrubbed of conn's
// passwords as well.
func parseDetail(err error, conn string) string {
	msg := err.Error()
	var pce *pgconn.ParseConfigError
	if errors.As(err, &pce) {
		msg = pce.Error()
		var reason string
		if inner := errors.Unwrap(pce); inner != nil {
			msg = strings.TrimSuffix(msg, " ("+inner.Error()+")")
			reason = inner.Error()
			var ue *url.Error
			if errors.As(inner, &ue) {
				reason = ue.Err.Error()
			}
		}
		// The message proper follows pgx's "cannot parse `conn`: ". The
		// last "`: " ends the connection string, which may hold one too,
		// as long as the reason, which may quote a piece of it, is not
		// yet appended.
		if i := strings.LastIndex(msg, "`: "); i >= 0 {
			msg = msg[i+3:]
		}
		if reason != "" {
			msg += ": " + reason
		}
	}
	spans := secretSpans(conn)
	keep := func(q string) string {
		piece := q[1 : len(q)-1]
		if q[0] == '"' {
			if u, err := strconv.Unquote(q); err == nil {
				piece = u
			}
		}
		if len(piece) <= 1 && !strings.Contains(conn, piece) {
			return q // a character pgx names ("="), not a piece of conn
		}
		if outsideSpans(conn, piece, spans) {
			return q
		}
		return `"…"`
	}
	msg = replaceQuoted(msg, keep)
	return redact.ScrubConn(maskSpans(msg, conn, spans), conn)
}

// minMasked is the length from which a run of a message's bytes that also
// occurs in a secret span of the connection string is masked.
const minMasked = 4

// maskSpans replaces with "…" every run of at least minMasked bytes of msg
// that also occurs in one of conn's spans, longest runs first from the
// left. It is the safety net under replaceQuoted: however pgx quotes (or
// fails to quote) a piece of a password, no four characters of it in a row
// are left.
func maskSpans(msg, conn string, spans []span) string {
	if len(spans) == 0 {
		return msg
	}
	var b strings.Builder
	for i := 0; i < len(msg); {
		n := 0 // the longest run from i found in a span, in whole runes
		for j := i; j < len(msg); {
			_, size := utf8.DecodeRuneInString(msg[j:])
			if !inSpans(msg[i:j+size], conn, spans) {
				break
			}
			j += size
			n = j - i
		}
		if n >= minMasked {
			b.WriteString("…")
			i += n
			continue
		}
		_, size := utf8.DecodeRuneInString(msg[i:])
		b.WriteString(msg[i : i+size])
		i += size
	}
	return b.String()
}

// inSpans reports whether piece occurs inside one of conn's spans.
func inSpans(piece, conn string, spans []span) bool {
	for _, s := range spans {
		if strings.Contains(conn[s.lo:s.hi], piece) {
			return true
		}
	}
	return false
}

// replaceQuoted passes every quoted piece of msg through f. A piece may be
// quoted with Go escapes (%q) or as is ("%s", where a backslash is just a
// backslash); a quote that closes nothing hides the rest of msg, since
// where a quoted piece ends can then not be known.
func replaceQuoted(msg string, f func(string) string) string {
	var b strings.Builder
	for {
		i := strings.IndexAny(msg, "\"`")
		if i < 0 {
			b.WriteString(msg)
			return b.String()
		}
		b.WriteString(msg[:i])
		loc := quoted().FindStringIndex(msg[i:])
		if loc == nil || loc[0] != 0 {
			b.WriteString(`"…"`)
			return b.String()
		}
		b.WriteString(f(msg[i : i+loc[1]]))
		msg = msg[i+loc[1]:]
	}
}

// quoted matches, at the start of a string, a double-quoted piece with Go
// escapes, else one without escapes, else a backquoted piece.
var quoted = lazyre.New("^(?:\"(?:[^\"\\\\]|\\\\.)*\"|\"[^\"]*\"|`[^`]*`)")

// span is a byte range [lo, hi) of a string.
type span struct{ lo, hi int }

// secretSpans returns the ranges of conn that may hold a password, widely:
// a URL's user info taken up to the last '@' anywhere (a password pasted in
// unescaped may hold '/', '?' or '#'), and the value after each password or
// sslpassword keyword, to where Redact's redaction of it ends: the next '&'
// in a URL, and in a DSN the closing quote of a quoted value (the end, if
// none) or the first space after an unquoted one. What lies beyond is
// printed by Redact anyway.
func secretSpans(conn string) []span {
	var out []span
	isURL := redact.IsURL(conn)
	if i := strings.Index(conn, "://"); i >= 0 {
		if at := strings.LastIndex(conn, "@"); at > i {
			out = append(out, span{i + 3, at})
		}
	}
	for _, loc := range secretKeyword().FindAllStringIndex(conn, -1) {
		lo, hi := loc[1], len(conn)
		rest := conn[lo:]
		if isURL {
			if i := strings.IndexByte(rest, '&'); i >= 0 {
				hi = lo + i
			}
		} else {
			v := strings.TrimLeft(rest, " \t\n\v\f\r=")
			start := lo + len(rest) - len(v)
			if end := dsnValueEnd(v); end >= 0 {
				hi = start + end
			}
		}
		out = append(out, span{lo, hi})
	}
	return out
}

// dsnValueEnd returns where the key=value DSN value at the start of v ends:
// after its closing quote if quoted (-1 when unterminated), else at the
// first space (-1 when none).
func dsnValueEnd(v string) int {
	if !strings.HasPrefix(v, "'") {
		return strings.IndexAny(v, " \t\n\v\f\r")
	}
	for i := 1; i < len(v); i++ {
		switch v[i] {
		case '\\':
			i++
		case '\'':
			return i + 1
		}
	}
	return -1
}

// secretKeyword finds the password keywords of a URL or DSN.
var secretKeyword = lazyre.New(`(?i)password`)

// outsideSpans reports whether piece occurs in conn at least once without
// overlapping any of the spans.
func outsideSpans(conn, piece string, spans []span) bool {
	if piece == "" {
		return true
	}
	for from := 0; from <= len(conn)-len(piece); {
		i := strings.Index(conn[from:], piece)
		if i < 0 {
			return false
		}
		lo, hi := from+i, from+i+len(piece)
		clear := true
		for _, s := range spans {
			if lo < s.hi && s.lo < hi {
				clear = false
				break
			}
		}
		if clear {
			return true
		}
		from = lo + 1
	}
	return false
}
