package sqlx

import (
	"errors"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgconn"
)

// redacted replaces secrets in printed connection strings.
const redacted = "xxxxx"

// secretKeys are the connection parameters whose values are never printed.
var secretKeys = []string{"password", "sslpassword"}

var dsnSecret = regexp.MustCompile(`(?i)\b(password|sslpassword)\s*=\s*('(?:[^'\\]|\\.)*'|\S+)`)

// Redact returns a connection string (URL or key=value DSN) with its
// passwords replaced by "xxxxx". Strings it cannot parse are redacted by
// pattern, so the result is always safe to print.
func Redact(conn string) string {
	if urlScheme.MatchString(conn) { // a DSN may hold "://" in a value (host=/://)
		u, err := url.Parse(conn)
		if err != nil || !atsInAuthority(conn) {
			return redactUnparsableURL(conn)
		}
		_, hasPassword := u.User.Password()
		if !hasPassword && redactQuery(u.RawQuery) == u.RawQuery && !strings.Contains(conn, "#") {
			// Nothing to mask: the URL as written (net/url would turn
			// a bare "postgres://" into "postgres:").
			return conn
		}
		if hasPassword {
			u.User = url.UserPassword(u.User.Username(), redacted)
		}
		// Every other parameter is kept as written and in its place:
		// the URL printed runs as the user's did (as the same user, with
		// the same sslmode), only without the password.
		u.RawQuery = redactQuery(u.RawQuery)
		// A fragment is not a parameter, but may still hold one
		// ("db?#&password=x"): nothing secret is printed from it either.
		// It is taken as written (net/url splits at the first '#'), since
		// re-escaping the decoded fragment would bring back an '&' that
		// was escaped inside a value.
		frag := ""
		if i := strings.IndexByte(conn, '#'); i >= 0 {
			frag = urlSecret.ReplaceAllString(conn[i:], "${1}="+redacted)
			u.Fragment, u.RawFragment = "", ""
		}
		return u.String() + frag
	}
	return dsnSecret.ReplaceAllString(conn, "${1}="+redacted)
}

// atsInAuthority reports whether every '@' of a URL is in its authority
// (the part after "://" up to the first '/', '?' or '#'), where net/url
// looks for the user info. When a password holds one of those characters
// unescaped ("postgresql://bob:pa/ss@host"), net/url would take part of it
// for the host and path, and printing the parsed URL would show it.
func atsInAuthority(s string) bool {
	_, rest, _ := strings.Cut(s, "://")
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		return true
	}
	return !strings.Contains(rest[end:], "@")
}

// redactQuery returns a URL's raw query with the value of every parameter
// whose name holds "password" (in any case, escaped or not: password,
// sslpassword, and any a careless user may give) replaced, and every
// other pair untouched.
func redactQuery(raw string) string {
	if raw == "" {
		return raw
	}
	pairs := strings.Split(raw, "&")
	for i, p := range pairs {
		k, _, _ := strings.Cut(p, "=")
		if uk, err := url.QueryUnescape(k); err == nil {
			k = uk
		}
		if strings.Contains(strings.ToLower(k), "password") {
			pairs[i] = k + "=" + redacted
		}
	}
	return strings.Join(pairs, "&")
}

// urlScheme matches the start of a URL: a scheme, then "://".
var urlScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://`)

var urlSecret = regexp.MustCompile(`(?i)\b(password|sslpassword)=[^&]*`)

// redactUnparsableURL hides the whole user-info part and secret parameters of a
// URL that net/url rejected.
func redactUnparsableURL(s string) string {
	scheme, rest, _ := strings.Cut(s, "://")
	// Parameters first: a password parameter may hold an '@' ("password=@x")
	// that would otherwise pass for the end of the user info.
	rest = urlSecret.ReplaceAllString(rest, "${1}="+redacted)
	if at := strings.LastIndex(rest, "@"); at >= 0 && strings.Contains(rest[:at], ":") {
		// All of the user information that holds a password: which part
		// of it is the user name cannot be told in a URL that does not
		// parse. Without a colon it is a user name, as libpq reads it
		// (and the examples of messages, "postgresql://user@host:port/db",
		// stay as written).
		rest = redacted + rest[at:]
	}
	return scheme + "://" + rest
}

// Secrets returns the secret values contained in the given connection
// strings and environment (PGPASSWORD), for scrubbing free text.
func Secrets(conns []string, env func(string) string) []string {
	var out []string
	add := func(s string) {
		if s != "" {
			out = append(out, s)
		}
	}
	for _, c := range conns {
		if strings.Contains(c, "://") {
			if u, err := url.Parse(c); err == nil {
				if u.User != nil {
					p, _ := u.User.Password()
					add(p)
				}
				for _, k := range secretKeys {
					add(u.Query().Get(k))
				}
			}
			continue
		}
		for _, m := range dsnSecret.FindAllStringSubmatch(c, -1) {
			add(strings.Trim(m[2], "'"))
		}
	}
	if env != nil {
		add(env("PGPASSWORD"))
	}
	return out
}

// Scrub replaces every occurrence of the given secrets in s.
func Scrub(s string, secrets []string) string {
	for _, sec := range secrets {
		if len(sec) >= 1 {
			s = strings.ReplaceAll(s, sec, redacted)
		}
	}
	return s
}

