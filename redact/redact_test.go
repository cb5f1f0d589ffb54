package redact_test

import (
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/redact"
)

func TestRedact(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"postgresql://root@host:26257?sslmode=disable", "postgresql://root@host:26257?sslmode=disable"},
		// Nothing to mask: as written, not as net/url prints it.
		{"postgres://", "postgres://"},
		{"postgresql://h//db?x=%41", "postgresql://h//db?x=%41"},
		{"postgresql://bob:s3cret@host:5432/db", "postgresql://bob:xxxxx@host:5432/db"},
		{"postgres://bob:s3cret@h1,h2/db?sslmode=require", "postgres://bob:xxxxx@h1,h2/db?sslmode=require"},
		{"postgresql://bob@host/db?password=s3cret&sslmode=disable", "postgresql://bob@host/db?password=xxxxx&sslmode=disable"},
		{"postgresql://bob@host/db?sslpassword=keypass", "postgresql://bob@host/db?sslpassword=xxxxx"},
		{"host=h user=bob password=s3cret dbname=db", "host=h user=bob password=xxxxx dbname=db"},
		{"host=h password='s3 cret' dbname=db", "host=h password=xxxxx dbname=db"},
		{"host=h PASSWORD = s3cret", "host=h PASSWORD=xxxxx"},
		// A URL that does not parse: all of user information that holds
		// a password is hidden, user name too (chk28b F2).
		{"postgresql://bob:s3c%ret@host/db", "postgresql://xxxxx@host/db"},
		{"postgresql://user@host:port/db", "postgresql://user@host:port/db"},
		// Every other parameter is kept as written, in its place.
		{"postgresql://127.0.0.1:5605/bank?user=postgres&password=s3cret&sslmode=disable", "postgresql://127.0.0.1:5605/bank?user=postgres&password=xxxxx&sslmode=disable"},
		{"postgresql://h/db?application_name=a%20b&PASSWORD=s3cret&user=bob", "postgresql://h/db?application_name=a%20b&PASSWORD=xxxxx&user=bob"},
		{"postgresql://h/db?pass%77ord=s3cret&user=bob", "postgresql://h/db?password=xxxxx&user=bob"},
		{"postgresql://bob:s3cret@h/db?sslpassword=keypass&sslmode=verify-full", "postgresql://bob:xxxxx@h/db?sslpassword=xxxxx&sslmode=verify-full"},
		{"host=h user=bob password=s3cret sslmode=disable dbname=db", "host=h user=bob password=xxxxx sslmode=disable dbname=db"},
	} {
		got := redact.Conn(tc.in)
		if got != tc.want {
			t.Errorf("redact.Conn(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if strings.Contains(got, "s3") || strings.Contains(got, "keypass") {
			t.Errorf("redact.Conn(%q) leaks: %q", tc.in, got)
		}
	}
}

func TestSecretsAndScrub(t *testing.T) {
	env := map[string]string{"PGPASSWORD": "envpw"}
	secrets := redact.Secrets([]string{
		"postgresql://bob:urlpw@host/db",
		"host=h password='dsn pw'",
		"postgresql://x@h/db?password=qpw",
	}, func(k string) string { return env[k] })
	msg := redact.Scrub("urlpw dsn pw qpw envpw", secrets)
	for _, s := range []string{"urlpw", "dsn pw", "qpw", "envpw"} {
		if strings.Contains(msg, s) {
			t.Errorf("Scrub left %q in %q", s, msg)
		}
	}
}

func TestRedactText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain note", "plain note"},
		{"postgresql://bob:secret@h/db", "postgresql://bob:xxxxx@h/db"},
		{"db is postgresql://bob:secret@h:5432/db?sslmode=disable, then more", "db is postgresql://bob:xxxxx@h:5432/db?sslmode=disable, then more"},
		{"two: postgres://a:s1@h1/x postgres://b:s2@h2/y", "two: postgres://a:xxxxx@h1/x postgres://b:xxxxx@h2/y"},
		{"host=h password=secret user=u", "host=h password=xxxxx user=u"},
		{"Password = 'se cret'", "Password=xxxxx"},
		{"url=postgresql://bob:secret@h/db", "url=postgresql://bob:xxxxx@h/db"},
		{"postgresql://bob@h/db", "postgresql://bob@h/db"},
		// The password=... pattern for free text does not take a URL's
		// other parameters with the password (issue 28).
		{"postgresql://127.0.0.1:5605/bank?user=postgres&password=secret&sslmode=disable", "postgresql://127.0.0.1:5605/bank?user=postgres&password=xxxxx&sslmode=disable"},
		{"see postgresql://h/db?password=secret&user=bob and password=secret user=u", "see postgresql://h/db?password=xxxxx&user=bob and password=xxxxx user=u"},
		// The backquote that closes a suggested command is not the
		// URL's: it is not re-escaped into its path as %60.
		{"load it with `stampede init ycsb postgresql://bob:secret@h/db` (which creates it)", "load it with `stampede init ycsb postgresql://bob:xxxxx@h/db` (which creates it)"},
	} {
		got := redact.Text(tc.in)
		if got != tc.want {
			t.Errorf("redact.Text(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if strings.Contains(got, "secret") || strings.Contains(got, "s1") || strings.Contains(got, "s2@") {
			t.Errorf("redact.Text(%q) = %q leaks a password", tc.in, got)
		}
	}
}
