package sqlx_test

import (
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/redact"
	"github.com/stampede-bench/stampede/sqlx"
)

// TestStrayAt checks the URLs whose password or user name holds an
// unescaped '@': ParseConfigs refuses them in one line that says to write
// it %40 and prints no piece of the password, where pgx would read the
// rest of the password as the host or the database.
func TestStrayAt(t *testing.T) {
	for _, tc := range []struct {
		name, url string
		stray     bool
		secret    string // a piece of the password that must not be printed ("" none)
		host      string // the host pgx reads, when accepted
	}{
		{"issue 28's URL", "postgresql://postgres:Pw@H2x@127.0.0.1:5602/db", true, "H2x", ""},
		{"two @ in the password", "postgres://u:a@b@c@host/db", true, "b@c", ""},
		{"@ then a path", "postgres://u:pa@ss/wd@host/db", true, "ss/wd", ""},
		{"@ then a fragment sign", "postgres://u:pa@ss#wd@host:5432/db", true, "ss#wd", ""},
		{"no path", "postgres://u:pa@sswd@host", true, "sswd", ""},
		{"no path, a query", "postgres://u:pa@sswd@host?sslmode=disable", true, "sswd", ""},
		{"user name with @", "postgresql://alice@corp:pw@host/db", true, "", ""},
		{"database with @", "postgresql://u@host/db@x", true, "", ""},
		// chk28b F2: no part of the user information, user name too.
		{"no colon", "postgresql://pwsecret@Zq9@127.0.0.1:5712/chk28b_ycsb", true, "pwsecret", ""},
		{"no colon, second piece", "postgresql://pwsecret@Zq9@127.0.0.1:5712/chk28b_ycsb", true, "Zq9", ""},
		{"user name with @, its pieces", "postgresql://us@er:pw@127.0.0.1:5712/chk28b_ycsb", true, "us@er", ""},
		{"user name with @, escaped", "postgresql://us@er:pw@127.0.0.1:5712/chk28b_ycsb", true, "us%40er", ""},
		{"user name with @ and a password parameter", "postgresql://pwsecret@Zq9@127.0.0.1:5712/x?password=abc", true, "abc", ""},
		{"escaped", "postgresql://postgres:Pw%40H2x@127.0.0.1:5602/db", false, "", "127.0.0.1"},
		{"escaped user name", "postgresql://alice%40corp:pw@host/db", false, "", "host"},
		{"@ in a query value", "postgresql://u:pw@host/db?application_name=me@box", false, "", "host"},
		{"@ in a query, no path", "postgresql://u:pw@host?application_name=me@box", false, "", "host"},
		{"no user information", "postgresql://host:5432/db", false, "", "host"},
		{"a DSN", "host=h password=p@ss@w user=u", false, "", "h"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := sqlx.CheckUserinfo(tc.url); (err != nil) != tc.stray || err != nil && !errors.Is(err, sqlx.ErrStrayAt) {
				t.Errorf("CheckUserinfo = %v, want stray %v", err, tc.stray)
			}
			cfgs, err := sqlx.ParseConfigs(sqlx.Options{URLs: []string{tc.url}})
			if !tc.stray {
				if err != nil {
					t.Fatalf("ParseConfigs: %v", err)
				}
				if got := cfgs[0].ConnConfig.Host; got != tc.host {
					t.Errorf("host %q, want %q", got, tc.host)
				}
				return
			}
			if err == nil {
				t.Fatalf("ParseConfigs accepted it: host %q, database %q", cfgs[0].ConnConfig.Host, cfgs[0].ConnConfig.Database)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "malformed connection URL ") || !strings.HasSuffix(msg, "write '@' as %40 in passwords, user names and database names") ||
				strings.Contains(msg, "\n") {
				t.Errorf("error %q", msg)
			}
			if !strings.Contains(msg, "://xxxxx@") || !strings.Contains(msg, ": it holds an '@'") {
				t.Errorf("error %q: want the user information as xxxxx, then the reason after a colon", msg)
			}
			if tc.secret != "" && strings.Contains(msg, tc.secret) {
				t.Errorf("error prints %q of the password: %s", tc.secret, msg)
			}
		})
	}
}

// TestStrayAtInParseError checks that a URL pgx cannot parse, whose '@'
// may be a password's, gets the advice too.
func TestStrayAtInParseError(t *testing.T) {
	_, err := sqlx.ParseConfigs(sqlx.Options{URLs: []string{"postgres://u:pa@ss?wd@host/db"}})
	if err == nil || !strings.Contains(err.Error(), "if a password or user name holds an '@', write it as %40") || strings.Contains(err.Error(), "wd@") {
		t.Errorf("error %v", err)
	}
	_, err = sqlx.ParseConfigs(sqlx.Options{URLs: []string{"postgres://u:pw@host:x/db"}})
	if err == nil || strings.Contains(err.Error(), "%40") {
		t.Errorf("one '@', advice given: %v", err)
	}
}

func TestScrubText(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		secrets  []string
		want     string
	}{
		{"long, inside a word", "xPwH2xy", []string{"PwH2x"}, "xxxxxxy"},
		{"short, alone", "secret=pg", []string{"pg"}, "secret=xxxxx"},
		{"short, inside a word", "db=pg17", []string{"pg"}, "db=pg17"},
		{"short, in an error", "cannot connect to b:5432", []string{"a"}, "cannot connect to b:5432"},
		{"longest first", "pw=hunter22", []string{"hunter", "hunter22"}, "pw=xxxxx"},
		{"short inside a long one", "ab-cd", []string{"ab", "ab-cd"}, "xxxxx"},
		{"empty secret", "abc", []string{""}, "abc"},
		{"none", "abc", nil, "abc"},
	} {
		if got := redact.ScrubText(tc.in, tc.secrets); got != tc.want {
			t.Errorf("%s: redact.ScrubText(%q, %q) = %q, want %q", tc.name, tc.in, tc.secrets, got, tc.want)
		}
	}
}

func TestRedactTags(t *testing.T) {
	secrets := []string{"PwH2x-long", "pg"}
	for _, tc := range []struct {
		name     string
		in, want map[string]string
	}{
		{"none", nil, nil},
		{"empty", map[string]string{}, nil},
		{"bare password", map[string]string{"secret": "PwH2x-long"}, map[string]string{"secret": "xxxxx"}},
		{"inside a value", map[string]string{"note": "pw PwH2x-long here"}, map[string]string{"note": "pw xxxxx here"}},
		{"as a key", map[string]string{"PwH2x-long": "1"}, map[string]string{"xxxxx": "1"}},
		{"short password alone", map[string]string{"secret": "pg"}, map[string]string{"secret": "xxxxx"}},
		{"short password in a word", map[string]string{"db": "pg17"}, map[string]string{"db": "pg17"}},
		{"a password pair", map[string]string{"password": "other"}, map[string]string{"password": "xxxxx"}},
		{"a URL", map[string]string{"target": "postgresql://u:other@h/db"}, map[string]string{"target": "postgresql://u:xxxxx@h/db"}},
		{"empty value", map[string]string{"job": ""}, map[string]string{"job": ""}},
	} {
		if got := redact.Tags(tc.in, secrets); !maps.Equal(got, tc.want) || (got == nil) != (tc.want == nil) {
			t.Errorf("%s: redact.Tags(%v) = %v, want %v", tc.name, tc.in, got, tc.want)
		}
	}
}
