package sqlx_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/sqlx"
)

// TestPGEnvRefusedByName: a PG* variable that pgx reads as libpq does and
// refuses is named in one line with what libpq takes, not left in pgx's
// words under a "malformed connection URL" the user never wrote; a URL
// that gives the parameter itself wins over the variable, as in libpq.
func TestPGEnvRefusedByName(t *testing.T) {
	const plain = "postgresql://u@127.0.0.1:1/db"
	cases := []struct {
		name, value, url, want string // want "": parses
	}{
		{"PGSSLMODE", "bogus", plain, "disable, allow, prefer, require, verify-ca and verify-full"},
		{"PGSSLMODE", "bogus", plain + "?sslmode=disable", ""},
		{"PGCONNECT_TIMEOUT", "abc", plain, "whole number of seconds"},
		{"PGCONNECT_TIMEOUT", "-1", plain, "whole number of seconds"},
		{"PGSERVICE", "nosuch", plain, "[section] of the service file"},
		{"PGSERVICEFILE", "/nonexistent/pg_service.conf", plain + "?service=x", "file of [service] sections"},
		{"PGTARGETSESSIONATTRS", "bogus", plain, "read-write"},
		{"PGCHANNELBINDING", "bogus", plain, "disable, prefer or require"},
		{"PGSSLROOTCERT", "/nonexistent/ca.pem", plain + "?sslmode=verify-full", "CA that signed"},
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
			case !strings.HasPrefix(err.Error(), c.name+"=") || !strings.Contains(err.Error(), c.want) ||
				!strings.Contains(err.Error(), "unset "+c.name) || strings.Contains(err.Error(), "\n"):
				t.Fatalf("%v: want one line naming %s with %q", err, c.name, c.want)
			}
		})
	}
}

// TestPGEnvWorksAsLibpq: the variables pgx takes as libpq does change the
// connection as libpq's would.
func TestPGEnvWorksAsLibpq(t *testing.T) {
	t.Setenv("PGCONNECT_TIMEOUT", "7")
	t.Setenv("PGAPPNAME", "pgenv-test")
	cfgs, err := sqlx.ParseConfigs(sqlx.Options{URLs: []string{"postgresql://u@127.0.0.1:1/db"}, ConnectTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if got := cfgs[0].ConnConfig.ConnectTimeout; got != 7*time.Second {
		t.Errorf("PGCONNECT_TIMEOUT=7: connect timeout %v", got)
	}
	if got := cfgs[0].ConnConfig.RuntimeParams["application_name"]; got != "pgenv-test" {
		t.Errorf("PGAPPNAME: application_name %q", got)
	}
	// A service file's section (PGSERVICEFILE, PGSERVICE) and a password
	// file (PGPASSFILE), read as libpq reads them.
	dir := t.TempDir()
	services := filepath.Join(dir, "pg_service.conf")
	passfile := filepath.Join(dir, "pgpass")
	if err := os.WriteFile(services, []byte("[bench]\nhost=10.1.2.3\nport=6543\ndbname=benchdb\nuser=alice\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(passfile, []byte("10.1.2.3:6543:benchdb:alice:s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PGSERVICEFILE", services)
	t.Setenv("PGSERVICE", "bench")
	t.Setenv("PGPASSFILE", passfile)
	cfgs, err = sqlx.ParseConfigs(sqlx.Options{URLs: []string{"postgresql://"}})
	if err != nil {
		t.Fatal(err)
	}
	if c := cfgs[0].ConnConfig; c.Host != "10.1.2.3" || c.Port != 6543 || c.Database != "benchdb" || c.User != "alice" || c.Password != "s3cret" {
		t.Errorf("PGSERVICE/PGPASSFILE: host %q port %d database %q user %q password set %v", c.Host, c.Port, c.Database, c.User, c.Password != "")
	}
}

// TestPGEnvSettingsOnServer: PGOPTIONS's and PGTZ's settings reach the
// server (its own SHOW says so), and a setting the server refuses is
// blamed on the variable, not on a server that would be down.
func TestPGEnvSettingsOnServer(t *testing.T) {
	u := testDatabaseURL(t).String()
	open := func() (*sqlx.DB, error) {
		return sqlx.Open(context.Background(), sqlx.Options{URLs: []string{u}, MaxConns: 1, Workers: 1})
	}
	t.Run("applied", func(t *testing.T) {
		t.Setenv("PGOPTIONS", "-c work_mem=1234kB")
		t.Setenv("PGTZ", "Asia/Tokyo")
		db, err := open()
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var mem, tz string
		if err := db.QueryRow(context.Background(), "SELECT current_setting('work_mem'), current_setting('TimeZone')").Scan(&mem, &tz); err != nil {
			t.Fatal(err)
		}
		if mem != "1234kB" || tz != "Asia/Tokyo" {
			t.Errorf("server's work_mem %q, TimeZone %q: want 1234kB, Asia/Tokyo", mem, tz)
		}
	})
	for _, c := range []struct{ name, value, want string }{
		{"PGOPTIONS", "-c work_mem=bogus", `invalid value for parameter "work_mem": "bogus"`},
		{"PGOPTIONS", "-c nosuch.x", "requires a value"},
		{"PGOPTIONS", "-c nosuch=1", `unrecognized configuration parameter "nosuch"`},
		{"PGTZ", "Bogus/Zone", `"TimeZone"`},
	} {
		t.Run(c.name+"="+c.value, func(t *testing.T) {
			t.Setenv(c.name, c.value)
			db, err := open()
			if err == nil {
				db.Close()
				t.Fatal("connected")
			}
			msg := err.Error()
			if !strings.Contains(msg, c.want) || !strings.Contains(msg, "unset "+c.name) || strings.Contains(msg, "is the server running") || strings.Contains(msg, "\n") {
				t.Errorf("%s: want one line with %q naming %s", msg, c.want, c.name)
			}
		})
	}
}
