package sqlx_test

import (
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/sqlx"
)

// TestPGEnvCensus29: PGGSSENCMODE and PGCLIENTENCODING, which pgx does
// not read, were ignored (pgbench refuses a bad value); a refused
// variable's message showed Go's strconv text and an elided value. Each
// is now one line naming the variable and its value.
func TestPGEnvCensus29(t *testing.T) {
	const plain = "postgresql://u@127.0.0.1:1/db"
	cases := []struct {
		name, value, url string
		want             string // "": parses
	}{
		{"PGGSSENCMODE", "bogus", plain, `PGGSSENCMODE="bogus" in the environment (libpq's gssencmode) is refused: invalid gssencmode value; give disable, prefer or require`},
		{"PGGSSENCMODE", "require", plain, "asks for GSSAPI encryption, which stampede does not do"},
		{"PGGSSENCMODE", "prefer", plain, ""},
		{"PGGSSENCMODE", "disable", plain, ""},
		{"PGCLIENTENCODING", "bogus", plain, `PGCLIENTENCODING="bogus" in the environment (libpq's client_encoding) asks for an encoding stampede does not speak`},
		{"PGCLIENTENCODING", "LATIN1", plain, "speaks UTF8 only"},
		{"PGCLIENTENCODING", "UTF8", plain, ""},
		{"PGCLIENTENCODING", "utf-8", plain, ""},
		{"PGCONNECT_TIMEOUT", "abc", plain, `PGCONNECT_TIMEOUT="abc" in the environment (libpq's connect_timeout, which stampede reads as libpq does) is refused: not a valid connect_timeout; give a whole number of seconds`},
		{"PGREQUIREAUTH", "bogus", plain, `PGREQUIREAUTH="bogus" in the environment (libpq's require_auth, which stampede reads as libpq does) is refused: not a valid require_auth; give a list of`},
	}
	for _, c := range cases {
		t.Run(c.name+"="+c.value, func(t *testing.T) {
			t.Setenv(c.name, c.value)
			_, err := sqlx.ParseConfigs(sqlx.Options{URLs: []string{c.url}})
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("%s: %v", c.url, err)
			case c.want == "":
			case err == nil:
				t.Fatalf("accepted")
			case !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") ||
				strings.Contains(err.Error(), "strconv") || strings.Contains(err.Error(), "…"):
				t.Fatalf("%v: want one line with %q, no Go internals, the value shown", err, c.want)
			}
		})
	}
}
