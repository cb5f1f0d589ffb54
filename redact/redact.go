// Package redact masks the secrets of connection strings in text that
// stampede prints or saves: passwords in URLs and key=value strings, and
// given secret values wherever they appear. It is text only (no SQL, no
// connections), so that anything that shows a run, its results included,
// may use it.
package redact

import (
	"net/url"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/stampede-bench/stampede/internal/lazyre"
)

// Mask is what replaces a secret in printed text.
const Mask = "xxxxx"

// IsURL reports whether s starts as a URL does: a scheme, then "://".
func IsURL(s string) bool { return urlScheme().MatchString(s) }

// secretKeys are the connection parameters whose values are never printed.
var secretKeys = []string{"password", "sslpassword"}

var dsnSecret = lazyre.New(`(?i)\b(password|sslpassword)\s*=\s*('(?:[^'\\]|\\.)*'|\S+)`)

// Conn returns a connection string (URL or key=value DSN) with its
// passwords replaced by "xxxxx". Strings it cannot parse are Mask by
// pattern, so the result is always safe to print.
func Conn(conn string) string {
	if urlScheme().MatchString(conn) { // a DSN may hold "://" in a value (host=/://)
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
			u.User = url.UserPassword(u.User.Username(), Mask)
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
			frag = urlSecret().ReplaceAllString(conn[i:], "${1}="+Mask)
			u.Fragment, u.RawFragment = "", ""
		}
		return u.String() + frag
	}
	return dsnSecret().ReplaceAllString(conn, "${1}="+Mask)
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
			pairs[i] = k + "=" + Mask
		}
	}
	return strings.Join(pairs, "&")
}

// urlScheme matches the start of a URL: a scheme, then "://".
var urlScheme = lazyre.New(`^[A-Za-z][A-Za-z0-9+.-]*://`)

var urlSecret = lazyre.New(`(?i)\b(password|sslpassword)=[^&]*`)

// redactUnparsableURL hides the whole user-info part and secret parameters of a
// URL that net/url rejected.
func redactUnparsableURL(s string) string {
	scheme, rest, _ := strings.Cut(s, "://")
	// Parameters first: a password parameter may hold an '@' ("password=@x")
	// that would otherwise pass for the end of the user info.
	rest = urlSecret().ReplaceAllString(rest, "${1}="+Mask)
	if at := strings.LastIndex(rest, "@"); at >= 0 && strings.Contains(rest[:at], ":") {
		// All of the user information that holds a password: which part
		// of it is the user name cannot be told in a URL that does not
		// parse. Without a colon it is a user name, as libpq reads it
		// (and the examples of messages, "postgresql://user@host:port/db",
		// stay as written).
		rest = Mask + rest[at:]
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
		for _, m := range dsnSecret().FindAllStringSubmatch(c, -1) {
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
			s = strings.ReplaceAll(s, sec, Mask)
		}
	}
	return s
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
			s = strings.ReplaceAll(s, sec, Mask)
		case sec != "":
			s = replaceStandalone(s, sec, Mask)
		}
	}
	return s
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
// the next white space or quote. Text leaves out the backquotes it
// ends with, which close a suggested command ("`stampede init ycsb URL`").
var urlInText = lazyre.New(`[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>]*`)

// Text returns free text (a tag, a note, a command line) with the
// passwords of every URL in it and every password=... pair replaced by
// "xxxxx", for text that may hold a connection string anywhere.
//
// A URL's query is Mask by Conn alone: the key=value pattern, whose
// value runs to the next space, would take the URL's other parameters
// with it ("?password=x&user=bob&sslmode=disable").
func Text(s string) string {
	var b strings.Builder
	last := 0
	for _, loc := range urlInText().FindAllStringIndex(s, -1) {
		for loc[1] > loc[0] && s[loc[1]-1] == '`' {
			loc[1]-- // not re-escaped as part of the URL's path (%60)
		}
		b.WriteString(dsnSecret().ReplaceAllString(s[last:loc[0]], "${1}="+Mask))
		b.WriteString(Conn(s[loc[0]:loc[1]]))
		last = loc[1]
	}
	b.WriteString(dsnSecret().ReplaceAllString(s[last:], "${1}="+Mask))
	return b.String()
}

// Tags returns a run's tags with the passwords they hold masked: the
// passwords of connection strings quoted in them and password=... pairs
// (Text, over key=value whole, so that a tag password=PW is masked
// as a pair), and the given secrets (the passwords of the run's
// connections) wherever they appear, bare values too (ScrubText). Nil or
// empty tags give nil.
func Tags(tags map[string]string, secrets []string) map[string]string {
	if len(tags) == 0 {
		return nil
	}
	out := make(map[string]string, len(tags))
	for k, v := range tags {
		k, v, _ := strings.Cut(Text(k+"="+v), "=")
		out[ScrubText(k, secrets)] = ScrubText(v, secrets)
	}
	return out
}

// ChangedTags returns the tags of saved (Tags of given) that differ from
// those given, as "key=value" with the saved value, sorted: the tags
// whose passwords were masked.
func ChangedTags(given, saved map[string]string) []string {
	var out []string
	for k, v := range saved {
		if gv, ok := given[k]; !ok || gv != v {
			out = append(out, k+"="+v)
		}
	}
	slices.Sort(out)
	return out
}

// Flags returns a copy of a run's recorded flags with their
// secrets masked as a run masks them when it saves run.json: the value of
// every flag whose name holds "password" is xxxxx, URLs in the others
// lose their passwords (Text), and the given secrets are scrubbed
// from every value (ScrubText).
func Flags(flags map[string]string, secrets []string) map[string]string {
	out := make(map[string]string, len(flags))
	for k, v := range flags {
		if strings.Contains(k, "password") && v != "" {
			v = "xxxxx"
		}
		out[k] = ScrubText(Text(v), secrets)
	}
	return out
}

// ScrubConn removes from msg (such as a parse error about conn) every
// password conn may hold, however conn is malformed: the user info's
// password as net/url or as a careless user would see it, and secret
// parameters, raw and escaped.
func ScrubConn(msg, conn string) string {
	secrets := Secrets([]string{conn}, nil)
	if _, rest, ok := strings.Cut(conn, "://"); ok {
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			if _, pw, ok := strings.Cut(rest[:at], ":"); ok {
				secrets = append(secrets, pw)
			}
		}
		for _, m := range urlSecret().FindAllStringSubmatch(rest, -1) {
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