// scrubConn removes from msg (such as a parse error about conn) every
// password conn may hold, however conn is malformed: the user info's
// password as net/url or as a careless user would see it, and secret
// parameters, raw and escaped.
func scrubConn(msg, conn string) string {
	secrets := Secrets([]string{conn}, nil)
	if _, rest, ok := strings.Cut(conn, "://"); ok {
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			if _, pw, ok := strings.Cut(rest[:at], ":"); ok {
				secrets = append(secrets, pw)
			}
		}
		for _, m := range urlSecret.FindAllStringSubmatch(rest, -1) {
			_, v, _ := strings.Cut(m[0], "=")
			secrets = append(secrets, v)
		}
	}
	var all []string
	for _, s := range secrets {
		if s == "" {
			continue
		}
		all = append(all, s, url.QueryEscape(s), url.PathEscape(s))
		if u, err := url.QueryUnescape(s); err == nil {
			all = append(all, u)
		}
		// Error messages split at ": " and trim: a secret that starts or
		// ends with spaces can come out without them.
		if t := strings.TrimSpace(s); t != "" && t != s {
			all = append(all, t)
		}
	}
	return ScrubText(msg, all)
}

// minWithin is the length from which a secret is masked inside words too.
const minWithin = 4

// ScrubText replaces the given secrets in s, longest first (so that a
// secret that holds another is hidden whole), as Scrub does, except that a
// secret shorter than 4 bytes is replaced only where it stands alone (not
// next to a letter or digit): a password "a" is masked in "secret=a" but
// does not turn "cannot" into "cxxxxxnnot", and a tag "db=pg17" keeps its
// value with a password "pg".
func ScrubText(s string, secrets []string) string {
	all := slices.Clone(secrets)
	sort.SliceStable(all, func(i, j int) bool { return len(all[i]) > len(all[j]) })
	for _, sec := range all {
		switch {
		case len(sec) >= minWithin:
			s = strings.ReplaceAll(s, sec, redacted)
		case sec != "":
			s = replaceStandalone(s, sec, redacted)
		}
	}
	return s
}

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
	return scrubConn(maskSpans(msg, conn, spans), conn)
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
		loc := quoted.FindStringIndex(msg[i:])
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
var quoted = regexp.MustCompile("^(?:\"(?:[^\"\\\\]|\\\\.)*\"|\"[^\"]*\"|`[^`]*`)")

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
	isURL := urlScheme.MatchString(conn)
	if i := strings.Index(conn, "://"); i >= 0 {
		if at := strings.LastIndex(conn, "@"); at > i {
			out = append(out, span{i + 3, at})
		}
	}
	for _, loc := range secretKeyword.FindAllStringIndex(conn, -1) {
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
var secretKeyword = regexp.MustCompile(`(?i)password`)

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

// replaceStandalone replaces the occurrences of old in s that are not next
// to a letter or digit.
func replaceStandalone(s, old, repl string) string {
	if old == "" {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, old)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[i+len(old):])
		if i > 0 && isWordRune(before) || i+len(old) < len(s) && isWordRune(after) {
			_, size := utf8.DecodeRuneInString(s[i:])
			b.WriteString(s[:i+size])
			s = s[i+size:]
			continue
		}
		b.WriteString(s[:i])
		b.WriteString(repl)
		s = s[i+len(old):]
	}
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// urlInText finds URLs in free text: a scheme, "://", and everything up to
// the next white space or quote. RedactText leaves out the backquotes it
// ends with, which close a suggested command ("`stampede init ycsb URL`").
var urlInText = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>]*`)

// RedactText returns free text (a tag, a note, a command line) with the
// passwords of every URL in it and every password=... pair replaced by
// "xxxxx", for text that may hold a connection string anywhere.
//
// A URL's query is redacted by Redact alone: the key=value pattern, whose
// value runs to the next space, would take the URL's other parameters
// with it ("?password=x&user=bob&sslmode=disable").
func RedactText(s string) string {
	var b strings.Builder
	last := 0
	for _, loc := range urlInText.FindAllStringIndex(s, -1) {
		for loc[1] > loc[0] && s[loc[1]-1] == '`' {
			loc[1]-- // not re-escaped as part of the URL's path (%60)
		}
		b.WriteString(dsnSecret.ReplaceAllString(s[last:loc[0]], "${1}="+redacted))
		b.WriteString(Redact(s[loc[0]:loc[1]]))
		last = loc[1]
	}
	b.WriteString(dsnSecret.ReplaceAllString(s[last:], "${1}="+redacted))
	return b.String()
}

// RedactTags returns a run's tags with the passwords they hold masked: the
// passwords of connection strings quoted in them and password=... pairs
// (RedactText, over key=value whole, so that a tag password=PW is masked
// as a pair), and the given secrets (the passwords of the run's
// connections) wherever they appear, bare values too (ScrubText). Nil or
// empty tags give nil.
func RedactTags(tags map[string]string, secrets []string) map[string]string {
	if len(tags) == 0 {
		return nil
	}
	out := make(map[string]string, len(tags))
	for k, v := range tags {
		k, v, _ := strings.Cut(RedactText(k+"="+v), "=")
		out[ScrubText(k, secrets)] = ScrubText(v, secrets)
	}
	return out
}

// RedactFlags returns a copy of a run's recorded flags with their
// secrets masked as a run masks them when it saves run.json: the value of
// every flag whose name holds "password" is xxxxx, URLs in the others
// lose their passwords (RedactText), and the given secrets are scrubbed
// from every value (ScrubText).
func RedactFlags(flags map[string]string, secrets []string) map[string]string {
	out := make(map[string]string, len(flags))
	for k, v := range flags {
		if strings.Contains(k, "password") && v != "" {
			v = "xxxxx"
		}
		out[k] = ScrubText(RedactText(v), secrets)
	}
	return out
}
