package sqlx

import (
	"net/url"
	"regexp"
	"sort"
	"strings"
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
		if u.User != nil {
			if _, ok := u.User.Password(); ok {
				u.User = url.UserPassword(u.User.Username(), redacted)
			}
		}
		q := u.Query()
		changed := false
		for _, k := range secretKeys {
			if q.Has(k) {
				q.Set(k, redacted)
				changed = true
			}
		}
		if changed {
			u.RawQuery = q.Encode()
		}
		// Pairs that net/url could not parse (it drops them from Query).
		u.RawQuery = urlSecret.ReplaceAllString(u.RawQuery, "${1}="+redacted)
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

// urlScheme matches the start of a URL: a scheme, then "://".
var urlScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://`)

var urlSecret = regexp.MustCompile(`(?i)\b(password|sslpassword)=[^&]*`)

// redactUnparsableURL hides the user-info part and secret parameters of a
// URL that net/url rejected.
func redactUnparsableURL(s string) string {
	scheme, rest, _ := strings.Cut(s, "://")
	// Parameters first: a password parameter may hold an '@' ("password=@x")
	// that would otherwise pass for the end of the user info.
	rest = urlSecret.ReplaceAllString(rest, "${1}="+redacted)
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		userinfo := rest[:at]
		if user, _, ok := strings.Cut(userinfo, ":"); ok {
			rest = user + ":" + redacted + rest[at:]
		}
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
	// Longest first, so that a secret containing another is hidden whole.
	sort.Slice(all, func(i, j int) bool { return len(all[i]) > len(all[j]) })
	return Scrub(msg, all)
}
