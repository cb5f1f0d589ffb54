package sqlx_test

import (
	"net/url"
	"strings"
	"testing"
	"unicode"

	"github.com/stampede-bench/stampede/redact"
	"github.com/stampede-bench/stampede/sqlx"
)

// connString builds a connection string with password pw from the
// fuzzer's parts, in one of several shapes chosen by form, as a user might
// write it.
func connString(form uint8, user, pw, host, extra string) string {
	switch form % 6 {
	case 0: // a well-formed URL
		u := url.URL{Scheme: "postgresql", User: url.UserPassword(user, pw), Host: host, Path: "/db", RawQuery: extra}
		return u.String()
	case 1: // the password pasted in as is
		return "postgresql://" + user + ":" + pw + "@" + host + "/db?" + extra
	case 2: // a password parameter, as is
		return "postgres://" + user + "@" + host + "/db?" + extra + "&password=" + pw
	case 3: // an escaped sslpassword parameter
		return "postgresql://" + user + "@" + host + "/db?sslpassword=" + url.QueryEscape(pw) + "&" + extra
	case 4: // a DSN with a quoted password
		q := strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(pw)
		return "host=" + host + " user=" + user + " password='" + q + "' " + extra
	default: // a DSN with the password as is
		return "host=" + host + " password=" + pw + " user=" + user + " " + extra
	}
}

// checkablePassword reports whether the fuzzer's password can be looked for
// in the output of s without false alarms: it must appear in s once, and
// not be something redaction itself writes.
func checkablePassword(form uint8, s, pw string) bool {
	if len(pw) < 4 || strings.Trim(pw, "0123456789abcdefABCDEF%") == "" {
		return false // too short, or made of what percent-escaping writes ("%20000" holds "0000")
	}
	// The password must show once in s, raw or escaped, so that finding
	// it in the output is a leak and not another part of s.
	forms := map[string]bool{pw: true, url.QueryEscape(pw): true, url.PathEscape(pw): true}
	n := 0
	for f := range forms {
		n += strings.Count(s, f)
	}
	if n != 1 {
		return false
	}
	if form%6 == 5 && strings.ContainsAny(pw, " \t\n\v\f\r'\\") {
		return false // not a valid unquoted DSN value
	}
	if form%6 <= 3 && strings.Contains(pw, "=") {
		return false // re-encoding other parameters writes "=" ("000" becomes "000=")
	}
	if form%6 == 2 && strings.ContainsAny(pw, "&#") {
		// Pasted as is, not one parameter value ("password=&000" is an
		// empty password and a key 000).
		return false
	}
	for _, w := range []string{"xxxxx", "password=", "postgres", "%"} {
		if strings.Contains(pw, w) || strings.Contains(w, pw) {
			return false
		}
	}
	return true
}

// leaked reports whether out shows pw, raw, or escaped when escaping
// leaves a letter in it. (Escaped forms made only of digits, '%' and
// punctuation turn up where net/url re-escapes other parts of a URL:
// "# 0 0" becomes "#%200%200", which holds "00%200".)
func leaked(out, pw string) bool {
	if strings.Contains(out, pw) {
		return true
	}
	for _, e := range []string{url.QueryEscape(pw), url.PathEscape(pw)} {
		if e != pw && strings.ContainsFunc(e, unicode.IsLetter) && strings.Contains(out, e) {
			return true
		}
	}
	return false
}

// arisesWithout reports whether pw shows in out's output for the same
// connection string with another password: then it comes from the rest of
// the string ("?000" from the query "?000=&…" once parameters are
// re-encoded), and finding it is no proof of a leak.
func arisesWithout(pw string, form uint8, user, host, extra string, out func(string) string) bool {
	for _, other := range []string{"Zq", "Zq0Zq"} {
		if leaked(out(connString(form, user, other, host, extra)), pw) {
			return true
		}
	}
	return false
}

// parseError returns ParseConfigs's error message for s, or "".
func parseError(s string) string {
	if _, err := sqlx.ParseConfigs(sqlx.Options{URLs: []string{s}}); err != nil {
		return err.Error()
	}
	return ""
}

func FuzzRedact(f *testing.F) {
	f.Add(uint8(0), "bob", "s3cret", "host:5432", "sslmode=disable")
	f.Add(uint8(1), "bob", "pa/ss@word", "h1,h2", "")
	f.Add(uint8(1), "bob", "12/34", "host", "")
	f.Add(uint8(2), "bob", "s3cret;x", "host", "a=b")
	f.Add(uint8(3), "bob", "key pass", "host", "sslmode=require")
	f.Add(uint8(4), "bob", `it's a \secret`, "localhost", "dbname=x")
	f.Add(uint8(5), "bob", "hunter2", "localhost", "sslmode=disable")
	f.Fuzz(func(t *testing.T, form uint8, user, pw, host, extra string) {
		s := connString(form, user, pw, host, extra)
		out := redact.Conn(s) // must not panic
		if checkablePassword(form, s, pw) && leaked(out, pw) && !arisesWithout(pw, form, user, host, extra, redact.Conn) {
			t.Errorf("redact.Conn(%q) = %q shows the password %q", s, out, pw)
		}
		_ = redact.Conn(user + pw + host + extra) // arbitrary text: must not panic
	})
}

func FuzzParseConfigs(f *testing.F) {
	f.Add(uint8(0), "bob", "s3cret", "localhost:5432", "sslmode=disable")
	f.Add(uint8(0), "bob", "s3cret", "localhost:notaport", "")
	f.Add(uint8(0), "bob", "s3cret", "localhost", "sslmode=bogus")
	f.Add(uint8(1), "bob", "12/34", "localhost", "")
	f.Add(uint8(1), "bob", "pa:ss@w", "[::1", "")
	f.Add(uint8(2), "bob", "s3cret", "localhost", "connect_timeout=x")
	f.Add(uint8(4), "bob", "s3 cret", "localhost", "port=x")
	f.Add(uint8(5), "bob", "s3cret", "localhost", "sslmode=verify-full sslrootcert=/nonexistent")
	f.Fuzz(func(t *testing.T, form uint8, user, pw, host, extra string) {
		s := connString(form, user, pw, host, extra)
		_, err := sqlx.ParseConfigs(sqlx.Options{URLs: []string{s}})
		if err == nil {
			return
		}
		msg := err.Error()
		if strings.ContainsAny(msg, "\n\r") {
			t.Errorf("ParseConfigs(%q): error is not one line: %q", s, msg)
		}
		if checkablePassword(form, s, pw) && leaked(msg, pw) && !arisesWithout(pw, form, user, host, extra, parseError) {
			t.Errorf("ParseConfigs(%q): error %q shows the password %q", s, msg, pw)
		}
	})
}
