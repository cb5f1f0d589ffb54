package sqlx_test

import (
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/sqlx"
)

func TestParseConfigsErrors(t *testing.T) {
	for _, tc := range []struct {
		url     string
		wantErr string
	}{
		{"postgresql://bob:pw@localhost:5432/db", ""},
		{"host=localhost port=5432 user=bob", ""},
		{"mysql://bob:pw@host/db", "unsupported URL scheme \"mysql\""},
		{"localhost:5432", "malformed connection URL"},
		{"postgresql://bob:pw@host:notaport/db", "malformed connection URL"},
		{"postgresql://bob:secretpw@host/db?sslmode=bogus", "malformed connection URL"},
		// A quoted piece outside the user info is kept: it names the problem.
		{"postgresql://bob:secretpw@host/db?connect_timeout=x", `invalid connect_timeout: strconv.ParseInt: parsing "x": invalid syntax`},
		// pgx quotes the query from a piece of the password on: hidden whole.
		{"postgresql://?::0/secretpw@host/db?", `missing key/value separator "=" in URI query parameter: "…"`},
		// pgx quotes it as is: a backslash before the closing quote is no escape.
		{`postgresql://:?:00/secretpw@0/db?\`, `missing key/value separator "=" in URI query parameter: "…"`},
		// A quote inside a piece pgx quotes as is: no four characters of the password in a row remain.
		{`postgresql://?::"0/secretpw@0/db?0`, `missing key/value separator "=" in URI query parameter: "…`},
		// What follows a DSN's password value is not hidden from the reason.
		{"password=secretpw port=xyz1 host=h", "password=xxxxx port=xyz1 host=h: invalid port"},
		{"postgresql://bob@host/db?password=secretpw&connect_timeout=abc", `invalid connect_timeout: strconv.ParseInt: parsing "abc": invalid syntax`},
		// A short password is hidden where it stands, not inside words.
		{"host=x password=pw b c", "malformed connection URL host=x password=xxxxx b c: failed to parse as keyword/value: invalid keyword/value"},
	} {
		_, err := sqlx.ParseConfigs(sqlx.Options{URLs: []string{tc.url}, Database: "x"})
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: unexpected error %v", tc.url, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: error %v, want %q", tc.url, err, tc.wantErr)
		}
		if err != nil && (strings.Contains(err.Error(), ":pw@") || strings.Contains(err.Error(), "secretpw")) {
			t.Errorf("%s: error leaks the password: %v", tc.url, err)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error is not one line: %q", tc.url, err)
		}
	}
}

func TestDatabaseOverride(t *testing.T) {
	cfgs, err := sqlx.ParseConfigs(sqlx.Options{URLs: []string{"postgresql://a@h1/x", "postgresql://a@h2:26257/y"}, Database: "ycsb"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cfgs {
		if c.ConnConfig.Database != "ycsb" {
			t.Errorf("database %q, want ycsb", c.ConnConfig.Database)
		}
	}
	if cfgs[1].ConnConfig.Port != 26257 || cfgs[1].ConnConfig.Host != "h2" {
		t.Errorf("second endpoint %s:%d", cfgs[1].ConnConfig.Host, cfgs[1].ConnConfig.Port)
	}
}
