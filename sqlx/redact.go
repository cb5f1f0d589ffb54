package sqlx

import (
	"net/url"
	"regexp"
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
	if strings.Contains(conn, "://") {
		u, err := url.Parse(conn)
		if err != nil {
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
		return u.String()
	}
	return dsnSecret.ReplaceAllString(conn, "${1}="+redacted)
}

// redactUnparsableURL hides the user-info part and secret parameters of a
// URL that net/url rejected.
func redactUnparsableURL(s string) string {
	scheme, rest, _ := strings.Cut(s, "://")
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		userinfo := rest[:at]
		if user, _, ok := strings.Cut(userinfo, ":"); ok {
			rest = user + ":" + redacted + rest[at:]
		}
	}
	rest = regexp.MustCompile(`(?i)\b(password|sslpassword)=[^&]*`).ReplaceAllString(rest, "${1}="+redacted)
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
