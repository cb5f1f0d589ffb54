package sqlx_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stampede-bench/stampede/localpg"
	"github.com/stampede-bench/stampede/redact"
	"github.com/stampede-bench/stampede/sqlx"
)

// authServer is a private server with TLS on and these pg_hba.conf rules
// before initdb's trust rules:
//
//	host    all scramuser 127.0.0.1/32 scram-sha-256
//	hostssl all postgres  127.0.0.1/32 cert
//
// so scramuser needs its password, postgres over SSL needs the client
// certificate, and tlsuser is trusted with or without SSL.
type authServer struct {
	srv   *localpg.Server
	files localpg.TLSFiles
}

const scramPassword = "c0rrect-h0rse"

func startAuthServer(t *testing.T) *authServer {
	t.Helper()
	if _, err := localpg.FindBinDir(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	parent, err := os.MkdirTemp("", "sqlx-auth-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(parent) })
	if err := os.Chmod(parent, 0o755); err != nil { // the postgres OS user must traverse it
		t.Fatal(err)
	}
	srv, err := localpg.Start(ctx, localpg.Options{Dir: parent})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop() })
	files, err := localpg.GenerateTestCA(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	db, err := sqlx.Open(ctx, sqlx.Options{URLs: []string{srv.URL("postgres")}, MaxConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{
		"SET password_encryption = 'scram-sha-256'",
		fmt.Sprintf("CREATE ROLE scramuser LOGIN PASSWORD '%s'", scramPassword),
		"CREATE ROLE tlsuser LOGIN",
	} {
		if _, err := db.Exec(ctx, sql); err != nil {
			db.Close()
			t.Fatalf("%s: %v", sql, err)
		}
	}
	db.Close()
	if err := srv.PrependHBA(
		"host all scramuser 127.0.0.1/32 scram-sha-256",
		"hostssl all postgres 127.0.0.1/32 cert",
	); err != nil {
		t.Fatal(err)
	}
	if err := srv.EnableTLS(ctx, files); err != nil {
		t.Fatal(err)
	}
	return &authServer{srv: srv, files: files}
}

// url returns a URL for user (with password pw, if any) and parameters.
func (a *authServer) url(user, pw, params string) string {
	u := &url.URL{Scheme: "postgresql", Host: fmt.Sprintf("127.0.0.1:%d", a.srv.Port()), Path: "/postgres", RawQuery: params}
	u.User = url.User(user)
	if pw != "" {
		u.User = url.UserPassword(user, pw)
	}
	return u.String()
}

// openAndCheckSSL opens a DB on u and returns whether its connection uses SSL.
func openAndCheckSSL(ctx context.Context, u string) (bool, error) {
	db, err := sqlx.Open(ctx, sqlx.Options{URLs: []string{u}, MaxConns: 1, ConnectTimeout: 5 * time.Second})
	if err != nil {
		return false, err
	}
	defer db.Close()
	var ssl bool
	err = db.QueryRow(ctx, "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").Scan(&ssl)
	return ssl, err
}

// checkConnectError checks that err is a one-line *sqlx.ConnectError that
// does not contain secret.
func checkConnectError(t *testing.T, what string, err error, secret string) *sqlx.ConnectError {
	t.Helper()
	var ce *sqlx.ConnectError
	if !errors.As(err, &ce) {
		t.Errorf("%s: error %T %v, want a *sqlx.ConnectError", what, err, err)
		return nil
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") {
		t.Errorf("%s: error is not one line: %q", what, msg)
	}
	if secret != "" && strings.Contains(msg, secret) {
		t.Errorf("%s: error leaks the password: %q", what, msg)
	}
	return ce
}

func TestTLSAndSCRAM(t *testing.T) {
	a := startAuthServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	q := url.QueryEscape
	ca := "sslrootcert=" + q(a.files.CACert)
	client := "sslcert=" + q(a.files.ClientCert) + "&sslkey=" + q(a.files.ClientKey)

	t.Run("ssl", func(t *testing.T) {
		for _, tc := range []struct {
			name, url string
			ssl       bool
		}{
			{"disable", a.url("tlsuser", "", "sslmode=disable"), false},
			{"require", a.url("tlsuser", "", "sslmode=require"), true},
			{"verify-ca", a.url("tlsuser", "", "sslmode=verify-ca&"+ca), true},
			{"verify-full", a.url("tlsuser", "", "sslmode=verify-full&"+ca), true},
			{"client-cert", a.url("postgres", "", "sslmode=verify-full&"+ca+"&"+client), true},
			{"scram-over-ssl", a.url("scramuser", scramPassword, "sslmode=verify-full&"+ca), true},
		} {
			ssl, err := openAndCheckSSL(ctx, tc.url)
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
				continue
			}
			if ssl != tc.ssl {
				t.Errorf("%s: ssl = %v, want %v", tc.name, ssl, tc.ssl)
			}
		}
	})

	t.Run("wrong-ca", func(t *testing.T) {
		other, err := localpg.GenerateTestCA(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range []string{"verify-ca", "verify-full"} {
			_, err = openAndCheckSSL(ctx, a.url("scramuser", scramPassword, "sslmode="+mode+"&sslrootcert="+q(other.CACert)))
			if err == nil {
				t.Fatalf("%s with another CA: connected", mode)
			}
			checkConnectError(t, mode+" with another CA", err, scramPassword)
			if !strings.Contains(err.Error(), "sslrootcert") {
				t.Errorf("%s with another CA: error %q lacks the hint", mode, err)
			}
			t.Logf("%s with another CA: %v", mode, err)
		}
	})

	t.Run("no-client-cert", func(t *testing.T) {
		_, err := openAndCheckSSL(ctx, a.url("postgres", "", "sslmode=verify-full&"+ca))
		if err == nil {
			t.Fatal("cert authentication without a certificate: connected")
		}
		checkConnectError(t, "without a client certificate", err, "")
		if !strings.Contains(err.Error(), "sslcert") {
			t.Errorf("without a client certificate: error %q lacks the hint", err)
		}
		t.Logf("without a client certificate: %v", err)
	})

	t.Run("scram", func(t *testing.T) {
		if ssl, err := openAndCheckSSL(ctx, a.url("scramuser", scramPassword, "sslmode=disable")); err != nil || ssl {
			t.Errorf("right password: ssl %v, %v", ssl, err)
		}
		const wrong = "Wr0ng-Passw0rd"
		for _, u := range []string{
			a.url("scramuser", wrong, "sslmode=disable"),
			a.url("scramuser", "", "sslmode=disable&password="+wrong),
			fmt.Sprintf("host=127.0.0.1 port=%d user=scramuser password=%s dbname=postgres sslmode=disable", a.srv.Port(), wrong),
			a.url("scramuser", wrong, "sslmode=require"),
		} {
			_, err := openAndCheckSSL(ctx, u)
			if err == nil {
				t.Errorf("wrong password: connected with %s", redact.Conn(u))
				continue
			}
			ce := checkConnectError(t, "wrong password", err, wrong)
			if ce != nil && !strings.Contains(err.Error(), "check the user name and password") {
				t.Errorf("wrong password: error %q lacks the hint", err)
			}
			t.Logf("wrong password: %v", err)
		}
	})
}
