package ycsb_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stampede-bench/stampede/cmdline/ycsb"
	"github.com/stampede-bench/stampede/internal/golden"
	"github.com/stampede-bench/stampede/run"
)

// TestLines reads each pasted command line of testdata/lines.txt and
// compares what it becomes (stampede's arguments, warnings, or the one
// error line) with testdata/lines.golden.
func TestLines(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "lines.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, raw := range strings.Split(string(data), "\n") {
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			out.WriteString(raw + "\n")
			continue
		}
		words, err := split(line)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if words[0] != "stampede" {
			t.Fatalf("%s: lines start with stampede", line)
		}
		out.WriteString("$ " + line + "\n")
		l, err := ycsb.Parse(words[1:])
		switch {
		case err != nil:
			if !errors.Is(err, run.ErrInput) {
				t.Errorf("%s: error %v does not match run.ErrInput", line, err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("%s: error is not one line: %q", line, err)
			}
			out.WriteString("error: " + err.Error() + "\n")
		case l == nil:
			out.WriteString("(stampede's own line, left as it is)\n")
		default:
			out.WriteString("stampede " + join(l.Args) + "\n")
			for _, w := range l.Warnings {
				if strings.Contains(w, "\n") {
					t.Errorf("%s: warning is not one line: %q", line, w)
				}
				out.WriteString("warning: " + w + "\n")
			}
			if len(l.Secrets) > 0 {
				out.WriteString("secrets: " + strings.Join(l.Secrets, " ") + "\n")
			}
		}
		out.WriteString("\n")
	}
	golden.Check(t, filepath.Join("testdata", "lines.golden"), []byte(out.String()))
}

// split splits a shell command line into words: single quotes keep
// everything, double quotes and backslashes as the shell does.
func split(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated '")
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			in = true
		case c == '"':
			j := strings.IndexByte(s[i+1:], '"')
			if j < 0 {
				return nil, errors.New("unterminated \"")
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			in = true
		case c == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			in = true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words, nil
}

// join quotes the words that need it, for the golden file.
func join(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		if strings.ContainsAny(w, " &?;'\"") {
			w = "'" + w + "'"
		}
		out[i] = w
	}
	return strings.Join(out, " ")
}

// TestJDBCURLSecrets checks that a db.url's user information, its password
// parameters and db.passwd are printed by no error, whatever is wrong with
// the line, and that a db.url with user information (which PostgreSQL's
// JDBC driver does not read) is refused with the ways it takes a user and
// password.
func TestJDBCURLSecrets(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "db.props")
	if err := os.WriteFile(file, []byte("db.url=jdbc:postgresql://fuser:Sekr3t@127.0.0.1:5432/ycsb\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string // in the error
	}{
		{"user info", []string{"run", "jdbc", "-p", "db.url=jdbc:postgresql://pwuser:Sekr3t@127.0.0.1:5799/ycsb"},
			`db.url "jdbc:postgresql://xxxxx@127.0.0.1:5799/ycsb" holds a user or password before '@', which PostgreSQL's JDBC driver (and so YCSB's JDBC binding) does not read: give them as -p db.user=USER -p db.passwd=PASSWORD`},
		{"an @ in the password", []string{"run", "jdbc", "-p", "db.url=jdbc:postgresql://u:Sekr3t@H2x@127.0.0.1:5799/ycsb"},
			`db.url "jdbc:postgresql://xxxxx@127.0.0.1:5799/ycsb" holds a user or password`},
		{"a / in the password", []string{"run", "jdbc", "-p", "db.url=jdbc:postgresql://u:Sekr3t/x@127.0.0.1/ycsb"},
			`db.url "jdbc:postgresql://xxxxx@127.0.0.1/ycsb" holds a user or password`},
		{"a user alone", []string{"run", "jdbc", "-p", "db.url=jdbc:postgresql://Sekr3t@127.0.0.1/ycsb"},
			"holds a user or password before '@'"},
		{"from a -P file", []string{"run", "jdbc", "-P", file}, `db.url "jdbc:postgresql://xxxxx@127.0.0.1:5432/ycsb" holds a user or password`},
		{"a libpq URL", []string{"run", "jdbc", "-p", "db.url=postgresql://u:Sekr3t@127.0.0.1/ycsb"},
			`db.url "postgresql://xxxxx@127.0.0.1/ycsb" is a libpq URL, not a JDBC one: give it as the URL argument`},
		{"another driver", []string{"run", "jdbc", "-p", "db.url=jdbc:mysql://u:Sekr3t@127.0.0.1/ycsb"}, `db.url "jdbc:mysql://xxxxx@127.0.0.1/ycsb" is for JDBC's mysql driver`},
		{"not JDBC", []string{"run", "jdbc", "-p", "db.url=http://u:Sekr3t@h/x?password=Sekr3t"}, `db.url "http://xxxxx@h/x?password=xxxxx" is not a JDBC URL`},
		{"a bad port", []string{"run", "jdbc", "-p", "db.url=jdbc:postgresql://127.0.0.1:5x/ycsb?password=Sekr3t&sslpassword=Sekr3t"},
			`db.url "jdbc:postgresql://127.0.0.1:5x/ycsb?password=xxxxx&sslpassword=xxxxx": malformed host`},
		{"a bad database name", []string{"run", "jdbc", "-p", "db.url=jdbc:postgresql://h/y%zz?password=Sekr3t"}, `?password=xxxxx": malformed database name`},
		{"an IPv6 address without brackets", []string{"run", "jdbc", "-p", "db.url=jdbc:postgresql://::1:5432/ycsb?password=Sekr3t"},
			"write IPv6 addresses in brackets"},
		{"disagreeing passwords", []string{"run", "jdbc", "-p", "db.url=jdbc:postgresql://h/ycsb?password=Sekr3t", "-p", "db.passwd=Other99"},
			"db.url's password and db.passwd disagree: give one of them"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ycsb.Parse(tc.args)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !errors.Is(err, run.ErrInput) || strings.Contains(msg, "\n") || !strings.Contains(msg, tc.want) {
				t.Errorf("error %q (input %v): want one line holding %q", msg, errors.Is(err, run.ErrInput), tc.want)
			}
			for _, secret := range []string{"Sekr3t", "Other99", "H2x", "fuser", "pwuser"} {
				if strings.Contains(msg, secret) {
					t.Errorf("error %q prints %q", msg, secret)
				}
			}
		})
	}
}
